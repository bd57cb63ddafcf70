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
	if testing.Short() {
		t.Skip("needs the MIT KDC (make test runs it; -short does not)")
	}
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

// TestKDCAdmin: a principal added after the start gets a keytab kinit can
// use, a 1-second ticket expires (klist -s says so), a deleted principal
// cannot kinit any more, nor a re-keyed one from its old keytab; a KDC
// with a shifted clock starts and serves.
func TestKDCAdmin(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the MIT KDC (make test runs it; -short does not)")
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	k, err := StartKDC(ctx, KDCOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	for _, p := range []string{"carol", "dave"} {
		if err := k.AddPrincipal(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	cc := t.TempDir() + "/cc"
	if err := k.Kinit(ctx, "carol", cc, 0); err != nil {
		t.Fatal(err)
	}
	if ok, err := k.TicketValid(ctx, cc); err != nil || !ok {
		t.Fatalf("a fresh ticket: valid %v, %v", ok, err)
	}
	if err := k.Kinit(ctx, "carol", cc, time.Second); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		ok, err := k.TicketValid(ctx, cc)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a 1-second ticket still valid after 20 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := k.DeletePrincipal(ctx, "carol"); err != nil {
		t.Fatal(err)
	}
	if err := k.Kinit(ctx, "carol", cc, 0); err == nil {
		t.Fatal("kinit as a deleted principal succeeded")
	}
	if err := k.Rekey(ctx, "dave"); err != nil {
		t.Fatal(err)
	}
	if err := k.Kinit(ctx, "dave", cc, 0); err == nil {
		t.Fatal("kinit from a keytab of the old key succeeded")
	}

	shifted, err := StartKDC(ctx, KDCOptions{Realm: "SHIFTED.TEST", ClockOffset: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer shifted.Close()
	if c, err := net.Dial("tcp", shifted.Addr()); err != nil {
		t.Fatalf("the shifted KDC does not serve: %v", err)
	} else {
		c.Close()
	}
}
