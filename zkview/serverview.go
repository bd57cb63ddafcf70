package zkview

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"zklock/lockops"
)

// ErrFourLetterRefused: the member does not allow the four-letter word
// (not in its 4lw.commands.whitelist).
var ErrFourLetterRefused = errors.New("zkview: four-letter word not allowed")

// maxFourLetterReply caps a reply: `cons` with 10,000 sessions is ~1.8 MB
// (FACTS.md); a wrong address that streams forever must not fill memory.
const maxFourLetterReply = 64 << 20

// serverView is one poll of every member's `cons` and `wchc`. Each member
// knows only its own connections and watches, so the answers are merged.
type serverView struct {
	start, at time.Time // the poll began, ended
	// ok: at least one member answered both words and none refused them.
	ok       bool
	clients  map[int64]string          // session -> client ip:port
	known    map[int64]bool            // sessions whose watches are known
	watches  map[int64]map[string]bool // session -> server paths watched
	watchers map[string][]int64        // server path -> sessions watching
	self     int64                     // the monitor's own session: not a contender
}

// runServerView polls at start, every ServerViewEvery, and on Refresh.
func (w *Watcher) runServerView() {
	defer w.wg.Done()
	t := time.NewTicker(w.cfg.ServerViewEvery)
	defer t.Stop()
	first := true
	for {
		w.pollServers()
		if first {
			first = false
			close(w.svDone)
		}
		select {
		case <-w.ctx.Done():
			return
		case <-t.C:
		case <-w.refresh:
		}
	}
}

// memberReply is one member's answers.
type memberReply struct {
	addr       string
	cons, wchc string
	err        error
}

// pollServers asks every member for `cons` and `wchc` at once, merges the
// answers, and publishes them.
func (w *Watcher) pollServers() {
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
			var cerr, werr error
			var inner sync.WaitGroup
			inner.Add(2)
			go func() { defer inner.Done(); r.cons, cerr = fourLetter(ctx, w.s.DialMember, addr, "cons") }()
			go func() { defer inner.Done(); r.wchc, werr = fourLetter(ctx, w.s.DialMember, addr, "wchc") }()
			inner.Wait()
			r.err = errors.Join(cerr, werr)
			replies[i] = r
		}()
	}
	wg.Wait()
	if w.ctx.Err() != nil {
		return
	}
	sv, note := mergeServerView(replies)
	sv.start, sv.at = start, w.cfg.Now()
	sv.self = w.s.ID()

	w.mu.Lock()
	defer w.kickPublish()
	defer w.mu.Unlock()
	wasOK := w.sv != nil && w.sv.ok
	if note != w.svNote || sv.ok != wasOK {
		text := note
		if text == "" {
			text = fmt.Sprintf("server view: %d members answered cons and wchc; links verified", len(replies))
		}
		w.emitLocked(Event{At: sv.at, Kind: EventInfo, Text: text})
	}
	w.narrateLinksLocked(w.sv, sv)
	w.sv, w.svNote = sv, note
	w.allDirty = true
	w.markDirtyLocked()
}

// mergeServerView merges the members' answers; note says what is missing
// ("" when every member answered).
func mergeServerView(replies []memberReply) (*serverView, string) {
	sv := &serverView{
		clients:  map[int64]string{},
		known:    map[int64]bool{},
		watches:  map[int64]map[string]bool{},
		watchers: map[string][]int64{},
	}
	var refused, silent []string
	answered := 0
	for _, r := range replies {
		switch {
		case errors.Is(r.err, ErrFourLetterRefused):
			refused = append(refused, r.addr)
			continue
		case r.err != nil:
			silent = append(silent, r.addr)
			continue
		}
		answered++
		clients := parseCons(r.cons)
		for s, c := range clients {
			sv.clients[s] = c
			sv.known[s] = true
		}
		for s, paths := range parseWchc(r.wchc) {
			// A session is known where it is connected; a watch listed by
			// a member it left a moment ago still counts as its watch.
			m := sv.watches[s]
			if m == nil {
				m = map[string]bool{}
				sv.watches[s] = m
			}
			for _, p := range paths {
				if !m[p] {
					m[p] = true
					sv.watchers[p] = append(sv.watchers[p], s)
				}
			}
		}
	}
	sv.ok = answered > 0 && len(refused) == 0
	var notes []string
	if len(refused) > 0 {
		notes = append(notes, fmt.Sprintf("four-letter words cons/wchc are not allowed on %s (4lw.commands.whitelist): links are inferred, not verified",
			SanitizeString(strings.Join(refused, ", "), 200)))
	}
	if len(silent) > 0 {
		notes = append(notes, fmt.Sprintf("no answer from %s: sessions connected there are not judged",
			SanitizeString(strings.Join(silent, ", "), 200)))
	}
	if answered == 0 && len(refused) == 0 && len(silent) == 0 {
		notes = append(notes, "no member to ask")
	}
	return sv, strings.Join(notes, "; ")
}

