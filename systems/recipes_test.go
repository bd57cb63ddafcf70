package systems

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/model"
)

// The layouts below are the ones observed from the stock libraries (see
// recipes.go): names, modes and data bytes as a dump of the tree showed.

// persistentSeq is a persistent sequential node (a queue item).
func persistentSeq(prefix string, data []byte) spec { return spec{path: prefix, data: data, seq: true} }

// curatorItem is Curator's ItemSerializer bytes of one item.
func curatorItem(s string) []byte {
	b := append([]byte{0, 1, 0, 1, 1}, byte(len(s)>>24), byte(len(s)>>16), byte(len(s)>>8), byte(len(s)))
	return append(append(b, s...), 2)
}

const (
	uuidA = "3618a6bc-b6b6-4dee-a5af-2e07ef1d5017"
	uuidB = "be07a4b7-d2e7-491b-a059-e0b3ec3c237f"
	hexA  = "2a5eff79fc04447d9147c2c3abb55666"
	hexB  = "5a9053b3b2b5458abaa0af57f24f0f03"
)

// summary is a recognition as the table compares it: type, then each
// participant as identity:part-or-role in order, then the facts.
func summary(r Recognition) string {
	parts := []string{string(r.Type)}
	for _, p := range r.Participants {
		word := p.Part
		if word == "" {
			word = p.Role.String()
		}
		parts = append(parts, p.Identity+":"+word)
	}
	if f := r.Facts; f != nil {
		if f.Ready != nil {
			parts = append(parts, fmt.Sprintf("ready=%v", *f.Ready))
		}
		if f.Entered > 0 {
			parts = append(parts, fmt.Sprintf("entered=%d", f.Entered))
		}
		if f.Value != nil {
			parts = append(parts, fmt.Sprintf("value=%v", *f.Value))
		}
		if f.Holder != "" {
			parts = append(parts, "holder="+f.Holder, "expires="+f.Expires.Format(time.RFC3339))
		}
		if f.Depth != nil {
			parts = append(parts, fmt.Sprintf("depth=%d", *f.Depth))
		}
	}
	return strings.Join(parts, " ")
}

