// Package systems recognises the coordination of the systems that most
// ZooKeeper ensembles serve (Kafka, Solr, Hadoop HA, HBase, ClickHouse,
// Druid, Storm, Flink, NiFi, Marathon, Helix, Pulsar, Mesos) from the
// layout each one writes: a path's shape, its nodes' names, modes and
// data bytes, read from the system's own source. It names the system
// (System, a Label such as "solr overseer" or "hdfs ns1"), the
// coordination's Type, each participant's role and Identity (a Kafka
// broker id, a Solr node name, a NameNode id and host, a ClickHouse
// replica), and checks a leader record kept beside an election against
// it (Finding, code "leader-mismatch").
//
// A layout is recognised from its own evidence, never from a path prefix
// alone: a chroot moves everything ("/kafka1/controller"), and a path a
// system did not write stays unknown (Recognize returns false).
//
// The package is pure: recognisers read a Tree (a MemTree built by hand,
// or a LiveTree reading a server through the caller's Reader) and return values; they hold no
// state and keep no clock. A Finding is a reading of one moment: the
// caller times it by Finding.Key (a failover passes through a short
// mismatch; `ls --check` fails on one that lasts 10 s). Identities and
// messages carry raw server text: the caller sanitizes them before a
// terminal sees them.
//
// One file per system:
//
//   - tree.go: Tree, NodeInfo, Recognition, Participant, System, Type;
//     Recognize (every recogniser in turn) and Scan (a walk).
//     memtree.go: MemTree. livetree.go: LiveTree, a Tree read from a
//     server on demand through a Reader, within a budget of requests.
//     finding.go: Finding.
//     proto.go: a protobuf wire reader for the few fields needed, and the
//     JSON helpers.
//   - kafka.go: the controller, checked against brokers/ids.
//   - solr.go: the overseer and shard elections (SolrOrder), checked
//     against their leader records.
//   - hadoop.go: ActiveStandbyElector (HDFS ZKFC, YARN RM), the breadcrumb
//     checked against the lock.
//   - hbase.go: the master with its backups, the old table locks.
//   - clickhouse.go: replica elections, multi-leader mode included.
//     clickhouse_ddl.go: the distributed DDL queue (a queue whose
//     entries' shard locks Scan visits as Inner paths) and the
//     zero-copy part locks.
//   - others.go: Druid, Storm, Flink, NiFi, Marathon and YARN's Curator
//     elections, Helix's and Pulsar's leader nodes, Mesos's group.
//   - recipes.go: the library recipes no system wrote (Curator's
//     LeaderSelector, barriers, queues, groups, leases, counters):
//     RecognizeRecipe, Named and ScanRecipes, apart from Recognize and
//     Scan, so that a library recipe is never named a system.
//   - barrier.go: single barriers (Curator's DistributedBarrier, Kazoo's
//     Barrier), read only at a path the user names: Barrier.
//
// Imports: systems may import lockops/ordering (its Role and Kind, ParseName),
// model (RecipeFacts, the recipes' parts) and of the zk client only its
// types (a Reader's Stat, ErrNoNode; it opens no connection); it must never import zkview, ui or cmd,
// which call it.
package systems
