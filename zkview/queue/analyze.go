package queue

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// Build turns a queue's model into its immutable Queue, judging the
// links and warnings with the server view when there is one.
func Build(qm *Tracker, sv *ServerView, stale bool, staleSince time.Time) model.Queue {
	order := qm.Order() // once: a lone parent's is derived
	q := model.Queue{
		Path:  qm.Path,
		State: qm.State(),
		Depth: qm.publishedDepth(),
	}.WithRare(model.QueueRare{
		Err:      qm.errText(),
		Other:    slices.Clone(order.Other),
		Handoffs: slices.Clone(qm.handoffList()),
		Pzxid:    qm.Pzxid(),
	})
	q.SetListedAt(fromUnixNano(qm.listedAt))
	aq := believed(qm, order, sv)
	entries := aq.Entries
	nodes := make([]model.Node, len(entries))
	for i, e := range entries {
		nodes[i] = nodeOf(qm, e, qm.Nodes.Of(e.Name), sv)
	}
	q.Nodes = model.NodesOf(nodes...)

	q.Type = lockType(nodes)

	if names := aq.SplitHolders(); names != nil {
		q.SetWarnings(append(q.Warnings(), splitWarning(nodes, names)))
	}
	if cycle, real := deadlock(qm, aq, sv); cycle != nil {
		how := "the servers' watches"
		if !real {
			how = "the recipes' rules (the servers do not tell)"
		}
		q.AddWarnings(model.Warning{Code: model.WarnDeadlock, Nodes: cycle,
			Message: fmt.Sprintf("watch cycle by %s: %s → %s: each waits for the next to go, forever", how,
				listNames(cycle, " → ", 6), model.ShortName(cycle[0]))})
	}
	if w, ok := MissingWatch(q.Nodes); ok {
		q.AddWarnings(w)
	}
	if w, ok := SilentHolders(q.Nodes, sv); ok {
		q.AddWarnings(w)
	}
	if sv != nil {
		if herd, msg := herds(qm, aq, sv, nodes); herd != nil {
			q.SetWarnings(append(q.Warnings(), model.Warning{Code: model.WarnHerd, Nodes: herd, Message: msg}))
		}
	}
	if groups := order.MixedRecipes(); groups != nil {
		var all []string
		parts := make([]string, len(groups))
		for i, g := range groups {
			all = append(all, g.Nodes...)
			parts[i] = fmt.Sprintf("%s (%d): %s", g.Name, len(g.Nodes), listNames(g.Nodes, ", ", 3))
		}
		slices.SortFunc(all, func(a, b string) int { return seqCompare(order, a, b) })
		q.AddWarnings(model.Warning{Code: model.WarnMixedRecipes, Nodes: all,
			Message: "recipes that cannot see each other share this parent: " + strings.Join(parts, "; ")})
	}
	if stale && qm.Seen {
		q.SetWarnings(append(q.Warnings(), staleWarning(staleSince)))
	}
	plainEphemeral(&q, qm, sv)
	q.Type = electionType(&q, qm, order)
	DuplicateParticipants(&q)
	if sw, ok := model.SelfWaitWarning(&q); ok {
		q.SetWarnings(append(q.Warnings(), sw))
	}
	return q
}

// nodeOf is the Node of e (believed: see believed), with what the model
// read of it in r (nil: nothing yet).
func nodeOf(qm *Tracker, e ordering.Entry, r *Record, sv *ServerView) model.Node {
	n := model.Node{Name: e.Name, Seq: e.Seq, Kind: e.Kind, Recipe: e.Recipe, Role: e.Role, Believes: e.Believes}
	n.SetWatchesPredecessor(e.Watches, e.Predecessor)
	if r != nil {
		n.Session, n.DataLen = r.Session, r.DataLen
		n.SetData(r.DataBytes())
		n.Version, n.Czxid = r.Version, r.Czxid
		n.SetCtime(r.Ctime())
		n.SetMtime(r.Mtime())
		n.SinceExact = r.exact
		n.SetSince(r.Since())
		n.Link = judgeLink(qm, e, r, sv)
		if sv != nil {
			n.SetClient(sv.Clients[r.Session])
			n.SetHealth(sv.Health[r.Session])
		}
	}
	return n
}

