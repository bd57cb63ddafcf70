// The lease meter: how long the server surely keeps the session, read off
// the wire (negotiated timeout, last reply).

package lockops

import (
	"bufio"
	"encoding/binary"
	"net"
	"sync/atomic"
	"time"

	"github.com/zklock/zklock/third_party/zk"
)

// leaseMeter records, for one Session, the last reply's arrival and the
// negotiated timeout.
type leaseMeter struct {
	epoch      time.Time    // monotonic base for lastReply
	lastReply  atomic.Int64 // ns since epoch
	negotiated atomic.Int64 // ns; 0 until the first connect response
	sent       sentWatch    // what was written (see sentWatch)
}

func newLeaseMeter() *leaseMeter {
	m := &leaseMeter{epoch: time.Now()}
	m.lastReply.Store(0)
	return m
}

func (m *leaseMeter) touch() { m.lastReply.Store(int64(time.Since(m.epoch))) }

// deadline is when the server may expire the session, less a margin,
// given the timeout asked for when none was negotiated yet.
func (m *leaseMeter) deadline(asked time.Duration) time.Time {
	t := time.Duration(m.negotiated.Load())
	if t == 0 {
		t = asked
	}
	return m.epoch.Add(time.Duration(m.lastReply.Load())).Add(t - t/10)
}

// dialer wraps d so that every connection reports to the meter.
func (m *leaseMeter) dialer(d zk.Dialer) zk.Dialer {
	return func(network, addr string, timeout time.Duration) (net.Conn, error) {
		c, err := d(network, addr, timeout)
		if err != nil {
			return nil, err
		}
		mc := &meteredConn{Conn: c, m: m, connect: true}
		mc.r = bufio.NewReaderSize(arrivals{mc}, readBuffer)
		return mc, nil
	}
}

// meteredConn follows the packet framing of what it reads (a 4-byte
// length, then the body) without changing a byte. go-zookeeper reads a
// connection from one goroutine at a time, so the parser needs no lock.
type meteredConn struct {
	net.Conn
	r       *bufio.Reader
	m       *leaseMeter
	connect bool     // the next packet is the connect response
	hdr     [12]byte // the start of the current packet
	hn      int      // bytes of hdr filled
	skip    int      // bytes of the current packet's body still to pass
}

func (c *meteredConn) Read(b []byte) (int, error) { return c.r.Read(b) }

func (c *meteredConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	if err == nil {
		c.m.sent.wrote(b[:n])
	}
	return n, err
}

// arrivals is what the read buffer fills from: the bare connection, each
// read scanned as it arrives (not when go-zookeeper gets to it), so that
// the lease is renewed by the moment a reply came in.
type arrivals struct{ c *meteredConn }

func (a arrivals) Read(b []byte) (int, error) {
	n, err := a.c.Conn.Read(b)
	a.c.scan(b[:n])
	return n, err
}

func (c *meteredConn) scan(p []byte) {
	for len(p) > 0 {
		if c.skip > 0 {
			k := min(c.skip, len(p))
			c.skip -= k
			p = p[k:]
			continue
		}
		// Connect response: length, protocol version, timeout (ms).
		// Reply: length, xid (-1 for a watch notification).
		need := 8
		if c.connect {
			need = 12
		}
		k := copy(c.hdr[c.hn:need], p)
		c.hn += k
		p = p[k:]
		if c.hn < need {
			return
		}
		length := int(binary.BigEndian.Uint32(c.hdr[0:4]))
		if c.connect {
			c.connect = false
			ms := int32(binary.BigEndian.Uint32(c.hdr[8:12]))
			if ms > 0 {
				c.m.negotiated.Store(int64(time.Duration(ms) * time.Millisecond))
			}
			c.m.touch()
		} else if xid := int32(binary.BigEndian.Uint32(c.hdr[4:8])); xid != -1 {
			c.m.touch()
		}
		c.skip = max(length-(need-4), 0)
		c.hn = 0
	}
}
