package zkview

// The oracle's judgments (TestOracle drives the churn): each is a pure
// function of snapshots, the changes and events made of them, and what
// the clients recorded, returning one line per problem.

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/sessions"
	"github.com/zklock/zklock/third_party/zk"
)

// oracleNodes are a snapshot's nodes by path and identity, and its
// queues whose nodes are known (listed).
func oracleNodes(s *model.Snapshot) (map[string]*model.Node, map[string]*model.Queue) {
	nodes, queues := map[string]*model.Node{}, map[string]*model.Queue{}
	for qi := range s.Queues.Len() {
		q := s.Queues.At(qi)
		if q.State != model.PathPresent {
			continue
		}
		queues[q.Path] = q
		for _, n := range q.Nodes.All() {
			nodes[q.Path+"\x00"+n.Key()] = n
		}
	}
	return nodes, queues
}

func departure(k model.ChangeKind) bool {
	return k == model.ChangeReleased || k == model.ChangeGaveUp || k == model.ChangeAdmitted || k == model.ChangeSessionLost
}

// oracleStep is one step of the stream being judged.
type oracleStep struct {
	prev, next         *model.Snapshot
	prevNodes, nextBy  map[string]*model.Node
	prevQs, nextQs     map[string]*model.Queue
	changes            []model.Change
	d                  *oracleDriver
	told               map[string]bool
	departs, joins     map[string]int
	acquires           map[string]int
	acquiredStillThere map[string]bool // per path
}

// checkStep judges the changes Diff told from prev to next: each node
// change is one the two snapshots show (and the clients did); each node
// that left, joined or took the lock is told exactly once; on one path,
// nothing leaves after an acquisition it let happen. told collects the
// nodes whose acquisition the stream told, across steps: their release
// must say how long they held (unless the node could not be read: a
// lease gone before its Get is not told at all, one whose Get failed
// otherwise is shown unread).
func checkStep(prev, next *model.Snapshot, changes []model.Change, d *oracleDriver, told map[string]bool) []string {
	st := &oracleStep{prev: prev, next: next, changes: changes, d: d, told: told,
		departs: map[string]int{}, joins: map[string]int{}, acquires: map[string]int{}, acquiredStillThere: map[string]bool{}}
	st.prevNodes, st.prevQs = oracleNodes(prev)
	st.nextBy, st.nextQs = oracleNodes(next)
	var out []string
	for i, c := range changes {
		if c.Node.Name == "" && c.Node.Session == 0 || st.prevQs[c.Path] == nil || st.nextQs[c.Path] == nil {
			continue // no node change, or a path not listed in both
		}
		k := c.Path + "\x00" + c.Node.Key()
		what := fmt.Sprintf("%s %s %s (held_s %v, waited_s %v)", c.Kind, c.Path, c.Node.RelName(c.Path), c.Held, c.Waited)
		if p := st.judge(i, c, k); p != "" {
			out = append(out, what+": "+p)
		}
	}
	return append(out, st.complete()...)
}

// judge is one change's problem, "" when none.
func (st *oracleStep) judge(i int, c model.Change, k string) string {
	p, n := st.prevNodes[k], st.nextBy[k]
	holder := ordering.RoleHolder
	switch c.Kind {
	case model.ChangeJoined:
		st.joins[k]++
		if p != nil || n == nil {
			return "not a node that appeared"
		}
	case model.ChangeAcquired:
		st.acquires[k]++
		st.told[k] = true
		transient := p != nil && n == nil && i+1 < len(st.changes) &&
			(st.changes[i+1].Kind == model.ChangeReleased || st.changes[i+1].Kind == model.ChangeSessionLost) &&
			st.changes[i+1].Node.Key() == c.Node.Key()
		switch {
		case transient:
		case n == nil || n.Role != holder:
			return "not a holder in the newer snapshot"
		case p != nil && p.Role == holder:
			return "it held already"
		default:
			st.acquiredStillThere[c.Path] = true
		}
	default:
		if !departure(c.Kind) {
			return ""
		}
		st.departs[k]++
		if st.acquiredStillThere[c.Path] && c.Kind != model.ChangeAdmitted {
			return "told after an acquisition on its path: a departure comes before what it lets happen"
		}
		if p == nil || n != nil {
			return "not a node that left"
		}
		transient := i > 0 && st.changes[i-1].Kind == model.ChangeAcquired && st.changes[i-1].Node.Key() == c.Node.Key()
		return st.judgeDeparture(c, k, p, transient)
	}
	return ""
}

