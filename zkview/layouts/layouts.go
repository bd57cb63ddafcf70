// The systems' layouts (package systems) in the Watcher's snapshots: a
// read of the paths and roots through a systems.LiveTree, its
// recognitions applied to the queues at every rebuild (a system's path
// that is no lock parent of the model, Kafka's controller or a Solr
// election, becomes a queue of its own), and its leader-record findings
// as leader-mismatch warnings dated by their Key.
//
// Costs: Load reads once, at most loadSystemsBudget requests; a live
// Watcher reads again every systemsEvery, at most watchSystemsBudget
// requests, to find what is new, and between those reads follows each
// system it recognised live (live.go: a change at a path it
// covers re-reads it at once). A read that stopped at its bound, or met a node it could not
// read, shows what it recognised but checks no leader record
// (Snapshot.SystemsNote says so): a record that was not read is not a
// missing record.

package layouts

import (
	"context"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/systems"
	"github.com/zklock/zklock/third_party/zk"
	"github.com/zklock/zklock/zkview"
	"github.com/zklock/zklock/zkview/queue"
)

const (
	// loadSystemsBudget bounds the requests of Load's read: about one per
	// node, pipelined, so 10,000 cost about half a second (FACTS.md).
	loadSystemsBudget = 10000
	// watchSystemsBudget and systemsEvery bound a live Watcher's reads
	// to a few hundred requests a second at most on a big tree.
	watchSystemsBudget = 5000
	systemsEvery       = 15 * time.Second
)

// systemsState is the last read of the systems' layouts.
type systemsState struct {
	recs     []sysRec
	complete bool
	at       time.Time
	// first: when each leader-mismatch Key was first seen, forgotten once
	// a read no longer shows it.
	first map[string]time.Time
	// live follows the recognitions between reads (live.go); nil for a
	// one-shot read.
	live *sysLive
}

// sysRec is one recognition with its participants as model nodes.
type sysRec struct {
	rec   systems.Recognition
	nodes []model.Node
}

// hostReader is a systems.Reader over a Watcher's reads (its in-flight
// pool, the user's paths), bounded by ctx.
type hostReader struct {
	ctx context.Context
	h   zkview.Host
}

// Get implements systems.Reader.
func (r hostReader) Get(p string) ([]byte, *zk.Stat, error) { return r.h.Get(r.ctx, p) }

// Children implements systems.Reader.
func (r hostReader) Children(p string) ([]string, *zk.Stat, error) { return r.h.Children(r.ctx, p) }

// readSystems reads cfg's roots and paths as systems' layouts: every
// recognition under a root (systems.Scan), a watched path, or the parent
// of a watched lone node (the Hadoop lock) that names it as participant.
func readSystems(ctx context.Context, r systems.Reader, cfg zkview.Options, budget int) ([]sysRec, bool) {
	tree := systems.NewLiveTree(ctx, r, budget)
	var out []sysRec
	seen := map[string]bool{}
	add := func(rec systems.Recognition) {
		if !seen[rec.Path] {
			seen[rec.Path] = true
			out = append(out, sysRec{rec: rec, nodes: participantNodes(tree, rec)})
		}
	}
	// A system's participants are its own, never a recipe's as well
	// (Kafka's brokers/ids is no mere group).
	addRecipe := func(rec systems.Recognition) {
		if !slices.ContainsFunc(out, func(sr sysRec) bool {
			return slices.Contains(sr.rec.Parts, rec.Path) || sharesParticipant(sr.rec, rec)
		}) {
			add(rec)
		}
	}
	// Named barriers first: the user's word, read before the scans
	// spend the budget. An open one is only said of a whole read (a node
	// not readable is not a node gone).
	for _, b := range cfg.Barriers {
		if rec, ok := systems.Barrier(tree, b); ok && cfg.Watches(b) && (*rec.Facts.Set || tree.Complete()) {
			add(rec)
		}
	}
	for _, root := range cfg.Roots {
		for _, rec := range systems.Scan(tree, root) {
			add(rec)
		}
	}
	for _, root := range cfg.Roots {
		for _, rec := range systems.ScanRecipes(tree, root) {
			addRecipe(rec)
		}
	}
	for _, p := range cfg.Paths {
		if rec, ok := systems.Recognize(tree, p); ok {
			add(rec)
			continue
		}
		if rec, ok := systems.Named(tree, p); ok {
			addRecipe(rec)
			continue
		}
		if kids, ok := tree.Children(p); !ok || len(kids) > 0 || p == "/" {
			continue
		}
		if rec, ok := systems.Recognize(tree, path.Dir(p)); ok && slices.ContainsFunc(rec.Participants,
			func(pt systems.Participant) bool { return pt.Path == p }) {
			add(rec)
		}
	}
	return out, tree.Complete()
}