// TestRecognizeRecipe reads each library recipe's layout and its
// look-alikes ("" wants no recognition), through Named (which also reads
// counters) and RecognizeRecipe (which must not).
func TestRecognizeRecipe(t *testing.T) {
	ip := []byte("127.0.0.1")
	lease := `{"version": 1, "holder": "lease-holder-1", "end": "2026-11-27T07:21:00"}`
	cases := []struct {
		name  string
		specs []spec
		at    string
		want  string
	}{
		{"curator selector", []spec{
			ephSeq(curatorNode("/s", "lock-", 1), 1, []byte("sel-b")),
			ephSeq(curatorNode("/s", "lock-", 0), 0, []byte("sel-a")),
		}, "/s", "election sel-b:holder sel-a:waiting"},
		{"curator selector of one: too little to tell", []spec{
			ephSeq(curatorNode("/s", "lock-", 0), 0, []byte("sel-a")),
		}, "/s", ""},
		{"curator mutex, default data", []spec{
			ephSeq(curatorNode("/s", "lock-", 0), 0, ip), ephSeq(curatorNode("/s", "lock-", 1), 1, ip),
		}, "/s", ""},
		{"curator mutex, one default data", []spec{
			ephSeq(curatorNode("/s", "lock-", 0), 0, []byte("sel-a")), ephSeq(curatorNode("/s", "lock-", 1), 1, []byte("::1")),
		}, "/s", ""},
		{"zklock's own lock, curator style", []spec{
			ephSeq(curatorNode("/s", "lock-", 0), 0, []byte("ops@db-1 pid 4242 nightly")),
		}, "/s", ""},
		{"curator latch", []spec{ephSeq(curatorNode("/s", "latch-", 0), 0, []byte("id"))}, "/s", ""},
		{"kazoo election (a lock with an identifier)", []spec{
			ephSeq("/e/"+hexA+"__lock__", 0, []byte("elect-a")),
		}, "/e", ""},
		{"curator double barrier", []spec{
			ephemeral("/b/"+uuidA, 0, ip), ephemeral("/b/"+uuidB, 1, ip),
		}, "/b", "barrier 127.0.0.1:entered 127.0.0.1:entered ready=false entered=2"},
		{"curator double barrier, ready", []spec{
			ephemeral("/b/"+uuidA, 0, ip), persistent("/b/ready", ip),
		}, "/b", "barrier 127.0.0.1:entered ready=true entered=1"},
		{"kazoo double barrier", []spec{
			ephemeral("/b/"+hexB, 0, []byte("db-a")), ephemeral("/b/"+hexA, 1, []byte("db-b")),
		}, "/b", "barrier db-a:entered db-b:entered ready=false entered=2"},
		{"kazoo semaphore (max_leases in the parent)", []spec{
			persistent("/b", []byte("2")), ephemeral("/b/"+hexA, 0, []byte("w")),
		}, "/b", ""},
		{"uuid names, persistent", []spec{persistent("/b/"+uuidA, nil)}, "/b", ""},
		{"barrier mixing libraries", []spec{ephemeral("/b/"+uuidA, 0, ip), ephemeral("/b/"+hexA, 1, nil)}, "/b", ""},
		{"kazoo party", []spec{
			ephemeral("/p/"+hexB+"__party__", 0, []byte("party-a")), ephemeral("/p/"+hexA+"__party__", 1, []byte("party-b")),
		}, "/p", "membership party-a:member party-b:member"},
		{"kazoo shallow party", []spec{
			ephemeral("/p/"+hexA+"-party-b", 1, []byte("party-b")), ephemeral("/p/"+hexB+"-party-a", 0, []byte("party-a")),
		}, "/p", "membership party-b:member party-a:member"},
		{"party names, persistent", []spec{persistent("/p/"+hexA+"__party__", nil)}, "/p", ""},
		{"curator group", []spec{
			ephemeral("/g/member-a", 0, []byte("payload-a")), ephemeral("/g/member-b", 1, []byte("payload-b")),
			ephemeral("/g/_c_"+uuidA+"-member-c", 2, nil),
		}, "/g", "membership member-a:member member-b:member member-c:member"},
		{"one ephemeral child (the plain ephemeral lock)", []spec{ephemeral("/g/member-a", 0, nil)}, "/g", ""},
		{"group with a persistent child", []spec{
			ephemeral("/g/member-a", 0, nil), persistent("/g/config", nil),
		}, "/g", ""},
		{"curator distributed queue", []spec{
			persistentSeq("/q/queue-", curatorItem("job-1")), persistentSeq("/q/queue-", curatorItem("job-2")),
		}, "/q", "queue :item :item depth=2"},
		{"queue- names, not curator's items", []spec{persistentSeq("/q/queue-", []byte("job-1"))}, "/q", ""},
		{"queue- names, ephemeral", []spec{ephSeq("/q/queue-", 0, curatorItem("x"))}, "/q", ""},
		{"kazoo queue", []spec{
			persistentSeq("/q/entry-100-", []byte("a")), persistentSeq("/q/entry-005-", []byte("b")),
		}, "/q", "queue :item :item depth=2"},
		{"kazoo locking queue, one taken", []spec{
			persistentSeq("/q/entries/entry-100-", []byte("job-1")), persistentSeq("/q/entries/entry-005-", []byte("job-2")),
			ephemeral("/q/taken/entry-005-0000000001", 1, []byte(hexA)),
		}, "/q", "queue " + hexA + ":taken :item depth=2"},
		{"kazoo locking queue, empty", []spec{persistent("/q/entries", nil), persistent("/q/taken", nil)}, "/q", "queue depth=0"},
		{"entry names, ephemeral", []spec{ephSeq("/q/entry-100-", 0, nil)}, "/q", ""},
		{"kazoo lease", []spec{persistent("/l/lease_holder", []byte(lease))}, "/l",
			"lease lease-holder-1:lease holder=lease-holder-1 expires=2026-11-27T07:21:00Z"},
		{"kazoo lease, being taken", []spec{
			persistent("/l/lease_holder", []byte(lease)), ephSeq("/l/"+hexA+"__lock__", 1, []byte("other")),
		}, "/l", "lease lease-holder-1:lease holder=lease-holder-1 expires=2026-11-27T07:21:00Z"},
		{"lease_holder, not the lease's JSON", []spec{persistent("/l/lease_holder", []byte(`{"holder":"x"}`))}, "/l", ""},
		{"lease_holder, ephemeral", []spec{ephemeral("/l/lease_holder", 0, []byte(lease))}, "/l", ""},
		{"curator shared count", []spec{persistent("/c", []byte{0, 0, 0, 42})}, "/c", "counter value=42"},
		{"kazoo counter", []spec{persistent("/c", []byte("5"))}, "/c", "counter value=5"},
		{"kazoo counter, float", []spec{persistent("/c", []byte("1.5"))}, "/c", "counter value=1.5"},
		{"idle kazoo semaphore parent", []spec{persistent("/c", []byte("3")), persistent("/c-__lock__", nil)}, "/c", ""},
		{"text", []spec{persistent("/c", []byte("hello"))}, "/c", ""},
		{"number with children", []spec{persistent("/c", []byte("5")), persistent("/c/x", nil)}, "/c", ""},
		{"empty", []spec{persistent("/c", nil)}, "/c", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tree := mem(c.specs...)
			rec, ok := Named(tree, c.at)
			got := ""
			if ok {
				got = summary(rec)
			}
			if got != c.want {
				t.Fatalf("Named(%s) = %q, want %q", c.at, got, c.want)
			}
			if ok && (rec.System != "" || rec.Library == 0) {
				t.Errorf("system %q, library %v", rec.System, rec.Library)
			}
			if _, ok := RecognizeRecipe(tree, c.at); ok != (c.want != "" && !strings.HasPrefix(c.want, "counter")) {
				t.Errorf("RecognizeRecipe: %v (a counter only where named)", ok)
			}
		})
	}
}

// TestLibraryLocksNoRecipe: the library locks' layouts (libraryLayouts)
// stay the lock core's: no recipe reads them, but for Curator's
// LeaderSelector (a mutex holding its id).
func TestLibraryLocksNoRecipe(t *testing.T) {
	for name, specs := range libraryLayouts() {
		t.Run(name, func(t *testing.T) {
			recs := ScanRecipes(mem(specs...), "/")
			var got []string
			for _, r := range recs {
				got = append(got, r.Path+" "+string(r.Type))
			}
			want := []string(nil)
			if name == "curator selector" {
				want = []string{"/services/api/leader election"}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("ScanRecipes = %q, want %q", got, want)
			}
		})
	}
}

// TestRecipeFactsJSON: a recipe's facts reach ls --json's path object.
func TestRecipeFactsJSON(t *testing.T) {
	rec, ok := Named(mem(persistentSeq("/q/queue-", curatorItem("a"))), "/q")
	if !ok {
		t.Fatal("not recognised")
	}
	q := model.Queue{Path: "/q", Type: model.TypeQueue}.WithRare(model.QueueRare{Facts: rec.Facts})
	j := model.PathJSON(&q)
	if j.Type != "queue" || j.Depth == nil || *j.Depth != 1 || j.Oldest == "" {
		t.Fatalf("%+v", j)
	}
}