// judgeDeparture judges a node that left: how, and for how long it held.
func (st *oracleStep) judgeDeparture(c model.Change, k string, p *model.Node, transient bool) string {
	switch c.Kind {
	case model.ChangeSessionLost:
		return "no session ended during the churn"
	case model.ChangeReleased:
		// A split holder (by sequence waiting, by its own recipe holding)
		// leaves as released, held at most since its creation.
		// (A waiter that took the lock and left between two snapshots
		// held by sequence: told acquired, then released.)
		split := !transient && p.Role != ordering.RoleHolder && p.Believes == ordering.RoleHolder
		if !transient && p.Role != ordering.RoleHolder && !split {
			return "it never held"
		}
		start, b := p.Tenure()
		if split {
			start, b = p.Ctime(), model.BoundEarliest
		}
		if j := c.ToJSON(); j.HeldS == nil || j.HeldB == "" {
			return "no held_s or held_bound on a release"
		}
		if split && !strings.Contains(c.Text(), "believed it held") {
			return fmt.Sprintf("a split holder's release told %q, not by what it believed", c.Text())
		}
		switch {
		case transient:
			if c.Held <= 0 {
				return "no held_s for a hold the handoff history dates"
			}
		case b == model.BoundExact:
			if d := c.Held - c.At.Sub(start); d < -time.Millisecond || d > time.Millisecond {
				return fmt.Sprintf("held_s is not the hold seen: it held from %s to %s", start.Format("15:04:05.000"), c.At.Format("15:04:05.000"))
			}
		case st.told[k] && !p.Ctime().IsZero():
			return fmt.Sprintf("no exact hold, though the stream told its acquisition (since %s, bound %s, ctime %s, session %x)",
				start.Format("15:04:05.000"), b, p.Ctime().Format("15:04:05.000"), p.Session)
		case c.HeldBound != b:
			return fmt.Sprintf("held_s told %s, its start is known as %s", c.HeldBound, b)
		case b == model.BoundEarliest && (c.Held-c.At.Sub(start) < -time.Millisecond || c.Held-c.At.Sub(start) > time.Millisecond):
			return fmt.Sprintf("held_s %s is not the time since its creation at %s", c.Held, start.Format("15:04:05.000"))
		}
	case model.ChangeGaveUp:
		if p.Role == ordering.RoleHolder {
			return "it held"
		}
		if p.Believes == ordering.RoleHolder {
			return "it believed it held (split holders): a release, not a give-up"
		}
		if lease, ok := st.d.leaseFor(p.Parent(), p.Name); ok && st.leaseShown(c.Path, lease, p.Session) {
			return "its contender got lease " + lease + ", shown holding"
		}
	case model.ChangeAdmitted:
		lease, ok := st.d.leaseFor(p.Parent(), p.Name)
		switch {
		case p.Lease || p.Role == ordering.RoleHolder:
			return "not a contender waiting in an admission lock"
		case !ok && c.Lease != "" && st.leaseShown(c.Path, c.Lease, p.Session):
			// The snapshots showed this lease holding: the leases/ and
			// locks/ listings are two reads, so a contender that gives
			// up (deleting its waiting lease and its lock node) just as
			// its lease comes within the limit can be read with the
			// lease holding and the lock node gone. The stream follows
			// the snapshots here; the snapshots are one listing late.
			return ""
		case !ok:
			return "its contender gave up"
		case lease != c.Lease:
			return fmt.Sprintf("told lease %s; its contender got %s", c.Lease, lease)
		}
	}
	return ""
}

