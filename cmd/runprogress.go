package cmd

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

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/zkview"
)

const (
	// holderLookupEvery spaces the reads of who holds the lock: one
	// listing of the queue each, so not at every move of a long queue.
	holderLookupEvery = 2 * time.Second
	// progressTick redraws the elapsed wait on a terminal.
	progressTick = time.Second
	// quietWait: a lock held within this long needs no report, so an
	// uncontended run says nothing at all.
	quietWait = 300 * time.Millisecond
)

// waitReporter renders a Lock's progress while it waits.
type waitReporter struct {
	out   io.Writer
	tty   bool
	path  string
	start time.Time
	// lookup reads who holds the lock ("" when unknown); nil: never.
	lookup func(context.Context) string

	mu       sync.Mutex
	p        lockops.Progress
	holder   string
	lastLine string
	drawn    bool // a line is on the terminal, to erase
	done     bool
	kick     chan struct{}
	stop     chan struct{}
	wg       sync.WaitGroup
}

func newWaitReporter(out io.Writer, tty bool, p string, lookup func(context.Context) string) *waitReporter {
	return &waitReporter{out: out, tty: tty, path: p, start: time.Now(), lookup: lookup,
		kick: make(chan struct{}, 1), stop: make(chan struct{})}
}

// Progress is the Lock's callback (lockops.WithProgress).
func (r *waitReporter) Progress(p lockops.Progress) {
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

// Start draws until Stop: at each move of the Lock, and every second on a
// terminal.
func (r *waitReporter) Start(ctx context.Context) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		var tick <-chan time.Time
		if r.tty {
			t := time.NewTicker(progressTick)
			defer t.Stop()
			tick = t.C
		}
		var lastLookup time.Time
		first := time.NewTimer(quietWait)
		defer first.Stop()
		quiet := true
		for {
			select {
			case <-ctx.Done():
				return
			case <-r.stop:
				return
			case <-first.C:
				quiet = false
				select {
				case r.kick <- struct{}{}: // look up the holder now
				default:
				}
				continue
			case <-r.kick:
				if quiet {
					continue // the state is read when the quiet wait ends
				}
				if r.lookup != nil && time.Since(lastLookup) >= holderLookupEvery {
					lastLookup = time.Now()
					lctx, cancel := context.WithTimeout(ctx, holderLookupTimeout)
					h := r.lookup(lctx)
					cancel()
					r.mu.Lock()
					r.holder = h
					r.mu.Unlock()
				}
			case <-tick:
				if quiet {
					continue
				}
			}
			r.draw(time.Now())
		}
	}()
}

// Stop ends the reports; on a terminal the line is erased.
func (r *waitReporter) Stop() {
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

func (r *waitReporter) draw(now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done || r.p.State != lockops.LockQueued {
		return
	}
	line := waitLine(r.path, r.p, r.holder, now.Sub(r.start), r.tty)
	switch {
	case r.tty:
		fmt.Fprint(r.out, "\r\x1b[K"+line)
		r.drawn = true
	case line != r.lastLine:
		fmt.Fprintln(r.out, line)
	}
	r.lastLine = line
}

// waitLine is one report: "zklock: waiting for /locks/x: 3rd in line,
// watching #41; held by ... ; waited 12s". The elapsed wait is left out of
// the lines written to a log (one line per change, not per second).
func waitLine(p string, pr lockops.Progress, holder string, waited time.Duration, tty bool) string {
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

// holderLookup reads who holds p: node, session, client (when the servers
// tell) and for how long.
func holderLookup(sess *lockops.Session, p string) func(context.Context) string {
	return func(ctx context.Context) string {
		snap, err := zkview.Load(ctx, sess, zkview.Config{Paths: []string{p}, ServerView: true})
		if err != nil || len(snap.Queues) == 0 {
			return ""
		}
		var hs []string
		for _, n := range snap.Queues[0].Nodes.All() {
			if n.Role != lockops.RoleHolder {
				continue
			}
			h := model.NodeRef(n.Name, 24) + " (session " + model.SessionHex(n.Session)
			if n.Client != "" {
				h += " " + model.SanitizeString(n.Client, 40)
			}
			if t := n.TenureText(snap.At); t != "" {
				h += ", " + t
			}
			hs = append(hs, h+")")
		}
		return strings.Join(hs, ", ")
	}
}
