package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// proxyDialTimeout bounds the dial to the target, a loopback address.
const proxyDialTimeout = 5 * time.Second

// Proxy is a loopback TCP proxy in front of one server, so that a test can
// cut a client's link (as a network partition or a dead NIC would) while
// the server keeps running and the session stays alive on it, or make the
// server's answers arrive late (as a distant server's would).
//
// It is our own rather than Shopify's toxiproxy: toxiproxy is well kept and
// offers latency, bandwidth and reset toxics, but it brings a dependency
// tree and a server/API model, and we need only three things, cut every
// link and refuse new ones, then restore, and a fixed reply latency. That
// is under two hundred lines here.
type Proxy struct {
	ln     net.Listener
	target string
	delay  atomic.Int64 // SetReplyDelay's, in nanoseconds

	mu     sync.Mutex
	cut    bool
	closed bool
	links  map[*link]struct{}
	wg     sync.WaitGroup // the accept loop and every link's copiers
}

// link is one proxied connection: the client's side and the server's side.
type link struct {
	client, server net.Conn
	once           sync.Once
}

func (l *link) close() {
	l.once.Do(func() {
		l.client.Close()
		l.server.Close()
	})
}

// NewProxy listens on a free loopback port and forwards every connection to
// target.
func NewProxy(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("sandbox: proxy for %s: %w", target, err)
	}
	p := &Proxy{ln: ln, target: target, links: make(map[*link]struct{})}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the address clients dial instead of the target.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Cut closes every live connection and, until Restore, closes new ones as
// soon as they are accepted (a refused link, as the client sees it).
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for l := range p.links {
		l.close()
	}
}

// Restore lets new connections through again. Connections closed by Cut
// stay closed; clients reconnect on their own.
func (p *Proxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = false
}

// SetReplyDelay makes every byte the server sends reach the client d after
// the proxy read it, in order, on live links and new ones (0: at once).
// The client's requests still go through at once: a test can widen the
// time between a request leaving and its answer arriving without slowing
// what the client sends behind it.
func (p *Proxy) SetReplyDelay(d time.Duration) { p.delay.Store(int64(d)) }

// Close stops listening, closes every connection and waits for the proxy's
// goroutines to end.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	err := p.ln.Close()
	for l := range p.links {
		l.close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	return err
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue // a transient accept error (EMFILE...) must not end the proxy
		}
		p.mu.Lock()
		refuse := p.cut || p.closed
		if !refuse {
			p.wg.Add(1)
		}
		p.mu.Unlock()
		if refuse {
			c.Close()
			continue
		}
		go p.serve(c)
	}
}

func (p *Proxy) serve(client net.Conn) {
	defer p.wg.Done()
	server, err := net.DialTimeout("tcp", p.target, proxyDialTimeout)
	if err != nil {
		client.Close()
		return
	}
	l := &link{client: client, server: server}
	p.mu.Lock()
	// Cut or Close may have come while dialling; they must win.
	if p.cut || p.closed {
		p.mu.Unlock()
		l.close()
		return
	}
	p.links[l] = struct{}{}
	p.mu.Unlock()

	// Either direction ending ends the link: ZooKeeper's protocol has no
	// use for half-closed connections.
	done := make(chan struct{}, 2)
	pipe := func(run func()) {
		run()
		l.close()
		done <- struct{}{}
	}
	go pipe(func() { _, _ = io.Copy(server, client) })
	go pipe(func() { p.delayed(client, server) })
	<-done
	<-done
	p.mu.Lock()
	delete(p.links, l)
	p.mu.Unlock()
}

// chunk is what one read from the server returned, and when.
type chunk struct {
	b  []byte
	at time.Time
}

// delayed copies src to dst, each read written SetReplyDelay after it was
// read (the delay in force when it was read). It returns when either side
// fails.
func (p *Proxy) delayed(dst, src net.Conn) {
	chunks := make(chan chunk, 256)
	go func() {
		defer close(chunks)
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			if n > 0 {
				at := time.Now().Add(time.Duration(p.delay.Load()))
				chunks <- chunk{bytes.Clone(buf[:n]), at}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range chunks {
		time.Sleep(time.Until(c.at))
		if _, err := dst.Write(c.b); err != nil {
			src.Close() // the reader above ends, and chunks with it
			for range chunks {
			}
			return
		}
	}
}
