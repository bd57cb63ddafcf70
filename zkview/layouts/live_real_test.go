package layouts

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/third_party/zk"
	"github.com/zklock/zklock/zkview"
)

// The systems followed live (live.go): each test sets the full
// systems read an hour apart (watch's every), so a failover can
// only show by the live re-read the watches' events start, and checks
// that no full read came in between.

var liveACL = zk.WorldACL(zk.PermAll)

// liveStats are a Watcher's full systems reads, and its live re-reads
// with the requests they cost.
func liveStats(w *testWatcher) (full, live int, reqs int64) {
	w.layer.mu.Lock()
	defer w.layer.mu.Unlock()
	full = w.layer.reads
	if l := w.layer.st.live; l != nil {
		live, reqs = l.reads, l.reqs.Load()
	}
	return full, live, reqs
}

// mismatches are q's leader-mismatch warnings' messages.
func mismatches(q *model.Queue) []model.Warning {
	var out []model.Warning
	if q == nil {
		return nil
	}
	for _, w := range q.Warnings() {
		if w.Code == model.WarnLeaderMismatch {
			out = append(out, w)
		}
	}
	return out
}

// holderIdentity is the identity of q's first node, "" when it has none.
func holderIdentity(q *model.Queue) string {
	if q == nil || q.Nodes.Len() == 0 {
		return ""
	}
	return q.Nodes.At(0).Identity()
}

// TestSystemsLiveSolr: Solr's overseer election watched by its path, its
// leader record beside it not watched by the path: the leader's session
// lost (its candidate and its record go), a new record written, then
// rewritten alone to name another candidate; each shows at once.
func TestSystemsLiveSolr(t *testing.T) {
	c := testCluster(t)
	root := testPath(t)
	p := root + "/overseer_elect/election"
	conns := []*zk.Conn{rawConn(t, c.Servers()), rawConn(t, c.Servers()), rawConn(t, c.Servers())}
	mkdirs(t, conns[0], p)
	// LeaderElector.joinElection: <sessionId>-<nodeName>-n_, EPHEMERAL_SEQUENTIAL, no data.
	var names []string
	for i, conn := range conns {
		names = append(names, createSeq(t, conn, p, fmt.Sprintf("%d-10.0.0.%d:8983_solr-n_", conn.SessionID(), i+1), nil))
	}
	// OverseerElectionContext: EPHEMERAL /overseer_elect/leader, {"id": name}.
	record := root + "/overseer_elect/leader"
	says := func(i int) []byte { return fmt.Appendf(nil, "{\n  \"id\":%q}", names[i]) }
	if _, err := conns[0].Create(record, says(0), zk.FlagEphemeral, liveACL); err != nil {
		t.Fatal(err)
	}
	w := watch(t, session(t, c.Servers()), zkview.Options{Paths: []string{p}}, time.Hour)
	waitFor(t, w, 30*time.Second, "the overseer on 10.0.0.1, no mismatch", func(s *model.Snapshot) bool {
		q := queueOf(s, p)
		return q != nil && q.Label() == "solr overseer" && holderIdentity(q) == "10.0.0.1:8983_solr" && len(mismatches(q)) == 0
	})
	full, _, _ := liveStats(w)

	conns[0].Close() // the overseer's session is lost: its candidate and its record go
	waitFor(t, w, 30*time.Second, "the record missing beside 10.0.0.2", func(s *model.Snapshot) bool {
		q := queueOf(s, p)
		m := mismatches(q)
		return holderIdentity(q) == "10.0.0.2:8983_solr" && len(m) == 1 && strings.Contains(m[0].Message, "nobody (no record)")
	})
	if _, err := conns[1].Create(record, says(1), zk.FlagEphemeral, liveACL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, w, 30*time.Second, "the new overseer's record, no mismatch", func(s *model.Snapshot) bool {
		q := queueOf(s, p)
		return holderIdentity(q) == "10.0.0.2:8983_solr" && len(mismatches(q)) == 0
	})
	_, live0, reqs0 := liveStats(w)
	if _, err := conns[1].Set(record, says(2), -1); err != nil { // the record alone rewritten
		t.Fatal(err)
	}
	waitFor(t, w, 30*time.Second, "the record naming 10.0.0.3: a mismatch", func(s *model.Snapshot) bool {
		m := mismatches(queueOf(s, p))
		return len(m) == 1 && strings.Contains(m[0].Message, names[2])
	})
	if n, _, _ := liveStats(w); n != full {
		t.Errorf("%d full systems reads in between: the live re-read did not tell", n-full)
	}
	_, live1, reqs1 := liveStats(w)
	t.Logf("a record rewritten: %d live re-reads, %d requests", live1-live0, reqs1-reqs0)
}

