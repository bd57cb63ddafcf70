package zkview

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/zklock/zklock/fourletter"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/zkview/queue"
)

// serverPoller polls the members' four-letter words for the Watcher w and
// keeps w.sv, the server view, under w.mu.
type serverPoller struct {
	w *Watcher
}

// run polls at start, then every ServerViewEvery, or
// serverViewShare times the slowest answer when that is longer, and on
// Refresh.
func (p *serverPoller) run() {
	w := p.w
	defer w.wg.Done()
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

// pollSpacing is how far apart polls go: every, or serverViewShare times
// took, the slowest member's answer, when that is longer.
func pollSpacing(every, took time.Duration) time.Duration {
	return max(every, took*serverViewShare)
}

// memberReply is one member's answers.
type memberReply struct {
	addr       string
	cons, wchc string
	err        error
	took       time.Duration // both answers, asked at once
}

// poll asks every member for `cons` and `wchc` at once, merges the
// answers, and publishes them; took is the slowest member's answer.
func (p *serverPoller) poll() (took time.Duration) {
	w := p.w
	start := w.cfg.Now()
	ctx, cancel := context.WithTimeout(w.ctx, fourLetterTimeout)
	defer cancel()
	replies := make([]memberReply, len(w.cfg.Members))
	var wg sync.WaitGroup
	for i, addr := range w.cfg.Members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := memberReply{addr: addr}
			asked := time.Now()
			defer func() { r.took = time.Since(asked); replies[i] = r }()
			var cerr, werr error
			var inner sync.WaitGroup
			inner.Add(2)
			// DialMember: a TLS member serves the words on its secure
			// port too, inside TLS with the session's settings.
			dial := fourletter.WithDial(w.s.DialMember)
			go func() { defer inner.Done(); r.cons, cerr = fourletter.Ask(ctx, addr, "cons", dial) }()
			go func() { defer inner.Done(); r.wchc, werr = fourletter.Ask(ctx, addr, "wchc", dial) }()
			inner.Wait()
			r.err = errors.Join(cerr, werr)
		}()
	}
	wg.Wait()
	for _, r := range replies {
		if r.err == nil {
			took = max(took, r.took)
		}
	}
	if w.ctx.Err() != nil {
		return took
	}
	sv, note := mergeServerView(replies)
	sv.Start, sv.At = start, w.cfg.Now()
	sv.Self = w.s.ID()

	w.mu.Lock()
	defer w.kickPublish()
	defer w.mu.Unlock()
	wasOK := w.sv != nil && w.sv.OK
	if note != w.svNote || sv.OK != wasOK {
		w.emitLocked(model.Change{At: sv.At, Kind: model.ChangeServerView, Count: len(replies), Note: note})
	}
	p.narrateLinksLocked(w.sv, sv)
	w.sv, w.svNote = sv, note
	w.allDirty = true
	w.markDirtyLocked()
	return took
}

// mergeServerView merges the members' answers; note says what is missing
// ("" when every member answered).
func mergeServerView(replies []memberReply) (*queue.ServerView, string) {
	sv := &queue.ServerView{
		Clients:  map[int64]string{},
		Known:    map[int64]bool{},
		Watches:  map[int64]map[string]bool{},
		Watchers: map[string][]int64{},
	}
	var refused, silent []string
	answered := 0
	for _, r := range replies {
		switch {
		case errors.Is(r.err, fourletter.ErrRefused):
			refused = append(refused, r.addr)
			continue
		case r.err != nil:
			silent = append(silent, r.addr)
			continue
		}
		answered++
		clients := fourletter.ParseCons(r.cons)
		for s, c := range clients {
			sv.Clients[s] = c
			sv.Known[s] = true
		}
		for s, paths := range fourletter.ParseWchc(r.wchc) {
			// A session is known where it is connected; a watch listed by
			// a member it left a moment ago still counts as its watch.
			m := sv.Watches[s]
			if m == nil {
				m = map[string]bool{}
				sv.Watches[s] = m
			}
			for _, p := range paths {
				if !m[p] {
					m[p] = true
					sv.Watchers[p] = append(sv.Watchers[p], s)
				}
			}
		}
	}
	sv.OK = answered > 0 && len(refused) == 0
	var notes []string
	if len(refused) > 0 {
		notes = append(notes, fmt.Sprintf("four-letter words cons/wchc are not allowed on %s (4lw.commands.whitelist): links are inferred, not verified",
			model.SanitizeString(strings.Join(refused, ", "), 200)))
	}
	if len(silent) > 0 {
		notes = append(notes, fmt.Sprintf("no answer from %s: sessions connected there are not judged",
			model.SanitizeString(strings.Join(silent, ", "), 200)))
	}
	if answered == 0 && len(refused) == 0 && len(silent) == 0 {
		notes = append(notes, "no member to ask")
	}
	return sv, strings.Join(notes, "; ")
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
