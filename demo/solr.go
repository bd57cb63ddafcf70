// The demo's system scene: a Solr-like overseer election whose leader
// record lags behind each failover, so the console's leader-mismatch check
// is seen live (issue #31).

package demo

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/third_party/zk"
)

const (
	// SolrRoot holds the scene: Solr's overseer election as Solr lays it
	// out under a chroot (systems/solr.go: LeaderElector.joinElection,
	// OverseerElectionContext.runLeaderProcess). Under Root, so that the
	// lock list keeps its "in /demo/locks/" and its short names.
	SolrRoot     = Root + "/solr"
	SolrElection = SolrRoot + "/overseer_elect/election"
	SolrLeader   = SolrRoot + "/overseer_elect/leader"
	// solrEvery spaces the failovers. With the console's read of the
	// systems every 15 s, a 20 s period puts a read into every third
	// lag window or sooner (the reads fall at 0, 5, 10, 15 s of the
	// period in turn).
	solrEvery = 20 * time.Second
	// solrLag is how long the leader record names the old overseer after
	// a failover: longer than the 5 s between the reads' phases above,
	// shorter than LeaderMismatchAfter, so `ls --check` stays green.
	solrLag = 6 * time.Second
	// solrRestart is how long a killed overseer takes to come back.
	solrRestart = 3 * time.Second
	// solrFirstJoin holds the scene back until the locks' queues have
	// formed: the console selects its first row from its first frames,
	// and the presenter's keys (x, S) are meant for a lock there.
	solrFirstJoin = demoFirstJoin + 2*time.Second
)

// solrNodes are the three Solr nodes' names (Solr's node name,
// host:port_context).
var solrNodes = []string{"10.0.4.11:8983_solr", "10.0.4.12:8983_solr", "10.0.4.13:8983_solr"}

var solrACL = zk.WorldACL(zk.PermAll)

// SystemPaths are the paths of the demo's system scene, for the console:
// the Solr overseer election, which the console names "solr overseer".
func SystemPaths() []string { return []string{SolrElection} }

// solrMember is one Solr node: its session and its election node. Only
// the scene's goroutine touches them.
type solrMember struct {
	name string
	sess *lockops.Session // nil while the node is down
	node string           // its election node's path, "" when none
}

// solrScene runs the election; the presenter's keys reach it through
// kills and stale.
type solrScene struct {
	d       *Workload
	members []*solrMember
	kills   chan chan string // a kill request and where its sentence goes
	fix     chan struct{}    // the record may be written again
	staled  chan struct{}    // the record was just kept stale: fail over once

	mu    sync.Mutex
	stale bool // the record is not rewritten after a failover
}

func newSolrScene(d *Workload) *solrScene {
	s := &solrScene{d: d, kills: make(chan chan string), fix: make(chan struct{}, 1), staled: make(chan struct{}, 1)}
	for _, n := range solrNodes {
		s.members = append(s.members, &solrMember{name: n})
	}
	return s
}

// run joins the three nodes, records the first overseer and fails over
// every solrEvery, until ctx ends.
func (s *solrScene) run(ctx context.Context) {
	defer s.d.wg.Done()
	defer func() {
		for _, m := range s.members {
			if m.sess != nil {
				m.sess.Close()
			}
		}
	}()
	if !demoSleep(ctx, solrFirstJoin) {
		return
	}
	s.restart(ctx)
	s.record(ctx)
	tick := time.NewTicker(solrEvery)
	defer tick.Stop()
	var recordAt, restartAt <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			// While stale, the election holds still: one mismatch that
			// outlives LeaderMismatchAfter (a failover would change its
			// Key, and restart its clock).
			if !s.isStale() && s.d.waitRunning(ctx) && s.failover(ctx) {
				recordAt = time.After(solrLag)
			}
		case reply := <-s.kills:
			text := s.kill(ctx)
			recordAt, restartAt = time.After(solrLag), time.After(solrRestart)
			reply <- text
		case <-recordAt:
			s.record(ctx)
		case <-restartAt:
			s.restart(ctx)
		case <-s.fix:
			s.record(ctx)
		case <-s.staled:
			s.failover(ctx) // the record, kept stale, now lags for good
		}
	}
}

// restart connects every node that is down and joins it to the election
// at the tail, as a Solr node coming up does.
func (s *solrScene) restart(ctx context.Context) {
	for _, m := range s.members {
		if m.sess == nil {
			sess, err := lockops.Connect(ctx, s.d.servers, s.d.sessOpts...)
			if err != nil {
				continue // tried again at the next restart or failover
			}
			m.sess = sess
		}
		if m.node == "" {
			s.join(ctx, m)
		}
	}
	s.watchLine(ctx)
}

