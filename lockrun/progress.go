package lockrun

// What `zklock run` says while it waits in the queue, on stderr: its
// place, the node it waits on, who holds the lock (session, client, for how
// long) and how long it has waited. On a terminal one line is redrawn in
// place (and erased once the lock is held, so CMD's output starts clean);
// otherwise one line per change, for logs. --quiet says nothing.

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/zklock/zklock/holds"
	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/zkview"
)

const (
	// lookEvery spaces the reads of the queue (its place in line, who
	// holds): the Lock hears only of its own predecessor, so a waiter
	// 8th in line learns nothing from it until it is 2nd. One read is a
	// listing and a read of each node (zkview.Load): at most once a
	// second, and never more than a tenth of the time (a long queue is
	// read less often).
	lookEvery = time.Second
	// logGap is the least time between two lines written to a log: a
	// change is written when it happens, or this long after the last.
	logGap = time.Second
	// progressTick redraws the elapsed wait on a terminal.
	progressTick = time.Second
	// QuietWait is how long a wait goes unreported: a lock held within
	// it needs no report, so an uncontended run says nothing at all.
	QuietWait = 300 * time.Millisecond
)

// queueLook is what one read of the queue told: the own node's place in
// line (0 when it was not found) and the holders, as read at At.
type queueLook struct {
	Position int
	Holders  []model.Node
	At       time.Time
}

// Reporter renders a hold's progress while it waits.
type Reporter struct {
	out   io.Writer
	tty   bool
	path  string
	start time.Time
	// lookup reads the queue, own being the own node's name; nil: never.
	lookup func(ctx context.Context, own string) queueLook
	// every and gap are lookEvery and logGap (shorter in tests).
	every, gap time.Duration

	mu        sync.Mutex
	p         ordering.Progress
	holders   []model.Node
	firstSeen map[string]time.Time // holders by name: first seen holding
	lastLine  string
	lastKey   string // what a log line is written again for
	drawn     bool   // a line is on the terminal, to erase
	done      bool
	kick      chan struct{}
	stop      chan struct{}
	wg        sync.WaitGroup
}

// NewReporter reports the wait for p on out (tty: a terminal, one line
// redrawn in place), reading the queue through sess. Hand its Progress
// to the lock core (lockops.WithProgress) and the Reporter to the Job.
func NewReporter(out io.Writer, tty bool, sess *lockops.Session, p string) *Reporter {
	return newReporter(out, tty, p, queueLookup(sess, p))
}

func newReporter(out io.Writer, tty bool, p string, lookup func(context.Context, string) queueLook) *Reporter {
	return &Reporter{out: out, tty: tty, path: p, start: time.Now(), lookup: lookup, every: lookEvery, gap: logGap,
		firstSeen: map[string]time.Time{}, kick: make(chan struct{}, 1), stop: make(chan struct{})}
}

// Progress is the Lock's callback (lockops.WithProgress).
func (r *Reporter) Progress(p ordering.Progress) {
	r.mu.Lock()
	if r.done {
		r.mu.Unlock()
		return
	}
	moved := p.Position != r.p.Position || p.Watching != r.p.Watching || p.State != r.p.State
	r.p = p
	r.mu.Unlock()
	if moved {
		select {
		case r.kick <- struct{}{}:
		default:
		}
	}
}

// Start reports until Stop: once QuietWait has passed, at each move of
// the Lock and each read of the queue (written to a log only when the
// place in line, the node watched or the holder changed, at most once
// per logGap), and every second on a terminal.
func (r *Reporter) Start(ctx context.Context) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		r.loop(ctx)
	}()
}

