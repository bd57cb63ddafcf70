package zk

// zklock patch: a test of MultiZxid (patch 8) against a real ZooKeeper
// (zkserver_test.go).

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestMultiZxidSequentialCreate deletes a node and creates an ephemeral
// sequential one in one multi: the answer names the created node (with its
// sequence) and the header's zxid is the new node's czxid; a multi whose
// delete fails creates nothing.
func TestMultiZxidSequentialCreate(t *testing.T) {
	c := connect(t, testServer(t))
	dir := fmt.Sprintf("/multizxid-%x", c.SessionID())
	mkdirs(t, c, dir)
	old, _, err := c.Create2(dir+"/n-", nil, FlagEphemeral|FlagSequence, WorldACL(PermAll))
	if err != nil {
		t.Fatal(err)
	}
	mr, zxid, err := c.MultiZxid(
		&DeleteRequest{Path: old, Version: -1},
		&CreateRequest{Path: dir + "/n-", Data: []byte("x"), Acl: WorldACL(PermAll), Flags: FlagEphemeral | FlagSequence},
	)
	if err != nil || len(mr) != 2 {
		t.Fatalf("MultiZxid: %v %+v", err, mr)
	}
	made := mr[1].String
	if !strings.HasPrefix(made, dir+"/n-") || len(made) != len(dir+"/n-")+10 || made == old {
		t.Fatalf("created %q, want a new %s/n-<10 digits> (old %s)", made, dir, old)
	}
	ok, st, err := c.Exists(made)
	if err != nil || !ok {
		t.Fatalf("Exists %s: %v %v", made, ok, err)
	}
	if st.Czxid != zxid || st.EphemeralOwner != c.SessionID() {
		t.Fatalf("czxid %d owner 0x%x, want the multi's zxid %d and 0x%x", st.Czxid, st.EphemeralOwner, zxid, c.SessionID())
	}
	if ok, _, _ := c.Exists(old); ok {
		t.Fatalf("%s still exists after the multi", old)
	}
	_, _, err = c.MultiZxid(
		&DeleteRequest{Path: old, Version: -1},
		&CreateRequest{Path: dir + "/n-", Acl: WorldACL(PermAll), Flags: FlagEphemeral | FlagSequence},
	)
	if !errors.Is(err, ErrNoNode) {
		t.Fatalf("multi deleting a missing node: %v, want ErrNoNode", err)
	}
	kids, _, err := c.Children(dir)
	if err != nil || len(kids) != 1 {
		t.Fatalf("children after a failed multi: %v %v, want only %s", kids, err, made)
	}
}