// staleWarning says that a queue may have changed while the link was down.
func staleWarning(since time.Time) model.Warning {
	return model.Warning{Code: model.WarnStale,
		Message: fmt.Sprintf("disconnected since %s: the queue may have changed", since.Format("15:04:05"))}
}

// believed is the queue (order, qm's) as its clients believe it: the
// replay on the current list, with the Watcher's history (a node seen
// believing it holds keeps holding) and, for a node of the first
// listing that holds by sequence order yet would wait by its replay, the
// servers' evidence: it waits only if its session watches the node it
// would wait on; without the servers it is taken to have got the lock on
// an earlier list (the only way such a node arises in a working queue:
// Kazoo 2.8's readers with a writer queued behind them). Last, where the servers show a
// node's session watching another lock node of the parent, the node
// waits on it, whatever the names predict (model.ServerWaits).
func believed(qm *Tracker, order ordering.Ordering, sv *ServerView) ordering.Ordering {
	aq := ordering.Ordering{Entries: slices.Clone(order.Entries), Other: order.Other}
	for i := range aq.Entries {
		e := &aq.Entries[i]
		*e = believedEntry(qm, *e, qm.Nodes.Of(e.Name), sv)
	}
	if sv != nil { // the servers' watches decide (model/serverwaits.go)
		owner := func(i int) int64 {
			if r := qm.Nodes.Of(aq.Entries[i].Name); r != nil {
				return r.Session
			}
			return 0
		}
		model.FollowServerWaits(aq.Entries, owner, func(name string) []int64 { return sv.Watchers[model.ChildPath(qm.Abs(), name)] }, sv.Self)
	}
	return aq
}

// believedEntry is e as its client believes it (see believed); r is what
// the model knows of it.
func believedEntry(qm *Tracker, e ordering.Entry, r *Record, sv *ServerView) ordering.Entry {
	if r == nil {
		return e
	}
	e.Believes, e.Watches = r.believes, r.watches
	if !r.holdUnknown || r.believedHolder || e.Believes == ordering.RoleHolder {
		return e
	}
	if sv != nil && sv.Known[r.Session] {
		mine := sv.Watches[r.Session]
		if (e.Watches != "" && mine[model.ChildPath(qm.Abs(), e.Watches)]) || (e.Predecessor != "" && mine[model.ChildPath(qm.Abs(), e.Predecessor)]) {
			return e // it waits, and the servers show on what
		}
	}
	e.Believes, e.Watches = ordering.RoleHolder, ""
	return e
}

// seqCompare orders two names by their position in the queue.
func seqCompare(q ordering.Ordering, a, b string) int { return q.Index(a) - q.Index(b) }