func (r *Reporter) loop(ctx context.Context) {
	quiet := time.NewTimer(QuietWait)
	defer quiet.Stop()
	look, later := stoppedTimer(), stoppedTimer()
	defer look.Stop()
	defer later.Stop()
	var tick <-chan time.Time
	speaking := false
	var lastLog time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.stop:
			return
		case <-quiet.C:
			speaking = true
			if r.tty {
				t := time.NewTicker(progressTick)
				defer t.Stop()
				tick = t.C
			}
			look.Reset(r.read(ctx))
		case <-look.C:
			look.Reset(r.read(ctx))
		case <-r.kick:
		case <-tick:
		case <-later.C:
		}
		if !speaking {
			continue
		}
		now := time.Now()
		if r.tty {
			r.draw(now)
			continue
		}
		if !r.changed() {
			continue
		}
		if wait := lastLog.Add(r.gap).Sub(now); wait > 0 {
			later.Reset(wait) // the change is written once the gap has passed
			continue
		}
		r.draw(now)
		lastLog = now
	}
}

// stoppedTimer is a timer that has not been started.
func stoppedTimer() *time.Timer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return t
}

// read looks at the queue and keeps what it tells; it returns when to
// look again.
func (r *Reporter) read(ctx context.Context) time.Duration {
	if r.lookup == nil {
		return time.Hour
	}
	r.mu.Lock()
	own := r.p.Node
	r.mu.Unlock()
	began := time.Now()
	lctx, cancel := context.WithTimeout(ctx, holds.LookupTimeout)
	look := r.lookup(lctx, own)
	cancel()
	cost := time.Since(began)
	r.mu.Lock()
	defer r.mu.Unlock()
	if look.At.IsZero() {
		return max(r.every, 10*cost) // the read failed: keep what was known
	}
	// The Lock's own report wins when it is newer than the read.
	if look.Position > 0 && own == r.p.Node && !r.p.At.After(began) {
		r.p.Position = look.Position
	}
	r.holders = look.Holders
	seen := make(map[string]time.Time, len(look.Holders))
	for _, h := range look.Holders {
		t, ok := r.firstSeen[h.Name]
		if !ok {
			t = look.At
		}
		seen[h.Name] = t
	}
	r.firstSeen = seen
	return max(r.every, 10*cost)
}

// changed says whether what a log line reports (place, node watched,
// holders) differs from the last line written.
func (r *Reporter) changed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.p.State == ordering.LockQueued && r.key() != r.lastKey
}

// key is what a log line is written again for. Guarded by mu.
func (r *Reporter) key() string {
	k := fmt.Sprintf("%d %s", r.p.Position, r.p.Watching)
	for _, h := range r.holders {
		k += " " + h.Name
		if hl := h.Health(); hl.SilentTooLong(hl.At) {
			k += " silent" // a holder gone silent is news for the log
		}
	}
	return k
}

// Stop ends the reports; on a terminal the line is erased.
func (r *Reporter) Stop() {
	r.mu.Lock()
	if r.done {
		r.mu.Unlock()
		return
	}
	r.done = true
	r.mu.Unlock()
	close(r.stop)
	r.wg.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tty && r.drawn {
		fmt.Fprint(r.out, "\r\x1b[K")
	}
}

func (r *Reporter) draw(now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done || r.p.State != ordering.LockQueued {
		return
	}
	holder := holdersText(r.holders, false, func(n *model.Node) string {
		if t, ok := r.firstSeen[n.Name]; ok && now.Sub(t) >= time.Second {
			return "held ≥" + model.GapText(now.Sub(t).Truncate(100*time.Millisecond))
		}
		return ""
	})
	line := waitLine(r.path, r.p, holder, now.Sub(r.start), r.tty)
	switch {
	case r.tty:
		fmt.Fprint(r.out, "\r\x1b[K"+line)
		r.drawn = true
	case line != r.lastLine:
		fmt.Fprintln(r.out, line)
	}
	r.lastLine, r.lastKey = line, r.key()
}

