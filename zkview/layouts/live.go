// A recognised system's coordination followed live: when the Watcher
// sees a change at a path one of the systems' recognitions covers (its
// Path or a node below it, its leader Record, its Parts such as Kafka's
// brokers/ids), that recognition alone is read again at once (readLive:
// the recognisers on its Path over a fresh systems.LiveTree, at most
// liveSystemsBudget requests), so a failover reaches the labels,
// identities and leader-mismatch as the lock nodes do, not at the next
// full read (systemsEvery), which still finds what is new.
//
// The changes come from the watches the Watcher holds anyway: a root's
// persistent recursive watch and a path's (zkview tells them: Changed).
// A record or part no such watch covers (Solr's /overseer_elect/leader
// beside a watched election, Kafka's brokers/ids beside a watched
// /controller) gets a persistent watch of its own, one per such path,
// so that a record rewritten alone is seen at once too. With children
// watches (ZooKeeper before 3.6, Options.ChildWatches) nothing is
// followed live: the full reads tell, as before.
//
// A burst of changes costs at most one read in flight per recognition
// and one more after it. Every read, full or live, takes a ticket when
// it starts; a recognition keeps the view of the latest-started read
// that saw it, so a full read that began before a live one cannot bring
// back an older failover state.

package layouts

import (
	"context"
	"path"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/systems"
	"github.com/zklock/zklock/third_party/zk"
	"github.com/zklock/zklock/zkview"
)

const (
	// liveSystemsBudget bounds the requests of one live re-read: a
	// recognition reads its directory, its siblings and its record, a
	// few to a few dozen requests; one bigger than that (an election of
	// hundreds of candidates) is told by the full reads.
	liveSystemsBudget = 256
	// liveSettle lets a burst of changes land (a Solr leader's node and
	// its record go together) before the re-read, so that a failover
	// reads once, not once per node.
	liveSettle = 20 * time.Millisecond
)

// sysLive is the live following of the systems' recognitions, kept
// across reads (systemsState.live), guarded by layer.mu.
type sysLive struct {
	ticket uint64              // the reads started, full and live
	keys   map[string]*liveKey // by recognition Path: the systems' only
	index  map[string][]string // covered path -> keys
	aux    map[string]func()   // record watches by path: their cancel
	reads  int                 // live re-reads made
	reqs   atomic.Int64        // requests they cost
}

// liveKey is one recognition followed live.
type liveKey struct {
	cover []string // the paths whose changes re-read it
	// ticket is the read whose view of the recognition is kept: a read
	// started earlier does not replace it.
	ticket      uint64
	busy, again bool
}

// newSysLive is a live following with nothing followed yet.
func newSysLive() *sysLive {
	return &sysLive{keys: map[string]*liveKey{}, index: map[string][]string{}, aux: map[string]func(){}}
}

// coverOf is the paths whose changes may change rec: its Path (and the
// nodes below it, by their parent: systemsEventLocked), its record and
// its parts (and theirs: Kafka's registrations), and each participant's
// node not directly below Path.
func coverOf(rec *systems.Recognition) []string {
	c := append([]string{rec.Path}, rec.Parts...)
	if rec.Record != "" {
		c = append(c, rec.Record)
	}
	for _, p := range rec.Participants {
		if p.Path != rec.Path && path.Dir(p.Path) != rec.Path {
			c = append(c, p.Path)
		}
	}
	slices.Sort(c)
	return slices.Compact(c)
}

// liveOnLocked says whether the layer follows systems live: they are
// read by a running Watcher (not a one-shot read), and its watches are
// persistent ones that report every change below them.
func (l *layer) liveOnLocked() bool {
	return l.st.live != nil && l.ctx != nil && l.host.Live() && !l.cfg.ChildWatches
}