// TestSystemsLiveKafka: Kafka's controller watched by its path, the
// brokers' registrations not: the controller moving from broker 1 to
// broker 2 shows at once, and so does the controller's broker losing
// its registration (a leader-mismatch) and registering again.
func TestSystemsLiveKafka(t *testing.T) {
	c := testCluster(t)
	root := testPath(t)
	admin, b1, b2, b3 := rawConn(t, c.Servers()), rawConn(t, c.Servers()), rawConn(t, c.Servers()), rawConn(t, c.Servers())
	mkdirs(t, admin, root+"/brokers/ids")
	if _, err := admin.Create(root+"/controller_epoch", []byte("7"), 0, liveACL); err != nil {
		t.Fatal(err)
	}
	// ZkData.scala: BrokerIdZNode (ephemeral JSON v5) and ControllerZNode
	// (ephemeral JSON, the epoch beside it).
	register := func(conn *zk.Conn, id int) {
		t.Helper()
		data := fmt.Appendf(nil, `{"features":{},"endpoints":["PLAINTEXT://kafka%d.example:9092"],"jmx_port":-1,"port":9092,"host":"kafka%d.example","version":5,"timestamp":"1700000000000"}`, id, id)
		if _, err := conn.Create(fmt.Sprintf("%s/brokers/ids/%d", root, id), data, zk.FlagEphemeral, liveACL); err != nil {
			t.Fatal(err)
		}
	}
	control := func(conn *zk.Conn, id int) {
		t.Helper()
		data := fmt.Appendf(nil, `{"version":2,"brokerid":%d,"timestamp":"1700000000000","kraftControllerEpoch":-1}`, id)
		if _, err := conn.Create(root+"/controller", data, zk.FlagEphemeral, liveACL); err != nil {
			t.Fatal(err)
		}
	}
	register(b1, 1)
	register(b2, 2)
	control(b1, 1)
	ctl := root + "/controller"
	w := watch(t, session(t, c.Servers()), zkview.Options{Paths: []string{ctl}}, time.Hour)
	waitFor(t, w, 30*time.Second, "broker 1 the controller", func(s *model.Snapshot) bool {
		q := queueOf(s, ctl)
		return q != nil && q.Label() == "kafka controller" && holderIdentity(q) == "broker 1" && len(mismatches(q)) == 0
	})
	full, _, _ := liveStats(w)

	b1.Close() // broker 1's session ends; broker 2 is elected
	eventually(t, 10*time.Second, "the old controller gone", func() bool {
		ok, _, err := admin.Exists(ctl)
		return err == nil && !ok
	})
	// Broker 2's controller node is made by a session of its own, so that
	// its registration can go alone below.
	control(b3, 2)
	waitFor(t, w, 30*time.Second, "broker 2 the controller", func(s *model.Snapshot) bool {
		q := queueOf(s, ctl)
		return holderIdentity(q) == "broker 2" && len(mismatches(q)) == 0
	})
	b2.Close() // the registration alone goes: the controller names a broker not registered
	waitFor(t, w, 30*time.Second, "broker 2 not registered: a mismatch", func(s *model.Snapshot) bool {
		m := mismatches(queueOf(s, ctl))
		return len(m) == 1 && strings.Contains(m[0].Message, "not registered")
	})
	_, live0, reqs0 := liveStats(w)
	register(rawConn(t, c.Servers()), 2)
	waitFor(t, w, 30*time.Second, "broker 2 registered again", func(s *model.Snapshot) bool {
		return len(mismatches(queueOf(s, ctl))) == 0
	})
	if n, _, _ := liveStats(w); n != full {
		t.Errorf("%d full systems reads in between: the live re-read did not tell", n-full)
	}
	_, live, reqs := liveStats(w)
	t.Logf("a broker registered: %d live re-reads, %d requests", live-live0, reqs-reqs0)
}

// haInfo is HAZKInfo.proto ActiveNodeInfo as the HDFS ZKFC writes it
// (nameserviceId 1, namenodeId 2, hostname 3, port 4, zkfcPort 5).
func haInfo(ns, nn string) []byte {
	str := func(b []byte, n int, s string) []byte {
		b = binary.AppendUvarint(b, uint64(n)<<3|2)
		return append(binary.AppendUvarint(b, uint64(len(s))), s...)
	}
	num := func(b []byte, n int, v uint64) []byte {
		return binary.AppendUvarint(binary.AppendUvarint(b, uint64(n)<<3), v)
	}
	return num(num(str(str(str(nil, 1, ns), 2, nn), 3, nn+".example"), 4, 8020), 5, 8019)
}

