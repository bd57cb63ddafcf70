package layouts

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/third_party/zk"
	"github.com/zklock/zklock/zkview"
)

// TestKafkaControllerByItsPath: `ls /controller` on a Kafka layout, the
// watched path itself the lock node, with the other brokers watching it
// (as they do, to run for controller when it goes): one holder, the
// controller named by its broker id, and the watching brokers as its
// waiters; never the controller node twice (once with its identity, once
// without).
func TestKafkaControllerByItsPath(t *testing.T) {
	c := testCluster(t)
	root := testPath(t)
	admin, b1, b2, b3 := rawConn(t, c.Servers()), rawConn(t, c.Servers()), rawConn(t, c.Servers()), rawConn(t, c.Servers())
	mkdirs(t, admin, root+"/brokers/ids")
	if _, err := admin.Create(root+"/controller_epoch", []byte("7"), 0, liveACL); err != nil {
		t.Fatal(err)
	}
	for id, conn := range map[int]*zk.Conn{1: b1, 2: b2, 3: b3} {
		data := fmt.Appendf(nil, `{"endpoints":["PLAINTEXT://kafka%d.example:9092"],"port":9092,"host":"kafka%d.example","version":5,"timestamp":"1700000000000"}`, id, id)
		if _, err := conn.Create(fmt.Sprintf("%s/brokers/ids/%d", root, id), data, zk.FlagEphemeral, liveACL); err != nil {
			t.Fatal(err)
		}
	}
	ctl := root + "/controller"
	if _, err := b2.Create(ctl, []byte(`{"version":2,"brokerid":2,"timestamp":"1700000000000","kraftControllerEpoch":-1}`), zk.FlagEphemeral, liveACL); err != nil {
		t.Fatal(err)
	}
	for _, b := range []*zk.Conn{b1, b3} {
		if _, _, _, err := b.ExistsW(ctl); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := zkview.Load(ctx, session(t, c.Servers()), zkview.Options{Paths: []string{ctl}, ServerView: true, Systems: New})
	if err != nil {
		t.Fatal(err)
	}
	q := s.Queue(ctl)
	if q == nil || q.System() != "kafka" {
		t.Fatalf("%s not read as Kafka's controller: %+v", ctl, q)
	}
	var holders, waiters []string
	for _, n := range q.Nodes.All() {
		what := fmt.Sprintf("%q (identity %q, session 0x%x)", n.Name, n.Identity(), n.Session)
		if n.Role == ordering.RoleHolder {
			holders = append(holders, what)
		} else {
			waiters = append(waiters, what)
		}
	}
	if len(holders) != 1 || q.Nodes.Len() == 0 || q.Nodes.At(0).Identity() != "broker 2" || q.Nodes.At(0).Session != b2.SessionID() {
		t.Errorf("holders %v, want the controller once, as broker 2", holders)
	}
	if len(waiters) != 2 {
		t.Errorf("waiters %v, want the two brokers watching the controller", waiters)
	}
	for _, p := range model.ToJSON(s) {
		if p.Path == ctl && len(p.Queue) != 3 {
			t.Errorf("ls --json lists %d nodes at %s, want the controller and its 2 watchers", len(p.Queue), ctl)
		}
	}
}
