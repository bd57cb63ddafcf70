package zkview

import (
	"crypto/tls"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/memberview"
	"github.com/zklock/zklock/model"
)

// Defaults for Options's zero fields.
const (
	// DefaultDataBytes keeps enough of a node's data for an identity
	// ("user@host pid N note", Curator's IP address) without holding a
	// megabyte per node for a client that stores a blob there.
	DefaultDataBytes = 256
	// DefaultServerViewEvery: `cons` and `wchc` cost the server ~35 ms and
	// ~10 ms of CPU with 10,000 sessions (FACTS.md); every 10 s keeps that
	// under half a percent of one core.
	DefaultServerViewEvery = 10 * time.Second
	// DefaultMaxDepth bounds discovery below a root: /locks/<service>/<lock>
	// is two levels, and four leaves room for a tenant or region level.
	DefaultMaxDepth = 4
	// DefaultMaxParents bounds the lock parents watched at once (explicit
	// and discovered), and the nodes searched below the roots: a lock per
	// entity makes roots of 100,000 parents, which one recursive watch
	// follows for a few hundred bytes each (rootwatch.go); a million
	// keeps a root of "/" on a big ensemble from taking every node, and
	// the process under about a gigabyte.
	DefaultMaxParents = 1_000_000
)

// Bounds that are not worth a knob.
const (
	// maxInFlight bounds requests on the one connection: go-zookeeper
	// pipelines concurrent calls and the gain stops past ~8-64 (FACTS.md).
	maxInFlight = 64
	// oneShotReaders: the goroutines that read a one-shot read's paths,
	// a few more than maxInFlight so the pool is never idle while one of
	// them merges what it read.
	oneShotReaders = 16 * maxInFlight
	// minDiscoveryNodes is the least bound on the nodes searched below
	// the roots (maxNodes), so that a small MaxParents still lets
	// discovery walk past the empty nodes to the parents it counts.
	minDiscoveryNodes = 10000
	// minPublish spaces snapshots: a queue that changes a thousand times a
	// second is published at most 125 times a second, twice the frames the
	// console draws (Bubble Tea's 60 a second: it draws the newest it
	// has); each snapshot more is a build and a wake-up of every goroutine
	// between the watch and the consumer, most of what a stream of
	// changes costs the Watcher. A stream of changes in
	// a big model is spaced more: builds take at most a 1/buildShare of a
	// core once more than buildBurst of them ran lately (a change after a
	// quiet spell is built at once), and at most maxPublish apart.
	minPublish = 8 * time.Millisecond
	maxPublish = 250 * time.Millisecond
	buildShare = 10
	buildBurst = 200 * time.Millisecond
	// loadingFrame spaces the snapshots of the first picture, which fills
	// in as the paths are read.
	loadingFrame = 100 * time.Millisecond
	// hugeQueue: a parent with more children than this re-lists no sooner
	// than relistPerChild x children after its previous listing (a
	// 10,000-child listing is ~190 KB): bursts of changes merge into one
	// listing.
	hugeQueue      = 1000
	relistPerChild = 2 * time.Microsecond
	// retryEvery re-tries a path whose read failed for a reason other than
	// a lost link (the link's return triggers its own retry).
	retryEvery = 5 * time.Second
	// noAuthRetry re-reads a NoAuth path now and then: an ACL change fires
	// no watch.
	noAuthRetry = 30 * time.Second
	// fourLetterTimeout bounds one four-letter word to one member.
	fourLetterTimeout = 5 * time.Second
	// serverViewShare: the polls are spaced by at least this many times
	// the slowest member's answer, which bounds what they cost a member
	// to half a percent of a core whatever the ensemble's size (the
	// answer's time is the member's work writing out every connection and
	// watch, and then some): 10 s at 10,000 sessions (about 45 ms), more
	// for more.
	serverViewShare = 200
)

