package model

import (
	"slices"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
)

// ConnState is the Watcher's connection to the ensemble.
type ConnState int

const (
	StateConnecting ConnState = iota
	StateConnected
	// StateDisconnected: the session may still live; the model is kept and
	// marked stale since Conn.Since.
	StateDisconnected
	// StateExpired: the session is gone; a new one is being made and the
	// model will be fully re-synced.
	StateExpired
	StateClosed
)

func (s ConnState) String() string {
	switch s {
	case StateConnected:
		return "connected"
	case StateDisconnected:
		return "disconnected"
	case StateExpired:
		return "expired"
	case StateClosed:
		return "closed"
	}
	return "connecting"
}

// Conn describes the Watcher's own connection.
type Conn struct {
	State     ConnState
	Since     time.Time // when State began
	SessionID int64
	Server    string   // member currently connected to, "" when none
	Ensemble  []string // the configured server list
	Context   string   // named context, "" when none
	// TLS: the links are TLS; HostnameVerified: the servers' names are
	// checked (false when the operator turned that off).
	TLS, HostnameVerified bool
}

// PathState says whether a watched lock parent could be read.
type PathState uint8 // uint8: a Queue packs it with Type

const (
	PathPending PathState = iota // not read yet
	PathPresent
	PathAbsent // does not exist; watched until it appears
	PathNoAuth // exists but the operator's credentials cannot read it
	PathError
)

func (p PathState) String() string {
	switch p {
	case PathPresent:
		return "present"
	case PathAbsent:
		return "absent"
	case PathNoAuth:
		return "noauth"
	case PathError:
		return "error"
	}
	return "pending"
}

// LinkStatus says what the servers confirm about a waiter's watch.
type LinkStatus uint8

const (
	// LinkNone: the node waits on nothing (a holder).
	LinkNone LinkStatus = iota
	// LinkInferred: the servers do not tell (four-letter words off, or not
	// polled yet); the link is what the node's recipe predicts.
	LinkInferred
	// LinkVerified: the node's session has a data watch on Watches.
	LinkVerified
	// LinkMissing: the servers tell, and the node's session has no watch on
	// the node its recipe waits on: a waiter that will never wake.
	LinkMissing
)

func (l LinkStatus) String() string {
	switch l {
	case LinkInferred:
		return "inferred"
	case LinkVerified:
		return "verified"
	case LinkMissing:
		return "missing"
	}
	return "none"
}

// Warning codes, as `ls --json` prints them.
const (
	WarnSplitHolders = "split-holders"
	WarnDeadlock     = "deadlock"
	WarnMixedRecipes = "mixed-recipes"
	WarnMissingWatch = "missing-watch"
	WarnHerd         = "herd"
	WarnStale        = "stale"
	// WarnOverLimit: a semaphore has more lease holders than its limit.
	WarnOverLimit = "over-limit"
	// WarnSelfWait: a session waits behind its own node.
	WarnSelfWait = "self-wait"
	// WarnLeaderMismatch: a system's leader record disagrees with its
	// election (PRODUCT.md, "The systems on the cluster").
	WarnLeaderMismatch = "leader-mismatch"
	// WarnDuplicateParticipant: one participant (by the identity its
	// node states) has nodes from two sessions in one election: the
	// double leader a reconnect leaves behind.
	WarnDuplicateParticipant = "duplicate-participant"
	// WarnSilentHolder: a holder whose session its member has not heard
	// for more than half its timeout (a paused or hung client still
	// holding); cleared when it speaks again or its node goes.
	WarnSilentHolder = "silent-holder"
)

// LeaderMismatchAfter is how long a leader-mismatch must last before
// `ls --check` fails on it: a failover passes through a short mismatch
// (the new leader writes its record a moment after it wins).
const LeaderMismatchAfter = 10 * time.Second

// QueueType is what coordination recipe a watched parent holds, as
// `ls --json` names it in "type".
type QueueType uint8 // uint8: a Queue packs it with State

