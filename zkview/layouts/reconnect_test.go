package layouts

import (
	"testing"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/third_party/zk"
	"github.com/zklock/zklock/zkview"
)

// TestSystemsReadAfterReconnect: a failover made while the Watcher was cut
// off (Kafka's controller passing from broker 1 to broker 2) shows once
// the link is back, read again with the paths, not at the next systems
// tick: the ticker is set an hour apart here, so only the read a
// reconnection starts can show it.
func TestSystemsReadAfterReconnect(t *testing.T) {
	c := testCluster(t)
	root := testPath(t)
	proxy, err := sandbox.NewProxy(c.Servers()[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proxy.Close() })
	admin, b1, b2 := rawConn(t, c.Servers()), rawConn(t, c.Servers()), rawConn(t, c.Servers())
	mkdirs(t, admin, root+"/brokers/ids")
	eph, acl := int32(zk.FlagEphemeral), zk.WorldACL(zk.PermAll)
	// ZkData.scala: BrokerIdZNode and ControllerZNode, ephemeral JSON.
	for i, conn := range []*zk.Conn{b1, b2} {
		id := string(rune('1' + i))
		if _, err := conn.Create(root+"/brokers/ids/"+id, []byte(`{"version":5,"host":"kafka`+id+`","port":9092}`), eph, acl); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := admin.Create(root+"/controller_epoch", []byte("1"), 0, acl); err != nil {
		t.Fatal(err)
	}
	if _, err := b1.Create(root+"/controller", []byte(`{"version":1,"brokerid":1,"timestamp":"1700000000000"}`), eph, acl); err != nil {
		t.Fatal(err)
	}
	mon := session(t, []string{proxy.Addr()}, lockops.WithSessionTimeout(10*time.Second))
	w := watch(t, mon, zkview.Options{Paths: []string{root + "/controller"}}, time.Hour)
	leader := func(s *model.Snapshot) string {
		if q := queueOf(s, root+"/controller"); q != nil && q.Nodes.Len() == 1 {
			return q.Nodes.At(0).Identity()
		}
		return ""
	}
	waitFor(t, w, 30*time.Second, "broker 1 the controller", func(s *model.Snapshot) bool { return leader(s) == "broker 1" })

	proxy.Cut()
	waitFor(t, w, 10*time.Second, "disconnected", func(s *model.Snapshot) bool { return s.Conn.State == model.StateDisconnected })
	b1.Close() // the controller's session ends; broker 2 is elected
	eventually(t, 10*time.Second, "the old controller gone", func() bool {
		ok, _, err := admin.Exists(root + "/controller")
		return err == nil && !ok
	})
	if _, err := b2.Create(root+"/controller", []byte(`{"version":1,"brokerid":2,"timestamp":"1700000001000"}`), eph, acl); err != nil {
		t.Fatal(err)
	}
	proxy.Restore()
	waitFor(t, w, 30*time.Second, "broker 2 the controller after the reconnection", func(s *model.Snapshot) bool {
		return s.Conn.State == model.StateConnected && leader(s) == "broker 2"
	})
}