// changedLocked is the hook of every watch event at p: the recognitions
// that cover p, or p's parent, are read again.
func (l *layer) changedLocked(p string) {
	if !l.liveOnLocked() {
		return
	}
	lv := l.st.live
	for _, k := range lv.index[p] {
		l.rereadLocked(k)
	}
	if p != "/" {
		for _, k := range lv.index[path.Dir(p)] {
			l.rereadLocked(k)
		}
	}
}

// Changed implements zkview.Overlay: the recognitions that cover each
// path are read again, and a named barrier made or deleted under a root
// is read again at once (barrierChangedLocked).
func (l *layer) Changed(evs []zkview.WatchEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, ev := range evs {
		l.changedLocked(ev.Path)
		if ev.Existence && slices.Contains(l.cfg.Barriers, ev.Path) {
			l.barrierChangedLocked(ev.Path) // set or opened: read at once
		}
	}
}

// barrierChangedLocked reads the named barrier p again, at once, when
// the root watch tells that its node was created or deleted: under a
// root the systems' read is every systemsEvery, and a barrier that
// opened must not show its waiters that long (a woken Curator waiter
// even keeps watching the absent path). One Get, no watch.
func (l *layer) barrierChangedLocked(p string) {
	ctx := l.ctx
	if ctx == nil || ctx.Err() != nil {
		return
	}
	l.host.Go(func() {
		rec, read := readBarrier(ctx, hostReader{ctx, l.host}, p)
		if !read {
			return // not readable now: the next systems read tells
		}
		l.host.Update(func() ([]model.Change, bool) {
			l.mu.Lock()
			defer l.mu.Unlock()
			recs := slices.DeleteFunc(slices.Clone(l.st.recs), func(sr sysRec) bool { return sr.rec.Path == p })
			if rec != nil {
				recs = append(recs, *rec)
			}
			l.st.recs = recs
			return nil, true
		})
	})
}

// rereadLocked reads the recognition k again, off the event's path:
// at once when none is in flight, after it otherwise.
func (l *layer) rereadLocked(k string) {
	lk := l.st.live.keys[k]
	switch {
	case lk == nil || l.ctx.Err() != nil:
	case lk.busy:
		lk.again = true
	default:
		lk.busy = l.host.Go(func() { l.followLive(k, lk) })
	}
}

// followLive re-reads k until no change came during the last read.
func (l *layer) followLive(k string, lk *liveKey) {
	ctx := l.ctx
	for {
		select {
		case <-time.After(liveSettle):
		case <-ctx.Done():
			return
		}
		l.mu.Lock()
		lk.again = false
		lv := l.st.live
		lv.ticket++
		ticket := lv.ticket
		l.mu.Unlock()
		sr, found, complete := l.readLive(ctx, k, &lv.reqs)
		done := false
		update := func() ([]model.Change, bool) {
			l.mu.Lock()
			defer l.mu.Unlock()
			lv.reads++
			var changes []model.Change
			kept := complete && ctx.Err() == nil && ticket > lk.ticket
			if kept {
				changes = l.keepLiveLocked(k, lk, sr, found, ticket)
			}
			if done = !lk.again || ctx.Err() != nil; done {
				lk.busy = false
			}
			return changes, kept
		}
		l.host.Update(update)
		if done {
			return
		}
	}
}

// countingReader is a systems.Reader that counts its requests.
type countingReader struct {
	r systems.Reader
	n *atomic.Int64
}

func (c countingReader) Get(p string) ([]byte, *zk.Stat, error) {
	c.n.Add(1)
	return c.r.Get(p)
}

func (c countingReader) Children(p string) ([]string, *zk.Stat, error) {
	c.n.Add(1)
	return c.r.Children(p)
}