const (
	// TypeUnknown: no lock node (yet), or a tree no recipe explains; its
	// children are listed raw, never guessed.
	TypeUnknown QueueType = iota
	TypeMutex
	TypeRWLock
	TypeSemaphore
	TypeElection
	// The library recipes that are no lock (recipes.go), and a system's
	// queue of entries taken in order (ClickHouse's DDL queue: the entries
	// being worked on hold): nobody in them waits behind a holder's
	// session, so they bring no waits to the sessions graph.
	TypeBarrier
	TypeQueue
	TypeMembership
	TypeCounter
	TypeLease
)

func (t QueueType) String() string {
	switch t {
	case TypeMutex:
		return "mutex"
	case TypeRWLock:
		return "rwlock"
	case TypeSemaphore:
		return "semaphore"
	case TypeElection:
		return "election"
	}
	if w, ok := recipeTypeWords[t]; ok {
		return w
	}
	return "unknown"
}

// Sources of a semaphore's Limit, as `ls --json` names them.
const (
	LimitFromConfig = "config"      // stated per path in the context config
	LimitFromData   = "parent-data" // Kazoo: max_leases in the parent's data
	LimitDeduced    = "deduced"     // Curator: a lease waits, so the limit is the other leases
)

// Warning is a problem found on one queue.
type Warning struct {
	Code    string
	Message string   // one line, already sanitized
	Nodes   []string // node names concerned (leader-mismatch: full paths)
	// Key is stable while the same problem lasts, for the warnings timed
	// by it (leader-mismatch); "" for the others.
	Key string `json:",omitzero"`
	// Since is when the problem was first seen (a Key seen in both of two
	// reads dates from the first); zero for warnings not timed.
	Since time.Time `json:",omitzero"`
}

// Lasted says how long w had lasted at now; 0 when it is not timed.
func (w Warning) Lasted(now time.Time) time.Duration {
	if w.Since.IsZero() {
		return 0
	}
	return now.Sub(w.Since)
}

// Node is one lock node of a queue, in sequence order: ordering.ParsedName (what
// the name tells) with what the servers tell (owner, data, watches) and
// what the Watcher saw (since when).
//
// A root of 100,000 lock parents publishes a Node for each of their
// nodes, so it is kept to 112 bytes (TestNodeSize): its times are
// compact stamps read by Ctime, Mtime and Since, its data a string read
// by Data, and the fields a plain lock's node leaves empty (Parent,
// Client, Identity, Part) sit behind one pointer, nil for most nodes,
// with its Predecessor when that is not its Watches (in a correct
// single-recipe queue they are the same node); node.go has them, and the
// JSON that keeps a recording's fields as they were when they were plain
// fields.
type Node struct {
	Name string // raw znode name; sanitize before display
	// watches is Watches; Predecessor is kept apart (in rare) only when
	// it differs from it.
	watches string
	data    string // Data's bytes (raw; sanitize to show)

	Session int64 // ephemeralOwner, 0 for a persistent node
	// Czxid is the zxid of the transaction that created the node: its
	// holder's fencing token (lockops.Lock.FencingToken); 0 when unread
	// (and then left out of a snapshot's JSON, as recordings and the
	// console's fixtures made before it have it).
	Czxid int64
	ctime stamp // Ctime
	since stamp // Since
	rare  *nodeRare

	Seq      int32
	DataLen  int32 // full data length
	Version  int32
	Kind     ordering.Kind
	Recipe   ordering.Recipe
	Role     ordering.Role // by sequence order
	Believes ordering.Role // by the node's own recipe
	Link     LinkStatus
	Herd     bool // more watches on this node than the recipes predict
	// Lease: a semaphore's lease node (KindName "lease"; Kind is
	// KindOther, Seq 0 for Kazoo's leases, which have no sequence).
	// Watches starting with "/" is a children watch on that path (a
	// semaphore's lease waiter, see WatchesChildren).
	Lease bool
	// SinceExact is false when the Watcher did not see the node take its
	// role (Since is then a lower bound: the first time the Watcher saw
	// it in this role).
	SinceExact bool
	dataSet    bool       // Data is not nil (it may be empty)
	mtimeIs    mtimeState // where Mtime is kept
}

