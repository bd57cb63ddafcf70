package zkview

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/model/modeltest"
	"github.com/zklock/zklock/third_party/zk"
)

// Hostile data and trees, built on a real server by a raw client: what a
// buggy or malicious client can put there. The Watcher and `ls --json`'s
// form of its model (ToJSON) must show each of them sanely: escaped,
// bounded, in order, and without crashing. (The console's view of the
// same trees is in ui/faults_test.go; `ls`'s text and JSON writers over
// them in cmd/lsout_test.go.)

// unsafeRune reports the first rune of s that must not reach a terminal
// raw: a control, a format or other non-graphic character, or invalid
// UTF-8. newlineOK allows '\n' (text output's line breaks).
func unsafeRune(s string, newlineOK bool) (string, bool) {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size <= 1 {
				return fmt.Sprintf("invalid UTF-8 at byte %d", i), true
			}
		}
		if r == '\n' && newlineOK || unicode.IsGraphic(r) {
			continue
		}
		return fmt.Sprintf("%U at byte %d (near %q)", r, i, s[max(i-20, 0):min(i+20, len(s))]), true
	}
	return "", false
}

// lsJSON is `zklock ls --json`'s value of snap; it checks that no string
// in it could drive a terminal.
func lsJSON(t *testing.T, snap *model.Snapshot) []model.JSONPath {
	t.Helper()
	out := model.ToJSON(snap)
	check := func(field, s string) {
		if what, bad := unsafeRune(s, false); bad {
			t.Errorf("ls json %s: %s", field, what)
		}
	}
	for _, p := range out {
		check("path", p.Path)
		for _, w := range p.Warnings {
			check("warning message", w.Message)
			for _, n := range w.Nodes {
				check("warning node", n)
			}
		}
		for _, n := range p.Queue {
			check("node", n.Node)
			check("data", n.Data)
			check("watches", n.Watches)
			check("client", n.Client)
		}
		for _, o := range p.Other {
			check("other", o)
		}
	}
	return out
}

// checkEvents: every event text (shown as is by consumers) is safe.
func checkEvents(t *testing.T, w *testWatcher) {
	t.Helper()
	for _, ev := range w.events() {
		if what, bad := unsafeRune(ev.Text(), false); bad {
			t.Errorf("event %s text: %s", ev.Kind, what)
		}
	}
}

func loadOnce(t *testing.T, s *lockops.Session, p string) *model.Snapshot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	snap, err := Load(ctx, s, Options{Paths: []string{p}})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// hostileData are node data a client can store: escapes that would set
// the terminal's title, write its clipboard (OSC 52), clear it, recolour
// it; C1 controls; a bidi override; invalid UTF-8; every byte value; a
// megabyte.
func hostileData() map[string][]byte {
	escapes := []byte("\x1b]0;pwned\a\x1b]52;c;cm0gLXJmIH4=\a\x1b[2J\x1b[H\x1b[31;1mRED\x1bP+q\x1b\\\xc2\x9b6n\u202eevil\xff\xfe")
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	// 10^6 bytes: a request must stay under the server's default
	// jute.maxbuffer (1 MiB less one byte) with its path and ACL. A
	// multi-byte character straddles the 256-byte cut the Watcher keeps.
	mb := bytes.Repeat(append(slices.Clone(escapes), all...), 1_000_000/(len(escapes)+256)+1)[:1_000_000]
	copy(mb[DefaultDataBytes-1:], "世")
	return map[string][]byte{"escapes": escapes, "binary": all, "megabyte": mb, "empty": nil}
}