// readLive reads the recognition at k alone: found false when k is no
// system's coordination any more (or not one the config shows: a lone
// node's election whose watched node is gone), complete false when the
// read stopped short (then it says nothing).
func (l *layer) readLive(ctx context.Context, k string, n *atomic.Int64) (sysRec, bool, bool) {
	tree := systems.NewLiveTree(ctx, countingReader{hostReader{ctx, l.host}, n}, liveSystemsBudget)
	rec, ok := systems.Recognize(tree, k)
	if ok && !l.cfg.Watches(k) && !slices.ContainsFunc(rec.Participants,
		func(pt systems.Participant) bool { return slices.Contains(l.cfg.Paths, pt.Path) }) {
		ok = false // readSystems shows a lone node's election only with its node
	}
	if !ok {
		return sysRec{}, false, tree.Complete()
	}
	return sysRec{rec: rec, nodes: participantNodes(tree, rec)}, true, tree.Complete()
}

// keepLiveLocked puts a live read of k in the systems' state: its
// recognition replaced (or taken out when found is false), its
// leader-mismatch findings dated and told as keepLocked does, its
// coverage and the record watches brought up to date. It returns the
// changes to tell.
func (l *layer) keepLiveLocked(k string, lk *liveKey, sr sysRec, found bool, ticket uint64) []model.Change {
	st := &l.st
	var changes []model.Change
	lk.ticket = ticket
	i := slices.IndexFunc(st.recs, func(r sysRec) bool { return r.rec.Path == k })
	var old []systems.Finding
	recs := slices.Clone(st.recs)
	switch {
	case i >= 0 && found:
		old, recs[i] = recs[i].rec.Findings, sr
	case i >= 0:
		old, recs = recs[i].rec.Findings, slices.Delete(recs, i, i+1)
	case found:
		recs = append(recs, sr)
	}
	st.recs = recs
	if st.complete {
		changes = l.dateFindingsLocked(k, old, sr.rec.Findings, found, l.cfg.Now())
	}
	if found {
		lk.cover = mergeCover(lk.cover, coverOf(&sr.rec))
	}
	l.indexLiveLocked()
	return changes
}

// mergeCover is a and b, sorted, once each: a recognition that went
// keeps the paths it covered, so that it is read again when it comes
// back (Kafka's controller made anew).
func mergeCover(a, b []string) []string {
	c := append(slices.Clone(a), b...)
	slices.Sort(c)
	return slices.Compact(c)
}

// dateFindingsLocked dates the leader-mismatch findings of a live read
// of k (now, found false: none) against its last ones (old): a Key seen
// before keeps its date, a new one is raised now, one gone is cleared;
// it returns those changes.
func (l *layer) dateFindingsLocked(k string, old, now []systems.Finding, found bool, at time.Time) []model.Change {
	var changes []model.Change
	first := l.st.first
	if !found {
		now = nil
	}
	for _, f := range now {
		if _, ok := first[f.Key]; ok {
			continue
		}
		first[f.Key] = at
		changes = append(changes, model.Change{At: at, Kind: model.ChangeWarningRaised, Path: k,
			Warning: model.Warning{Code: model.WarnLeaderMismatch, Message: model.SanitizeString(f.Message, 0), Key: f.Key}})
	}
	for _, f := range old {
		if slices.ContainsFunc(now, func(n systems.Finding) bool { return n.Key == f.Key }) {
			continue
		}
		if _, ok := first[f.Key]; ok {
			delete(first, f.Key)
			changes = append(changes, model.Change{At: at, Kind: model.ChangeWarningCleared, Warning: model.Warning{Code: model.WarnLeaderMismatch, Key: f.Key}})
		}
	}
	return changes
}