// Handoff is one release -> next holder transition the Watcher saw.
type Handoff struct {
	Path     string
	From, To string    // node names; From is "" when unknown
	At       time.Time // when the Watcher saw the new holder
	Gap      time.Duration
}

// DepthSample is the queue length at a moment.
type DepthSample struct {
	At    time.Time
	Depth int
}

// Queue is one watched lock parent as the Watcher shows it, its order
// from ordering.Ordering. A root holds one per lock parent in every
// published snapshot, so it is kept small (TestQueueSize): what most
// parents leave empty (Err, Other, Limit, Warnings, Handoffs, System,
// Label, Facts) is behind one pointer, read with accessors and set with
// setters or SetRare (queuerare.go); ListedAt is Unix nanoseconds. Its
// JSON is the struct's from before (MarshalJSON).
type Queue struct {
	Path  string
	Nodes Nodes         // sequence order
	Depth []DepthSample // most recent last, bounded; one per second
	// listedAt is ListedAt in Unix nanoseconds, 0 for the zero time.
	listedAt int64
	// rare holds the rare fields, nil when all are zero. It may be shared
	// with published snapshots: never changed, replaced (copy on write).
	rare  *queueRare
	State PathState
	// Type is the recipe the parent holds (mutex, rwlock, semaphore,
	// election; unknown when no recipe explains it).
	Type QueueType
}

// Snapshot is an immutable view of every watched queue. Consumers must not
// modify it; the Watcher never does once published.
type Snapshot struct {
	At     time.Time
	Conn   Conn
	Queues Queues // sorted by path, shared with the snapshots before and after
	// ServerView is true when the four-letter words answered: Client and
	// Link come from the servers; otherwise links are inferred.
	ServerView   bool
	ServerViewAt time.Time
	Stale        bool // disconnected: data may be out of date since Conn.Since
	// ServerViewNote says why the server view is off or partial (a member
	// refuses the four-letter words, or did not answer); "" when whole.
	ServerViewNote string
	// WatchMode is how the queues are watched: ModeRecursive or
	// ModeChildren; "" for a one-shot read (Load).
	WatchMode string
	// Unread counts the watched paths not read yet: the first picture
	// fills in as they load.
	Unread int
	// FrameEvery is how far apart snapshots are published now: minPublish,
	// or, under a stream of changes that would make building them take
	// more than a tenth of a core, ten times what building one costs (at
	// most maxPublish). Beyond that floor the model is coalescing changes:
	// each snapshot holds all that came since the previous one.
	FrameEvery time.Duration
	// DiscoveryCapped: discovery under the roots stopped at a bound
	// (MaxParents lock parents, or the watched-node limit).
	DiscoveryCapped bool
	// Discovery is how far the first read of each root read whole has
	// come, for the roots still reading while the first picture fills
	// in; nil once it is complete (DiscoveryText says it).
	Discovery []Discovery `json:",omitzero"`
	// SystemsNote says why the systems' layouts were read in part (the
	// read's bound, a node not readable): leader records are then not
	// checked. "" when whole or not read.
	SystemsNote string `json:",omitzero"`
	// Deadlocks are the cycles of the wait-for graph over sessions across
	// every queue (cross-lock deadlocks, young cycles, self-waits; see
	// sessions.go), judged at At; nil when there are none. SessionsOf
	// builds the rest of the sessions view on demand.
	Deadlocks []Deadlock
}

// Queue returns the queue watched at path, nil when the snapshot has none
// there (or s is nil). Queues are sorted by path, so it is a binary
// search; a snapshot built out of order is still searched in full.
func (s *Snapshot) Queue(path string) *Queue {
	if s == nil {
		return nil
	}
	if i, ok := s.Queues.Find(path); ok {
		return s.Queues.At(i)
	}
	for _, q := range s.Queues.All() {
		if q.Path == path {
			return q
		}
	}
	return nil
}