func splitWarning(nodes []model.Node, names []string) model.Warning {
	byName := make(map[string]model.Node, len(nodes))
	for _, n := range nodes {
		byName[n.Name] = n
	}
	parts := make([]string, 0, len(names))
	for i, name := range names {
		if i == 4 {
			parts = append(parts, fmt.Sprintf("and %d more", len(names)-i))
			break
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", model.ShortName(name), byName[name].Recipe))
	}
	return model.Warning{Code: model.WarnSplitHolders, Nodes: names,
		Message: fmt.Sprintf("%d nodes believe they hold this lock at once: %s", len(names), strings.Join(parts, ", "))}
}

// MissingWatch is the missing-watch warning of nodes: those whose link
// the servers say is missing (judgeLink), in order; false when none is.
// A systems layer that gives the nodes its own roles judges it again on
// them: a node the recipe's order read as waiting may hold by the
// system's (HBase's read-N).
func MissingWatch(nodes model.Nodes) (model.Warning, bool) {
	var missing []string
	for _, n := range nodes.All() {
		if n.Link == model.LinkMissing {
			missing = append(missing, n.Name)
		}
	}
	if missing == nil {
		return model.Warning{}, false
	}
	return model.Warning{Code: model.WarnMissingWatch, Nodes: missing,
		Message: fmt.Sprintf("%d waiting nodes have no server watch on the node their recipe waits on (they will never wake): %s",
			len(missing), listNames(missing, ", ", 3))}, true
}

// listNames joins at most max names, sanitized, with a count of the rest.
func listNames(names []string, sep string, max int) string {
	parts := make([]string, 0, min(len(names), max)+1)
	for i, n := range names {
		if i == max {
			parts = append(parts, fmt.Sprintf("and %d more", len(names)-max))
			break
		}
		parts = append(parts, model.ShortName(n))
	}
	return strings.Join(parts, sep)
}

// judgeLink says what the servers confirm about e's wait: its session
// must hold a data watch on the node its recipe waits on (or on its
// sequence-order predecessor, which wakes it as well). Missing is only
// said when the servers know the session (its member answered), and
// either in one read, for a node older than missingGrace that its session
// has never been seen to watch for (a client needs a few round trips to
// set its first watch; one whose watch fired re-arms within as many), or
// when the queue was quiet and the watch target unchanged for
// missingGrace before the poll began. It notes on r that a wait was seen
// verified.
func judgeLink(qm *Tracker, e ordering.Entry, r *Record, sv *ServerView) model.LinkStatus {
	if e.Believes == ordering.RoleHolder || e.Watches == "" {
		return model.LinkNone
	}
	if sv == nil || r.Session == 0 || !sv.Known[r.Session] {
		return model.LinkInferred
	}
	mine := sv.Watches[r.Session]
	if mine[model.ChildPath(qm.Abs(), e.Watches)] || (e.Predecessor != "" && mine[model.ChildPath(qm.Abs(), e.Predecessor)]) {
		r.verified = true
		return model.LinkVerified
	}
	settledBy := sv.Start.Add(-missingGrace)
	old := r.CtimeMs != 0 && r.CtimeMs < settledBy.UnixMilli()
	switch {
	case old && !r.verified:
		return model.LinkMissing // never watched: one read tells
	case old && r.watchesSince < settledBy.UnixNano():
		return model.LinkMissing // was watched, and has not re-armed since its target changed
	case r.watchesSince < settledBy.UnixNano() && qm.EventAt().Before(settledBy):
		return model.LinkMissing
	}
	return model.LinkInferred
}

// SilentHolders is the silent-holder warning: holders whose member has
// not heard their session for more than half its timeout at the poll.
func SilentHolders(nodes model.Nodes, sv *ServerView) (model.Warning, bool) {
	if sv == nil {
		return model.Warning{}, false
	}
	var names, parts []string
	for _, n := range nodes.All() {
		h := n.Health()
		if (n.Role != ordering.RoleHolder && n.Believes != ordering.RoleHolder) || !h.SilentTooLong(sv.At) {
			continue
		}
		names = append(names, n.Name)
		parts = append(parts, fmt.Sprintf("%s (session %s on %s, timeout %s): %s", model.ShortName(n.Name),
			fmt.Sprintf("0x%x", n.Session), model.SanitizeString(h.Member, 0), h.Timeout, h.Text(sv.At)))
	}
	if names == nil {
		return model.Warning{}, false
	}
	return model.Warning{Code: model.WarnSilentHolder, Nodes: names,
		Message: "a holder's client has gone silent (paused or hung, still holding until its session expires): " + strings.Join(parts, "; ")}, true
}

// herds finds nodes watched by more sessions than the recipes present
// predict: a session is expected on X when it owns X, owns a node that
// waits on X by its recipe or by sequence order, or owns a node one
// further along (lockops waits on its predecessor and may watch one node
// more). Several Curator readers on the first write node are expected:
// their recipe says so. Children watches on the parent would be a herd
// too, but `wchc` does not list them (FACTS.md): not judged.
func herds(qm *Tracker, aq ordering.Ordering, sv *ServerView, nodes []model.Node) ([]string, string) {
	waitsOn := map[string][]string{} // node -> nodes that wait on it
	for _, e := range aq.Entries {
		if e.Watches != "" {
			waitsOn[e.Watches] = append(waitsOn[e.Watches], e.Name)
		}
		if e.Predecessor != "" && e.Predecessor != e.Watches {
			waitsOn[e.Predecessor] = append(waitsOn[e.Predecessor], e.Name)
		}
	}
	owner := func(name string) int64 {
		if r := qm.Nodes.Of(name); r != nil {
			return r.Session
		}
		return 0
	}
	var herd []string
	var worst string
	for i := range nodes {
		x := nodes[i].Name
		watchers := sv.Watchers[model.ChildPath(qm.Abs(), x)]
		if len(watchers) <= herdExtra {
			continue
		}
		expected := map[int64]bool{owner(x): true}
		for _, y := range waitsOn[x] {
			expected[owner(y)] = true
			for _, z := range waitsOn[y] {
				expected[owner(z)] = true
			}
		}
		extra := 0
		for _, s := range watchers {
			if !expected[s] {
				extra++
			}
		}
		if extra > herdExtra {
			nodes[i].Herd = true
			herd = append(herd, x)
			if worst == "" {
				worst = fmt.Sprintf("%s is watched by %d sessions, %d more than its recipes predict", model.ShortName(x), len(watchers), extra)
			}
		}
	}
	if herd == nil {
		return nil, ""
	}
	msg := worst + ": each change wakes them all"
	if len(herd) > 1 {
		msg = fmt.Sprintf("%d nodes watched by more sessions than predicted; %s", len(herd), msg)
	}
	return herd, msg
}

// deadlock looks for a cycle of waits: waiting node A's session watches
// node B, whose session waits on ... A. With the server view the edges
// are the real watches (a session's watch is attributed to its waiting
// nodes whose recipe waits on that node, else to all its waiting nodes
// in this queue); without, the recipes' predicted ones. It returns the
// cycle's nodes in wait order and whether the edges were real.
func deadlock(qm *Tracker, aq ordering.Ordering, sv *ServerView) ([]string, bool) {
	entries := aq.Entries
	index := make(map[string]int, len(entries))
	for i, e := range entries {
		index[e.Name] = i
	}
	edges := make([][]int, len(entries))
	if sv == nil {
		for i, e := range entries {
			if e.Believes == ordering.RoleWaiting && e.Watches != "" {
				if j, ok := index[e.Watches]; ok && j != i {
					edges[i] = append(edges[i], j)
				}
			}
		}
	} else {
		waiting := map[int64][]int{} // session -> its waiting nodes here
		for i, e := range entries {
			if r := qm.Nodes.Of(e.Name); r != nil && r.Session != 0 && e.Believes == ordering.RoleWaiting {
				waiting[r.Session] = append(waiting[r.Session], i)
			}
		}
		prefix := model.ChildPath(qm.Abs(), "")
		for s, mine := range waiting {
			for p := range sv.Watches[s] {
				if !strings.HasPrefix(p, prefix) {
					continue
				}
				b, ok := index[p[len(prefix):]]
				if !ok {
					continue
				}
				var by []int
				for _, a := range mine {
					if entries[a].Watches == entries[b].Name || entries[a].Predecessor == entries[b].Name {
						by = append(by, a)
					}
				}
				if by == nil {
					by = mine
				}
				for _, a := range by {
					if a != b {
						edges[a] = append(edges[a], b)
					}
				}
			}
		}
	}
	cycle := FindCycle(edges)
	if cycle == nil {
		return nil, sv != nil
	}
	names := make([]string, len(cycle))
	for i, c := range cycle {
		names[i] = entries[c].Name
	}
	return names, sv != nil
}

// FindCycle returns one cycle of the graph (vertices in edge order,
// starting from the lowest), or nil. Iterative depth-first search: a
// 10,000-node queue must not grow the stack.
func FindCycle(edges [][]int) []int {
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, len(edges))
	parent := make([]int, len(edges))
	type frame struct{ v, next int }
	for start := range edges {
		if color[start] != white || len(edges[start]) == 0 {
			continue
		}
		stack := []frame{{start, 0}}
		color[start] = grey
		parent[start] = -1
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next == len(edges[top.v]) {
				color[top.v] = black
				stack = stack[:len(stack)-1]
				continue
			}
			u := edges[top.v][top.next]
			top.next++
			switch color[u] {
			case white:
				color[u], parent[u] = grey, top.v
				stack = append(stack, frame{u, 0})
			case grey:
				// u ... top.v -> u is a cycle.
				cycle := []int{top.v}
				for v := top.v; v != u; {
					v = parent[v]
					cycle = append(cycle, v)
				}
				slices.Reverse(cycle)
				lo := slices.Index(cycle, slices.Min(cycle))
				return append(cycle[lo:], cycle[:lo]...)
			}
		}
	}
	return nil
}

// lockType is a lock parent's type from its nodes: rwlock when any node
// is a read or write node, mutex when it has lock nodes, unknown when it
// has none (an empty parent tells no recipe).
func lockType(nodes []model.Node) model.QueueType {
	t := model.TypeUnknown
	for _, n := range nodes {
		if n.Kind == ordering.KindRead || n.Kind == ordering.KindWrite {
			return model.TypeRWLock
		}
		t = model.TypeMutex
	}
	return t
}