// participantNodes is rec's participants as model nodes, with what the
// tree read of them.
func participantNodes(t systems.Tree, rec systems.Recognition) []model.Node {
	out := make([]model.Node, len(rec.Participants))
	for i, p := range rec.Participants {
		n := model.Node{Name: p.Name, Kind: p.Kind, Recipe: ordering.RecipeEphemeral, Role: p.Role, Believes: p.Role,
			Session: p.Session}.WithIdentity(p.Identity).WithPart(p.Part)
		if p.HasSeq {
			n.Seq, n.Recipe = int32(p.Seq), ordering.RecipePlain
		}
		if rec.Library != 0 {
			n.Recipe = rec.Library
		}
		if p.Ctime != 0 {
			// A waiter waits since it was made; a holder found holding
			// holds at most since then.
			n.SetCtime(time.UnixMilli(p.Ctime))
			n.SinceExact = p.Role != ordering.RoleHolder
			n.SetSince(n.Ctime())
		}
		if dir := path.Dir(p.Path); dir != rec.Path && p.Path != rec.Path {
			n.SetParent(dir)
		}
		if info, ok := t.Node(p.Path); ok {
			n.DataLen = int32(len(info.Data))
			n.SetData(info.Data[:min(len(info.Data), zkview.DefaultDataBytes)])
		}
		out[i] = n
	}
	return out
}

// layer is the systems' layouts of one Watcher (zkview.Options.Systems):
// read every systemsEvery while it runs, once for a one-shot read, and
// laid over its queues at each build (Apply).
type layer struct {
	host  zkview.Host
	cfg   zkview.Options
	every time.Duration // the full reads' spacing (systemsEvery)
	// mu guards what follows. It is taken after the Watcher's lock,
	// never before: under it in Apply and Host.Update, alone elsewhere,
	// and never held while calling the Host.
	mu sync.Mutex
	// ctx is the Watcher's while it runs (Follow); nil for a one-shot
	// read: nothing is followed live.
	ctx   context.Context
	st    systemsState
	reads int // the full reads kept (tests read it)
}

// New is the systems' layouts for the Watcher h (zkview.Options.Systems).
func New(h zkview.Host) zkview.Overlay { return newLayer(h, systemsEvery) }

// newLayer is New with the full reads every d.
func newLayer(h zkview.Host, every time.Duration) *layer {
	return &layer{host: h, cfg: h.Options(), every: every}
}

// keepLocked keeps a read's recognitions, dating each leader-mismatch
// from when its Key was first seen; it returns the changes to tell:
// which appeared and which cleared.
func (l *layer) keepLocked(recs []sysRec, complete bool, at time.Time, ticket uint64) []model.Change {
	var changes []model.Change
	live := l.st.live
	if live != nil {
		recs = live.keepFullLocked(recs, ticket, &l.st)
	}
	old := l.st.first
	first := map[string]time.Time{}
	for _, sr := range recs {
		if !complete {
			break
		}
		for _, f := range sr.rec.Findings {
			if t, ok := old[f.Key]; ok {
				first[f.Key] = t
				continue
			}
			first[f.Key] = at
			changes = append(changes, model.Change{At: at, Kind: model.ChangeWarningRaised, Path: sr.rec.Path,
				Warning: model.Warning{Code: model.WarnLeaderMismatch, Message: model.SanitizeString(f.Message, 0), Key: f.Key}})
		}
	}
	for k := range old {
		if _, ok := first[k]; !ok && complete {
			changes = append(changes, model.Change{At: at, Kind: model.ChangeWarningCleared, Warning: model.Warning{Code: model.WarnLeaderMismatch, Key: k}})
		}
	}
	if !complete {
		first = old // unchecked this time: neither cleared nor new
	}
	l.st = systemsState{recs: recs, complete: complete, at: at, first: first, live: live}
	l.reads++
	if live != nil {
		l.indexLiveLocked()
	}
	return changes
}

// ReadOnce reads the systems' layouts with Load's budget and keeps them.
func (l *layer) ReadOnce(ctx context.Context) { l.readOnce(ctx, loadSystemsBudget) }

// readOnce reads the systems' layouts and keeps them.
func (l *layer) readOnce(ctx context.Context, budget int) {
	l.mu.Lock()
	var ticket uint64
	if lv := l.st.live; lv != nil {
		lv.ticket++
		ticket = lv.ticket
	}
	l.mu.Unlock()
	recs, complete := readSystems(ctx, hostReader{ctx, l.host}, l.cfg, budget)
	if ctx.Err() != nil {
		return
	}
	l.host.Update(func() ([]model.Change, bool) {
		l.mu.Lock()
		defer l.mu.Unlock()
		return l.keepLocked(recs, complete, l.cfg.Now(), ticket), true
	})
}