// Update is what a consumer receives: the latest snapshot and the changes
// since its previous update (bounded; the oldest are dropped first when a
// consumer falls behind, and Dropped says how many).
type Update struct {
	Snapshot *Snapshot
	Changes  []Change
	Dropped  int
}

// MaxPendingChanges bounds the changes an Update carries to a slow
// consumer; the oldest are dropped first and counted in Update.Dropped.
const MaxPendingChanges = 1024

// Merge folds next, the newer Update, into u: next's snapshot (when it
// has one), both updates' changes in order, and the oldest changes beyond
// MaxPendingChanges dropped and counted. The Watcher's pump, the replay's
// player and the console's coalescing all merge this way.
func (u *Update) Merge(next Update) {
	if next.Snapshot != nil {
		u.Snapshot = next.Snapshot
	}
	u.Changes = append(u.Changes, next.Changes...)
	u.Dropped += next.Dropped
	if over := len(u.Changes) - MaxPendingChanges; over > 0 {
		u.Changes = slices.Delete(u.Changes, 0, over)
		u.Dropped += over
	}
}

// Deadlock is a cycle of the wait-for graph over sessions: a cross-lock
// deadlock once it has stood DeadlockAfter with no handoff on any of its
// waits, a young cycle before, or a session waiting behind its own node.
type Deadlock struct {
	// Sessions in wait order: each waits for the next, the last for the
	// first; one session for a self-wait. The lowest session id is first.
	Sessions []int64
	// Waits[i] is the wait of Sessions[i] on Sessions[i+1] (the last on
	// the first): the oldest of its waits when it has several.
	Waits []Wait
	// Paths of the waits, each once, in wait order.
	Paths []string
	// State is CycleDeadlock, CycleYoung or CycleSelfWait.
	State string
	// Since: the cycle has stood, with no handoff on any of its waits, at
	// least since then (the latest of its waits' Since).
	Since time.Time
}

// Wait is one edge of the wait-for graph as the nodes make it: a waiting
// node of Session behind a node of Holder on Path.
type Wait struct {
	Session    int64
	Client     string // the waiting session's ip:port, "" when unknown
	Path       string
	Node       string // the waiting node
	Holder     int64
	HolderNode string // the node it waits behind
	// Since: the wait has stood since then on these two nodes, with no
	// handoff between them (a node that waits or holds keeps that role
	// until it goes). A Watcher, or the first of two reads, dates it
	// from when it first saw it; FindDeadlocks from the later of the two
	// nodes' Since.
	Since time.Time
}

// DeadlockAfter is how long a cycle of waits over sessions must stand,
// with no handoff on any of its waits, before it is called a deadlock:
// well beyond a handoff in flight (a release told to the next waiter, a
// re-list, a watch set: tens of milliseconds) and beyond a client
// retrying after a connection loss, yet short enough to be seen within
// one look at the console.
const DeadlockAfter = 5 * time.Second

// States of a Deadlock, as `zklock sessions --json` writes them.
const (
	// CycleDeadlock: a cycle that has stood DeadlockAfter or longer with
	// no handoff on any of its waits.
	CycleDeadlock = "deadlock"
	// CycleYoung: a cycle seen for less than DeadlockAfter (or seen in one
	// read only, when its age cannot be told).
	CycleYoung = "cycle"
	// CycleSelfWait: a session waits behind a node of its own.
	CycleSelfWait = WarnSelfWait
)

// Watch modes, as the status line and `ls --json` name them.
const (
	// ModeRecursive: persistent recursive watches (addWatch).
	ModeRecursive = "persistent-recursive"
	// ModeChildren: a children watch per path, re-armed by re-listing at
	// every change (servers before 3.6, or Config.ChildWatches).
	ModeChildren = "children"
)
