package model

// A zxid is a ZooKeeper transaction id: the leader's epoch in its high 32
// bits, a counter of the epoch's transactions in its low 32. When the
// counter reaches 0xffffffff the leader gives up leading so that a new
// epoch begins: every member takes part in a leader election and every
// session reconnects (ZOOKEEPER-1277). A busy ensemble that elects no
// leader for long gets there: at 10,000 writes a second, in about five
// days.

// ZxidWarnRatio is the share of the counter past which doctor, the
// console and the exporter warn: at 90% an ensemble at 10,000 writes a
// second has about half a day left to plan the election (a rolling
// restart of its leader at a quiet hour starts a new epoch earlier).
const ZxidWarnRatio = 0.9

// zxidCounterMax is the counter's last value: reaching it ends the epoch.
const zxidCounterMax = 0xffffffff

// ZxidEpoch is the epoch of zxid z: its high 32 bits.
func ZxidEpoch(z int64) uint32 { return uint32(uint64(z) >> 32) }

// ZxidCounter is the counter of zxid z: its low 32 bits.
func ZxidCounter(z int64) uint32 { return uint32(uint64(z)) }

// ZxidCounterRatio is how far z's counter is towards the rollover, from
// 0 (a new epoch) to 1 (the election is due).
func ZxidCounterRatio(z int64) float64 { return float64(ZxidCounter(z)) / zxidCounterMax }

// ZxidNearRollover reports whether z's counter is past ZxidWarnRatio.
func ZxidNearRollover(z int64) bool { return ZxidCounterRatio(z) >= ZxidWarnRatio }

// HighestCzxid is the highest czxid of s's nodes, 0 when none was read:
// the zxid as of the newest lock node, a lower bound of the ensemble's
// (it lags by every transaction since; after an election it is of the
// old epoch until a node is made in the new one).
func (s *Snapshot) HighestCzxid() int64 {
	var hi int64
	for _, q := range s.Queues.All() {
		for _, n := range q.Nodes.All() {
			hi = max(hi, n.Czxid)
		}
	}
	return hi
}
