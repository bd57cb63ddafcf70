package zk

// zklock patch: tests of the reads that wait with a context (patch 9)
// against a real ZooKeeper (zkserver_test.go).

import (
	"context"
	"errors"
	"fmt"
	"net"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// stallDialer dials the server; while stalled, the client's reads of
// every link it made wait (the server's answers stay in the socket), so a
// request is in flight for as long as the test says.
type stallDialer struct {
	mu   sync.Mutex
	gate chan struct{} // closed when not stalled
}

func newStallDialer() *stallDialer {
	d := &stallDialer{gate: make(chan struct{})}
	close(d.gate)
	return d
}

func (d *stallDialer) dial(network, address string, timeout time.Duration) (net.Conn, error) {
	conn, err := net.DialTimeout(network, address, timeout)
	if err != nil {
		return nil, err
	}
	return &stallConn{Conn: conn, d: d}, nil
}

// stall holds the client's reads until the returned func is called.
func (d *stallDialer) stall() (release func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	gate := make(chan struct{})
	d.gate = gate
	return func() { close(gate) }
}

type stallConn struct {
	net.Conn
	d *stallDialer
}

func (c *stallConn) Read(b []byte) (int, error) {
	c.d.mu.Lock()
	gate := c.d.gate
	c.d.mu.Unlock()
	<-gate
	return c.Conn.Read(b)
}

// TestGetContextAbandoned: a read whose context ends while its answer is
// held returns the context's error at once and nothing of the answer;
// the answer, when it comes, is dropped, and the connection goes on
// answering the next requests with their own answers.
func TestGetContextAbandoned(t *testing.T) {
	d := newStallDialer()
	c := connect(t, testServer(t), WithDialer(d.dial))
	dir := fmt.Sprintf("/ctx-%x", c.SessionID())
	mkdirs(t, c, dir)
	if _, err := c.Create(dir+"/a", []byte("first"), 0, WorldACL(PermAll)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(dir+"/b", []byte("second"), 0, WorldACL(PermAll)); err != nil {
		t.Fatal(err)
	}

	release := d.stall()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	start := time.Now()
	type got struct {
		data []byte
		st   *Stat
		err  error
	}
	res := make(chan got, 1)
	go func() {
		data, st, err := c.GetContext(ctx, dir+"/a")
		res <- got{data, st, err}
	}()
	var r got
	select {
	case r = <-res:
	case <-time.After(10 * time.Second):
		release()
		t.Fatal("GetContext did not return 10 s after its 200ms deadline with its answer held: it waits for the answer, not its context")
	}
	cancel()
	data, st, err := r.data, r.st, r.err
	if !errors.Is(err, context.DeadlineExceeded) || data != nil || st != nil {
		release()
		t.Fatalf("GetContext with its answer held: %q %v %v, want nothing and the deadline's error", data, st, err)
	}
	if waited := time.Since(start); waited < 200*time.Millisecond {
		release()
		t.Fatalf("GetContext returned after %v, before its deadline (200ms)", waited)
	}
	xid := atomic.LoadUint32(&c.xid)
	ok, est, err := c.ExistsContext(ctx, dir+"/a") // ctx has ended: nothing is sent
	if !errors.Is(err, context.DeadlineExceeded) || ok || est != nil {
		release()
		t.Fatalf("ExistsContext with an ended context: %v %v %v, want the context's error", ok, est, err)
	}
	if now := atomic.LoadUint32(&c.xid); now != xid {
		release()
		t.Fatalf("ExistsContext with an ended context queued a request (xid %d -> %d), want none", xid, now)
	}
	release()

	// The held answer (of a) arrives now and is dropped; b's is b's.
	for i := 0; i < 3; i++ {
		data, _, err = c.GetContext(context.Background(), dir+"/b")
		if err != nil || string(data) != "second" {
			t.Fatalf("GetContext of b after the abandoned read: %q %v, want \"second\"", data, err)
		}
		kids, _, err := c.ChildrenContext(context.Background(), dir)
		if err != nil || len(kids) != 2 {
			t.Fatalf("ChildrenContext after the abandoned read: %v %v, want a and b", kids, err)
		}
	}
}

// TestGetContextNoGoroutine: a read that waits with a context that can
// end starts no goroutine (a goroutine per request was what waiting with
// a context cost before patch 9; the console reads every new node).
func TestGetContextNoGoroutine(t *testing.T) {
	c := connect(t, testServer(t))
	dir := fmt.Sprintf("/ctxg-%x", c.SessionID())
	mkdirs(t, c, dir)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	created := func() uint64 {
		s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	const reads = 200
	before := created()
	for i := 0; i < reads; i++ {
		if _, _, err := c.GetContext(ctx, dir); err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.ExistsContext(ctx, dir); err != nil {
			t.Fatal(err)
		}
	}
	// The connection's own goroutines may start one now and then (a
	// persistent watch's pump; none here): far fewer than one per read.
	if n := created() - before; n >= reads/10 {
		t.Fatalf("%d goroutines started over %d reads with a context, want next to none", n, 2*reads)
	}
}