// join is LeaderElector.joinElection: <sessionId>-<nodeName>-n_,
// EPHEMERAL_SEQUENTIAL, no data, the session id in decimal.
func (s *solrScene) join(ctx context.Context, m *solrMember) {
	cctx, cancel := context.WithTimeout(ctx, demoCallTimeout)
	defer cancel()
	p := fmt.Sprintf("%s/%d-%s-n_", SolrElection, m.sess.ID(), m.name)
	if made, err := m.sess.Create(cctx, p, nil, zk.FlagEphemeralSequential, solrACL); err == nil {
		m.node = made
	}
}

// line is the election in LeaderElector.sortSeqs' order: by sequence,
// then by name; the first is the overseer.
func (s *solrScene) line() []*solrMember {
	var in []*solrMember
	for _, m := range s.members {
		if m.node != "" && m.sess != nil {
			in = append(in, m)
		}
	}
	slices.SortFunc(in, func(a, b *solrMember) int {
		na, nb := path.Base(a.node), path.Base(b.node)
		if c := strings.Compare(na[len(na)-10:], nb[len(nb)-10:]); c != 0 {
			return c
		}
		return strings.Compare(na, nb)
	})
	return in
}

// head is the overseer; nil when nobody is in the election.
func (s *solrScene) head() *solrMember {
	if in := s.line(); len(in) > 0 {
		return in[0]
	}
	return nil
}

// watchLine sets each follower's watch on the node before it, as
// LeaderElector.checkIfIamLeader does (an exists watch); the server keeps
// one per session and path, so setting it again costs nothing more.
func (s *solrScene) watchLine(ctx context.Context) {
	in := s.line()
	for i := 1; i < len(in); i++ {
		cctx, cancel := context.WithTimeout(ctx, demoCallTimeout)
		_, _, _, _ = in[i].sess.ExistsW(cctx, in[i-1].node)
		cancel()
	}
}

// failover is the overseer quitting the election and rejoining at its
// tail (Solr's overseer rejoins after a restart of its loop): the next in
// line leads at once, while the record still names the old node until
// record runs. False when nobody led.
func (s *solrScene) failover(ctx context.Context) bool {
	h := s.head()
	if h == nil {
		s.restart(ctx)
		return false
	}
	cctx, cancel := context.WithTimeout(ctx, demoCallTimeout)
	err := h.sess.Delete(cctx, h.node, -1)
	cancel()
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		return false
	}
	h.node = ""
	s.restart(ctx)
	return true
}

// kill ends the overseer's session without a word: its election node and
// its leader record go with it, and the record stays missing for the lag.
func (s *solrScene) kill(ctx context.Context) string {
	h := s.head()
	if h == nil {
		return "no Solr overseer right now"
	}
	id := h.sess.ID()
	h.sess.Close()
	h.sess, h.node = nil, ""
	s.watchLine(ctx)
	return fmt.Sprintf("killed Solr node %s (session 0x%x): its election node and its leader record go with the session; "+
		"the next in line leads, its record follows in %s", h.name, id, solrLag)
}

// record is OverseerElectionContext.runLeaderProcess: the overseer
// replaces the leader record with its own, EPHEMERAL, Utils.toJSON of
// {"id": its election node's name} (Solr indents by two). Nothing while
// the presenter keeps the record stale.
func (s *solrScene) record(ctx context.Context) {
	if s.isStale() {
		return
	}
	h := s.head()
	if h == nil {
		return
	}
	cctx, cancel := context.WithTimeout(ctx, demoCallTimeout)
	defer cancel()
	name := path.Base(h.node)
	if data, _, err := h.sess.Get(cctx, SolrLeader); err == nil && string(data) == solrRecordData(name) {
		return
	}
	if err := h.sess.Delete(cctx, SolrLeader, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return
	}
	_, _ = h.sess.Create(cctx, SolrLeader, []byte(solrRecordData(name)), zk.FlagEphemeral, solrACL)
}

// solrRecordData is the overseer leader record's bytes.
func solrRecordData(name string) string { return fmt.Sprintf("{\n  \"id\":%q}", name) }

func (s *solrScene) isStale() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stale
}

// toggleStale keeps the record from following the election (and holds
// the failovers), or lets it catch up at once.
func (s *solrScene) toggleStale() string {
	s.mu.Lock()
	s.stale = !s.stale
	stale := s.stale
	s.mu.Unlock()
	if stale {
		select {
		case s.staled <- struct{}{}:
		default:
		}
		return "failover, and the Solr leader record now stays stale while the election holds still: leader-mismatch stays, and ls --check fails once it has lasted 10s (S again: the record catches up)"
	}
	select {
	case s.fix <- struct{}{}:
	default:
	}
	return "the Solr leader record follows the election again: the overseer rewrites it now"
}

// killOverseer asks the scene's goroutine to kill the overseer.
func (s *solrScene) killOverseer(ctx context.Context) (string, error) {
	reply := make(chan string, 1)
	select {
	case s.kills <- reply:
	case <-ctx.Done():
		return "", fmt.Errorf("demo: %w", ctx.Err())
	}
	select {
	case text := <-reply:
		return text, nil
	case <-ctx.Done():
		return "", fmt.Errorf("demo: %w", ctx.Err())
	}
}
