package zk

// zklock patch: tests of Create2 (patch 5) against a real ZooKeeper
// (zkserver_test.go).

import (
	"errors"
	"fmt"
	"testing"
)

// TestCreate2Stat creates ephemeral sequential nodes with Create2: the
// Stat in the answer is the node's own (its czxid and owner as Exists
// reads them), and each later create has a higher czxid.
func TestCreate2Stat(t *testing.T) {
	c := connect(t, testServer(t))
	dir := fmt.Sprintf("/create2-%x", c.SessionID())
	mkdirs(t, c, dir)
	var last int64
	for i := 0; i < 3; i++ {
		p, st, err := c.Create2(dir+"/n-", []byte("x"), FlagEphemeral|FlagSequence, WorldACL(PermAll))
		if err != nil {
			t.Fatalf("Create2: %v", err)
		}
		ok, read, err := c.Exists(p)
		if err != nil || !ok {
			t.Fatalf("Exists %s: %v %v", p, ok, err)
		}
		if *st != *read {
			t.Fatalf("Create2's Stat %+v, Exists reads %+v", *st, *read)
		}
		if st.EphemeralOwner != c.SessionID() || st.Czxid <= last {
			t.Fatalf("Stat %+v: want owner 0x%x and czxid above %d", *st, c.SessionID(), last)
		}
		last = st.Czxid
	}
	if _, _, err := c.Create2(dir+"/n-0000000000", nil, FlagEphemeral, WorldACL(PermAll)); !errors.Is(err, ErrNodeExists) {
		t.Fatalf("Create2 of an existing node: %v, want ErrNodeExists", err)
	}
}
