package zkview

import (
	"time"

	"github.com/zklock/zklock/lockops"
)

// ConnState is the monitor's connection to the ensemble.
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

// Conn describes the monitor's own connection.
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
type PathState int

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
)

// QueueType is what coordination recipe a watched parent holds, as
// `ls --json` names it in "type".
type QueueType int

const (
	// TypeUnknown: no lock node (yet), or a tree no recipe explains; its
	// children are listed raw, never guessed.
	TypeUnknown QueueType = iota
	TypeMutex
	TypeRWLock
	TypeSemaphore
	TypeElection
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
	Nodes   []string // node names concerned
}

// Node is one lock node of a queue, in sequence order: lockops.ParsedName (what
// the name tells) with what the servers tell (owner, data, watches) and
// what the monitor saw (since when).
type Node struct {
	Name     string // raw znode name; sanitize before display
	Seq      int32
	Kind     lockops.Kind
	Recipe   lockops.Recipe
	Role     lockops.Role // by sequence order
	Believes lockops.Role // by the node's own recipe
	Watches  string       // node it waits on by its own recipe, "" for a holder
	// Predecessor is what a correct recipe waits on (sequence order): the
	// lock node just before, or for a read node the nearest mutex or write
	// node before; "" for a holder by sequence order.
	Predecessor string
	Link        LinkStatus
	Herd        bool // more watches on this node than the recipes predict
	// Lease: a semaphore's lease node (KindName "lease"; Kind is
	// KindOther, Seq 0 for Kazoo's leases, which have no sequence).
	// Watches starting with "/" is a children watch on that path (a
	// semaphore's lease waiter, see WatchesChildren).
	Lease bool
	// Parent is the znode's parent when it is not the queue's path: a
	// semaphore's leases/ or locks/, or Kazoo's <path>-__lock__.
	Parent string

	Session int64  // ephemeralOwner, 0 for a persistent node
	Client  string // ip:port from `cons`, "" when the servers do not tell
	Data    []byte // first bytes of the node's data (raw; sanitize to show)
	DataLen int32  // full data length
	Version int32
	Ctime   time.Time
	Mtime   time.Time
	// Czxid is the zxid of the transaction that created the node: its
	// holder's fencing token (lockops.Lock.FencingToken); 0 when unread
	// (and then left out of a snapshot's JSON, as recordings and the
	// console's fixtures made before it have it).
	Czxid int64 `json:",omitempty"`

	// Since is when the node took its current role, as the monitor saw it:
	// hold start for a holder, creation for a waiter. SinceExact is false
	// when the monitor did not see the transition (Since is then a lower
	// bound: the first time the monitor saw it in this role).
	Since      time.Time
	SinceExact bool
}

// Handoff is one release -> next holder transition the monitor saw.
type Handoff struct {
	Path     string
	From, To string    // node names; From is "" when unknown
	At       time.Time // when the monitor saw the new holder
	Gap      time.Duration
}

// DepthSample is the queue length at a moment.
type DepthSample struct {
	At    time.Time
	Depth int
}

// Queue is one watched lock parent as the monitor shows it, its order
// from lockops.Ordering.
type Queue struct {
	Path  string
	State PathState
	Err   string // when State is PathError or PathNoAuth
	Nodes Nodes  // sequence order
	Other []string
	// Type is the recipe the parent holds (mutex, rwlock, semaphore,
	// election; unknown when no recipe explains it).
	Type QueueType
	// Limit is a semaphore's number of leases, 0 when unknown;
	// LimitSource says where it comes from (LimitFromConfig...).
	Limit       int
	LimitSource string
	Warnings    []Warning
	Handoffs    []Handoff     // most recent last, bounded
	Depth       []DepthSample // most recent last, bounded; one per second
	// ListedAt is when the listing behind Nodes was asked for: every node
	// shown existed then (zero before the first listing).
	ListedAt time.Time
}

// Snapshot is an immutable view of every watched queue. Consumers must not
// modify it; zkview never does once published.
type Snapshot struct {
	At     time.Time
	Conn   Conn
	Queues []Queue // sorted by path
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
	// Deadlocks are the cycles of the wait-for graph over sessions across
	// every queue (cross-lock deadlocks, young cycles, self-waits; see
	// sessions.go), judged at At; nil when there are none. SessionsOf
	// builds the rest of the sessions view on demand.
	Deadlocks []Deadlock
}

// EventKind classifies what changed.
type EventKind int

const (
	EventCreated EventKind = iota
	EventDeleted
	EventHandoff
	EventConn
	EventPath // a parent appeared, vanished, or became unreadable
	EventWarning
	EventInfo
)

func (k EventKind) String() string {
	switch k {
	case EventCreated:
		return "created"
	case EventDeleted:
		return "deleted"
	case EventHandoff:
		return "handoff"
	case EventConn:
		return "conn"
	case EventPath:
		return "path"
	case EventWarning:
		return "warning"
	}
	return "info"
}

// Event is one typed change, for the console's event log and narration.
type Event struct {
	At   time.Time
	Kind EventKind
	Path string
	Node string
	Text string // one line, already sanitized
}

// Update is what a consumer receives: the latest snapshot and the events
// since its previous update (bounded; the oldest are dropped first when a
// consumer falls behind, and Dropped says how many).
type Update struct {
	Snapshot *Snapshot
	Events   []Event
	Dropped  int
}
