package zkview

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/model/modeltest"
	"github.com/zklock/zklock/sandbox/peers"
	"github.com/zklock/zklock/zkview/queue"
)

// semView is a semaphore as `ls --json` shows it: its holders' sessions
// (sorted: leases have no order), its waiters' sessions in the order they
// will be served (each once: a Curator contender waiting for a lease has
// two nodes), the limit and its source.
type semView struct {
	Type    string
	Holders []string
	Waiters []string
	Limit   int
	Source  string
}

func (v semView) String() string {
	return fmt.Sprintf("%s holders %v waiters %v limit %d (%s)", v.Type, v.Holders, v.Waiters, v.Limit, v.Source)
}

// semViewOf reads path's semaphore from snap through ToJSON, as a script
// reading `ls --json` would.
func semViewOf(snap *model.Snapshot, path string) (semView, *model.JSONPath) {
	for _, p := range model.ToJSON(snap) {
		if p.Path != path {
			continue
		}
		v := semView{Type: p.Type, Limit: p.Limit, Source: p.LimitSrc}
		for _, n := range p.Queue {
			switch {
			case n.Role == "holder":
				v.Holders = append(v.Holders, n.Session)
			case !slices.Contains(v.Waiters, n.Session):
				v.Waiters = append(v.Waiters, n.Session)
			}
		}
		slices.Sort(v.Holders)
		return v, &p
	}
	return semView{}, nil
}

// semRequest is one client's request for a lease.
type semRequest struct {
	hold *peers.Hold
	sess string
	done bool // released by the test
}

// clientsView is what the clients themselves report: who holds a lease,
// who still waits (in request order).
func clientsView(reqs []*semRequest, limit int, src string) semView {
	v := semView{Type: "semaphore", Limit: limit, Source: src}
	for _, r := range reqs {
		switch {
		case r.hold.Held():
			v.Holders = append(v.Holders, r.sess)
		case !r.done:
			v.Waiters = append(v.Waiters, r.sess)
		}
	}
	slices.Sort(v.Holders)
	return v
}