// keepFullLocked merges a full read that began with ticket into the
// live following: a recognition a later live read saw keeps that view
// (taken from st, the state before), every system recognition of the
// read is followed, and one no longer read is forgotten unless a later
// live read took it out. It returns the recognitions to keep.
func (l *sysLive) keepFullLocked(recs []sysRec, ticket uint64, st *systemsState) []sysRec {
	out := slices.Clone(recs)
	for k, lk := range l.keys {
		if lk.ticket <= ticket {
			continue
		}
		out = slices.DeleteFunc(out, func(r sysRec) bool { return r.rec.Path == k })
		if i := slices.IndexFunc(st.recs, func(r sysRec) bool { return r.rec.Path == k }); i >= 0 {
			out = append(out, st.recs[i])
		}
	}
	keys := map[string]*liveKey{}
	for _, sr := range out {
		if sr.rec.System == "" {
			continue // a library recipe: its nodes are the queue's, live already
		}
		lk := l.keys[sr.rec.Path]
		if lk == nil {
			lk = &liveKey{}
		}
		if lk.ticket < ticket {
			lk.ticket, lk.cover = ticket, nil
		}
		lk.cover = mergeCover(lk.cover, coverOf(&sr.rec))
		keys[sr.rec.Path] = lk
	}
	for k, lk := range l.keys {
		if _, ok := keys[k]; !ok && (lk.ticket > ticket || lk.busy) {
			keys[k] = lk // taken out by a later live read, or being read
		}
	}
	l.keys = keys
	return out
}

// indexLiveLocked rebuilds the index of covered paths and starts or
// ends the record watches it needs.
func (l *layer) indexLiveLocked() {
	lv := l.st.live
	idx := map[string][]string{}
	for k, lk := range lv.keys {
		for _, p := range lk.cover {
			idx[p] = append(idx[p], k)
		}
	}
	lv.index = idx
	if !l.liveOnLocked() {
		return
	}
	want := map[string]bool{}
	for p := range idx {
		if !l.coveredLocked(p) {
			want[p] = true
		}
	}
	for p, cancel := range lv.aux {
		if !want[p] {
			cancel()
			delete(lv.aux, p)
		}
	}
	for p := range want {
		if _, ok := lv.aux[p]; !ok {
			ctx, cancel := context.WithCancel(l.ctx)
			if !l.host.Go(func() { l.watchRecord(ctx, p) }) {
				cancel()
				continue
			}
			lv.aux[p] = cancel
		}
	}
}

// coveredLocked says whether a watch the Watcher holds reports the
// changes at p and below it: p is below a root or a watched path, or
// is a node a watched path's parent's watch reports (a lone node's
// election directory needs one of its own).
func (l *layer) coveredLocked(p string) bool {
	under := func(r string) bool { return r == "/" || p == r || strings.HasPrefix(p, r+"/") }
	return slices.ContainsFunc(l.cfg.Roots, under) || slices.ContainsFunc(l.cfg.Paths, under)
}

// watchRecord holds a persistent watch on p, a path a recognition
// covers that no other watch reports, until ctx ends: each change at p
// (made, deleted, its data or children changed) re-reads the
// recognitions that cover it.
func (l *layer) watchRecord(ctx context.Context, p string) {
	defer l.host.RemoveWatch(context.Background(), p)
	for ctx.Err() == nil {
		resync := l.host.Resync()
		if !l.host.WaitSynced(ctx) {
			return
		}
		ch, err := l.host.AddWatch(ctx, p)
		if err != nil {
			if !retryAfter(ctx, resync, time.Second) {
				return
			}
			continue
		}
		l.recordChanged(p) // what changed before the watch was set
		if !l.followRecord(ctx, p, ch) {
			return
		}
	}
}

// retryAfter waits for the session to reconnect or d to pass; false
// when ctx ended first.
func retryAfter(ctx context.Context, resync <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-resync:
	case <-t.C:
	}
	return true
}

// followRecord re-reads what covers p at each event of its watch ch
// until the watch ends (true: set it again) or ctx does (false).
func (l *layer) followRecord(ctx context.Context, p string, ch <-chan zk.Event) bool {
	for {
		select {
		case <-ctx.Done():
			return false
		case ev, ok := <-ch:
			if !ok || ev.Type == zk.EventNotWatching {
				return true
			}
			l.recordChanged(p) // EventSession too: changes while cut off went untold
		}
	}
}

// recordChanged re-reads the recognitions that cover p.
func (l *layer) recordChanged(p string) {
	l.mu.Lock()
	l.changedLocked(p)
	l.mu.Unlock()
}