// Follow reads the systems' layouts every systemsEvery while the
// Watcher runs, and at once after each reconnection: what changed while
// the Watcher was cut off (a failover, a lost leader) shows with the
// paths' own re-read, not up to systemsEvery later.
func (l *layer) Follow(ctx context.Context) {
	l.mu.Lock()
	l.ctx = ctx
	l.st.live = newSysLive()
	l.mu.Unlock()
	t := time.NewTicker(l.every)
	defer t.Stop()
	for {
		select {
		case <-l.host.Ready():
		case <-ctx.Done():
			return
		}
		resync := l.host.Resync() // before the read: a reconnection during it reads again
		l.readOnce(ctx, watchSystemsBudget)
		select {
		case <-t.C:
		case <-resync:
			t.Reset(l.every)
		case <-ctx.Done():
			return
		}
	}
}

// Apply implements zkview.Overlay (applySystems), under the Watcher's
// lock.
func (l *layer) Apply(base model.Queues, sv *queue.ServerView) (model.Queues, []string, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return applySystems(base, &l.st, barrierView{sv: sv, abs: l.host.Abs})
}

// applySystems annotates base's queues with st's recognitions and adds a
// queue for each recognised path that is none, in a new list that shares
// the chunks they do not touch; it returns the list, the paths it
// annotated, added or took out (recipe parts), and the note for
// Snapshot.SystemsNote. Its cost is the recognitions', not the list's.
// A single barrier's waiters are bv's server view's (barriers.go).
func applySystems(base model.Queues, st *systemsState, bv barrierView) (model.Queues, []string, string) {
	if st.at.IsZero() {
		return base, nil, ""
	}
	note := ""
	if !st.complete {
		note = "systems: read in part (its bound of requests, or a node not readable): leader records not checked"
	}
	changed := map[string]model.Queue{}
	get := func(p string) (model.Queue, bool) {
		if q, ok := changed[p]; ok {
			return q, true
		}
		if i, ok := base.Find(p); ok {
			return *base.At(i), true
		}
		return model.Queue{}, false
	}
	ids := sessionIdentities(st.recs)
	for i := range st.recs {
		sr := &st.recs[i]
		p := sr.rec.Path
		q, ok := get(p)
		if isSingleBarrier(&sr.rec) {
			if !ok {
				q = model.Queue{Path: p, State: model.PathPresent}
				q.SetListedAt(st.at)
				if !*sr.rec.Facts.Set {
					q.State = model.PathAbsent
				}
			}
			q = annotate(q, sr, st, bv.sv)
			singleBarrier(&q, sr, bv, ids)
			changed[p] = q
			continue
		}
		if !ok && len(sr.rec.Participants) == 1 {
			if pq, pok := get(sr.rec.Participants[0].Path); pok {
				p, q, ok = pq.Path, pq, true
			}
		}
		if !ok {
			q = model.Queue{Path: p, State: model.PathPresent}
			q.SetListedAt(st.at)
		}
		changed[p] = annotate(q, sr, st, bv.sv)
	}
	set := make([]model.Queue, 0, len(changed))
	paths := make([]string, 0, len(changed))
	for p, q := range changed {
		set = append(set, q)
		paths = append(paths, p)
	}
	slices.SortFunc(set, func(a, b model.Queue) int { return strings.Compare(a.Path, b.Path) })
	parts := recipeParts(st)
	return base.Patch(set, parts), append(paths, parts...), note
}