// TestSemaphoreRealClients: semaphores of limit 1, 2 and 3 taken by stock
// Curator (InterProcessSemaphoreV2) and stock Kazoo (Semaphore) clients,
// two waiters each (and a Curator waiter that gives up). At every step the holders, the waiters in order and
// the limit that `ls --json` shows (the watched model, with persistent
// and with children watches, and a fresh Load) equal what the clients
// report; the waiters in line have their watches verified by the
// servers; the parts of a semaphore are no lock parents of their own
// (under --root either); and more holders than a stated limit (Curator
// clients of another maxLeases) or than Kazoo's max_leases flag
// over-limit (which fails `ls --check`: cmd's TestCheckCode).
func TestSemaphoreRealClients(t *testing.T) {
	c := testCluster(t)
	base := testPath(t)
	raw := rawConn(t, c.Servers())
	mkdirs(t, raw, base)
	cur := peers.StartT(t, peers.Curator, peers.Options{Servers: c.Servers(), Sessions: 6})
	kaz := peers.StartT(t, peers.Kazoo, peers.Options{Servers: c.Servers(), Sessions: 6})
	procs := map[string]*peers.Proc{"curator": cur, "kazoo": kaz}

	type semCase struct {
		lib   string
		limit int
		path  string
	}
	var cases []semCase
	var paths []string
	for _, lib := range []string{"curator", "kazoo"} {
		for _, limit := range []int{1, 2, 3} {
			p := fmt.Sprintf("%s/%s-%d", base, lib, limit)
			cases = append(cases, semCase{lib, limit, p})
			paths = append(paths, p)
		}
	}
	overCur, overKaz := base+"/curator-over", base+"/kazoo-over"
	paths = append(paths, overCur, overKaz)
	cfg := Options{Paths: paths, ServerView: true, ServerViewEvery: 200 * time.Millisecond,
		SemaphoreLimits: map[string]int{overCur: 1}}
	mon := session(t, c.Servers())
	recursive := watch(t, mon, cfg)
	childCfg := cfg
	childCfg.ChildWatches = true
	children := watch(t, session(t, c.Servers()), childCfg)
	watchers := map[string]*testWatcher{"persistent watches": recursive, "children watches": children}
	ctx := tctx(t, 4*time.Minute)

	// agree waits until both watchers show path as the clients report it,
	// then checks a fresh Load.
	agree := func(step, path string, want semView) {
		t.Helper()
		for name, w := range watchers {
			waitFor(t, w, 30*time.Second, fmt.Sprintf("%s (%s): %s", step, name, want), func(s *model.Snapshot) bool {
				got, _ := semViewOf(s, path)
				return got.String() == want.String()
			})
		}
		fresh, err := Load(tctx(t, 20*time.Second), mon, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := semViewOf(fresh, path); got.String() != want.String() {
			t.Errorf("%s: Load shows %s, clients %s\n%s", step, got, want, dump(fresh))
		}
	}
	request := func(lib string, client int, path string, limit int) *semRequest {
		t.Helper()
		p := procs[lib]
		h, err := p.Request(client, path, peers.Semaphore(limit))
		if err != nil {
			t.Fatal(err)
		}
		return &semRequest{hold: h, sess: model.SessionHex(p.Session(client))}
	}
	release := func(r *semRequest) {
		t.Helper()
		if err := r.hold.Release(ctx); err != nil {
			t.Fatal(err)
		}
		r.done = true
	}

	for _, sc := range cases {
		src := model.LimitFromData
		if sc.lib == "curator" {
			src = model.LimitDeduced // known once a lease waits
		}
		var reqs []*semRequest
		for i := range sc.limit {
			r := request(sc.lib, i, sc.path, sc.limit)
			if err := r.hold.Wait(ctx); err != nil {
				t.Fatalf("%s holder %d: %v", sc.path, i, err)
			}
			reqs = append(reqs, r)
		}
		full := clientsView(reqs, sc.limit, model.LimitFromData)
		if sc.lib == "curator" {
			full.Limit, full.Source = 0, "" // nothing waits: the limit is the clients' secret
		}
		agree(fmt.Sprintf("%s full", sc.path), sc.path, full)
		for i := range 2 {
			reqs = append(reqs, request(sc.lib, sc.limit+i, sc.path, sc.limit))
			agree(fmt.Sprintf("%s waiter %d", sc.path, i+1), sc.path, clientsView(reqs, sc.limit, src))
		}
		if sc.lib == "curator" {
			// A third waiter gives up (stock Kazoo cannot cancel one still
			// in line for its lock): it leaves the line.
			quitter := request(sc.lib, sc.limit+2, sc.path, sc.limit)
			agree(fmt.Sprintf("%s waiter 3", sc.path), sc.path, clientsView(append(reqs, quitter), sc.limit, src))
			if err := quitter.hold.Cancel(ctx); err != nil {
				t.Fatal(err)
			}
			agree(fmt.Sprintf("%s waiter 3 gone", sc.path), sc.path, clientsView(reqs, sc.limit, src))
		}
		// The waiter in line for the semaphore's lock watches the one
		// before it, as the servers confirm; the one admitted waits on a
		// children watch (not listed by wchc: inferred, never missing).
		snap := waitPolled(t, recursive, 20*time.Second, sc.path+" line verified", func(s *model.Snapshot) bool {
			_, p := semViewOf(s, sc.path)
			if p == nil || len(p.Queue) == 0 {
				return false
			}
			last := p.Queue[len(p.Queue)-1]
			return last.WatchVerified != nil && *last.WatchVerified
		})
		_, jp := semViewOf(snap, sc.path)
		for _, n := range jp.Queue {
			if n.Role == "waiting" && strings.HasPrefix(n.Watches, "/") && n.WatchVerified != nil {
				t.Errorf("%s: %s on a children watch is judged %v", sc.path, n.Node, *n.WatchVerified)
			}
		}
		if len(jp.Warnings) != 0 || unhealthy(snap) != "" {
			t.Errorf("%s: healthy semaphore warns %+v (%s)", sc.path, jp.Warnings, unhealthy(snap))
		}
		// A lease returned: the first waiter takes it, the second moves up.
		release(reqs[0])
		if err := reqs[sc.limit].hold.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		agree(fmt.Sprintf("%s after a release", sc.path), sc.path, clientsView(reqs, sc.limit, src))
		// Every lease returned, the last waiter served.
		for _, r := range reqs[1:] {
			if r.hold.Held() {
				release(r)
			}
		}
		if last := reqs[len(reqs)-1]; !last.done {
			if err := last.hold.Wait(ctx); err != nil {
				t.Fatal(err)
			}
			release(last)
		}
	}

	// Curator stores no limit: clients of maxLeases 2 hold two leases of a
	// semaphore the config says has one.
	var over []*semRequest
	for i := range 2 {
		r := request("curator", i, overCur, 2)
		if err := r.hold.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		over = append(over, r)
	}
	agree("curator over its stated limit", overCur, clientsView(over, 1, model.LimitFromConfig))
	// Kazoo refuses a client whose max_leases differs from the parent's data.
	var kover []*semRequest
	for i := range 2 {
		r := request("kazoo", i, overKaz, 2)
		if err := r.hold.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		kover = append(kover, r)
	}
	odd := request("kazoo", 2, overKaz, 3)
	if err := odd.hold.Wait(ctx); err == nil || !strings.Contains(err.Error(), "max leases") {
		t.Errorf("a Kazoo client of another max_leases: %v, want Kazoo's refusal", err)
	}
	// ...but someone may still rewrite the data below the holders.
	if _, err := raw.Set(overKaz, []byte("1"), -1); err != nil {
		t.Fatal(err)
	}
	kfresh, err := Load(ctx, mon, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := mustView(kfresh, overKaz), clientsView(kover, 1, model.LimitFromData); got.String() != want.String() {
		t.Errorf("kazoo with max_leases 1 in the data: %s, want %s", got, want)
	}
	watched := waitFor(t, recursive, 20*time.Second, "over-limit", func(s *model.Snapshot) bool {
		return modeltest.Warning(queueOf(s, overCur), model.WarnOverLimit) != nil
	})
	for _, o := range []struct {
		snap *model.Snapshot
		path string
	}{{kfresh, overCur}, {kfresh, overKaz}, {watched, overCur}} {
		if w := modeltest.Warning(queueOf(o.snap, o.path), model.WarnOverLimit); w == nil || len(w.Nodes) != 2 {
			t.Errorf("%s: over-limit %+v", o.path, w)
		}
	}

	// Under --root, the semaphores are found, their parts are not lock
	// parents of their own, and the over-limit ones still say so.
	rooted, err := Load(ctx, mon, Options{Roots: []string{base}, ServerView: true, SemaphoreLimits: cfg.SemaphoreLimits})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, q := range rooted.Queues.All() {
		got = append(got, q.Path)
		if q.State == model.PathPresent && q.Type != model.TypeSemaphore {
			t.Errorf("--root: %s is a %s", q.Path, q.Type)
		}
	}
	for _, p := range got {
		if strings.HasSuffix(p, "/leases") || strings.HasSuffix(p, "/locks") || strings.HasSuffix(p, queue.KazooLockSuffix) {
			t.Errorf("--root shows a semaphore's part %s as a lock parent: %v", p, got)
		}
	}
	for _, p := range []string{overCur, overKaz} {
		if !slices.Contains(got, p) || modeltest.Warning(queueOf(rooted, p), model.WarnOverLimit) == nil {
			t.Errorf("--root: %s missing or not over-limit: %v", p, got)
		}
	}
}

func mustView(s *model.Snapshot, path string) semView {
	v, _ := semViewOf(s, path)
	return v
}
