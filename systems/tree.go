package systems

import (
	"cmp"
	"path"
	"slices"
	"strings"
	"unicode"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// DataLimit is how much of a node's data the recognisers read: every
// record they decode (a JSON registration, an HBase ServerName, a Hadoop
// ActiveNodeInfo) fits in a few hundred bytes; 4 KB leaves room for a
// Kafka registration with many listeners without carrying large blobs.
const DataLimit = 4096

// NodeInfo is what a recogniser needs to know of one node.
type NodeInfo struct {
	// Data is the node's data, at most DataLimit bytes of it.
	Data []byte
	// EphemeralOwner is the owning session of an ephemeral node, 0 for a
	// persistent one.
	EphemeralOwner int64
	// Czxid is the transaction that created the node (the fencing token).
	Czxid int64
	// Ctime is the node's creation time, in milliseconds since the epoch.
	Ctime int64
}

// Ephemeral says whether the node lives and dies with a session.
func (n NodeInfo) Ephemeral() bool { return n.EphemeralOwner != 0 }

// Tree is a read-only view of part of a ZooKeeper tree: an in-memory
// MemTree, a LiveTree reading a server on demand, or the caller's own
// cache. Paths are absolute and clean ("/a/b").
type Tree interface {
	// Children lists the names of a node's children; false when the node
	// is not known to exist.
	Children(p string) ([]string, bool)
	// Node describes one node; false when it is not known to exist.
	Node(p string) (NodeInfo, bool)
}

// System names the software whose layout a path follows, as `ls --json`
// says it in "system".
type System string

// The systems recognised.
const (
	Kafka      System = "kafka"
	HBase      System = "hbase"
	Solr       System = "solr"
	HadoopHA   System = "hadoop-ha"
	ClickHouse System = "clickhouse"
	Druid      System = "druid"
	Flink      System = "flink"
	NiFi       System = "nifi"
	Storm      System = "storm"
	Helix      System = "helix"
	Pulsar     System = "pulsar"
	Mesos      System = "mesos"
	Marathon   System = "marathon"
)

// Type is the coordination a recognised path does, as `ls --json` says it
// in "type".
type Type string

// The types a system's layout can have.
const (
	TypeElection Type = "election"
	TypeMutex    Type = "mutex"
	TypeRWLock   Type = "rwlock"
	// TypeQueue: entries taken in order, not a lock (ClickHouse's DDL
	// queue): an entry being worked on holds, the others wait.
	TypeQueue Type = "queue"
)

// Participant is one node taking part in a recognised coordination.
type Participant struct {
	Path string // the node's full path
	Name string // its last path element
	// Seq is the node's sequence when it has one (HasSeq).
	Seq    int64
	HasSeq bool
	Kind   ordering.Kind // mutex, or read/write in a read/write lock
	Role   ordering.Role
	// Identity is the participant as the system names it (a Kafka broker
	// id, a Solr node name, a NameNode id and host), decoded from the
	// node's name or data; "" when the layout does not say. Raw text from
	// the server: the caller sanitizes it before it reaches a terminal.
	Identity string
	// Marker: the node stands for a mode, not a participant (ClickHouse's
	// persistent "all (multiple leaders Ok)" node).
	Marker bool
	// Part is the node's part in a library recipe that is no lock
	// (model.PartMember...), "" otherwise.
	Part    string
	Session int64 // ephemeralOwner, 0 for a persistent node
	Czxid   int64
	Ctime   int64
}

// Recognition is one path read as a system's coordination.
type Recognition struct {
	// Path is the coordination point: the election's parent for a queue
	// of nodes, the lone node itself for a single-node election.
	Path   string
	System System
	Type   Type
	// Label names the coordination for a person: "solr overseer",
	// "hdfs ns1", "kafka controller".
	Label string
	// MultiLeader: every participant leads, nobody waits (ClickHouse's
	// "multiple leaders Ok" mode).
	MultiLeader bool
	// Participants in the system's own order: the holder(s) first.
	Participants []Participant
	// Record is the path of the leader record kept beside the election,
	// "" when the system keeps none.
	Record   string
	Findings []Finding
	// Inner are paths below Path that Scan still visits: coordination of
	// their own inside this one (a DDL entry's shard locks). Scan
	// otherwise stops at a recognised path.
	Inner []string
	// Library is the library whose recipe a path with no System follows
	// (curator, kazoo), 0 for a system's.
	Library ordering.Recipe
	// Facts is what a library recipe that is no lock states beyond its
	// participants (a counter's value, a lease's end); nil otherwise.
	Facts *model.RecipeFacts
	// Parts are paths the coordination owns besides Path (a Kazoo
	// LockingQueue's entries/ and taken/, Kafka's brokers/ids): read
	// alone, they would look like something else (a plain lock's queue,
	// a group).
	Parts []string
}

// Holders returns the participants whose role is holder.
func (r Recognition) Holders() []Participant {
	var hs []Participant
	for _, p := range r.Participants {
		if p.Role == ordering.RoleHolder {
			hs = append(hs, p)
		}
	}
	return hs
}

// recogniser reads one path as one system's layout.
type recogniser func(t Tree, p string) (Recognition, bool)

// recognisers are tried in order; each needs its own evidence (names, data
// format, node modes), so at most one matches a path.
var recognisers = []recogniser{
	kafkaController,
	solrElection,
	hadoopElector,
	hbaseMaster,
	hbaseTableLock,
	clickhouseElection,
	clickhouseDDLQueue,
	clickhouseDDLLock,
	clickhouseZeroCopyLock,
	latchElection,
	helixController,
	pulsarLeader,
	mesosGroup,
}

// Recognize reads path p of t as a system's coordination; false when no
// system's layout explains it (unknown stays unknown).
func Recognize(t Tree, p string) (Recognition, bool) { return firstOf(recognisers, t, p) }

// firstOf is the recognition of p by the first of rs whose layout
// explains it.
func firstOf(rs []recogniser, t Tree, p string) (Recognition, bool) {
	for _, r := range rs {
		if rec, ok := r(t, p); ok {
			return rec, true
		}
	}
	return Recognition{}, false
}

// Scan walks t from root, depth first in name order, and returns every
// path Recognize reads as a system's coordination, in path order. It does
// not descend below a recognised path (its nodes are the participants),
// except to the recognition's Inner paths.
func Scan(t Tree, root string) []Recognition { return scan(t, root, Recognize) }

// scan walks t from root, depth first in name order, and returns what
// recognize finds, stopping at each recognised path but for its Inner.
func scan(t Tree, root string, recognize func(Tree, string) (Recognition, bool)) []Recognition {
	var out []Recognition
	var walk func(p string)
	live, _ := t.(*LiveTree)
	walk = func(p string) {
		// A live tree that can read no more knows nothing of a path it
		// has not read: every recogniser would fail there, after asking
		// about it (a wide root's 100,000 parents, every 15 s).
		if live != nil && !live.holds(p) && live.exhausted() {
			return
		}
		if rec, ok := recognize(t, p); ok {
			out = append(out, rec)
			for _, in := range rec.Inner {
				walk(in)
			}
			return
		}
		kids, _ := t.Children(p)
		for _, k := range kids {
			walk(path.Join(p, k))
		}
	}
	walk(path.Clean(root))
	return out
}

// childNodes reads p's children as participants (waiting, mutex), in
// name order; nodes that vanished between the listing and the read are
// left out.
func childNodes(t Tree, p string) []Participant {
	ps, _ := fittingChildren(t, p, nil)
	return ps
}

// fittingChildren is childNodes for a recogniser whose grammar every
// child must fit (its name, ephemeral or not): false at the first child
// read that does not, so that a wide parent of something else costs one
// read, not one a child (nil fits: any child fits).
func fittingChildren(t Tree, p string, fits func(Participant) bool) ([]Participant, bool) {
	if live, ok := t.(*LiveTree); ok && live.readNoneOf(path.Clean(p)) {
		return nil, true // a wide parent's children, the read's budget spent on others
	}
	kids, _ := t.Children(p)
	if !slices.IsSorted(kids) { // a live tree's listings are sorted already
		kids = slices.Clone(kids)
		slices.Sort(kids)
	}
	out := make([]Participant, 0, min(len(kids), 64)) // a wide parent is seldom read whole
	for _, k := range kids {
		full := path.Join(p, k)
		n, ok := t.Node(full)
		if !ok {
			continue
		}
		c := participant(full, n)
		if fits != nil && !fits(c) {
			return nil, false
		}
		out = append(out, c)
	}
	return out, true
}

// participant is a node as a waiting participant, before any role.
func participant(full string, n NodeInfo) Participant {
	return Participant{
		Path: full, Name: path.Base(full), Kind: ordering.KindMutex,
		Role: ordering.RoleWaiting, Session: n.EphemeralOwner, Czxid: n.Czxid, Ctime: n.Ctime,
	}
}

// seq10 reads the ten-digit sequence ZooKeeper appends to a sequential
// node's name (%010d of a signed 32-bit counter).
func seq10(name string) (int64, bool) {
	if len(name) < 10 {
		return 0, false
	}
	var v int64
	for _, c := range name[len(name)-10:] {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// identityLimit bounds an identity: a host name and a port or two.
const identityLimit = 200

// clean keeps an identity on one printable line of bounded length; the
// caller's sanitizer still sees it before any terminal does.
func clean(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return '?'
	}, s)
	if len(s) > identityLimit {
		s = s[:identityLimit]
	}
	return s
}

// sortBySeq orders participants by sequence, then name.
func sortBySeq(ps []Participant) {
	slices.SortStableFunc(ps, func(a, b Participant) int {
		return cmp.Or(cmp.Compare(a.Seq, b.Seq), strings.Compare(a.Name, b.Name))
	})
}

// curatorMutexNode: c is an ephemeral node named as a Curator mutex or
// latch node (the grammar a Curator election's participants share).
func curatorMutexNode(c Participant) bool {
	n, ok := ordering.ParseName(c.Name)
	return ok && c.Session != 0 && n.Recipe == ordering.RecipeCurator && n.Kind == ordering.KindMutex
}
