package systems

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/zklock/zklock/lockops/ordering"
)

// HBase (apache/hbase):
//
//   - ZNodePaths: masterAddressZNode = <zookeeper.znode.parent>/"master",
//     backupMasterAddressesZNode = <parent>/"backup-masters" (the defaults
//     of "zookeeper.znode.master" and "zookeeper.znode.backup.masters").
//   - MasterAddressTracker.toByteArray: the master znode (EPHEMERAL) holds
//     ProtobufUtil.prependPBMagic("PBUF") of ZooKeeper.proto Master
//     {1 master: HBase.proto ServerName {1 host_name, 2 port,
//     3 start_code}, 2 rpc_version, 3 info_port}; a backup master writes
//     the same bytes to backup-masters/<ServerName "host,port,startcode">
//     and watches the master znode (ActiveMasterManager).
//   - ZKMetadata.appendMetaData (RecoverableZooKeeper): every write is
//     prefixed with 0xFF, a 4-byte big-endian id length, the id (and a
//     salt); ZKUtil strips it on read, so the raw bytes carry it.
//   - ZKInterProcessLockBase (HBase 0.98-1.x table locks,
//     <parent>/table-lock/<table>): READ_LOCK_CHILD_NODE_PREFIX "read-",
//     WRITE_LOCK_CHILD_NODE_PREFIX "write-", EPHEMERAL_SEQUENTIAL, data
//     the TableLock message {1 table_name, 2 lock_owner ServerName,
//     3 thread_id, 4 is_shared, 5 purpose, 6 create_time}; ZNodeComparator
//     orders by the ten-digit suffix. A read lock waits for the last write
//     lock before it, a write lock for the node just before it.

// hbaseMessage decodes HBase's znode data: ZKMetadata's prefix, when
// present, and the PBUF magic stripped, the protobuf message read; false
// when the data is not HBase's protobuf.
func hbaseMessage(b []byte) (pbMessage, bool) {
	if len(b) >= 5 && b[0] == 0xFF {
		n := binary.BigEndian.Uint32(b[1:5])
		if uint64(n) > uint64(len(b)-5) {
			return nil, false
		}
		b = b[5+n:]
	}
	rest, ok := bytes.CutPrefix(b, []byte("PBUF"))
	if !ok {
		return nil, false
	}
	return pbDecode(rest)
}

// hbaseServerName decodes a ServerName message as HBase prints it.
func hbaseServerName(b []byte) (string, bool) {
	m, ok := pbDecode(b)
	if !ok {
		return "", false
	}
	host, ok := m.str(1)
	if !ok {
		return "", false
	}
	port, _ := m.uint(2)
	start, _ := m.uint(3)
	return fmt.Sprintf("%s,%d,%d", host, port, start), true
}

// hbaseMasterOf decodes the master znode's (or a backup's) data.
func hbaseMasterOf(data []byte) (string, bool) {
	m, ok := hbaseMessage(data)
	if !ok {
		return "", false
	}
	f, ok := m[1]
	if !ok || !f.isLen {
		return "", false
	}
	return hbaseServerName(f.bytes)
}

// hbaseMaster reads p as HBase's active master znode, the backup masters
// as its waiters.
func hbaseMaster(t Tree, p string) (Recognition, bool) {
	if path.Base(p) != "master" {
		return Recognition{}, false
	}
	n, ok := t.Node(p)
	if !ok || !n.Ephemeral() {
		return Recognition{}, false
	}
	sn, ok := hbaseMasterOf(n.Data)
	if !ok {
		return Recognition{}, false
	}
	h := participant(p, n)
	h.Role, h.Identity = ordering.RoleHolder, clean(sn)
	rec := Recognition{Path: p, System: HBase, Type: TypeElection, Label: "hbase master",
		Participants: []Participant{h}}
	for _, b := range childNodes(t, path.Join(path.Dir(p), "backup-masters")) {
		if b.Name == sn {
			continue // the new active deletes its backup node right after
		}
		b.Identity = clean(b.Name)
		rec.Participants = append(rec.Participants, b)
	}
	return rec, true
}

// hbaseLockName is ZKInterProcessLockBase's child name.
var hbaseLockName = regexp.MustCompile(`^(read|write)-(\d{10})$`)

// hbaseTableLock reads p as an HBase table lock (a read/write lock).
func hbaseTableLock(t Tree, p string) (Recognition, bool) {
	ps, fit := fittingChildren(t, p, func(c Participant) bool { return c.Session != 0 && hbaseLockName.MatchString(c.Name) })
	if !fit || len(ps) == 0 {
		return Recognition{}, false
	}
	byLayout := path.Base(path.Dir(p)) == "table-lock"
	for i := range ps {
		m := hbaseLockName.FindStringSubmatch(ps[i].Name)
		if m == nil || ps[i].Session == 0 {
			return Recognition{}, false
		}
		ps[i].Seq, _ = strconv.ParseInt(m[2], 10, 64)
		ps[i].HasSeq = true
		ps[i].Kind = ordering.KindWrite
		if m[1] == "read" {
			ps[i].Kind = ordering.KindRead
		}
		n, _ := t.Node(ps[i].Path)
		owner, ok := hbaseLockOwner(n.Data)
		if !ok && !byLayout {
			return Recognition{}, false
		}
		ps[i].Identity = owner
	}
	sortBySeq(ps)
	rwRoles(ps)
	return Recognition{Path: p, System: HBase, Type: TypeRWLock,
		Label: "hbase table " + clean(path.Base(p)), Participants: ps}, true
}

// hbaseLockOwner decodes a TableLock's owner and purpose.
func hbaseLockOwner(data []byte) (string, bool) {
	m, ok := hbaseMessage(data)
	if !ok {
		return "", false
	}
	var parts []string
	if f, ok := m[2]; ok && f.isLen {
		if sn, ok := hbaseServerName(f.bytes); ok {
			parts = append(parts, sn)
		}
	}
	if purpose, ok := m.str(5); ok && purpose != "" {
		parts = append(parts, purpose)
	}
	return clean(strings.Join(parts, " ")), true
}

// rwRoles gives a read/write lock's roles in sequence order: a write
// holds when first, a read when no write precedes it.
func rwRoles(ps []Participant) {
	writeBefore := false
	for i := range ps {
		switch {
		case ps[i].Kind == ordering.KindWrite && i == 0:
			ps[i].Role = ordering.RoleHolder
		case ps[i].Kind == ordering.KindRead && !writeBefore:
			ps[i].Role = ordering.RoleHolder
		}
		if ps[i].Kind == ordering.KindWrite {
			writeBefore = true
		}
	}
}