// waitLine is one report: "zklock: waiting for /locks/x: 3rd in line,
// watching #41; held by ... ; waited 12s". The elapsed wait is left out of
// the lines written to a log (one line per change, not per second).
func waitLine(p string, pr ordering.Progress, holder string, waited time.Duration, tty bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "zklock: waiting for %s: %s in line", model.SanitizeString(p, 60), ordinal(pr.Position))
	switch {
	case strings.HasPrefix(pr.Watching, "/"):
		// A children watch: a semaphore's admitted contender.
		fmt.Fprintf(&b, ", waiting for a lease (watching the children of %s)", model.SanitizeString(pr.Watching, 60))
	case pr.Watching != "":
		fmt.Fprintf(&b, ", watching %s", model.NodeRef(pr.Watching, 24))
	}
	if holder != "" {
		b.WriteString("; held by " + holder)
	}
	if tty {
		fmt.Fprintf(&b, "; waited %s", waited.Round(time.Second))
	}
	return b.String()
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprintf("%d%s", n, suffix)
}

// queueLookup reads p as zkview shows it (with the servers' view, for
// the holders' clients): the holders, and the place in line of the own
// node, counted as lockops counts it: among the lock's nodes (a
// semaphore's admission lock, its leases left out), first = 1.
func queueLookup(sess *lockops.Session, p string) func(context.Context, string) queueLook {
	return func(ctx context.Context, own string) queueLook {
		snap, err := zkview.Load(ctx, sess, zkview.Options{Paths: []string{p}, ServerView: true})
		if err != nil || snap.Queues.Len() == 0 {
			return queueLook{}
		}
		look := queueLook{At: snap.At}
		line := 0
		for _, n := range snap.Queues.At(0).Nodes.All() {
			if n.Role == ordering.RoleHolder {
				look.Holders = append(look.Holders, *n)
			}
			if n.Lease {
				continue
			}
			line++
			if own != "" && n.Name == own {
				look.Position = line
			}
		}
		return look
	}
}

// holdersText names who holds a lock, for the progress line and the
// "not acquired" message: the first holder's node (its full name when
// full, for the operator to act on; else "#seq"), session, client (when
// the servers tell), data, and how long it has held when heldFor knows
// (nil: not said), then how many more hold. A holder found holding
// by a one-off read has held for an unknown time: its node's age bounds
// it from above only, which says nothing of a lock handed on every
// second, so no age is given for it.
func holdersText(hs []model.Node, full bool, heldFor func(*model.Node) string) string {
	if len(hs) == 0 {
		return ""
	}
	n := &hs[0]
	parts := []string{"session " + model.SessionHex(n.Session)}
	if n.Client() != "" {
		parts = append(parts, model.SanitizeString(n.Client(), 40))
	}
	if d := n.DataText(40); d != "" {
		parts = append(parts, d)
	}
	if heldFor != nil {
		if h := heldFor(n); h != "" {
			parts = append(parts, h)
		}
	}
	if h := n.Health(); h.SilentTooLong(h.At) {
		parts = append(parts, h.Text(h.At)) // paused or hung: it may expire before it releases
	}
	what := model.NodeRef(n.Name, 24)
	if full {
		what = model.SanitizeString(n.Name, 60)
	}
	if n.Lease {
		what = "lease " + what
	}
	text := what + " (" + strings.Join(parts, ", ") + ")"
	if len(hs) > 1 {
		text += fmt.Sprintf(" and %d more", len(hs)-1)
	}
	return text
}

// holderText says who holds p, for the "not acquired" message: the
// operator's next question.
func holderText(ctx context.Context, sess *lockops.Session, p string) string {
	hctx, cancel := context.WithTimeout(ctx, holds.LookupTimeout)
	defer cancel()
	snap, err := zkview.Load(hctx, sess, zkview.Options{Paths: []string{p}})
	if err != nil || snap.Queues.Len() == 0 {
		return ""
	}
	var hs []model.Node
	for _, n := range snap.Queues.At(0).Nodes.All() {
		if n.Role == ordering.RoleHolder {
			hs = append(hs, *n)
		}
	}
	if len(hs) == 0 {
		return ""
	}
	return "; held by " + holdersText(hs, true, nil)
}
