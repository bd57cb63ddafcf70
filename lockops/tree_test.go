package lockops

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/third_party/zk"
)

// TestPathsAroundLocks: EnsurePath makes the missing part of a path and
// says which part it made; Children lists through the chroot; RemovePath
// removes an empty persistent node, leaves one with children and refuses
// a lock node.
func TestPathsAroundLocks(t *testing.T) {
	base := lockPath(t)
	s := connect(t, WithChroot(base))
	ctx := tctx(t, 20*time.Second)
	if err := connect(t).makePath(ctx, base, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}

	made, err := s.EnsurePath(ctx, "/a/b")
	if err != nil || !slices.Equal(made, []string{"/a", "/a/b"}) {
		t.Fatalf("EnsurePath /a/b: made %q, %v", made, err)
	}
	made, err = s.EnsurePath(ctx, "/a/b/c")
	if err != nil || !slices.Equal(made, []string{"/a/b/c"}) {
		t.Fatalf("EnsurePath /a/b/c over /a/b: made %q, %v, want only /a/b/c", made, err)
	}
	if made, err := s.EnsurePath(ctx, "/a/b/c"); err != nil || len(made) != 0 {
		t.Fatalf("EnsurePath of an existing path: made %q, %v", made, err)
	}
	if _, err := s.EnsurePath(ctx, "a/b"); !errors.Is(err, ErrBadPath) {
		t.Errorf("EnsurePath of a relative path: %v, want ErrBadPath", err)
	}

	l := NewLock(s, "/a/b")
	if err := l.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	kids, err := s.Children(ctx, "/a/b")
	slices.Sort(kids)
	if want := []string{"c", l.Node()}; err != nil || !slices.Equal(kids, slices.Sorted(slices.Values(want))) {
		t.Fatalf("Children /a/b: %q, %v, want %q", kids, err, want)
	}
	if _, err := s.Children(ctx, "/nowhere"); !errors.Is(err, zk.ErrNoNode) {
		t.Errorf("Children of an absent path: %v, want zk.ErrNoNode", err)
	}

	if err := s.RemovePath(ctx, "/a/b/"+l.Node()); !errors.Is(err, ErrEphemeral) {
		t.Errorf("RemovePath of a lock node: %v, want ErrEphemeral", err)
	}
	if l.State() != ordering.LockHolding {
		t.Errorf("the lock after RemovePath of its node: %s", l.State())
	}
	if err := s.RemovePath(ctx, "/a/b"); !errors.Is(err, zk.ErrNotEmpty) {
		t.Errorf("RemovePath of a parent with children: %v, want zk.ErrNotEmpty", err)
	}
	if err := s.RemovePath(ctx, "/a/b/c"); err != nil {
		t.Fatalf("RemovePath of an empty node: %v", err)
	}
	if err := s.RemovePath(ctx, "/a/b/c"); err != nil {
		t.Errorf("RemovePath of an absent node: %v", err)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/a/b", "/a"} {
		if err := s.RemovePath(ctx, p); err != nil {
			t.Fatalf("RemovePath %s once empty: %v", p, err)
		}
	}
	if kids := children(t, connect(t), base); len(kids) != 0 {
		t.Errorf("left under %s: %q", base, kids)
	}
}

func TestAncestors(t *testing.T) {
	for p, want := range map[string][]string{
		"/":      nil,
		"/a":     {"/a"},
		"/a/b/c": {"/a", "/a/b", "/a/b/c"},
	} {
		if got := slices.Collect(ancestors(p)); !slices.Equal(got, want) {
			t.Errorf("ancestors(%q) = %q, want %q", p, got, want)
		}
	}
}
