package systems

import (
	"bytes"
	"fmt"
	"path"

	"github.com/zklock/zklock/lockops/ordering"
)

// Hadoop HA, ActiveStandbyElector (apache/hadoop
// hadoop-common-project/hadoop-common/src/main/java/org/apache/hadoop/ha/ActiveStandbyElector.java,
// read as stored at commit 401a0ee3):
//
//   - LOCK_FILENAME "ActiveStandbyElectorLock", BREADCRUMB_FILENAME
//     "ActiveBreadCrumb", both under the elector's working directory
//     (/hadoop-ha/<nameservice> for the HDFS ZKFC,
//     /yarn-leader-election/<cluster-id> for the ResourceManager).
//   - createLockNodeAsync: the lock is one EPHEMERAL node holding appData;
//     whoever creates it is active, the standbys set an exists watch on it.
//   - becomeActive: fenceOldActive reads the breadcrumb and fences the node
//     it names (unless it is our own data), then writeBreadCrumbNode
//     creates it PERSISTENT or sets it to appData; a graceful quit deletes
//     it (tryDeleteOwnBreadCrumbNode).
//   - appData, HDFS: HAZKInfo.proto ActiveNodeInfo {1 nameserviceId,
//     2 namenodeId, 3 hostname, 4 port, 5 zkfcPort}
//     (hadoop-hdfs/src/main/proto/HAZKInfo.proto, commit 35e59f04).
//     YARN: ActiveRMInfoProto {1 clusterId, 2 rmId}
//     (ActiveStandbyElectorBasedElectorService.createActiveNodeInfo).
//
// The leader record check: once the new active has fenced, the
// breadcrumb holds the lock's data; a breadcrumb that lasts naming
// another node (or is missing while the lock is held) means the failover
// cannot fence.

const (
	hadoopLock       = "ActiveStandbyElectorLock"
	hadoopBreadCrumb = "ActiveBreadCrumb"
)

// haNode is a decoded ActiveNodeInfo or ActiveRMInfoProto.
type haNode struct {
	yarn    bool
	service string // nameserviceId, or the YARN cluster id
	id      string // namenodeId or rmId
	host    string
	port    uint64
}

// identity names the node as an operator does: "nn1 host:port", "rm1".
func (h haNode) identity() string {
	if h.host == "" {
		return clean(h.id)
	}
	return clean(fmt.Sprintf("%s %s:%d", h.id, h.host, h.port))
}

// decodeHA reads appData; false unless it is one of the two messages.
func decodeHA(data []byte) (haNode, bool) {
	m, ok := pbDecode(data)
	if !ok {
		return haNode{}, false
	}
	svc, ok1 := m.str(1)
	id, ok2 := m.str(2)
	if !ok1 || !ok2 {
		return haNode{}, false
	}
	host, okH := m.str(3)
	port, okP := m.uint(4)
	if okH && okP {
		return haNode{service: svc, id: id, host: host, port: port}, true
	}
	if len(m) == 2 {
		return haNode{yarn: true, service: svc, id: id}, true
	}
	return haNode{}, false
}

// hadoopElector reads p as an ActiveStandbyElector's working directory.
func hadoopElector(t Tree, p string) (Recognition, bool) {
	lockPath, crumbPath := path.Join(p, hadoopLock), path.Join(p, hadoopBreadCrumb)
	lock, haveLock := t.Node(lockPath)
	crumb, haveCrumb := t.Node(crumbPath)
	var active, last haNode
	var okA, okL bool
	if haveLock {
		if active, okA = decodeHA(lock.Data); !okA || !lock.Ephemeral() {
			return Recognition{}, false
		}
	}
	if haveCrumb {
		if last, okL = decodeHA(crumb.Data); !okL || crumb.Ephemeral() {
			return Recognition{}, false
		}
	}
	if !okA && !okL {
		return Recognition{}, false
	}
	named := active
	if !okA {
		named = last
	}
	rec := Recognition{Path: p, System: HadoopHA, Type: TypeElection, Record: crumbPath}
	rec.Label = "hdfs " + clean(named.service)
	if named.yarn {
		rec.Label = "yarn " + clean(named.service)
	}
	if haveLock {
		h := participant(lockPath, lock)
		h.Role, h.Identity = ordering.RoleHolder, active.identity()
		rec.Participants = []Participant{h}
		rec.Findings = hadoopCheck(crumbPath, haveCrumb, crumb.Data, last, lockPath, lock.Data, active)
	}
	return rec, true
}

// hadoopCheck compares the breadcrumb with the lock's holder. With no
// lock there is nothing to compare: the breadcrumb then names the last
// active, which the next one will fence.
func hadoopCheck(crumbPath string, haveCrumb bool, crumbData []byte, last haNode,
	lockPath string, lockData []byte, active haNode) []Finding {
	if haveCrumb && bytes.Equal(crumbData, lockData) {
		return nil
	}
	says := ""
	if haveCrumb {
		says = last.identity()
	}
	return []Finding{leaderMismatch(crumbPath, says, active.identity(), lockPath)}
}
