package zkview

import (
	"encoding/binary"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/model/modeltest"
)

// opExists is the protocol's exists opcode, which the audit of a
// persistent watch sends (see unreported).
const opExists = 3

// TestRecursiveChangeCost: with persistent recursive watches a change in a
// watched queue costs the read of the new node and nothing else: no
// listing of the queue, whatever its length.
func TestRecursiveChangeCost(t *testing.T) {
	const queue, changes = 2000, 20
	c := testCluster(t)
	p := testPath(t)
	raw := rawConn(t, c.Servers())
	mkdirs(t, raw, p)
	fill(t, raw, []string{p}, queue)
	rc := &requestCounter{}
	mon := session(t, c.Servers(), lockops.WithDialer(rc.dialer()))
	w := watch(t, mon, Options{Paths: []string{p}})
	waitFor(t, w, 20*time.Second, "the queue read", func(s *model.Snapshot) bool {
		q := queueOf(s, p)
		return q != nil && q.Nodes.Len() == queue && s.WatchMode == model.ModeRecursive
	})
	_, before := rc.requests()
	start := time.Now()
	for range changes {
		n := createSeq(t, raw, p, "lock-", []byte("x"))
		waitFor(t, w, 10*time.Second, "the create", func(s *model.Snapshot) bool { return slices.Contains(modeltest.Names(queueOf(s, p)), n) })
		if err := raw.Delete(p+"/"+n, -1); err != nil {
			t.Fatal(err)
		}
		waitFor(t, w, 10*time.Second, "the delete", func(s *model.Snapshot) bool { return !slices.Contains(modeltest.Names(queueOf(s, p)), n) })
	}
	elapsed := time.Since(start)
	_, after := rc.requests()
	diff := func(op int32) int { return after[op] - before[op] }
	if n := diff(opGetChildren2); n != 0 {
		t.Errorf("%d listings of a %d-node queue for %d creates and deletes; want none", n, queue, changes)
	}
	if n := diff(opGetData); n != changes {
		t.Errorf("%d node reads for %d creates; want one each", n, changes)
	}
	// One exists per batch of events (the barrier, see recursiveWatch.follow):
	// a create costs its read and the barrier, a delete the barrier; the
	// audit of a quiet path adds one exists every auditEvery (2 s here).
	if n, most := diff(opExists), 2*changes+int(elapsed/(2*time.Second))+1; n > most {
		t.Errorf("%d exists in %v for %d changes; want at most %d", n, elapsed, 2*changes, most)
	}
	t.Logf("%d changes in %v: requests by opcode %v -> %v", 2*changes, elapsed, before, after)
}

// TestChildWatchFallback: told to use children watches (what a server
// before 3.6 leaves), the Watcher says so and follows the queue by
// listing it.
func TestChildWatchFallback(t *testing.T) {
	c := testCluster(t)
	p := testPath(t)
	raw := rawConn(t, c.Servers())
	mkdirs(t, raw, p)
	rc := &requestCounter{}
	mon := session(t, c.Servers(), lockops.WithDialer(rc.dialer()))
	w := watch(t, mon, Options{Paths: []string{p}, ChildWatches: true})
	n := createSeq(t, raw, p, "lock-", nil)
	waitFor(t, w, 10*time.Second, "the node, watched by children watches", func(s *model.Snapshot) bool {
		return slices.Contains(modeltest.Names(queueOf(s, p)), n) && s.WatchMode == model.ModeChildren
	})
	_, byOp := rc.requests()
	if byOp[opAddWatch] != 0 {
		t.Errorf("%d addWatch requests with ChildWatches set", byOp[opAddWatch])
	}
}

// opAddWatch is addWatch's opcode (ZooKeeper 3.6+).
const opAddWatch = 106

