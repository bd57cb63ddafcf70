package model

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"time"
	"unsafe"
)

// TestNodeSize: a root of 100,000 lock parents publishes a Node for each
// of their nodes; 112 bytes is its size class.
func TestNodeSize(t *testing.T) {
	if got := unsafe.Sizeof(Node{}); got > 112 {
		t.Errorf("model.Node is %d bytes, want at most 112 (a 112-byte size class)", got)
	}
}

// TestNodeWire decodes JSON written by Node when it was a plain struct
// (testdata made at ad11d8e: json.Marshal of a Snapshot, and an encoder
// without HTML escaping, as recordings write, of nodes and changes) and
// writes it again byte for byte: field names, order, omissions, times
// with their offsets (in zones Local has not too), data nil, empty and
// binary.
func TestNodeWire(t *testing.T) {
	t.Run("snapshot", func(t *testing.T) {
		want := readWire(t, "testdata/node_wire_snapshot.json")
		var s Snapshot
		if err := json.Unmarshal(want, &s); err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		sameWire(t, append(got, '\n'), want)
	})
	t.Run("recording", func(t *testing.T) {
		want := readWire(t, "testdata/node_wire_noescape.json")
		var v struct {
			Nodes   []Node
			Changes []Change
		}
		if err := json.Unmarshal(want, &v); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		enc := json.NewEncoder(&got)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		sameWire(t, got.Bytes(), want)
	})
}

func readWire(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sameWire(t *testing.T, got, want []byte) {
	t.Helper()
	if !bytes.Equal(got, want) {
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("JSON differs at byte %d:\n got ...%s\nwant ...%s", i, got[max(0, i-80):min(len(got), i+80)], want[max(0, i-80):min(len(want), i+80)])
			}
		}
		t.Fatalf("JSON differs in length: got %d bytes, want %d", len(got), len(want))
	}
}

// TestNodeFields: what a setter sets its getter gives back, each field
// apart from the others; a copy keeps its values when the original is
// set again (the rare fields are shared, never changed in place).
func TestNodeFields(t *testing.T) {
	t0 := time.Date(2026, 3, 14, 3, 12, 4, 123456789, time.Local)
	far := time.Date(1500, 1, 2, 3, 4, 5, 6, time.UTC)
	zoned := t0.In(time.FixedZone("", 5*3600+1800))
	var n Node
	n.SetCtime(t0)
	n.SetMtime(t0)
	n.SetSince(t0.Add(time.Second))
	if n.rare != nil || n.mtimeIs != mtimeCtime {
		t.Errorf("a plain node's times need its rare fields: %+v", n)
	}
	if !n.Ctime().Equal(t0) || !n.Mtime().Equal(t0) || !n.Since().Equal(t0.Add(time.Second)) {
		t.Errorf("times: ctime %v mtime %v since %v", n.Ctime(), n.Mtime(), n.Since())
	}
	copied := n
	n.SetCtime(far)
	n.SetClient("10.0.0.1:4000")
	n.SetParent("/p")
	n.SetIdentity("broker 1")
	n.SetPart(PartMember)
	if !n.Ctime().Equal(far) || !n.Mtime().Equal(t0) {
		t.Errorf("ctime %v (want %v), mtime %v (want %v kept)", n.Ctime(), far, n.Mtime(), t0)
	}
	n.SetMtime(zoned)
	n.SetSince(time.Time{})
	if got := n.Mtime(); !got.Equal(zoned) || got.Format(time.RFC3339) != zoned.Format(time.RFC3339) {
		t.Errorf("mtime %v, want %v", got, zoned)
	}
	if !n.Since().IsZero() {
		t.Errorf("since %v, want zero", n.Since())
	}
	if n.Client() != "10.0.0.1:4000" || n.Parent() != "/p" || n.Identity() != "broker 1" || n.Part() != PartMember {
		t.Errorf("rare fields: %q %q %q %q", n.Client(), n.Parent(), n.Identity(), n.Part())
	}
	shared := n
	n.SetClient("10.0.0.2:4000")
	if shared.Client() != "10.0.0.1:4000" || n.Client() != "10.0.0.2:4000" {
		t.Errorf("a copy's client %q (want 10.0.0.1:4000 kept), the node's %q", shared.Client(), n.Client())
	}
	if copied.rare != nil || !copied.Ctime().Equal(t0) || copied.Client() != "" {
		t.Errorf("the copy changed: %+v", copied)
	}
	for _, d := range [][]byte{nil, {}, []byte("x\x00y")} {
		n.SetData(d)
		if got := n.Data(); (got == nil) != (d == nil) || !bytes.Equal(got, d) {
			t.Errorf("data %q (nil %v), want %q (nil %v)", got, got == nil, d, d == nil)
		}
	}
	n.SetClient("")
	n.SetParent("")
	n.SetIdentity("")
	n.SetPart("")
	n.SetCtime(t0)
	n.SetMtime(t0)
	if n.rare != nil {
		t.Errorf("rare fields all empty again, still kept: %+v", *n.rare)
	}
}