// annotate is q read as sr's system: its system and label, its type, its
// nodes in the system's order with the system's roles and identities
// (participants the queue does not hold are added from the read), the
// recipe warnings the system's own order overrides dropped, those that
// name waiters or holders judged again on the system's roles, and the
// leader-record findings when the read was whole.
func annotate(q model.Queue, sr *sysRec, st *systemsState, sv *queue.ServerView) model.Queue {
	rec := sr.rec
	q.SetSystem(string(rec.System))
	q.SetLabel(rec.Label)
	switch rec.Type {
	case systems.TypeElection:
		q.Type = model.TypeElection
	case systems.TypeMutex:
		q.Type = model.TypeMutex
	case systems.TypeRWLock:
		q.Type = model.TypeRWLock
	default:
		q.Type = recipeType(rec.Type, q.Type)
	}
	q.SetFacts(rec.Facts)
	nodes, other := systemNodes(q, sr)
	q.Nodes = nodes
	q.SetOther(other)
	ws := make([]model.Warning, 0, len(q.Warnings())+len(rec.Findings))
	keep := func(w model.Warning) {
		if rec.System != "" && overridden(w.Code, rec.MultiLeader) || !q.Type.Waits() && lockWarning(w.Code) {
			return
		}
		ws = append(ws, w)
	}
	// The warnings that name waiters or holders, judged again on the
	// system's roles (systemNodes gives them, a holder's link cleared):
	// the recipe's order may have read the nodes otherwise (HBase's
	// read-N, all holding, are a plain queue to the names alone). In the
	// recipe's warning's place; after the rest when only the system's
	// roles raise it.
	again := map[string]func() (model.Warning, bool){
		model.WarnMissingWatch: func() (model.Warning, bool) { return queue.MissingWatch(nodes) },
		model.WarnSilentHolder: func() (model.Warning, bool) { return queue.SilentHolders(nodes, sv) },
	}
	for _, w := range q.Warnings() {
		if judge, ok := again[w.Code]; ok {
			delete(again, w.Code)
			var still bool
			if w, still = judge(); !still {
				continue
			}
		}
		keep(w)
	}
	for _, code := range []string{model.WarnMissingWatch, model.WarnSilentHolder} {
		if judge, ok := again[code]; ok {
			if w, raised := judge(); raised {
				keep(w)
			}
		}
	}
	if st.complete {
		for _, f := range rec.Findings {
			ws = append(ws, model.Warning{Code: model.WarnLeaderMismatch, Message: model.SanitizeString(f.Message, 0),
				Nodes: slices.Clone(f.Nodes), Key: f.Key, Since: st.first[f.Key]})
		}
	}
	q.SetWarnings(ws)
	queue.DuplicateParticipants(&q) // judged again by the system's identities
	return q
}

// overridden: a recipe warning the system's own order makes moot. Its
// order decides who leads (Solr's equal sequences are no split); in a
// multi-leader election nobody waits, so no wait is missing or stuck.
func overridden(code string, multiLeader bool) bool {
	switch code {
	case model.WarnSplitHolders:
		return true
	case model.WarnMissingWatch, model.WarnHerd, model.WarnDeadlock, model.WarnSelfWait:
		return multiLeader
	}
	return false
}

// systemNodes is q's nodes in sr's order with its roles and identities,
// then the nodes it does not name; and q's other children less those it
// made nodes of.
func systemNodes(q model.Queue, sr *sysRec) (model.Nodes, []string) {
	at := make(map[string]int, q.Nodes.Len())
	for i, n := range q.Nodes.All() {
		at[nodePath(q.Path, n)] = i
	}
	used := make([]bool, q.Nodes.Len())
	nodes := make([]model.Node, 0, max(q.Nodes.Len(), len(sr.nodes)))
	other := slices.Clone(q.Other())
	for k, p := range sr.rec.Participants {
		i, ok := at[p.Path]
		if !ok && p.Path == q.Path {
			i, ok = selfNode(q) // the watched path is the lone node itself
			if !ok && q.Nodes.Len() == 1 {
				i, ok = 0, true
			}
		}
		if !ok || used[i] {
			nodes = append(nodes, sr.nodes[k])
			other = slices.DeleteFunc(other, func(o string) bool { return model.ChildPath(q.Path, o) == p.Path })
			continue
		}
		used[i] = true
		n := *q.Nodes.At(i)
		n.SetIdentity(p.Identity)
		if p.Kind == ordering.KindRead || p.Kind == ordering.KindWrite {
			// The system's grammar tells a reader from a writer where
			// the lock model read plain nodes (HBase's read-N, write-N).
			n.Kind = p.Kind
		}
		recipePart(&n, p)
		if n.Role != p.Role {
			n.Role = p.Role
		}
		n.Believes = p.Role
		if p.Role == ordering.RoleHolder {
			n.Link, n.Herd = model.LinkNone, false
			n.SetWatchesPredecessor("", "")
		}
		nodes = append(nodes, n)
	}
	for i, n := range q.Nodes.All() {
		if !used[i] {
			nodes = append(nodes, *n)
		}
	}
	return model.NodesOf(nodes...), other
}

// selfNode is the index of q's node that is the watched path itself: a
// plain ephemeral lock read by its own path names its node after the
// path's last element, beside the sessions watching it (nodes with no
// name). false when q has none.
func selfNode(q model.Queue) (int, bool) {
	for i, n := range q.Nodes.All() {
		if n.Name != "" && n.Name == path.Base(q.Path) && n.Parent() == "" && n.Recipe == ordering.RecipeEphemeral {
			return i, true
		}
	}
	return 0, false
}

// nodePath is n's full path in the queue at qpath.
func nodePath(qpath string, n *model.Node) string {
	if n.Parent() != "" {
		return model.ChildPath(n.Parent(), n.Name)
	}
	return model.ChildPath(qpath, n.Name)
}
