package systems

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/zklock/zklock/lockops/ordering"
)

// Kafka in ZooKeeper mode (apache/kafka core/src/main/scala/kafka/zk,
// read at commit 1eb7644349c):
//
//   - ZkData.scala:57-68 ControllerZNode: "/controller", an ephemeral node
//     (KafkaZkClient.scala:153, CreateMode.EPHEMERAL in a multi with the
//     epoch's setData) holding Json.encodeAsBytes of
//     {"version":2,"brokerid":N,"timestamp":"<ms>","kraftControllerEpoch":E},
//     E = -1 unless a KRaft controller took over during a migration.
//   - ZkData.scala:83-86 ControllerEpochZNode: "/controller_epoch",
//     persistent, the epoch as decimal text.
//   - ZkData.scala:97-99, 146 BrokerIdsZNode: "/brokers/ids/<id>",
//     ephemeral JSON registrations (BrokerIdZNode.encode, :153-172; created
//     by registerBroker, KafkaZkClient.scala:103-109).
//
// Every path is under the cluster's chroot ("/kafka1/controller"), so the
// evidence is the node's own shape: an ephemeral "controller" holding
// JSON with a numeric "brokerid" and a "version", beside a
// "controller_epoch" or a "brokers/ids".
//
// The leader record check: the controller's broker must be registered in
// brokers/ids; a controller naming a broker that is gone is the page an
// on-call engineer gets for a wedged cluster. A KRaft controller during a
// migration (kraftControllerEpoch > -1) is not a broker and is not
// checked.

// kafkaController reads p as Kafka's controller node.
func kafkaController(t Tree, p string) (Recognition, bool) {
	if path.Base(p) != "controller" {
		return Recognition{}, false
	}
	n, ok := t.Node(p)
	if !ok || !n.Ephemeral() {
		return Recognition{}, false
	}
	js, ok := jsonObject(n.Data)
	if !ok {
		return Recognition{}, false
	}
	broker, okB := jsonInt(js, "brokerid")
	_, okV := jsonInt(js, "version")
	if !okB || !okV {
		return Recognition{}, false
	}
	root := path.Dir(p)
	ids, haveIDs := t.Children(path.Join(root, "brokers", "ids"))
	_, haveEpoch := t.Node(path.Join(root, "controller_epoch"))
	if !haveIDs && !haveEpoch {
		return Recognition{}, false
	}
	kraft, _ := jsonInt(js, "kraftControllerEpoch")
	if _, has := js["kraftControllerEpoch"]; !has {
		kraft = -1
	}
	holder := participant(p, n)
	holder.Role = ordering.RoleHolder
	holder.Identity = "broker " + strconv.FormatInt(broker, 10)
	label := "kafka controller"
	if kraft >= 0 {
		label = "kafka controller (kraft)"
		holder.Identity = "kraft controller " + strconv.FormatInt(broker, 10)
	}
	rec := Recognition{
		Path: p, System: Kafka, Type: TypeElection, Label: label,
		Participants: []Participant{holder}, Record: p,
		Parts: []string{path.Join(root, "brokers", "ids")}, // the registrations, no mere group
	}
	if haveIDs && kraft < 0 {
		rec.Findings = kafkaCheck(p, broker, ids)
	}
	return rec, true
}

// kafkaCheck is the leader record check: the controller's broker id must
// be among the registered brokers (the ids listing of brokers/ids).
func kafkaCheck(controller string, broker int64, ids []string) []Finding {
	id := strconv.FormatInt(broker, 10)
	if slices.Contains(ids, id) {
		return nil
	}
	registered := slices.Clone(ids)
	slices.SortFunc(registered, func(a, b string) int {
		x, _ := strconv.Atoi(a)
		y, _ := strconv.Atoi(b)
		return x - y
	})
	reg := "no broker registered"
	if len(registered) > 0 {
		reg = "registered brokers " + strings.Join(registered, ",")
	}
	f := leaderMismatch(controller, "broker "+id, reg, "")
	f.Message = fmt.Sprintf("%s names broker %s, which is not registered in %s (%s)",
		controller, id, path.Join(path.Dir(controller), "brokers", "ids"), reg)
	return []Finding{f}
}