// TestNodeWatchesPredecessor: Predecessor is kept apart from Watches only
// while they differ, and setting either keeps the other: a node whose
// Predecessor was its Watches keeps that Predecessor when Watches moves
// (a split queue's waiter, a Kazoo 2.8 reader).
func TestNodeWatchesPredecessor(t *testing.T) {
	type links struct{ watches, predecessor string }
	of := func(n Node) links { return links{n.Watches(), n.Predecessor()} }
	steps := []struct {
		name  string
		set   func(*Node)
		want  links
		apart bool // Predecessor kept in the rare fields
	}{
		{"zero", func(*Node) {}, links{}, false},
		{"both the same", func(n *Node) { n.SetWatchesPredecessor("a", "a") }, links{"a", "a"}, false},
		{"watches moves", func(n *Node) { n.SetWatches("b") }, links{"b", "a"}, true},
		{"watches moves again", func(n *Node) { n.SetWatches("c") }, links{"c", "a"}, true},
		{"watches back to it", func(n *Node) { n.SetWatches("a") }, links{"a", "a"}, false},
		{"predecessor moves", func(n *Node) { n.SetPredecessor("p") }, links{"a", "p"}, true},
		{"predecessor to watches", func(n *Node) { n.SetPredecessor("a") }, links{"a", "a"}, false},
		{"watches to a holder's", func(n *Node) { n.SetWatches("") }, links{"", "a"}, true},
		{"predecessor empty, watches not", func(n *Node) { n.SetWatchesPredecessor("/sem/leases", "") }, links{"/sem/leases", ""}, true},
		{"watches to the empty predecessor", func(n *Node) { n.SetWatches("") }, links{"", ""}, false},
		{"predecessor alone", func(n *Node) { n.SetPredecessor("x") }, links{"", "x"}, true},
		{"watches to it", func(n *Node) { n.SetWatches("x") }, links{"x", "x"}, false},
	}
	var n Node
	for _, st := range steps {
		before, was := n, of(n)
		st.set(&n)
		if got := of(n); got != st.want {
			t.Errorf("%s: watches %q predecessor %q, want %q %q", st.name, got.watches, got.predecessor, st.want.watches, st.want.predecessor)
		}
		if apart := n.rare != nil && n.rare.ownPredecessor; apart != st.apart {
			t.Errorf("%s: predecessor kept apart %v, want %v", st.name, apart, st.apart)
		}
		if !st.apart && n.rare != nil {
			t.Errorf("%s: rare fields kept for nothing: %+v", st.name, *n.rare)
		}
		if of(before) != was {
			t.Errorf("%s: a copy of the node before changed: %v, want %v", st.name, of(before), was)
		}
	}
	// The other rare fields stay as they are, and go with the last.
	n = Node{}.WithClient("10.0.0.1:4000").WithWatchesPredecessor("a", "b")
	n.SetWatches("b")
	if n.Client() != "10.0.0.1:4000" || n.rare.ownPredecessor {
		t.Errorf("client %q, predecessor apart %v: %+v", n.Client(), n.rare.ownPredecessor, *n.rare)
	}
	n.SetClient("")
	if n.rare != nil {
		t.Errorf("rare fields all empty again, still kept: %+v", *n.rare)
	}
	// A shared copy keeps its links when the node's change.
	n = Node{}.WithWatchesPredecessor("a", "b")
	shared := n
	n.SetPredecessor("c")
	n.SetWatches("d")
	if of(shared) != (links{"a", "b"}) || of(n) != (links{"d", "c"}) {
		t.Errorf("copy %v (want a b kept), node %v (want d c)", of(shared), of(n))
	}
	// JSON writes and reads both as the plain fields they were.
	for _, l := range []links{{"a", "a"}, {"a", ""}, {"", "a"}, {"a", "b"}} {
		b, err := json.Marshal(Node{}.WithWatchesPredecessor(l.watches, l.predecessor))
		if err != nil {
			t.Fatal(err)
		}
		var back Node
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if of(back) != l || !bytes.Contains(b, []byte(`"Watches":"`+l.watches+`","Predecessor":"`+l.predecessor+`"`)) {
			t.Errorf("%v: JSON %s read back as %v", l, b, of(back))
		}
	}
}
