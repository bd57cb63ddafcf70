package systems

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/zklock/zklock/lockops/ordering"
)

// ClickHouse's distributed DDL queue (ClickHouse/ClickHouse
// src/Interpreters/DDLWorker.cpp read at commit 013b51e1, DDLTask.h and
// DDLTask.cpp, src/Common/ZooKeeper/ZooKeeperLock.cpp at 006fb6fc):
//
//   - enqueueQueryAttempt: <queue_dir>/query- PERSISTENT_SEQUENTIAL
//     (distributed_ddl.path, default /clickhouse/task_queue/ddl), data
//     DDLLogEntry::toString "version: N\nquery: ...\nhosts: [...]\n
//     initiator: ...\n"; then createStatusDirs makes active/ and
//     finished/ PERSISTENT in one multi. The workers read the entries
//     whose names start with "query-", in name order.
//   - processTask: a host executing an entry holds
//     active/<host_id> EPHEMERAL (data its server UUID), removed in the
//     multi that creates finished/<host_id> PERSISTENT (its status).
//   - tryExecuteQueryOnSingleReplica (an ALTER on a replicated table):
//     shards/<shard id> (the shard's replicas "host:port,...") holding
//     executed and tries_to_execute PERSISTENT, and the lock
//     createSimpleZooKeeperLock(shard_path, "lock", host_id):
//     ZooKeeperLock::tryLock creates "lock" EPHEMERAL holding the host id;
//     the other replicas retry tryLock after a random pause (no watch on
//     it).
//
// Zero-copy replication's part locks (StorageReplicatedMergeTree:
// getZeroCopyPartPath, tryCreateZeroCopyExclusiveLock; MergeTree's
// ZeroCopyLock): <remote_fs_zero_copy_zookeeper_path, default
// /clickhouse/zero_copy>/zero_copy_<disk type>/<table uuid>/<part>/
// part_exclusive_lock, EPHEMERAL, data the replica name, taken by the
// replica that merges or mutates a part on shared storage (the older
// compatible path <table>/zero_copy_<disk>/shared/<part>/ has the same
// shape). Beside it, <part id>/<replica> nodes count the part's users
// (PERSISTENT references, EPHEMERAL while a fetch lasts): not a lock.

// ddlEntry is DDLTaskBase::getLogEntryName's "query-" + %010d.
var ddlEntry = regexp.MustCompile(`^query-\d{10}$`)

// ddlDetail bounds the entries whose status a read lists (active/,
// finished/, shards/): the newest ones, where a DDL waits; the older
// ones are listed by name only (the queue keeps up to
// max_tasks_in_queue, 1000 by default).
const ddlDetail = 50

// clickhouseDDLQueue reads p as a distributed DDL queue: its entries are
// the participants, in order; one that a host executes now (an active/
// node) holds, the others wait; the identity counts who is active and
// who finished. Its shard locks are recognised on their own (Inner).
func clickhouseDDLQueue(t Tree, p string) (Recognition, bool) {
	kids, _ := t.Children(p)
	var ps []Participant
	for _, k := range kids {
		if !strings.HasPrefix(k, "query-") {
			continue // the workers skip them too
		}
		full := path.Join(p, k)
		n, ok := t.Node(full)
		if !ok || !ddlEntry.MatchString(k) || n.Ephemeral() || !bytes.HasPrefix(n.Data, []byte("version: ")) {
			return Recognition{}, false
		}
		pt := participant(full, n)
		pt.Seq, pt.HasSeq = seq10(k)
		ps = append(ps, pt)
	}
	if len(ps) == 0 {
		return Recognition{}, false
	}
	sortBySeq(ps)
	rec := Recognition{Path: p, System: ClickHouse, Type: TypeQueue, Label: "clickhouse ddl queue", Participants: ps}
	for i := max(0, len(ps)-ddlDetail); i < len(ps); i++ {
		rec.Inner = append(rec.Inner, ddlStatus(t, &ps[i])...)
	}
	return rec, true
}

// ddlStatus reads one entry's status: active and finished hosts, and the
// shard locks below it (returned, for Scan).
func ddlStatus(t Tree, e *Participant) []string {
	n, _ := t.Node(e.Path)
	hosts := ddlHosts(n.Data)
	active, _ := t.Children(path.Join(e.Path, "active"))
	finished, _ := t.Children(path.Join(e.Path, "finished"))
	if len(active) > 0 {
		e.Role = ordering.RoleHolder
	}
	id := fmt.Sprintf("%d active, %d finished", len(active), len(finished))
	if hosts > 0 {
		id = fmt.Sprintf("%d active, %d/%d finished", len(active), len(finished), hosts)
	}
	if len(active) > 0 {
		id += ": " + strings.Join(active, ",")
	}
	e.Identity = clean(id)
	var locks []string
	shards, _ := t.Children(path.Join(e.Path, "shards"))
	for _, s := range shards {
		sp := path.Join(e.Path, "shards", s)
		if kids, _ := t.Children(sp); slices.Contains(kids, "lock") {
			locks = append(locks, path.Join(sp, "lock"))
		}
	}
	return locks
}

// ddlHosts counts the hosts an entry names ("hosts: ['h1:9000','h2:9000']"),
// 0 when it names none (a version 2 entry may leave them out).
func ddlHosts(data []byte) int {
	for _, line := range strings.Split(string(data), "\n") {
		list, ok := strings.CutPrefix(line, "hosts: ")
		if !ok {
			continue
		}
		list = strings.Trim(list, "[]")
		if list == "" {
			return 0
		}
		return strings.Count(list, ",") + 1
	}
	return 0
}

// clickhouseDDLLock reads p as the lock of one shard's execution of a
// DDL entry: the replica that holds it executes the query for the shard.
func clickhouseDDLLock(t Tree, p string) (Recognition, bool) {
	shardDir := path.Dir(p)
	entry := path.Dir(path.Dir(shardDir))
	if path.Base(p) != "lock" || path.Base(path.Dir(shardDir)) != "shards" || !ddlEntry.MatchString(path.Base(entry)) {
		return Recognition{}, false
	}
	h, ok := loneHolder(t, p)
	if !ok {
		return Recognition{}, false
	}
	return Recognition{Path: p, System: ClickHouse, Type: TypeMutex,
		Label: "clickhouse ddl " + path.Base(entry) + " shard", Participants: []Participant{h}}, true
}

// clickhouseZeroCopyLock reads p as a zero-copy part's exclusive lock.
func clickhouseZeroCopyLock(t Tree, p string) (Recognition, bool) {
	part := path.Dir(p)
	if path.Base(p) != "part_exclusive_lock" || !strings.HasPrefix(path.Base(path.Dir(path.Dir(part))), "zero_copy_") {
		return Recognition{}, false
	}
	h, ok := loneHolder(t, p)
	if !ok {
		return Recognition{}, false
	}
	return Recognition{Path: p, System: ClickHouse, Type: TypeMutex,
		Label: "clickhouse zero-copy " + clean(path.Base(part)), Participants: []Participant{h}}, true
}

// loneHolder reads p as one EPHEMERAL lock node whose data names its
// holder.
func loneHolder(t Tree, p string) (Participant, bool) {
	n, ok := t.Node(p)
	if !ok || !n.Ephemeral() || len(n.Data) == 0 {
		return Participant{}, false
	}
	h := participant(p, n)
	h.Role, h.Identity = ordering.RoleHolder, clean(string(n.Data))
	return h, true
}
