package fourletter

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"
)

// fakeServer answers every word with reply(word) on a loopback port, as
// a ZooKeeper server does: read the word, write, close. It returns the
// address; the listener closes with the test.
func fakeServer(t *testing.T, ln net.Listener, reply func(word string) string) string {
	t.Helper()
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				word := make([]byte, 4)
				if _, err := io.ReadFull(c, word); err != nil {
					return
				}
				_, _ = io.WriteString(c, reply(string(word)))
			}()
		}
	}()
	return ln.Addr().String()
}

func listen(t testing.TB) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

func TestAsk(t *testing.T) {
	addr := fakeServer(t, listen(t), func(word string) string {
		switch word {
		case "ruok":
			return "imok"
		case "cons":
			return strings.Repeat("x", 100)
		}
		return word + " is not executed because it is not in the whitelist."
	})
	ctx := t.Context()
	if reply, err := Ask(ctx, addr, "ruok"); reply != "imok" || err != nil {
		t.Errorf("ruok = %q, %v", reply, err)
	}
	reply, err := Ask(ctx, addr, "wchc")
	var fe *Error
	if !errors.Is(err, ErrRefused) || !errors.As(err, &fe) || fe.Word != "wchc" || fe.Addr != addr || !strings.Contains(reply, "whitelist") {
		t.Errorf("refused wchc = %q, %v", reply, err)
	}
	if reply, err := Ask(ctx, addr, "cons", WithMaxReply(10)); !errors.Is(err, ErrReplyTooLong) || reply != "xxxxxxxxxx" {
		t.Errorf("cons capped at 10 = %q, %v", reply, err)
	}
	if reply, err := Ask(ctx, addr, "cons", WithMaxReply(100)); err != nil || len(reply) != 100 {
		t.Errorf("cons capped at exactly its length = %d bytes, %v", len(reply), err)
	}
	dialled := false
	dial := func(ctx context.Context, a string) (net.Conn, error) {
		dialled = true
		var d net.Dialer
		return d.DialContext(ctx, "tcp", a)
	}
	if reply, err := Ask(ctx, addr, "ruok", WithDial(dial)); reply != "imok" || err != nil || !dialled {
		t.Errorf("ruok through WithDial = %q, %v (dialled %v)", reply, err, dialled)
	}
}

// silentServer accepts and never answers (a paused server); asked gets
// a value each time it has read a word: Ask is then reading.
func silentServer(t *testing.T) (ln net.Listener, asked <-chan struct{}) {
	ln = listen(t)
	t.Cleanup(func() { ln.Close() })
	ch := make(chan struct{}, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
			go func() {
				if _, err := io.ReadFull(c, make([]byte, 4)); err == nil {
					ch <- struct{}{}
				}
			}()
		}
	}()
	return ln, ch
}

// TestAskBounded: a server that accepts and never answers (a paused one)
// holds Ask no longer than the context; a cancel while Ask reads ends it;
// a closed port is an error. (How fast is the benchmarks' business.)
func TestAskBounded(t *testing.T) {
	ln, _ := silentServer(t)
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	if _, err := Ask(ctx, ln.Addr().String(), "ruok"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("silent server: %v, want a deadline error", err)
	}
	ln, asked := silentServer(t)
	ctx2, cancel2 := context.WithCancel(t.Context())
	go func() {
		<-asked // the server has the word: Ask is reading
		cancel2()
	}()
	if _, err := Ask(ctx2, ln.Addr().String(), "ruok"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
	addr := ln.Addr().String()
	ln.Close()
	if _, err := Ask(t.Context(), addr, "ruok"); err == nil {
		t.Error("closed port answered")
	}
}

// TestAskTLS: WithTLS asks inside TLS, verifying the server as cfg says.
func TestAskTLS(t *testing.T) {
	cert, pool := selfSigned(t)
	ln := tls.NewListener(listen(t), &tls.Config{Certificates: []tls.Certificate{cert}})
	addr := fakeServer(t, ln, func(string) string { return "imok" })
	if reply, err := Ask(t.Context(), addr, "ruok", WithTLS(&tls.Config{RootCAs: pool})); reply != "imok" || err != nil {
		t.Errorf("ruok over TLS = %q, %v", reply, err)
	}
	if _, err := Ask(t.Context(), addr, "ruok", WithTLS(&tls.Config{})); err == nil {
		t.Error("an unknown CA was accepted")
	}
	// A TLS port waits for the rest of a record header: the deadline ends it.
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	if _, err := Ask(ctx, addr, "ruok"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a plain word to a TLS port: %v, want a deadline error", err)
	}
}

// selfSigned makes a certificate for 127.0.0.1 and a pool that trusts it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:         true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// BenchmarkAskSilent: how long Ask holds on a silent server past a 20 ms
// deadline (TestAskBounded asserts that the deadline ends it).
func BenchmarkAskSilent(b *testing.B) {
	ln := listen(b)
	b.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b.Cleanup(func() { c.Close() })
		}
	}()
	for b.Loop() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		if _, err := Ask(ctx, ln.Addr().String(), "ruok"); !errors.Is(err, context.DeadlineExceeded) {
			b.Fatalf("silent server: %v", err)
		}
		cancel()
	}
}
