package systems

import (
	"slices"
	"testing"
)

// ddlEntryData is DDLLogEntry::toString of a version 1 entry.
func ddlEntryData(query string, hosts ...string) []byte {
	hs := ""
	for i, h := range hosts {
		if i > 0 {
			hs += ","
		}
		hs += "'" + h + "'"
	}
	return []byte("version: 1\nquery: " + query + "\nhosts: [" + hs + "]\ninitiator: ch1:9000\n")
}

// ddlLayout is a DDL queue with three entries (enqueueQueryAttempt,
// createStatusDirs): the first finished by both hosts, the second being
// executed by ch1 (active/, and its shard lock), the third not started.
func ddlLayout(q string) []spec {
	e := func(n string) string { return q + "/query-000000000" + n }
	shard := e("1") + "/shards/ch1:9000,ch2:9000"
	return []spec{
		persistent(e("0"), ddlEntryData("CREATE TABLE t ON CLUSTER c", "ch1:9000", "ch2:9000")),
		persistent(e("0")+"/active", nil),
		persistent(e("0")+"/finished/ch1:9000", []byte("0\n")),
		persistent(e("0")+"/finished/ch2:9000", []byte("0\n")),
		persistent(e("1"), ddlEntryData("ALTER TABLE t ON CLUSTER c DELETE WHERE 1", "ch1:9000", "ch2:9000")),
		persistent(e("1")+"/finished", nil),
		ephemeral(e("1")+"/active/ch1:9000", 0, []byte("'a3c1'")),
		persistent(shard+"/tries_to_execute", []byte("1")),
		ephemeral(shard+"/lock", 0, []byte("ch1:9000")),
		persistent(e("2"), ddlEntryData("DROP TABLE u ON CLUSTER c", "ch1:9000", "ch2:9000")),
		persistent(e("2")+"/active", nil),
		persistent(e("2")+"/finished", nil),
	}
}

func TestClickHouseDDL(t *testing.T) {
	const q = "/clickhouse/task_queue/ddl"
	tree := mem(ddlLayout(q)...)
	recs := Scan(tree, "/clickhouse")
	if len(recs) != 2 {
		t.Fatalf("%d recognitions, want the queue and its shard lock: %+v", len(recs), recs)
	}
	queue, lock := recs[0], recs[1]
	if queue.Path != q || queue.Type != TypeQueue || queue.Label != "clickhouse ddl queue" {
		t.Fatalf("queue %+v", queue)
	}
	want := []string{"0 active, 2/2 finished:waiting", "1 active, 0/2 finished: ch1:9000:holder", "0 active, 0/2 finished:waiting"}
	if got := roles(queue); !slices.Equal(got, want) {
		t.Errorf("queue roles %q, want %q", got, want)
	}
	if lock.Path != q+"/query-0000000001/shards/ch1:9000,ch2:9000/lock" || lock.Type != TypeMutex ||
		lock.Label != "clickhouse ddl query-0000000001 shard" || !slices.Equal(roles(lock), []string{"ch1:9000:holder"}) {
		t.Errorf("shard lock %+v", lock)
	}

	// Look-alikes: an entry not named by getLogEntryName, an ephemeral
	// entry, an entry whose data is no DDLLogEntry.
	for _, s := range []spec{persistent("/x/query-12", []byte("version: 1\n")),
		ephemeral("/x/query-0000000001", 0, []byte("version: 1\n")),
		persistent("/x/query-0000000001", []byte("SELECT 1"))} {
		if rec, ok := Recognize(mem(s), "/x"); ok {
			t.Errorf("%s recognised as %q", s.path, rec.Label)
		}
	}
	if rec, ok := Recognize(mem(persistent("/x/shards/s/lock", []byte("h"))), "/x/shards/s/lock"); ok {
		t.Errorf("a lock outside a DDL entry recognised as %q", rec.Label)
	}
}

func TestClickHouseZeroCopy(t *testing.T) {
	const part = "/clickhouse/zero_copy/zero_copy_s3/4f1e9a52-6c1b-4b49-9f5e-3a1c0d2b7e61/all_0_5_1"
	tree := mem(persistent(part+"/s3_abc_def/replica2", nil),
		ephemeral(part+"/part_exclusive_lock", 1, []byte("replica1")))
	recs := Scan(tree, "/clickhouse")
	if len(recs) != 1 {
		t.Fatalf("%d recognitions: %+v", len(recs), recs)
	}
	rec := recs[0]
	if rec.Path != part+"/part_exclusive_lock" || rec.Type != TypeMutex || rec.Label != "clickhouse zero-copy all_0_5_1" ||
		!slices.Equal(roles(rec), []string{"replica1:holder"}) || rec.Participants[0].Session != fakeSessions[1] {
		t.Errorf("zero-copy lock %+v", rec)
	}
	if _, ok := Recognize(mem(ephemeral("/a/b/c/part_exclusive_lock", 0, []byte("r"))), "/a/b/c/part_exclusive_lock"); ok {
		t.Errorf("a part_exclusive_lock outside zero_copy_<disk> recognised")
	}
}

// TestSolrEmptyElection: an overseer or shard election with no candidate
// is Solr's by its place; a record naming somebody is a leader-mismatch,
// no record either says "no leader".
func TestSolrEmptyElection(t *testing.T) {
	const p = "/solr/overseer_elect/election"
	rec := recognizeOne(t, mem(persistent(p, nil)), p)
	if rec.System != Solr || rec.Label != "solr overseer, no leader" || len(rec.Participants) != 0 || rec.Findings != nil {
		t.Errorf("no record: %+v", rec)
	}
	rec = recognizeOne(t, mem(persistent(p, nil), ephemeral("/solr/overseer_elect/leader", 0,
		[]byte(`{"id":"72057-10.0.0.1:8983_solr-n_0000000004"}`))), p)
	if got, want := findings(rec), []string{"leader-mismatch: 72057-10.0.0.1:8983_solr-n_0000000004 / "}; rec.Label != "solr overseer" || !slices.Equal(got, want) {
		t.Errorf("record naming a gone candidate: label %q findings %q", rec.Label, got)
	}
	const shard = "/solr/collections/c1/leader_elect/shard1/election"
	rec = recognizeOne(t, mem(persistent(shard, nil), ephemeral("/solr/collections/c1/leaders/shard1/leader", 0,
		[]byte(`{"core":"c1_shard1_replica_n1","node_name":"10.0.0.2:8983_solr","core_node_name":"core_node3"}`))), shard)
	if got, want := findings(rec), []string{"leader-mismatch: core_node3 on 10.0.0.2:8983_solr / "}; rec.Label != "solr c1/shard1" || !slices.Equal(got, want) {
		t.Errorf("shard record: label %q findings %q", rec.Label, got)
	}
}
