package sandbox

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// proxyDialTimeout bounds the dial to the target, a loopback address.
const proxyDialTimeout = 5 * time.Second

// Proxy is a loopback TCP proxy in front of one server, so that a test can
// cut a client's link (as a network partition or a dead NIC would) while
// the server keeps running and the session stays alive on it.
//
// It is our own rather than Shopify's toxiproxy: toxiproxy is well kept and
// offers latency, bandwidth and reset toxics, but it brings a dependency
// tree and a server/API model, and we need only two things, cut every link
// and refuse new ones, then restore. That is about a hundred lines here.
type Proxy struct {
	ln     net.Listener
	target string

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
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		l.close()
		done <- struct{}{}
	}
	go pipe(server, client)
	go pipe(client, server)
	<-done
	<-done
	p.mu.Lock()
	delete(p.links, l)
	p.mu.Unlock()
}
