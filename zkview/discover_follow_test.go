package zkview

import (
	"context"
	"slices"
	"testing"
)

// followFixture is a Watcher's bookkeeping for a root watched whole, no
// session: the root /r adopted by its rootWatch, its listing names.
func followFixture(t *testing.T, names ...string) (*Watcher, *pathWatch) {
	t.Helper()
	cfg, err := Options{Roots: []string{"/r"}}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	w := &Watcher{cfg: cfg, ctx: context.Background(), pathSet: pathSet{paths: map[string]*pathWatch{}}, firstRead: firstRead{initDone: make(chan struct{}), initPending: 1000}}
	root := &pathWatch{path: "/r", pathFlags: pathFlags{root: true, discover: true}, own: newOwnWatch(w.ctx)}
	w.paths[root.path] = root
	rt := newRootWatch(w, root)
	w.mu.Lock()
	rt.adoptRootLocked(w)
	w.mu.Unlock()
	listRoot(w, root, names...)
	return w, root
}

// listRoot gives the root a listing, as its worker does.
func listRoot(w *Watcher, root *pathWatch, names ...string) {
	root.rp.rw.resetNames(w, root, names)
	w.mu.Lock()
	found := root.discoverLocked(w, names)
	w.mu.Unlock()
	root.via.attach(w, found) // as the root's worker does with what a merge found
}

// watchedKids is the paths watched below /r, sorted.
func watchedKids(w *Watcher) []string {
	var got []string
	for p, pw := range w.paths {
		if p != "/r" && !pw.removed {
			got = append(got, p)
		}
	}
	slices.Sort(got)
	return got
}

// TestRootFollowsNames: a root watched whole keeps no set of the
// children it follows (its watch's names say): the children a listing
// shows are watched through the root, those gone from the next listing
// are let go, a child deleted and made again is found afresh, and the
// root handed a goroutine of its own records what it follows.
func TestRootFollowsNames(t *testing.T) {
	w, root := followFixture(t, "a", "b", "lock-0000000001")
	if got, want := watchedKids(w), []string{"/r/a", "/r/b"}; !slices.Equal(got, want) {
		t.Fatalf("first listing: watching %v, want %v", got, want)
	}
	if root.followed() != nil {
		t.Errorf("the root records %v as followed: its names should say", root.followed())
	}
	if w.paths["/r/a"].rootOf() == nil {
		t.Errorf("/r/a is not watched through the root")
	}

	listRoot(w, root, "b")
	if got, want := watchedKids(w), []string{"/r/b"}; !slices.Equal(got, want) {
		t.Errorf("after a is gone: watching %v, want %v", got, want)
	}

	// b's own listing found it gone (NoNode) while the root's events
	// said "deleted, created" in one batch: found afresh.
	w.mu.Lock()
	w.paths["/r/b"].removeLocked(w, w.cfg.Now())
	w.mu.Unlock()
	if !root.rp.rw.forgetRecreated(w, root, "b") {
		t.Errorf("forgetRecreated(b) = false for a child no longer watched: it would never be found again")
	}
	if root.rp.rw.forgetRecreated(w, root, "lock-0000000001") {
		t.Errorf("forgetRecreated of a lock node = true: nothing is followed below one")
	}
	listRoot(w, root, "b", "c")
	if got, want := watchedKids(w), []string{"/r/b", "/r/c"}; !slices.Equal(got, want) {
		t.Errorf("after b made again and c: watching %v, want %v", got, want)
	}

	w.mu.Lock()
	root.leaveRootLocked(w)
	w.mu.Unlock()
	var followed []string
	for k := range root.followed() {
		followed = append(followed, k)
	}
	slices.Sort(followed)
	if want := []string{"b", "c"}; !slices.Equal(followed, want) {
		t.Errorf("handed off, the root records %v as followed, want %v", followed, want)
	}
}

// TestFoundQueuedByTheRoot: a merge below a root registers the children
// it finds (Load waits for them) and queues none of them, calling no
// root; the root's worker queues what the merge returned (attach), but
// a child let go in between stays let go, counted neither found nor read.
func TestFoundQueuedByTheRoot(t *testing.T) {
	w, root := followFixture(t)
	rt := root.via
	root.rp.rw.resetNames(w, root, []string{"a", "b"})
	w.mu.Lock()
	pending, foundBefore := w.initPending, rt.found
	found := root.discoverLocked(w, []string{"a", "b"})
	if len(found) != 2 {
		w.mu.Unlock()
		t.Fatalf("the merge returned %d paths found, want 2", len(found))
	}
	for _, rp := range found {
		if rp.pw.rootOf() != nil || rp.pw.busy || w.paths[rp.pw.path] != &rp.pw {
			t.Errorf("%s: watched through a root %v, queued %v, registered %v; want registered only",
				rp.pw.path, rp.pw.rootOf() != nil, rp.pw.busy, w.paths[rp.pw.path] == &rp.pw)
		}
	}
	if w.initPending != pending+2 || rt.found != foundBefore {
		t.Errorf("after the merge: %d paths pending, %d found by the root; want %d, %d", w.initPending, rt.found, pending+2, foundBefore)
	}
	w.paths["/r/b"].removeLocked(w, w.cfg.Now())
	w.mu.Unlock()

	rt.attach(w, found)
	w.mu.Lock()
	defer w.mu.Unlock()
	a, b := &found[0].pw, &found[1].pw
	if a.rootOf() != rt || !a.busy || !a.relist || !slices.Contains(rt.queue, a) {
		t.Errorf("/r/a: watched through the root %v, queued %v, to be listed %v; want all", a.rootOf() == rt, a.busy, a.relist)
	}
	if b.rootOf() != nil || b.busy || slices.Contains(rt.queue, b) {
		t.Errorf("/r/b, let go before the root took it, was queued")
	}
	if w.initPending != pending+1 || rt.found != foundBefore+1 {
		t.Errorf("after the root took them: %d paths pending, %d found by the root; want %d, %d", w.initPending, rt.found, pending+1, foundBefore+1)
	}
}
