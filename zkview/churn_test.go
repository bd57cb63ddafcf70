package zkview

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/model/modeltest"
	"github.com/zklock/zklock/third_party/zk"
)

// churnClient takes and releases a lock in the classic recipe with raw
// go-zookeeper calls until ctx ends, recording each node's creation and
// the moment its delete returned.
func churnClient(ctx context.Context, c *zk.Conn, parent string, rec *churnRecord) error {
	for ctx.Err() == nil {
		p, err := c.Create(parent+"/lock-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
		if err != nil {
			return err
		}
		name := p[strings.LastIndexByte(p, '/')+1:]
		rec.created(name)
		for {
			kids, _, err := c.Children(parent)
			if err != nil {
				return err
			}
			q := ordering.Order(kids)
			i := q.Index(name)
			if i < 0 {
				return errors.New("own node vanished")
			}
			pred := q.Entries[i].Predecessor
			if pred == "" {
				break
			}
			ok, _, ch, err := c.ExistsW(parent + "/" + pred)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			select {
			case <-ch:
			case <-ctx.Done():
			}
			if ctx.Err() != nil {
				break
			}
		}
		if d := time.Duration(rand.IntN(3000)) * time.Microsecond; d > 0 && ctx.Err() == nil {
			t := time.NewTimer(d) // the hold
			select {
			case <-t.C:
			case <-ctx.Done():
			}
			t.Stop()
		}
		if err := c.Delete(p, -1); err != nil {
			return err
		}
		rec.deleted(name)
	}
	return nil
}

type churnRecord struct {
	mu   sync.Mutex
	made map[string]bool
	dels map[string]time.Time // when the delete returned
}

func (r *churnRecord) created(n string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.made[n] = true
}

func (r *churnRecord) deletedAt(n string) (time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.dels[n]
	return t, ok
}

func (r *churnRecord) deleted(n string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dels[n] = time.Now()
}

// TestChurn: 20 clients take and release one lock for several seconds.
// Every snapshot shows only nodes that existed when its listing was
// asked for, no node comes back once a snapshot dropped it, and the model
// ends equal to a fresh listing.
func TestChurn(t *testing.T) {
	// Both ways of watching: persistent recursive watches (the default)
	// and the children watches of servers before 3.6.
	t.Run(model.ModeRecursive, func(t *testing.T) { churn(t, 10*time.Second, false) })
	t.Run(model.ModeChildren, func(t *testing.T) { churn(t, 5*time.Second, true) })
}

func churn(t *testing.T, churnFor time.Duration, childWatches bool) {
	const clients = 20
	if testing.Short() {
		churnFor = 3 * time.Second
	}
	c := testCluster(t)
	p := testPath(t)
	raw := rawConn(t, c.Servers())
	mkdirs(t, raw, p)
	mon := session(t, c.Servers())
	w := watch(t, mon, Options{Paths: []string{p}, ChildWatches: childWatches})
	waitFor(t, w, 10*time.Second, "present", func(s *model.Snapshot) bool {
		q := queueOf(s, p)
		return q != nil && q.State == model.PathPresent
	})

	rec := &churnRecord{made: map[string]bool{}, dels: map[string]time.Time{}}
	ctx, cancel := context.WithTimeout(context.Background(), churnFor)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for range clients {
		cc := rawConn(t, c.Servers())
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := churnClient(ctx, cc, p, rec); err != nil && ctx.Err() == nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("client: %v", err)
	}

	kids, _, err := raw.Children(p)
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(kids)
	final := waitFor(t, w, 10*time.Second, "model equal to a fresh listing", func(s *model.Snapshot) bool {
		got := modeltest.Names(queueOf(s, p))
		sort.Strings(got)
		return slices.Equal(got, kids)
	})
	fresh, err := Load(context.Background(), session(t, c.Servers()), Options{Paths: []string{p}})
	if err != nil {
		t.Fatal(err)
	}
	sameNodes(t, queueOf(final, p), queueOf(fresh, p))
	if !childWatches {
		// Most changes were applied as changes: merged and built without
		// reading or walking the whole queue again.
		w.mu.Lock()
		merged, built := w.stats.changeMerges, w.stats.changeBuilds
		w.mu.Unlock()
		if merged == 0 || built == 0 {
			t.Errorf("%d changes merged as changes, %d queues built from them: want both", merged, built)
		}
		t.Logf("%d changes merged as changes, %d queue builds from them", merged, built)
	}

	tw := w
	tw.mu.Lock()
	updates := slices.Clone(tw.updates)
	tw.mu.Unlock()
	if len(updates) < 10 {
		t.Fatalf("only %d updates in %v of churn", len(updates), churnFor)
	}
	gone := map[string]bool{} // shown once, then dropped
	shown := map[string]bool{}
	handoffs := 0
	for i, u := range updates {
		handoffs += countKind(u.Changes, model.ChangeAcquired)
		q := queueOf(u.Snapshot, p)
		if q == nil {
			continue
		}
		now := map[string]bool{}
		for _, n := range q.Nodes.All() {
			now[n.Name] = true
			if gone[n.Name] {
				t.Errorf("update %d shows %s again after dropping it", i, n.Name)
			}
			if !rec.made[n.Name] {
				t.Errorf("update %d shows %s, which no client made", i, n.Name)
			}
			if d, ok := rec.deletedAt(n.Name); ok && d.Before(q.ListedAt()) {
				t.Errorf("update %d shows %s, deleted %v before its listing was asked for", i, n.Name, q.ListedAt().Sub(d))
			}
		}
		for n := range shown {
			if !now[n] {
				gone[n] = true
			}
		}
		shown = now
		// In a mutex queue exactly the first node holds.
		for j, n := range q.Nodes.All() {
			if (j == 0) != (n.Role == ordering.RoleHolder) {
				t.Errorf("update %d: node %d %s role %v", i, j, n.Name, n.Role)
			}
		}
	}
	t.Logf("%d nodes made, %d updates, %d handoff events", len(rec.made), len(updates), handoffs)
}

// sameNodes: the model's queue shows what a fresh read shows, node by
// node (all but the times, which the two saw at different moments).
func sameNodes(t *testing.T, got, want *model.Queue) {
	t.Helper()
	if got == nil || want == nil {
		t.Fatalf("queue missing: model %v, fresh read %v", got != nil, want != nil)
	}
	if got.Type != want.Type || got.Nodes.Len() != want.Nodes.Len() {
		t.Fatalf("model: %v with %d nodes; fresh read: %v with %d", got.Type, got.Nodes.Len(), want.Type, want.Nodes.Len())
	}
	for i := range got.Nodes.All() {
		a, b := *got.Nodes.At(i), *want.Nodes.At(i) // copies: the nodes are shared
		a.SinceExact, b.SinceExact = false, false
		a.SetSince(time.Time{})
		b.SetSince(time.Time{})
		if !reflect.DeepEqual(a, b) {
			t.Errorf("node %d:\nmodel %+v\nfresh %+v", i, a, b)
		}
	}
	codes := func(ws []model.Warning) (out []string) {
		for _, w := range ws {
			out = append(out, w.Code)
		}
		return out
	}
	if !slices.Equal(codes(got.Warnings()), codes(want.Warnings())) {
		t.Errorf("warnings: model %v, fresh read %v", codes(got.Warnings()), codes(want.Warnings()))
	}
}

func countKind(evs []model.Change, k model.ChangeKind) int {
	n := 0
	for _, e := range evs {
		if e.Kind == k {
			n++
		}
	}
	return n
}

// TestSlowConsumer: a consumer that does not read for a while then gets
// one Update with the newest snapshot and the most recent events, the
// rest counted as dropped.
func TestSlowConsumer(t *testing.T) {
	c := testCluster(t)
	p := testPath(t)
	raw := rawConn(t, c.Servers())
	mkdirs(t, raw, p)
	mon := session(t, c.Servers())
	w, err := Watch(context.Background(), mon, Options{Paths: []string{p}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// Thousands of events while nobody reads: one create and one delete
	// per listing at most, since the writer waits for each to be seen.
	var last string
	for i := range 700 {
		n := createSeq(t, raw, p, "lock-", nil)
		if i > 0 {
			if err := raw.Delete(p+"/"+last, -1); err != nil {
				t.Fatal(err)
			}
		}
		last = n
		if i%50 == 0 {
			eventually(t, 10*time.Second, "seen", func() bool { return slices.Contains(modeltest.Names(queueOf(w.Snapshot(), p)), n) })
		}
	}
	eventually(t, 10*time.Second, "last seen", func() bool {
		q := queueOf(w.Snapshot(), p)
		return q != nil && slices.Equal(modeltest.Names(q), []string{last})
	})
	// The model is already newest (Snapshot rebuilds on demand); the
	// channel's slot may still hold the publish before it for up to one
	// publish interval. A slow consumer must get the newest within a
	// couple of reads, never a backlog to work through.
	var (
		u, first model.Update
		dropped  int
	)
	deadline := time.After(10 * time.Second)
	for reads := 1; ; reads++ {
		select {
		case u = <-w.Updates():
		case <-deadline:
			t.Fatal("no update with the newest snapshot")
		}
		if reads == 1 {
			first = u
		}
		dropped += u.Dropped
		if q := queueOf(u.Snapshot, p); q != nil && slices.Equal(modeltest.Names(q), []string{last}) {
			break
		}
		if reads == 2 {
			t.Fatalf("second update read late is still not the newest: %v", modeltest.Names(queueOf(u.Snapshot, p)))
		}
	}
	if len(first.Changes) > model.MaxPendingChanges || dropped == 0 {
		t.Errorf("%d events, %d dropped: want at most %d and some dropped", len(first.Changes), dropped, model.MaxPendingChanges)
	}
	if ev := first.Changes[len(first.Changes)-1]; ev.At.Before(first.Changes[0].At) {
		t.Errorf("events out of order")
	}
}