// leaseShown: either snapshot shows lease holding on path, owned by
// session.
func (st *oracleStep) leaseShown(path, lease string, session int64) bool {
	for _, q := range []*model.Queue{st.prevQs[path], st.nextQs[path]} {
		for _, n := range q.Nodes.All() {
			if n.Lease && n.Name == lease && n.Role == ordering.RoleHolder && n.Session == session {
				return true
			}
		}
	}
	return false
}

// complete lists the nodes that left, joined or took the lock on a
// judged path and were not told exactly once.
func (st *oracleStep) complete() []string {
	var out []string
	judged := func(k string) bool {
		path, _, _ := strings.Cut(k, "\x00")
		return st.prevQs[path] != nil && st.nextQs[path] != nil
	}
	show := func(k string) string { return strings.ReplaceAll(k, "\x00", " ") }
	for k, p := range st.prevNodes {
		if !judged(k) {
			continue
		}
		n := st.nextBy[k]
		switch {
		case n == nil && st.departs[k] != 1:
			out = append(out, fmt.Sprintf("%s left, told %d times", show(k), st.departs[k]))
		case n != nil && p.Role != ordering.RoleHolder && n.Role == ordering.RoleHolder && st.acquires[k] != 1:
			out = append(out, fmt.Sprintf("%s took the lock, told %d times", show(k), st.acquires[k]))
		}
	}
	for k := range st.nextBy {
		if judged(k) && st.prevNodes[k] == nil && st.joins[k] != 1 {
			out = append(out, fmt.Sprintf("%s joined, told %d times", show(k), st.joins[k]))
		}
	}
	return out
}

// checkEventOrder: within one update, the console's events of one path
// at one moment tell a node's going before the handoff it lets happen.
func checkEventOrder(evs []model.Change) []string {
	type moment struct {
		path string
		at   int64
	}
	handoff := map[moment]string{}
	var out []string
	for _, e := range evs {
		m := moment{e.Path, e.At.UnixNano()}
		switch e.Kind {
		case model.ChangeAcquired:
			handoff[m] = e.Text()
		case model.ChangeReleased, model.ChangeGaveUp:
			if h, ok := handoff[m]; ok {
				out = append(out, fmt.Sprintf("event %q told after %q", e.Text(), h))
			}
		}
	}
	return out
}

// checkWatcherEvents judges the console's events of one update (the
// Watcher's own changes, between the snapshots prev and next): a node
// that believes it holds (split holders) is told so when it joins, and
// leaves as released, never as a waiter giving up; each lease change of
// a semaphore carries the holders right after it (counted from prev's,
// one step per return or take), ending at what next shows.
func checkWatcherEvents(prev, next *model.Snapshot, evs []model.Change) []string {
	var out []string
	count := map[string]int{}    // semaphore path -> holders so far
	holding := map[string]bool{} // path and lease name -> holds so far
	for _, q := range prev.Queues.All() {
		if q.Type == model.TypeSemaphore && q.State == model.PathPresent {
			count[q.Path], _ = q.LeaseCounts()
			for _, n := range q.Nodes.All() {
				holding[q.Path+"\x00"+n.Name] = n.Lease && n.Role == ordering.RoleHolder
			}
		}
	}
	for _, e := range evs {
		n := &e.Node
		split := n.Role != ordering.RoleHolder && n.Believes == ordering.RoleHolder && !n.Lease
		switch {
		case split && e.Kind == model.ChangeJoined && !strings.Contains(e.Text(), "believes it holds"):
			out = append(out, fmt.Sprintf("event %q: a node that believes it holds told as a waiter", e.Text()))
		case split && e.Kind == model.ChangeGaveUp:
			out = append(out, fmt.Sprintf("event %q: a node that believed it held told as giving up", e.Text()))
		}
		if e.Type != model.TypeSemaphore {
			continue
		}
		h, ok := count[e.Path]
		switch {
		case e.Kind == model.ChangeListed:
			count[e.Path] = e.Holders
			continue
		case !ok || !n.Lease:
			continue
		case e.Kind == model.ChangeReleased:
			h--
		case e.Kind == model.ChangeAcquired:
			h++
			holding[e.Path+"\x00"+n.Name] = true
		case e.Kind == model.ChangeJoined && holding[e.Path+"\x00"+n.Name]:
			h-- // a lease seen holding, told waiting (the limit showed later)
			holding[e.Path+"\x00"+n.Name] = false
		case e.Kind != model.ChangeJoined && e.Kind != model.ChangeGaveUp:
			continue
		}
		count[e.Path] = h
		if e.Holders != h {
			out = append(out, fmt.Sprintf("event %q: holders %d, %d right after it", e.Text(), e.Holders, h))
			count[e.Path] = e.Holders // one problem, not every event after it
		}
	}
	for path, h := range count {
		q := next.Queue(path)
		if q == nil || q.State != model.PathPresent || q.Type != model.TypeSemaphore {
			continue
		}
		if want, _ := q.LeaseCounts(); h != want {
			out = append(out, fmt.Sprintf("%s: the lease events end at %d holders, the snapshot shows %d", path, h, want))
		}
	}
	return out
}