// TestHostileData: lock nodes whose data is terminal escapes, binary, a
// megabyte, or nothing. The Watcher keeps only the first DataBytes bytes
// (the whole length is known), and nothing raw reaches `ls`.
func TestHostileData(t *testing.T) {
	c := testCluster(t)
	p := testPath(t)
	raw := rawConn(t, c.Servers())
	mkdirs(t, raw, p)
	data := hostileData()
	byNode := map[string][]byte{}
	for _, k := range []string{"escapes", "binary", "megabyte", "empty"} {
		n := createSeq(t, raw, p, "x-"+k+"-", data[k])
		byNode[n] = data[k]
	}
	if _, err := raw.Create(p+"/leases", data["escapes"], 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	mon := session(t, c.Servers())
	w := watch(t, mon, Options{Paths: []string{p}})
	snap := waitFor(t, w, 15*time.Second, "four nodes read", func(s *model.Snapshot) bool {
		q := queueOf(s, p)
		if q == nil || q.Nodes.Len() != 4 {
			return false
		}
		for _, n := range q.Nodes.All() {
			if n.Ctime().IsZero() {
				return false
			}
		}
		return true
	})
	q := queueOf(snap, p)
	for _, n := range q.Nodes.All() {
		want := byNode[n.Name]
		if int(n.DataLen) != len(want) || len(n.Data()) > DefaultDataBytes || !bytes.HasPrefix(want, n.Data()) ||
			len(n.Data()) != min(len(want), DefaultDataBytes) {
			t.Errorf("%s: kept %d bytes of %d (DataLen %d), want the first %d", n.Name, len(n.Data()), len(want), n.DataLen, min(len(want), DefaultDataBytes))
		}
	}
	if !slices.Equal(q.Other(), []string{"leases"}) {
		t.Errorf("other %q, want leases", q.Other())
	}
	js := lsJSON(t, loadOnce(t, mon, p))
	for _, n := range js[0].Queue {
		if strings.HasPrefix(n.Node, "x-escapes-") && !strings.Contains(n.Data, `\x1b]52`) {
			t.Errorf("escapes not shown escaped: %q", n.Data)
		}
		// Escaped, the kept bytes grow at most fourfold (`\xff`), plus the
		// ellipsis: a megabyte never reaches the output.
		if len(n.Data) > 4*DefaultDataBytes+len("…") {
			t.Errorf("%s: %d bytes of data in ls json", n.Node, len(n.Data))
		}
		if strings.HasPrefix(n.Node, "x-megabyte-") && !strings.HasSuffix(n.Data, "…") {
			t.Errorf("megabyte data not marked as cut: ...%q", n.Data[max(len(n.Data)-20, 0):])
		}
	}
	checkEvents(t, w)
	// Still live: a change after all that is seen.
	n := createSeq(t, raw, p, "x-after-", data["escapes"])
	waitFor(t, w, 10*time.Second, "a change after the hostile data", func(s *model.Snapshot) bool {
		return slices.Contains(modeltest.Names(queueOf(s, p)), n)
	})
}

// legalNameRunes are the characters ZooKeeper accepts in a node name
// (org.apache.zookeeper.common.PathUtils): printable ASCII but '/',
// U+00A0-U+D7FF and U+F900-U+FFEF. Controls, surrogates (so every
// character outside the BMP), private use and U+FFF0-U+FFFF are refused.
func legalNameRunes() []rune {
	var rs []rune
	for r := rune(0x20); r <= 0x7e; r++ {
		if r != '/' {
			rs = append(rs, r)
		}
	}
	for r := rune(0xa0); r <= 0xd7ff; r++ {
		rs = append(rs, r)
	}
	for r := rune(0xf900); r <= 0xffef; r++ {
		rs = append(rs, r)
	}
	return rs
}

// TestHostileNames: every character ZooKeeper allows in a name, spread
// over lock nodes ("x-<anything>-<seq>", the plain recipe) and non-lock
// children, plus names built to deceive: a bidi override, lookalike
// digits, zero-width characters, a name that is only combining marks.
// All shown, in sequence order, escaped where a terminal would misdraw.
func TestHostileNames(t *testing.T) {
	c := testCluster(t)
	p := testPath(t)
	raw := rawConn(t, c.Servers())
	mkdirs(t, raw, p)
	rs := legalNameRunes()
	const chunk = 400
	var locks []string
	for i := 0; i < len(rs); i += chunk {
		part := string(rs[i:min(i+chunk, len(rs))])
		if part == "." || part == ".." {
			continue
		}
		locks = append(locks, createSeq(t, raw, p, "x-"+part+"-", []byte(part[:min(len(part), 64)])))
	}
	deceptive := []string{
		"lock-\u202e0000000001", // bidi override before the digits
		"lock-\uff10\uff10\uff10\uff10\uff10\uff10\uff10\uff10\uff10\uff17", // fullwidth digits: not a sequence
		"\u200b\u200d\ufeff",          // invisible
		strings.Repeat("\u0301", 200), // combining marks only
		"leases\u2028locks",           // a line separator
		"\u00ad",                      // soft hyphen
		" ",                           // a space
	}
	for _, d := range deceptive {
		if _, err := raw.Create(p+"/"+d, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatalf("create %q: %v", d, err)
		}
	}
	// The server refuses what PathUtils refuses, whatever the client lets
	// through (go-zookeeper checks less): an emoji is a surrogate pair in
	// Java.
	if _, err := raw.Create(p+"/x-\U0001f600-", nil, zk.FlagSequence, zk.WorldACL(zk.PermAll)); err == nil {
		t.Errorf("the server accepted a character outside the BMP: the legal set above is wrong")
	}
	mon := session(t, c.Servers())
	w := watch(t, mon, Options{Paths: []string{p}})
	snap := waitFor(t, w, 20*time.Second, "every name", func(s *model.Snapshot) bool {
		q := queueOf(s, p)
		return q != nil && q.Nodes.Len() == len(locks) && len(q.Other()) == len(deceptive)
	})
	q := queueOf(snap, p)
	if !slices.Equal(modeltest.Names(q), locks) {
		t.Errorf("lock nodes not in creation (sequence) order")
	}
	if q.Nodes.At(0).Role != ordering.RoleHolder || q.Nodes.At(1).Watches() != locks[0] {
		t.Errorf("first two: %+v %+v", q.Nodes.At(0).Role, q.Nodes.At(1).Watches())
	}
	other := slices.Sorted(slices.Values(deceptive))
	if !slices.Equal(q.Other(), other) {
		t.Errorf("other %q, want %q", q.Other(), other)
	}
	js := lsJSON(t, loadOnce(t, mon, p))
	if len(js) != 1 || len(js[0].Queue) != len(locks) || len(js[0].Other) != len(deceptive) {
		t.Fatalf("ls json: %d paths", len(js))
	}
	for _, want := range []string{`\u202e`, `\u200b`, `\u2028`} {
		if !slices.ContainsFunc(js[0].Other, func(o string) bool { return strings.Contains(o, want) }) {
			t.Errorf("ls json does not show %s escaped: %q", want, js[0].Other)
		}
	}
	checkEvents(t, w)
}

// TestTenThousandChildren: a queue of 10,000 lock nodes loads, in order,
// with one holder; `ls` prints all of it; a handoff at its head is seen
// without re-reading every node.
func TestTenThousandChildren(t *testing.T) {
	c := testCluster(t)
	p := testPath(t)
	raw := rawConn(t, c.Servers())
	mkdirs(t, raw, p)
	const n = 10000
	var (
		next atomic.Int64
		wg   sync.WaitGroup
		fail atomic.Value
	)
	start := time.Now()
	for range 32 {
		wg.Go(func() {
			for next.Add(1) <= n {
				if _, err := raw.Create(p+"/lock-", []byte("w"), zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll)); err != nil {
					fail.Store(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := fail.Load(); err != nil {
		t.Fatal(err)
	}
	t.Logf("created %d nodes in %v", n, time.Since(start).Round(time.Millisecond))
	mon := session(t, c.Servers())
	start = time.Now()
	w := watch(t, mon, Options{Paths: []string{p}})
	snap := waitFor(t, w, 60*time.Second, "10,000 nodes", func(s *model.Snapshot) bool {
		q := queueOf(s, p)
		return q != nil && q.Nodes.Len() == n && !q.Nodes.At(n-1).Ctime().IsZero()
	})
	t.Logf("watched and read in %v", time.Since(start).Round(time.Millisecond))
	q := queueOf(snap, p)
	holders := 0
	for i, nd := range q.Nodes.All() {
		if nd.Seq != int32(i) {
			t.Fatalf("node %d has sequence %d", i, nd.Seq)
		}
		if nd.Role == ordering.RoleHolder {
			holders++
		}
	}
	if holders != 1 {
		t.Errorf("%d holders", holders)
	}
	start = time.Now()
	js := lsJSON(t, loadOnce(t, mon, p))
	t.Logf("ls (load, json) in %v", time.Since(start).Round(time.Millisecond))
	if len(js) != 1 || len(js[0].Queue) != n {
		t.Errorf("ls: %d paths", len(js))
	}
	head := q.Nodes.At(0).Name
	start = time.Now()
	if err := raw.Delete(p+"/"+head, -1); err != nil {
		t.Fatal(err)
	}
	waitFor(t, w, 20*time.Second, "handoff at the head", func(s *model.Snapshot) bool {
		q := queueOf(s, p)
		return q != nil && q.Nodes.Len() == n-1 && q.Nodes.At(0).Name == fmt.Sprintf("lock-%010d", 1) && q.Nodes.At(0).Role == ordering.RoleHolder
	})
	t.Logf("handoff in a 10,000-node queue seen after %v", time.Since(start).Round(time.Millisecond))
}

// TestUnreadableNodes: lock nodes whose ACL does not let the Watcher read
// them (the parent lists fine). The queue is still ordered and drawn,
// their owner and data unknown; nothing loops or crashes. A readable
// node among them is read.
func TestUnreadableNodes(t *testing.T) {
	c := testCluster(t)
	p := testPath(t)
	raw := rawConn(t, c.Servers())
	mkdirs(t, raw, p)
	if err := raw.AddAuth("digest", []byte("owner:secret")); err != nil {
		t.Fatal(err)
	}
	secret := zk.DigestACL(zk.PermAll, "owner", "secret")
	a, err := raw.Create(p+"/lock-", []byte("hidden"), zk.FlagEphemeral|zk.FlagSequence, secret)
	if err != nil {
		t.Fatal(err)
	}
	b := createSeq(t, raw, p, "lock-", []byte("visible"))
	cc, err := raw.Create(p+"/lock-", []byte("hidden"), zk.FlagEphemeral|zk.FlagSequence, secret)
	if err != nil {
		t.Fatal(err)
	}
	a, cc = a[strings.LastIndexByte(a, '/')+1:], cc[strings.LastIndexByte(cc, '/')+1:]
	mon := session(t, c.Servers())
	w := watch(t, mon, Options{Paths: []string{p}})
	snap := waitFor(t, w, 15*time.Second, "three nodes, one read", func(s *model.Snapshot) bool {
		q := queueOf(s, p)
		return q != nil && slices.Equal(modeltest.Names(q), []string{a, b, cc}) && !q.Nodes.At(1).Ctime().IsZero()
	})
	q := queueOf(snap, p)
	if q.Nodes.At(0).Role != ordering.RoleHolder || q.Nodes.At(2).Watches() != b {
		t.Errorf("roles: %v, %q", q.Nodes.At(0).Role, q.Nodes.At(2).Watches())
	}
	if len(q.Nodes.At(0).Data()) != 0 || string(q.Nodes.At(1).Data()) != "visible" {
		t.Errorf("data: %q %q", q.Nodes.At(0).Data(), q.Nodes.At(1).Data())
	}
	js := lsJSON(t, loadOnce(t, mon, p))
	if s := js[0].Queue[0].Session; s != "" {
		t.Errorf("an unreadable node's session shown as %q", s)
	}
	// The holder goes: the handoff to the unreadable node is still seen.
	if err := raw.Delete(p+"/"+a, -1); err != nil {
		t.Fatal(err)
	}
	waitFor(t, w, 10*time.Second, "handoff", func(s *model.Snapshot) bool {
		q := queueOf(s, p)
		return q != nil && slices.Equal(modeltest.Names(q), []string{b, cc}) && q.Nodes.At(0).Role == ordering.RoleHolder
	})
	checkEvents(t, w)
}

// TestParentReplaced: the lock parent is deleted and created again while
// watched, in one multi-op, so the Watcher never sees it absent. The new
// parent's counter starts again at 0: the new nodes have the very names
// the old ones had, in other sessions with other data. The Watcher must
// show the new nodes' owners and data, not the old ones'. Then twenty
// quick replacements; the Watcher ends on the truth.
func TestParentReplaced(t *testing.T) {
	c := testCluster(t)
	p := testPath(t)
	oldOwner := rawConn(t, c.Servers())
	newOwner := rawConn(t, c.Servers())
	mkdirs(t, oldOwner, p)
	for range 2 {
		createSeq(t, oldOwner, p, "lock-", []byte("old"))
	}
	mon := session(t, c.Servers())
	w := watch(t, mon, Options{Paths: []string{p}})
	waitFor(t, w, 10*time.Second, "old queue", func(s *model.Snapshot) bool { return truthDiff(oldOwner, s, p) == "" })

	replace := func(i int) {
		t.Helper()
		kids, _, err := newOwner.Children(p)
		if err != nil {
			t.Fatal(err)
		}
		var ops []any
		for _, k := range kids {
			ops = append(ops, &zk.DeleteRequest{Path: p + "/" + k, Version: -1})
		}
		ops = append(ops,
			&zk.DeleteRequest{Path: p, Version: -1},
			&zk.CreateRequest{Path: p, Acl: zk.WorldACL(zk.PermAll)},
			&zk.CreateRequest{Path: p + "/lock-", Data: []byte(fmt.Sprintf("new %d", i)), Acl: zk.WorldACL(zk.PermAll), Flags: zk.FlagEphemeral | zk.FlagSequence},
			&zk.CreateRequest{Path: p + "/lock-", Data: []byte(fmt.Sprintf("new %d", i)), Acl: zk.WorldACL(zk.PermAll), Flags: zk.FlagEphemeral | zk.FlagSequence},
		)
		if _, err := newOwner.Multi(ops...); err != nil {
			t.Fatalf("replace %s: %v", p, err)
		}
	}
	// The names after a replacement are the old ones: wait until the data
	// and owners shown are the new nodes' (a monitor that keeps the old
	// nodes' stat never gets there).
	replaced := func(what string, i int) {
		t.Helper()
		want := fmt.Sprintf("new %d", i)
		waitFor(t, w, 15*time.Second, what, func(s *model.Snapshot) bool {
			q := queueOf(s, p)
			return q != nil && q.Nodes.Len() == 2 && string(q.Nodes.At(0).Data()) == want && string(q.Nodes.At(1).Data()) == want &&
				truthDiff(newOwner, s, p) == ""
		})
	}
	replace(0)
	replaced("the new parent's nodes, owners and data", 0)
	for i := 1; i <= 20; i++ {
		replace(i)
	}
	replaced("the truth after twenty quick replacements", 20)
	t.Logf("events: %d", len(w.events()))
	checkEvents(t, w)
}