// TestSystemsLiveHadoop: an HDFS ZKFC failover under a watched root:
// the new active takes ActiveStandbyElectorLock while the breadcrumb
// still names the old one (a leader-mismatch at once, dated from then
// and kept so by a later re-read), then the breadcrumb is rewritten
// (fenced: the mismatch clears at once).
func TestSystemsLiveHadoop(t *testing.T) {
	c := testCluster(t)
	root := testPath(t)
	dir := root + "/hadoop-ha/ns1"
	lock, crumb := dir+"/ActiveStandbyElectorLock", dir+"/ActiveBreadCrumb"
	nn1, nn2 := rawConn(t, c.Servers()), rawConn(t, c.Servers())
	mkdirs(t, nn1, dir)
	if _, err := nn1.Create(lock, haInfo("ns1", "nn1"), zk.FlagEphemeral, liveACL); err != nil {
		t.Fatal(err)
	}
	if _, err := nn1.Create(crumb, haInfo("ns1", "nn1"), 0, liveACL); err != nil {
		t.Fatal(err)
	}
	w := watch(t, session(t, c.Servers()), zkview.Options{Roots: []string{root}}, time.Hour)
	active := func(s *model.Snapshot) string { return holderIdentity(queueOf(s, dir)) }
	waitFor(t, w, 30*time.Second, "nn1 active, fenced", func(s *model.Snapshot) bool {
		q := queueOf(s, dir)
		return q != nil && q.Label() == "hdfs ns1" && strings.HasPrefix(active(s), "nn1 ") && len(mismatches(q)) == 0
	})
	full, _, _ := liveStats(w)

	before := time.Now()
	nn1.Close() // nn1's ZKFC loses its session: the lock goes, the breadcrumb stays
	if _, err := nn2.Create(lock, haInfo("ns1", "nn2"), zk.FlagEphemeral, liveACL); err != nil {
		t.Fatal(err)
	}
	snap := waitFor(t, w, 30*time.Second, "nn2 active, the breadcrumb lagging", func(s *model.Snapshot) bool {
		return strings.HasPrefix(active(s), "nn2 ") && len(mismatches(queueOf(s, dir))) == 1
	})
	since := mismatches(queueOf(snap, dir))[0].Since
	if since.Before(before.Add(-time.Second)) {
		t.Errorf("the mismatch dated %v, before the failover at %v", since, before)
	}
	// Another change the recognition covers re-reads it: the same
	// mismatch keeps its date.
	_, live0, _ := liveStats(w)
	if _, err := nn2.Set(dir, []byte("touched"), -1); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "a re-read after the touch", func() bool {
		_, live, _ := liveStats(w)
		return live > live0
	})
	snap = waitFor(t, w, 30*time.Second, "the mismatch still there", func(s *model.Snapshot) bool {
		return len(mismatches(queueOf(s, dir))) == 1
	})
	if got := mismatches(queueOf(snap, dir))[0].Since; !got.Equal(since) {
		t.Errorf("the mismatch redated %v, first seen %v", got, since)
	}
	_, live1, reqs1 := liveStats(w)
	// ActiveStandbyElector.writeBreadCrumbNode: setData once fenced.
	if _, err := nn2.Set(crumb, haInfo("ns1", "nn2"), -1); err != nil {
		t.Fatal(err)
	}
	waitFor(t, w, 30*time.Second, "fenced: the mismatch cleared", func(s *model.Snapshot) bool {
		return strings.HasPrefix(active(s), "nn2 ") && len(mismatches(queueOf(s, dir))) == 0
	})
	if n, _, _ := liveStats(w); n != full {
		t.Errorf("%d full systems reads in between: the live re-read did not tell", n-full)
	}
	_, live2, reqs2 := liveStats(w)
	t.Logf("a breadcrumb rewritten: %d live re-reads, %d requests", live2-live1, reqs2-reqs1)
	var raised, cleared int
	for _, ev := range w.events() {
		if ev.Warning.Code == model.WarnLeaderMismatch {
			switch ev.Kind {
			case model.ChangeWarningRaised:
				raised++
			case model.ChangeWarningCleared:
				cleared++
			}
		}
	}
	if raised != 1 || cleared != 1 {
		t.Errorf("leader-mismatch raised %d, cleared %d times on the event log, want once each", raised, cleared)
	}
}