// checkSessionsAgree: `sessions --json` gives every node the kind,
// since and since_bound that `ls --json` gives it.
func checkSessionsAgree(s *model.Snapshot) []string {
	type dated struct{ kind, since, bound string }
	ls := map[string]dated{}
	for _, p := range model.ToJSON(s) {
		for _, n := range p.Queue {
			ls[p.Path+" "+n.Parent+" "+n.Node] = dated{n.Kind, n.Since, n.SinceBound}
		}
	}
	var out []string
	for _, ss := range sessions.SessionsJSON(sessions.SessionsOf(s)).Sessions {
		for _, list := range [][]sessions.JSONSessionNode{ss.Holds, ss.Waits} {
			for _, n := range list {
				k := n.Path + " " + n.Parent + " " + n.Node
				want, ok := ls[k]
				got := dated{n.Kind, n.Since, n.SinceBound}
				if !ok || got != want {
					out = append(out, fmt.Sprintf("sessions dates %s %+v, ls %+v", k, got, want))
				}
			}
		}
	}
	return out
}

// checkStayingHolders: once the churn is over, one holder per recipe
// stays; two one-off reads (as `zklock sessions` and `ls` make) date
// each hold the same, and the same as `ls`.
func checkStayingHolders(t *testing.T, servers []string, d *oracleDriver, raw *zk.Conn, cfg Options) {
	t.Helper()
	oc := &oracleClient{c: raw, d: d}
	for _, n := range []struct{ dir, name string }{
		{d.mutexPath(), "_c_00000000-0000-0000-0000-000000000001-lock-"},
		{d.rwPath(), "_c_00000000-0000-0000-0000-000000000002-__READ__"},
		{d.latchPath(), "_c_00000000-0000-0000-0000-000000000003-latch-"},
		{d.curatorSemPath() + "/leases", "_c_00000000-0000-0000-0000-000000000004-lease-"},
	} {
		if _, err := oc.create(n.dir, n.name, nil, zk.FlagEphemeral|zk.FlagSequence); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := oc.create(d.kazooSemPath(), "000000000000000000000000000000aa", nil, zk.FlagEphemeral); err != nil {
		t.Fatal(err)
	}
	mon := session(t, servers)
	read := func() (*model.Snapshot, map[string]string) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		s, err := Load(ctx, mon, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range checkSessionsAgree(s) {
			t.Errorf("one-off read: %s", p)
		}
		holds := map[string]string{}
		for _, ss := range sessions.SessionsJSON(sessions.SessionsOf(s)).Sessions {
			for _, h := range ss.Holds {
				holds[h.Path+" "+h.Parent+" "+h.Node] = h.Since
			}
		}
		return s, holds
	}
	s1, first := read()
	// The second read a few milliseconds later: a date that is the
	// read's own would differ (the dates have milliseconds).
	eventually(t, time.Second, "the clock to move on", func() bool { return time.Since(s1.At) > 5*time.Millisecond })
	_, second := read()
	if len(first) < 5 {
		t.Errorf("one-off read: %d holds, want the 5 that stay: %v", len(first), first)
	}
	for k, since := range first {
		if second[k] != since {
			t.Errorf("one-off reads date the hold of %s %s, then %s", k, since, second[k])
		}
	}
}
