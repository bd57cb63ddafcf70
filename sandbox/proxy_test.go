package sandbox

import (
	"bufio"
	"io"
	"net"
	"testing"
	"time"
)

// echoServer answers every line with the same line.
func echoServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				io.Copy(c, c)
			}()
		}
	}()
	return ln.Addr().String()
}

// roundTrip sends a line through c and expects it back within a second.
func roundTrip(c net.Conn, line string) error {
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := io.WriteString(c, line+"\n"); err != nil {
		return err
	}
	got, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if got != line+"\n" {
		return io.ErrUnexpectedEOF
	}
	return nil
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// echoProxy is a Proxy in front of an echoServer, closed at the end of
// the test (Close may be called before: a second Close does nothing).
func echoProxy(t *testing.T) *Proxy {
	t.Helper()
	p, err := NewProxy(echoServer(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func TestProxy(t *testing.T) {
	p := echoProxy(t)

	live := dial(t, p.Addr())
	if err := roundTrip(live, "hello"); err != nil {
		t.Fatalf("through the proxy: %v", err)
	}

	p.Cut()
	if err := roundTrip(live, "after cut"); err == nil {
		t.Error("a live link survived Cut")
	}
	refused := dial(t, p.Addr()) // the kernel accepts; the proxy closes at once
	if err := roundTrip(refused, "while cut"); err == nil {
		t.Error("a new link got through while cut")
	}

	p.Restore()
	again := dial(t, p.Addr())
	if err := roundTrip(again, "restored"); err != nil {
		t.Fatalf("after Restore: %v", err)
	}

	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := roundTrip(again, "after close"); err == nil {
		t.Error("a link survived Close")
	}
	if c, err := net.DialTimeout("tcp", p.Addr(), time.Second); err == nil {
		c.Close()
		t.Error("proxy still listening after Close")
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

// TestProxyReplyDelay: with a reply delay, an answer arrives no sooner
// than the delay after its request; set back to 0, the link still
// answers; a delayed link is cut by Cut.
func TestProxyReplyDelay(t *testing.T) {
	p := echoProxy(t)
	c := dial(t, p.Addr())
	const d = 150 * time.Millisecond
	p.SetReplyDelay(d)
	start := time.Now()
	if err := roundTrip(c, "late"); err != nil {
		t.Fatalf("with a %v delay: %v", d, err)
	}
	if took := time.Since(start); took < d {
		t.Errorf("answer came %v after the request, want at least %v", took, d)
	}
	p.SetReplyDelay(0)
	if err := roundTrip(c, "at once"); err != nil {
		t.Fatalf("after the delay was lifted: %v", err)
	}
	p.SetReplyDelay(d)
	p.Cut()
	if err := roundTrip(c, "after cut"); err == nil {
		t.Error("a delayed link survived Cut")
	}
}