// narrateLinksLocked tells, for the demo, which waits the servers newly
// confirm ("B's session watches A").
func (w *Watcher) narrateLinksLocked(old, sv *serverView) {
	if !sv.ok {
		return
	}
	n := 0
	for _, p := range w.sortedPaths {
		qm := w.queues[p]
		for _, e := range qm.order.Entries {
			r := qm.nodes[e.Name]
			if r == nil || e.Watches == "" || e.Believes != lockops.RoleWaiting {
				continue
			}
			wp := join(qm.abs, e.Watches)
			if !sv.watches[r.session][wp] || (old != nil && old.ok && old.watches[r.session][wp]) {
				continue
			}
			if n++; n > maxEventsPerListing {
				return
			}
			w.emitLocked(Event{At: sv.at, Kind: EventInfo, Path: qm.path, Node: e.Name,
				Text: fmt.Sprintf("%s: its session 0x%x has a watch on %s (wchc)", short(e.Name), r.session, short(e.Watches))})
		}
	}
}

// fourLetter sends cmd to addr and reads the whole reply, bounded by ctx.
// dial is the Session's (lockops.Session.DialMember): a TLS member serves
// the four-letter words on its secure port too, inside TLS.
func fourLetter(ctx context.Context, dial func(context.Context, string) (net.Conn, error), addr, cmd string) (string, error) {
	conn, err := dial(ctx, addr)
	if err != nil {
		return "", fmt.Errorf("zkview: %s %s: %w", cmd, addr, err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if _, err := io.WriteString(conn, cmd); err != nil {
		return "", fmt.Errorf("zkview: %s %s: %w", cmd, addr, err)
	}
	reply, err := io.ReadAll(io.LimitReader(conn, maxFourLetterReply))
	if err != nil {
		return "", fmt.Errorf("zkview: %s %s: %w", cmd, addr, err)
	}
	s := string(reply)
	if strings.Contains(s, "is not executed because it is not in the whitelist") {
		return "", fmt.Errorf("%w: %s on %s", ErrFourLetterRefused, cmd, addr)
	}
	return s, nil
}

// parseCons reads `cons`: one line per connection,
//
//	/127.0.0.1:38920[1](queued=0,...,sid=0x100009311fa0000,...)
//	/[0:0:0:0:0:0:0:1]:38921[1](...)          Java 14+ prints IPv6 so
//	/0:0:0:0:0:0:0:1:38921[1](...)            older Javas so
//	host.example/10.0.0.7:38921[1](...)       with a resolved name
//
// and returns session -> ip:port ("[::1]:38921" for IPv6). Connections
// without a session yet (the four-letter word's own) have no sid.
func parseCons(out string) map[int64]string {
	m := map[int64]string{}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		open := strings.Index(line, "](")
		if open < 0 {
			continue
		}
		stats := line[open+2:]
		i := strings.Index(stats, "sid=")
		if i < 0 {
			continue
		}
		sid := stats[i+4:]
		if j := strings.IndexAny(sid, ",)"); j >= 0 {
			sid = sid[:j]
		}
		id, err := strconv.ParseUint(strings.TrimPrefix(sid, "0x"), 16, 64)
		if err != nil {
			continue
		}
		addr := line[:open]
		if k := strings.LastIndexByte(addr, '['); k >= 0 { // the interest ops
			addr = addr[:k]
		}
		if k := strings.LastIndexByte(addr, '/'); k >= 0 {
			addr = addr[k+1:]
		}
		m[int64(id)] = normalizeAddr(addr)
	}
	return m
}

// normalizeAddr writes an ip:port in Go's form ("[::1]:5", "10.0.0.7:5").
func normalizeAddr(addr string) string {
	host, port := "", ""
	if strings.HasPrefix(addr, "[") {
		h, p, err := net.SplitHostPort(addr)
		if err != nil {
			return addr
		}
		host, port = h, p
	} else {
		k := strings.LastIndexByte(addr, ':')
		if k < 0 {
			return addr
		}
		host, port = addr[:k], addr[k+1:]
	}
	zone := ""
	if k := strings.IndexByte(host, '%'); k >= 0 {
		host, zone = host[:k], host[k:]
	}
	if ip := net.ParseIP(host); ip != nil {
		host = ip.String()
	}
	host += zone
	return net.JoinHostPort(host, port)
}

// parseWchc reads `wchc`: a session id line, then one tab-indented path
// per data watch.
func parseWchc(out string) map[int64][]string {
	m := map[int64][]string{}
	var cur int64
	have := false
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "0x"):
			id, err := strconv.ParseUint(strings.TrimSpace(line[2:]), 16, 64)
			cur, have = int64(id), err == nil
		case have && strings.HasPrefix(line, "\t"):
			if p := strings.TrimSpace(line); p != "" {
				m[cur] = append(m[cur], p)
			}
		}
	}
	return m
}
