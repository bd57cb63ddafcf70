package lockops

import "testing"

func TestSentWatch(t *testing.T) {
	var w sentWatch
	a := w.expect([]byte("/locks/a/_c_1-lock-"))
	b := w.expect([]byte("/locks/b/_c_2-lock-"))
	fired := func(sw *sentWaiter) bool {
		select {
		case <-sw.ch:
			return true
		default:
			return false
		}
	}
	w.wrote([]byte("\x00\x00\x00\x20xid/locks/a/other"))
	if fired(a) || fired(b) {
		t.Fatal("fired on a write without the pattern")
	}
	w.wrote([]byte("\x00\x00\x00\x20xid\x00\x00\x00\x13/locks/a/_c_1-lock-\x00data"))
	if !fired(a) || fired(b) {
		t.Fatalf("after a's write: a %v b %v", fired(a), fired(b))
	}
	w.wrote([]byte("/locks/a/_c_1-lock-")) // a second write of it: closed once only
	w.drop(b)
	w.drop(a) // already fired: nothing to do
	if n := w.n.Load(); n != 0 || len(w.ws) != 0 {
		t.Fatalf("left %d waiters (%d counted)", len(w.ws), n)
	}
	w.wrote([]byte("/locks/b/_c_2-lock-"))
	if fired(b) {
		t.Fatal("a dropped waiter fired")
	}
}
