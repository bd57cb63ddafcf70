package systems

import (
	"encoding/binary"
	"fmt"
)

// The layouts below are built byte for byte as each system's source
// writes them; the comment above each names the file read (the recogniser
// files cite the lines).

// kafkaControllerJSON is ControllerZNode.encode (apache/kafka
// core/src/main/scala/kafka/zk/ZkData.scala:59-65): Jackson writes the
// Scala Map in insertion order.
func kafkaControllerJSON(broker, kraftEpoch int) []byte {
	return fmt.Appendf(nil, `{"version":2,"brokerid":%d,"timestamp":"1700000000000","kraftControllerEpoch":%d}`, broker, kraftEpoch)
}

// kafkaBrokerJSON is a v5 BrokerIdZNode.encode (ZkData.scala:153-172).
func kafkaBrokerJSON(id int) []byte {
	return fmt.Appendf(nil, `{"features":{},"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},`+
		`"endpoints":["PLAINTEXT://kafka%d.example:9092"],"jmx_port":-1,"port":9092,"host":"kafka%d.example",`+
		`"version":5,"timestamp":"1700000000000"}`, id, id)
}

// kafkaLayout is a cluster under chroot whose brokers ids registered with
// sessions[i] for ids[i], the controller being broker controller
// (owned by session owner): KafkaZkClient.registerBroker and
// registerControllerAndIncrementControllerEpoch (KafkaZkClient.scala:103-160).
func kafkaLayout(chroot string, ids []int, controller, owner int) []spec {
	specs := []spec{persistent(chroot+"/controller_epoch", []byte("7"))}
	for i, id := range ids {
		specs = append(specs, ephemeral(fmt.Sprintf("%s/brokers/ids/%d", chroot, id), i, kafkaBrokerJSON(id)))
	}
	if controller >= 0 {
		specs = append(specs, ephemeral(chroot+"/controller", owner, kafkaControllerJSON(controller, -1)))
	}
	return specs
}

// solrCandidate is LeaderElector.joinElection's node (apache/solr
// LeaderElector.java): <electionPath>/election/<sessionId>-<id>-n_,
// EPHEMERAL_SEQUENTIAL, no data.
func solrCandidate(electionPath string, sessions []int64, owner int, id string) spec {
	return ephSeq(fmt.Sprintf("%s/election/%d-%s-n_", electionPath, sessions[owner], id), owner, nil)
}

// solrOverseerRecord is OverseerElectionContext.runLeaderProcess's record:
// EPHEMERAL "/overseer_elect/leader", Utils.toJSON({"id": name}) (Solr's
// JSON writer indents by two).
func solrOverseerRecord(root string, owner int, leaderNodeName string) spec {
	return ephemeral(root+"/overseer_elect/leader", owner, fmt.Appendf(nil, "{\n  \"id\":%q}", leaderNodeName))
}

// solrShardRecord is ShardLeaderElectionContextBase.runLeaderProcess's
// record: EPHEMERAL /collections/<c>/leaders/<shard>/leader with the four
// props ZkController.joinElection puts.
func solrShardRecord(root, coll, shard string, owner int, coreNode, nodeName string) spec {
	return ephemeral(fmt.Sprintf("%s/collections/%s/leaders/%s/leader", root, coll, shard), owner,
		fmt.Appendf(nil, "{\n  \"core\":%q,\n  \"node_name\":%q,\n  \"base_url\":\"http://%s/solr\",\n  \"core_node_name\":%q}",
			coll+"_"+shard+"_replica_n1", nodeName, nodeName, coreNode))
}

// hadoopNN is HAZKInfo.proto ActiveNodeInfo as DFSZKFailoverController
// writes it (apache/hadoop hadoop-hdfs/src/main/proto/HAZKInfo.proto).
func hadoopNN(ns, nn, host string, port, zkfcPort uint64) []byte {
	var b []byte
	b = pbPut(b, 1, ns)
	b = pbPut(b, 2, nn)
	b = pbPut(b, 3, host)
	b = pbPut(b, 4, port)
	return pbPut(b, 5, zkfcPort)
}

// hadoopRM is ActiveRMInfoProto {1 clusterId, 2 rmId}
// (ActiveStandbyElectorBasedElectorService.createActiveNodeInfo).
func hadoopRM(cluster, rm string) []byte {
	return pbPut(pbPut(nil, 1, cluster), 2, rm)
}

// hbaseMeta is ZKMetadata.appendMetaData (apache/hbase): 0xFF, the id's
// length (big endian), the id and an 8-byte salt, then the data.
func hbaseMeta(id string, data []byte) []byte {
	b := []byte{0xFF}
	b = binary.BigEndian.AppendUint32(b, uint32(len(id)+8))
	b = append(b, id...)
	b = append(b, 1, 2, 3, 4, 5, 6, 7, 8)
	return append(b, data...)
}

// hbaseServerNamePB is HBase.proto ServerName {1 host_name, 2 port,
// 3 start_code}.
func hbaseServerNamePB(host string, port, start uint64) []byte {
	return pbPut(pbPut(pbPut(nil, 1, host), 2, port), 3, start)
}

// hbaseMasterData is MasterAddressTracker.toByteArray behind the metadata:
// "PBUF" + ZooKeeper.proto Master {1 master, 2 rpc_version, 3 info_port}.
func hbaseMasterData(host string, port, start uint64) []byte {
	m := pbPut(nil, 1, hbaseServerNamePB(host, port, start))
	m = pbPut(m, 2, uint64(0))
	m = pbPut(m, 3, uint64(16010))
	return hbaseMeta("4242@"+host, append([]byte("PBUF"), m...))
}

// hbaseTableLockData is ZooKeeper.proto TableLock behind PBUF and the
// metadata (TableLockManager's lock metadata).
func hbaseTableLockData(table, host string, shared bool, purpose string) []byte {
	tn := pbPut(pbPut(nil, 1, "default"), 2, table)
	m := pbPut(nil, 1, tn)
	m = pbPut(m, 2, hbaseServerNamePB(host, 16020, 1700000000000))
	m = pbPut(m, 3, uint64(77))
	var s uint64
	if shared {
		s = 1
	}
	m = pbPut(m, 4, s)
	m = pbPut(m, 5, purpose)
	return hbaseMeta("4242@"+host, append([]byte("PBUF"), m...))
}