// TestRefusedAddWatchFallback: a server that answers addWatch with
// ZUNIMPLEMENTED (older than 3.6) leaves children watches. The listing
// sent behind each refused addWatch is not taken for a watched one; the
// monitor says which mode it uses and follows every queue by listing it.
func TestRefusedAddWatchFallback(t *testing.T) {
	c := testCluster(t)
	root := testPath(t)
	raw := rawConn(t, c.Servers())
	paths := []string{root + "/a", root + "/b", root + "/c"}
	first := map[string]string{}
	for _, p := range paths {
		mkdirs(t, raw, p)
		first[p] = createSeq(t, raw, p, "lock-", nil)
	}
	d := &refusingDialer{}
	mon := session(t, c.Servers(), lockops.WithDialer(d.dial))
	w := watch(t, mon, Options{Paths: paths})
	waitFor(t, w, 10*time.Second, "every queue read, watched by children watches", func(s *model.Snapshot) bool {
		for _, p := range paths {
			if !slices.Contains(modeltest.Names(queueOf(s, p)), first[p]) {
				return false
			}
		}
		return s.WatchMode == model.ModeChildren
	})
	if d.refused.Load() == 0 {
		t.Fatal("no addWatch was refused")
	}
	for _, p := range paths {
		n := createSeq(t, raw, p, "lock-", nil)
		if err := raw.Delete(p+"/"+first[p], -1); err != nil {
			t.Fatal(err)
		}
		waitFor(t, w, 10*time.Second, "the create and the delete in "+p, func(s *model.Snapshot) bool {
			got := modeltest.Names(queueOf(s, p))
			return slices.Contains(got, n) && !slices.Contains(got, first[p])
		})
	}
	if !slices.ContainsFunc(w.events(), func(ev model.Change) bool { return strings.Contains(ev.Text(), "refuses persistent watches") }) {
		t.Error("no event says that the server refuses persistent watches")
	}
}

// refusingDialer connects through refusingConn, which answers every
// addWatch itself with ZUNIMPLEMENTED, as a server before 3.6 does.
type refusingDialer struct{ refused atomic.Int64 }

func (d *refusingDialer) dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	conn, err := net.DialTimeout(network, addr, timeout)
	if err != nil {
		return nil, err
	}
	rc := &refusingConn{Conn: conn, d: d, first: true}
	rc.cond = sync.NewCond(&rc.mu)
	go rc.readFrames()
	return rc, nil
}

// refusingConn hands the client the server's replies and its own
// refusals in order: a refusal goes in when the addWatch is written, so
// before the reply to any request written after it.
type refusingConn struct {
	net.Conn
	d     *refusingDialer
	wmu   sync.Mutex
	first bool // the connect request carries no xid or opcode

	mu     sync.Mutex
	cond   *sync.Cond
	frames [][]byte // to hand to the client, each a whole packet
	err    error    // the server's link failed: after the frames
	cur    []byte   // what Read has not handed over of the current frame
}

// readFrames reads the server's packets whole.
func (c *refusingConn) readFrames() {
	for {
		hdr := make([]byte, 4)
		_, err := io.ReadFull(c.Conn, hdr)
		var pkt []byte
		if err == nil {
			pkt = make([]byte, 4+binary.BigEndian.Uint32(hdr))
			copy(pkt, hdr)
			_, err = io.ReadFull(c.Conn, pkt[4:])
		}
		c.mu.Lock()
		if err != nil {
			c.err = err
		} else {
			c.frames = append(c.frames, pkt)
		}
		c.cond.Broadcast()
		c.mu.Unlock()
		if err != nil {
			return
		}
	}
}

func (c *refusingConn) Read(b []byte) (int, error) {
	if len(c.cur) == 0 {
		c.mu.Lock()
		for len(c.frames) == 0 && c.err == nil {
			c.cond.Wait()
		}
		if len(c.frames) == 0 {
			err := c.err
			c.mu.Unlock()
			return 0, err
		}
		c.cur, c.frames = c.frames[0], c.frames[1:]
		c.mu.Unlock()
	}
	n := copy(b, c.cur)
	c.cur = c.cur[n:]
	return n, nil
}

// Write passes each request on (go-zookeeper writes one whole packet a
// call), except an addWatch, answered here.
func (c *refusingConn) Write(b []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.first || len(b) < 12 || int32(binary.BigEndian.Uint32(b[8:12])) != opAddWatch {
		c.first = false
		return c.Conn.Write(b)
	}
	// The reply header: length, xid, zxid, error (ZUNIMPLEMENTED).
	reply := make([]byte, 4+16)
	binary.BigEndian.PutUint32(reply[0:4], 16)
	copy(reply[4:8], b[4:8])
	zUnimplemented := int32(-6)
	binary.BigEndian.PutUint32(reply[16:20], uint32(zUnimplemented))
	c.d.refused.Add(1)
	c.mu.Lock()
	c.frames = append(c.frames, reply)
	c.cond.Broadcast()
	c.mu.Unlock()
	return len(b), nil
}
