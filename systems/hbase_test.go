package systems

import (
	"slices"
	"testing"
)

// TestHBaseMaster builds ZNodePaths' master and backup-masters
// (MasterAddressTracker.toByteArray behind ZKMetadata).
func TestHBaseMaster(t *testing.T) {
	tree := mem(
		ephemeral("/hbase/master", 0, hbaseMasterData("hm1.example", 16000, 1700000000001)),
		ephemeral("/hbase/backup-masters/hm2.example,16000,1700000000002", 1, hbaseMasterData("hm2.example", 16000, 1700000000002)),
		persistent("/hbase/rs", nil))
	rec := recognizeOne(t, tree, "/hbase/master")
	want := []string{"hm1.example,16000,1700000000001:holder", "hm2.example,16000,1700000000002:waiting"}
	if rec.System != HBase || rec.Label != "hbase master" || !slices.Equal(roles(rec), want) {
		t.Fatalf("got %s %q %q", rec.System, rec.Label, roles(rec))
	}
	// Without ZKMetadata's prefix (data as ZKUtil hands it out) too.
	plain := hbaseMasterData("hm1.example", 16000, 1)
	plain = plain[5+len("4242@hm1.example")+8:]
	if _, ok := Recognize(mem(ephemeral("/x/master", 0, plain)), "/x/master"); !ok {
		t.Error("PBUF data without metadata not recognised")
	}
	for name, tree := range map[string]*MemTree{
		"persistent master": mem(persistent("/hbase/master", hbaseMasterData("h", 1, 1))),
		"not PBUF":          mem(ephemeral("/hbase/master", 0, []byte("hm1.example:16000"))),
		"broken protobuf":   mem(ephemeral("/hbase/master", 0, []byte("PBUF\x0a\x50"))),
	} {
		if rec, ok := Recognize(tree, "/hbase/master"); ok {
			t.Errorf("%s: recognised as %s %q", name, rec.System, rec.Label)
		}
	}
}

// TestHBaseTableLock builds ZKInterProcessLockBase's read-/write- nodes
// and checks the read/write roles.
func TestHBaseTableLock(t *testing.T) {
	const p = "/hbase/table-lock/orders"
	tree := mem(
		ephSeq(p+"/read-", 0, hbaseTableLockData("orders", "rs1.example", true, "scan")),
		ephSeq(p+"/read-", 1, hbaseTableLockData("orders", "rs2.example", true, "scan")),
		ephSeq(p+"/write-", 2, hbaseTableLockData("orders", "rs3.example", false, "alter")),
		ephSeq(p+"/read-", 0, hbaseTableLockData("orders", "rs1.example", true, "scan")))
	rec := recognizeOne(t, tree, p)
	var got []string
	for _, q := range rec.Participants {
		got = append(got, q.Kind.String()+":"+q.Role.String())
	}
	want := []string{"read:holder", "read:holder", "write:waiting", "read:waiting"}
	if rec.Type != TypeRWLock || rec.Label != "hbase table orders" || !slices.Equal(got, want) {
		t.Fatalf("got %s %q %q", rec.Type, rec.Label, got)
	}
	if id := rec.Participants[2].Identity; id != "rs3.example,16020,1700000000000 alter" {
		t.Errorf("identity %q", id)
	}
	// read-/write- names elsewhere without HBase's data: not HBase's.
	if rec, ok := Recognize(mem(ephSeq("/app/locks/read-", 0, []byte("me"))), "/app/locks"); ok {
		t.Errorf("look-alike recognised as %s %q", rec.System, rec.Label)
	}
}
