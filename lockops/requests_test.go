package lockops

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/third_party/zk"
)

// TestRequestsThroughChroot: the one-request calls take and return paths
// as the user sees them under a chroot, their watches fire, EventPath
// names an event's node below the chroot, and a bad path or an ended
// context is refused without a request.
func TestRequestsThroughChroot(t *testing.T) {
	base := lockPath(t)
	ctx := tctx(t, 30*time.Second)
	if err := connect(t).makePath(ctx, base, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	s := connect(t, WithChroot(base))
	acl := zk.WorldACL(zk.PermAll)

	all, err := s.AddWatch(ctx, "/", true)
	if err != nil {
		t.Fatalf("AddWatch /: %v", err)
	}
	if made, err := s.Create(ctx, "/n", []byte("data"), 0, acl); err != nil || made != "/n" {
		t.Fatalf("Create /n: %q, %v", made, err)
	}
	if ev := nextEvent(t, all, "the recursive watch's event for /n"); ev.Type != zk.EventNodeCreated || s.EventPath(ev) != "/n" {
		t.Errorf("recursive watch: %+v (EventPath %q), want /n created", ev, s.EventPath(ev))
	}
	kids, st, ch, err := s.ChildrenW(ctx, "/n")
	if err != nil || len(kids) != 0 || st.NumChildren != 0 {
		t.Fatalf("ChildrenW /n: %q, %+v, %v", kids, st, err)
	}
	seq, err := s.Create(ctx, "/n/e-", nil, zk.FlagEphemeral|zk.FlagSequence, acl)
	if err != nil || !strings.HasPrefix(seq, "/n/e-") {
		t.Fatalf("Create /n/e-: %q, %v, want /n/e-<seq>", seq, err)
	}
	if ev := nextEvent(t, ch, "the children watch on /n"); ev.Type != zk.EventNodeChildrenChanged || s.EventPath(ev) != "/n" {
		t.Errorf("children watch: %+v (EventPath %q), want /n's children changed", ev, s.EventPath(ev))
	}
	if ev := nextEvent(t, all, "the recursive watch's event for "+seq); s.EventPath(ev) != seq {
		t.Errorf("recursive watch: %+v (EventPath %q), want %s", ev, s.EventPath(ev), seq)
	}
	if n := s.PersistentBacklog(all); n != 0 {
		t.Errorf("PersistentBacklog after reading every event: %d", n)
	}

	if err := s.Sync(ctx, "/"); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	kids, st, err = s.ChildrenStat(ctx, "/n")
	if want := []string{seq[len("/n/"):]}; err != nil || !slices.Equal(kids, want) || st.NumChildren != 1 {
		t.Errorf("ChildrenStat /n: %q, %+v, %v, want %q", kids, st, err, want)
	}
	if data, st, err := s.Get(ctx, "/n"); err != nil || string(data) != "data" || st.NumChildren != 1 {
		t.Errorf("Get /n: %q, %+v, %v", data, st, err)
	}
	if kids, _, err := s.ChildrenStat(ctx, "/"); err != nil || !slices.Equal(kids, []string{"n"}) {
		t.Errorf("ChildrenStat of the chroot: %q, %v, want [n]", kids, err)
	}
	if got := children(t, connect(t), base+"/n"); !slices.Equal(got, kids) {
		t.Errorf("the node under the server's path %s/n: %q", base, got)
	}

	ok, _, ch, err := s.ExistsW(ctx, "/later")
	if err != nil || ok {
		t.Fatalf("ExistsW /later: %v, %v", ok, err)
	}
	if _, err := s.Create(ctx, "/later", nil, zk.FlagEphemeral, acl); err != nil {
		t.Fatal(err)
	}
	if ev := nextEvent(t, ch, "the exists watch on /later"); ev.Type != zk.EventNodeCreated || s.EventPath(ev) != "/later" {
		t.Errorf("exists watch: %+v (EventPath %q), want /later created", ev, s.EventPath(ev))
	}
	if ok, st, err := s.Exists(ctx, "/later"); err != nil || !ok || st.EphemeralOwner != s.ID() {
		t.Errorf("Exists /later: %v, %+v, %v", ok, st, err)
	}
	if err := s.Delete(ctx, "/later", -1); err != nil {
		t.Fatalf("Delete /later: %v", err)
	}
	if ok, _, err := s.Exists(ctx, "/later"); err != nil || ok {
		t.Errorf("Exists /later after Delete: %v, %v", ok, err)
	}

	if err := s.RemovePersistentWatch(ctx, "/"); err != nil {
		t.Fatalf("RemovePersistentWatch /: %v", err)
	}
	for range all { // the events already in it, then closed
	}

	if _, _, err := s.Get(ctx, "n"); !errors.Is(err, ErrBadPath) {
		t.Errorf("Get of a path without its slash: %v, want ErrBadPath", err)
	}
	ended, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := s.ChildrenStat(ended, "/n"); !errors.Is(err, context.Canceled) {
		t.Errorf("ChildrenStat with an ended context: %v, want context.Canceled", err)
	}
	if _, err := s.AddWatch(ended, "/n", true); !errors.Is(err, context.Canceled) {
		t.Errorf("AddWatch with an ended context: %v, want context.Canceled", err)
	}
}

// nextEvent receives one event from ch, failing the test if none comes
// within 10 s or ch is closed.
func nextEvent(t *testing.T, ch <-chan zk.Event, what string) zk.Event {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatalf("%s: the channel closed", what)
		}
		return ev
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: nothing within 10 s", what)
	}
	return zk.Event{}
}
