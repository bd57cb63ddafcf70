package sandbox

import (
	"context"
	"net"
	"os"
	"testing"
	"time"
)

// TestKDC: the realm is made, its keytabs exported, and krb5kdc serves on
// its port until Stop and again after Start.
func TestKDC(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	k, err := StartKDC(ctx, KDCOptions{Principals: []string{"zookeeper/localhost", "alice"}})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	for _, p := range []string{"zookeeper/localhost", "alice"} {
		if fi, err := os.Stat(k.Keytab(p)); err != nil || fi.Size() == 0 {
			t.Fatalf("keytab of %s: %v", p, err)
		}
	}
	if err := k.Stop(); err != nil {
		t.Fatal(err)
	}
	if c, err := net.Dial("tcp", k.Addr()); err == nil {
		c.Close()
		t.Fatal("the stopped KDC still accepts connections")
	}
	if err := k.Start(ctx); err != nil {
		t.Fatal(err)
	}
}
