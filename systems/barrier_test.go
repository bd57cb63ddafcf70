package systems

import (
	"testing"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// TestBarrier reads a path the user names a single barrier, as the stock
// libraries leave it (see barrier.go): set while its node exists, open
// once it is gone; the wire wins over the name for a node that cannot be
// a single barrier. Nothing finds one without the name (a double barrier
// is found by its children, as ever).
func TestBarrier(t *testing.T) {
	cases := []struct {
		name  string
		specs []spec
		want  string // "" wants no recognition; else set|open and the library
	}{
		{"curator: the client's address", []spec{persistent("/b", []byte("127.0.0.1"))}, "set curator"},
		{"curator: an IPv6 address", []spec{persistent("/b", []byte("::1"))}, "set curator"},
		{"kazoo: ensure_path, empty", []spec{persistent("/b", nil)}, "set unknown"},
		{"data of the user's", []spec{persistent("/b", []byte("x=1"))}, "set unknown"},
		{"gone: open", []spec{persistent("/other", nil)}, "open unknown"},
		{"its parent gone too: open", nil, "open unknown"},
		{"ephemeral: a plain ephemeral lock", []spec{ephemeral("/b", 0, nil)}, ""},
		{"children: no single barrier", []spec{persistent("/b", nil), ephemeral("/b/"+uuidA, 0, nil)}, ""},
	}
	for _, c := range cases {
		tree := NewMemTree()
		memBuild(tree, fakeSessions, c.specs...)
		rec, ok := Barrier(tree, "/b")
		got := ""
		if ok {
			got = "open"
			if *rec.Facts.Set {
				got = "set"
			}
			got += " " + rec.Library.String()
			if rec.Type != TypeBarrier || rec.Path != "/b" || rec.Facts.Waiters != nil {
				t.Errorf("%s: %+v", c.name, rec)
			}
			want := 0
			if *rec.Facts.Set {
				want = 1
			}
			if len(rec.Participants) != want {
				t.Fatalf("%s: participants %+v", c.name, rec.Participants)
			}
			if want == 1 {
				if p := rec.Participants[0]; p.Path != "/b" || p.Name != "b" || p.Part != model.PartBarrier ||
					p.Role != ordering.RoleHolder || p.Session != 0 || p.Ctime == 0 {
					t.Errorf("%s: participant %+v", c.name, p)
				}
			}
		}
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
		if rec, ok := Named(tree, "/b"); ok && rec.Facts != nil && rec.Facts.Set != nil {
			t.Errorf("%s: Named found a barrier without the name: %+v", c.name, rec)
		}
	}
}
