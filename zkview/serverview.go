package zkview

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/zklock/zklock/fourletter"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/memberview"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/zkview/queue"
)

// serverPoller asks the members what they know (memberview: the
// AdminServer or the four-letter words, whichever each allows) for the
// Watcher w and keeps w.sv, the server view, under w.mu.
type serverPoller struct {
	w      *Watcher
	poller *memberview.Poller
}

// run polls at start, then every ServerViewEvery, or
// serverViewShare times the slowest answer when that is longer, and on
// Refresh.
func (p *serverPoller) run() {
	w := p.w
	defer w.wg.Done()
	p.poller = memberview.New(memberview.Config{Members: w.cfg.Members, AdminPorts: w.cfg.AdminPorts,
		TLS: w.cfg.AdminTLS, Dial: w.s.DialMember, Own: p.ownRequest})
	defer p.poller.Close()
	t := time.NewTimer(w.cfg.ServerViewEvery)
	defer t.Stop()
	first := true
	for {
		took := p.poll()
		every := pollSpacing(w.cfg.ServerViewEvery, took)
		w.mu.Lock()
		w.svEvery = every
		w.mu.Unlock()
		if first {
			first = false
			close(w.svDone)
		}
		t.Reset(every)
		select {
		case <-w.ctx.Done():
			return
		case <-t.C:
		case <-w.refresh:
		}
	}
}

// ownRequest is the request on the Watcher's own session that ties the
// members' clocks to ours (memberview.Config.Own).
func (p *serverPoller) ownRequest(ctx context.Context) (int64, time.Time, time.Time, error) {
	before := time.Now()
	_, _, err := p.w.s.Exists(ctx, "/")
	return p.w.s.ID(), before, time.Now(), err
}

// pollSpacing is how far apart polls go: every, or serverViewShare times
// took, the slowest member's answer, when that is longer.
func pollSpacing(every, took time.Duration) time.Duration {
	return max(every, took*serverViewShare)
}

// poll asks every member at once, merges the answers, and publishes
// them; took is the slowest member's answer.
func (p *serverPoller) poll() (took time.Duration) {
	w := p.w
	start := w.cfg.Now()
	ctx, cancel := context.WithTimeout(w.ctx, fourLetterTimeout)
	defer cancel()
	v := p.poller.Poll(ctx)
	for _, m := range v.Members {
		if m.Answered() {
			took = max(took, m.Took)
		}
	}
	if w.ctx.Err() != nil {
		return took
	}
	sv, note := serverViewOf(v)
	sv.Start, sv.At = start, w.cfg.Now()
	sv.Self = w.s.ID()
	for s, h := range sv.Health {
		h.At = sv.At
		sv.Health[s] = h
	}

	w.mu.Lock()
	defer w.kickPublish()
	defer w.mu.Unlock()
	wasOK := w.sv != nil && w.sv.OK
	if note != w.svNote || sv.OK != wasOK {
		w.emitLocked(model.Change{At: sv.At, Kind: model.ChangeServerView, Count: len(v.Members), Note: note})
	}
	p.narrateLinksLocked(w.sv, sv)
	w.sv, w.svNote = sv, note
	w.allDirty = true
	w.markDirtyLocked()
	return took
}

// serverViewOf is the server view of what the members told; note says
// what is missing ("" when every member answered).
func serverViewOf(v *memberview.View) (*queue.ServerView, string) {
	sv := &queue.ServerView{
		Clients:  map[int64]string{},
		Known:    map[int64]bool{},
		Watches:  v.Watches,
		Watchers: v.Watchers,
		Health:   map[int64]model.Health{},
	}
	for s, h := range v.Sessions {
		sv.Clients[s], sv.Known[s] = h.Client, true
		mh := model.Health{Member: h.Member, Timeout: h.Timeout, Expires: h.Expires}
		if !h.Heard.Lo.IsZero() {
			mh.Heard = h.Heard.Mid()
		}
		sv.Health[s] = mh
	}
	var refused, silent []string
	answered := 0
	for _, m := range v.Members {
		switch {
		case m.Answered():
			answered++
		case refusedByWhitelist(m):
			refused = append(refused, m.Addr)
		default:
			silent = append(silent, m.Addr)
		}
	}
	sv.OK = answered > 0 && len(refused) == 0
	var notes []string
	if len(refused) > 0 {
		notes = append(notes, fmt.Sprintf("four-letter words cons/wchc are not allowed on %s (4lw.commands.whitelist) and no AdminServer answered (--admin-port): links are inferred, not verified (zklock doctor says how to fix it)",
			model.SanitizeString(strings.Join(refused, ", "), 200)))
	}
	if len(silent) > 0 {
		notes = append(notes, fmt.Sprintf("no answer from %s: sessions connected there are not judged",
			model.SanitizeString(strings.Join(silent, ", "), 200)))
	}
	if len(v.Members) == 0 {
		notes = append(notes, "no member to ask")
	}
	return sv, strings.Join(notes, "; ")
}

// refusedByWhitelist reports whether a member that told nothing refused
// the four-letter words (it is up, but allows neither source).
func refusedByWhitelist(m memberview.MemberReport) bool {
	for _, r := range m.Refused {
		if errors.Is(r.Err, fourletter.ErrRefused) {
			return true
		}
	}
	return false
}

// narrateLinksLocked tells, for the demo, which waits the servers newly
// confirm ("B's session watches A").
func (p *serverPoller) narrateLinksLocked(old, sv *queue.ServerView) {
	w := p.w
	if !sv.OK {
		return
	}
	n := 0
	for _, p := range w.sortedPaths {
		qm := w.queueLocked(p)
		if qm.Alone() {
			continue // its one node watches nothing; its order is not kept
		}
		for _, e := range qm.Order().Entries {
			r := qm.Nodes.Of(e.Name)
			if r == nil || e.Watches == "" || e.Believes != ordering.RoleWaiting {
				continue
			}
			wp := model.ChildPath(qm.Abs(), e.Watches)
			if !sv.Watches[r.Session][wp] || (old != nil && old.OK && old.Watches[r.Session][wp]) {
				continue
			}
			if n++; n > queue.MaxEventsPerListing {
				return
			}
			w.emitLocked(model.Change{At: sv.At, Kind: model.ChangeWatchVerified, Path: qm.Path,
				Node: model.Node{Name: e.Name, Session: r.Session}.WithWatches(e.Watches)})
		}
	}
}