// Options says what to watch. The zero value of each field takes the
// default documented on it.
type Options struct {
	// Paths are lock parents, watched even while absent.
	Paths []string
	// Roots are searched for lock parents: nodes with at least one child
	// that ordering.ParseName accepts, down to MaxDepth levels below the
	// root, at most MaxParents in all (and at most MaxParents nodes
	// searched, maxNodes). Discovery is kept current: by one persistent
	// recursive watch per root (rootwatch.go), or, with ChildWatches or
	// on a server before 3.6, a children watch per node searched.
	Roots      []string
	MaxDepth   int // DefaultMaxDepth
	MaxParents int // DefaultMaxParents
	// DataBytes is how much of each node's data is kept (DefaultDataBytes).
	DataBytes int
	// ServerView asks every member's four-letter words (`cons`, `wchc`)
	// who each session is and which watches really exist; off by default
	// because most ensembles do not allow them.
	ServerView bool
	// ServerViewEvery spaces the polls (DefaultServerViewEvery), or
	// further when the members take long to answer (serverViewShare).
	// Never on the hot path: a change to a queue costs no four-letter word.
	ServerViewEvery time.Duration
	// Members are the addresses asked; default Session.Servers().
	Members []string
	// AdminPorts says where each member's AdminServer is
	// (memberview.ParseAdminPorts); the zero value never asks it, only
	// the four-letter words.
	AdminPorts memberview.AdminPorts
	// AdminTLS, when set (the context's CA and client certificate), asks
	// the AdminServers over https first.
	AdminTLS *tls.Config
	// Context is the named context, reported in Snapshot.Conn.
	Context string
	// Elections are paths to show as leader elections (Queue.Type
	// TypeElection) wherever they are watched: elections built on a mutex
	// (Curator LeaderSelector, Kazoo Election) look like locks on the
	// wire. Naming a path here does not watch it.
	Elections []string
	// Barriers are paths to show as single barriers (Curator's
	// DistributedBarrier, Kazoo's Barrier: Queue.Type TypeBarrier, Facts
	// Set and Waiters) where they are watched or under a root: one node
	// its waiters watch, which the wire does not tell from a cache's
	// watched leaf (systems/barrier.go). Read with the systems' layouts
	// (Systems must be set); the waiters are the server view's.
	Barriers []string
	// Systems, when set, makes the Overlay that reads the systems'
	// layouts (layouts.New: Kafka, Solr, Hadoop HA... under the roots and
	// paths, read again while the Watcher runs and followed live in
	// between) and names them in the snapshots. Load reads them once when
	// it is set: a read that did not ask (release's look at one node,
	// doctor) is not made to walk the tree.
	Systems func(Host) Overlay
	// ChildWatches watches with a children watch per path, re-listing
	// at every change, even where the servers offer persistent recursive
	// watches (ZooKeeper 3.6+), which are used by default: a change then
	// costs the read of the new node, not a listing of the whole queue.
	ChildWatches bool
	// SemaphoreLimits states semaphores' limits by path (the context's
	// `semaphores:`): Curator keeps its limit in the clients only, and a
	// stated one wins over Kazoo's max_leases in the parent's data.
	SemaphoreLimits map[string]int
	// Now is the clock (time.Now); tests and golden views fix it.
	Now func() time.Time
	// LoadProgress, when set, is told by Load every second while it reads
	// roots how far each root's read has come (the roots still reading);
	// Watch ignores it: its snapshots say so (Snapshot.Discovery).
	LoadProgress func([]model.Discovery)
	// progressEvery spaces the calls of LoadProgress (a second; tests
	// shorten it).
	progressEvery time.Duration
}

// ErrConfig: the configuration cannot be watched (a bad path, nothing to
// watch).
var ErrConfig = errors.New("zkview: bad config")

// withDefaults validates c and fills its zero fields.
func (c Options) withDefaults() (Options, error) {
	if len(c.Paths) == 0 && len(c.Roots) == 0 {
		return c, fmt.Errorf("%w: no path or root to watch", ErrConfig)
	}
	for _, list := range [][]string{c.Paths, c.Roots, c.Elections, c.Barriers} {
		for _, p := range list {
			if err := lockops.ValidPath(p); err != nil {
				return c, fmt.Errorf("%w: %w", ErrConfig, err)
			}
		}
	}
	for p, n := range c.SemaphoreLimits {
		if err := lockops.ValidPath(p); err != nil {
			return c, fmt.Errorf("%w: semaphore: %w", ErrConfig, err)
		}
		if n <= 0 {
			return c, fmt.Errorf("%w: semaphore %s: limit %d (want 1 or more)", ErrConfig, p, n)
		}
	}
	if c.MaxDepth <= 0 {
		c.MaxDepth = DefaultMaxDepth
	}
	if c.MaxParents <= 0 {
		c.MaxParents = DefaultMaxParents
	}
	if c.DataBytes <= 0 {
		c.DataBytes = DefaultDataBytes
	}
	if c.ServerViewEvery <= 0 {
		c.ServerViewEvery = DefaultServerViewEvery
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.progressEvery <= 0 {
		c.progressEvery = time.Second
	}
	return c, nil
}

// isElection says whether the config names p an election.
func (c Options) isElection(p string) bool { return slices.Contains(c.Elections, p) }

// Watches says whether p is watched: a path given, or below a root.
func (c Options) Watches(p string) bool {
	if slices.Contains(c.Paths, p) {
		return true
	}
	return slices.ContainsFunc(c.Roots, func(r string) bool {
		return r == "/" || p == r || strings.HasPrefix(p, r+"/")
	})
}

// maxNodes bounds the nodes searched below the roots (lock parents and
// the nodes that lead to them, empty parents included).
func (c Options) maxNodes() int { return max(c.MaxParents, minDiscoveryNodes) }
