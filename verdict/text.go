package verdict

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// maxWaiterLines bounds the waiters Text tells one by one: a queue of
// 10,000 is told by its first few, every waiter that will not wake, and
// a count of the rest (the JSON lists them all).
const maxWaiterLines = 8

// Text is the verdict as `zklock why` prints it, for a chat or a
// runbook: a headline, then who holds, who waits and whether each will
// wake, what happens next and the one command to act, in the words of
// the console's narration. Every string read from ZooKeeper is
// sanitized.
func (v Verdict) Text() string {
	var b strings.Builder
	b.WriteString(v.Headline() + "\n")
	if v.State == StateUnknown || v.State == StateNotLock {
		return b.String()
	}
	if v.Stale {
		b.WriteString("STALE: read while disconnected; the lock may have moved since\n")
	}
	for _, h := range v.Holders {
		v.writeHolder(&b, h)
	}
	v.writeWaiters(&b)
	for _, w := range v.Warnings {
		fmt.Fprintf(&b, "warning %s: %s\n", w.Code, model.SanitizeString(w.Message, 0))
	}
	for _, d := range v.Deadlocks {
		fmt.Fprintf(&b, "sessions: %s\n", d.Text(v.At))
	}
	if s := v.NextText(); s != "" {
		b.WriteString("next: " + s + "\n")
	}
	if v.Act != nil {
		fmt.Fprintf(&b, "act: %s\n  %s\n", v.Act.Command, v.ActText())
	}
	if !v.ServerView && (len(v.Waiters) > 0 || len(v.Holders) > 0) {
		note := "the servers do not tell their watches and clients"
		if v.ServerViewNote != "" {
			note += " (" + model.SanitizeString(v.ServerViewNote, 0) + ")"
		}
		b.WriteString(note + ": each wait is what its recipe predicts\n")
	}
	return b.String()
}

// Headline is the verdict in one line: the path, its state and the
// worst of what was found.
func (v Verdict) Headline() string {
	p := model.SanitizeString(v.Path, 0)
	if v.Label != "" {
		p += " (" + model.SanitizeString(v.Label, 0) + ")"
	}
	switch v.State {
	case StateUnknown:
		return p + ": cannot tell: " + model.SanitizeString(v.Unread, 0)
	case StateNotLock:
		if v.Type.Waits() {
			return fmt.Sprintf("%s: no lock nodes here, %d other children (%s): name a lock parent, such as %s",
				p, len(v.Other), listOther(v.Other, 3), model.SanitizeString(model.ChildPath(v.Path, v.Other[0]), 0))
		}
		return fmt.Sprintf("%s: a %s, not a lock: nobody holds or waits on it (zklock ls shows it)", p, v.Type)
	case StateFree:
		if v.Absent {
			return p + ": free: the path does not exist (Curator removes an empty lock's parent); the next client to ask creates it and holds"
		}
		return p + ": free: no client holds it or waits; the next to ask holds it at once"
	case StateSplit:
		return p + ": SPLIT: " + refs(v.holderNodes()) + " each believe they hold it at once (split-holders)"
	case StateStuck:
		var never []*model.Node
		var reasons []string
		for _, w := range v.Waiters {
			if w.Wakes == WakesNever {
				never = append(never, w.Node)
				if !slices.Contains(reasons, w.Reason) {
					reasons = append(reasons, w.Reason)
				}
			}
		}
		if len(never) > 3 {
			first := make([]string, 3)
			for i := range first {
				first[i] = nodeRef(never[i])
			}
			return fmt.Sprintf("%s: STUCK: %s and %d more will never wake (%s)", p, strings.Join(first, ", "), len(never)-3, strings.Join(reasons, ", "))
		}
		return fmt.Sprintf("%s: STUCK: %s will never wake (%s)", p, refs(never), strings.Join(reasons, ", "))
	}
	s := p + ": " + v.heldText()
	if v.State == StateSilent {
		s = strings.Replace(s, ": held", ": HOLDER SILENT: held", 1)
	}
	return s
}

// heldText is "held by #12 for ≤38.5s; 2 waiting" and the like.
func (v Verdict) heldText() string {
	var parts []string
	for _, h := range v.Holders {
		s := nodeRef(h.Node)
		if t := h.Node.TenureText(v.At); t != "" {
			s += " for " + t
		}
		if h.Alive == AliveSilent {
			s += " (its client silent)"
		}
		parts = append(parts, s)
	}
	held := "held by " + strings.Join(parts, ", ")
	if v.Type == model.TypeElection {
		held = "led by " + strings.Join(parts, ", ")
	}
	if len(parts) == 0 {
		held = "no holder"
	}
	switch len(v.Waiters) {
	case 0:
		return held + "; nobody waits"
	case 1:
		return held + "; 1 waiting"
	}
	return fmt.Sprintf("%s; %d waiting", held, len(v.Waiters))
}

// writeHolder tells one holder: who, since when, and its client's life.
func (v Verdict) writeHolder(b *strings.Builder, h Holder) {
	verb := "holds the lock"
	if v.Type == model.TypeElection {
		verb = "leads"
	}
	fmt.Fprintf(b, "holder: %s %s", nodeRef(h.Node), verb)
	if !h.Since.IsZero() {
		fmt.Fprintf(b, ", held %s (since %s%s)", h.Node.TenureText(v.At), h.Since.UTC().Format("15:04:05"), boundWords(h.Bound))
	}
	b.WriteString(whoText(h.Node) + "\n")
	if h.OutOfOrder {
		b.WriteString("  it believes it holds by its own recipe, while a node before it holds by sequence order (split-holders)\n")
	}
	b.WriteString("  its client: " + h.aliveText(v.At) + "\n")
}

// boundWords says how a hold's start is known, after the time.
func boundWords(b model.Bound) string {
	switch b {
	case model.BoundEarliest:
		return " at the earliest: found holding, bounded by its creation"
	case model.BoundLatest:
		return " at the latest"
	}
	return ""
}

// aliveText tells what the servers know of h's client.
func (h Holder) aliveText(at time.Time) string {
	if !h.Liveness.At.IsZero() {
		at = h.Liveness.At
	}
	l := h.Liveness
	silent, _ := l.Silent(at)
	switch h.Alive {
	case AliveSilent:
		s := fmt.Sprintf("SILENT %s (session timeout %s): paused, hung or cut off", model.GapText(silent), model.GapText(l.Timeout))
		if e, ok := l.ExpiresIn(at); ok {
			s += fmt.Sprintf("; the server expires its session in %s unless it speaks, and its node goes with it", upTo(e))
		}
		return s
	case AliveYes:
		s := fmt.Sprintf("alive: heard %s ago (session timeout %s)", model.GapText(silent), model.GapText(l.Timeout))
		if l.Member != "" {
			s += " on " + model.SanitizeString(l.Member, 0)
		}
		return s
	}
	return "not known: no member tells when it last heard the session"
}

// upTo is a time left rounded up to the second, "≤16s".
func upTo(d time.Duration) string {
	return "≤" + (d + time.Second - 1).Truncate(time.Second).String()
}

// writeWaiters tells the waiters: the first few, every one that will not
// wake, and a count of the rest.
func (v Verdict) writeWaiters(b *strings.Builder) {
	if len(v.Waiters) == 0 {
		return
	}
	fmt.Fprintf(b, "waiting: %d\n", len(v.Waiters))
	told, rest := 0, map[Wakes]int{}
	for i, w := range v.Waiters {
		if i < maxWaiterLines || w.Wakes == WakesNever || w.Wakes == WakesUnknown {
			b.WriteString("  " + v.waiterText(w) + "\n")
			told++
			continue
		}
		rest[w.Wakes]++
	}
	if n := len(v.Waiters) - told; n > 0 {
		fmt.Fprintf(b, "  … and %d more waiting (%d will wake, %d should: the servers do not tell)\n", n, rest[WakesYes], rest[WakesExpected])
	}
}

// waiterText is one waiter in a sentence: whether it will wake, and why.
func (v Verdict) waiterText(w Waiter) string {
	n := w.Node
	me := nodeRef(n) + " waits"
	if t := n.TenureText(v.At); t != "" {
		me += " " + t
	}
	on := watchRef(n)
	who := whoText(n)
	switch w.Reason {
	case ReasonVerified:
		return fmt.Sprintf("%s, watching %s (the servers show the watch): it wakes when %s goes%s", me, on, on, who)
	case ReasonMissing:
		return fmt.Sprintf("%s on %s, but its session has no watch there (the servers show none): it will never wake (missing-watch)%s", me, on, who)
	case ReasonDeadlock:
		return fmt.Sprintf("%s on %s in a cycle of watches, each waiting for the next to go: it will never wake (deadlock)%s", me, on, who)
	case ReasonCrossLock:
		return fmt.Sprintf("%s on %s in a cross-lock deadlock (its session holds what another waits for): it will never wake%s", me, on, who)
	case ReasonCycle:
		return fmt.Sprintf("%s on %s in a cycle of waits over sessions, a deadlock if it stands %s with no handoff%s", me, on, model.DeadlockAfter, who)
	case ReasonSelfWait:
		return fmt.Sprintf("%s on %s, a node of its own session: it wakes only when its own client lets that go%s", me, on, who)
	}
	return fmt.Sprintf("%s, watching %s by its recipe (the servers do not tell): it should wake when %s goes%s", me, on, on, who)
}

// NextText is Next in a sentence: "when #12 releases, #13 holds"; ""
// when nothing is held.
func (v Verdict) NextText() string {
	nx := v.Next
	if nx.Lease {
		if len(nx.Holds) == 0 {
			return "nobody waits for a lease"
		}
		return "when a lease is returned, " + nodeRef(nx.Holds[0]) + " takes it" + v.notices(nx.Holds)
	}
	if len(nx.Gone) == 0 {
		return ""
	}
	gone, verb := refs(nx.Gone)+" releases", " holds"
	if v.Type == model.TypeElection {
		gone, verb = refs(nx.Gone)+" goes", " leads"
	}
	if e, ok := v.expiry(); ok {
		gone += ", or its session expires (in " + upTo(e) + ")"
	}
	switch {
	case nx.Race:
		return fmt.Sprintf("when %s, its %d waiters race to create it again (a herd: each release wakes them all)", gone, len(nx.Holds))
	case len(nx.Holds) == 0:
		return "when " + gone + ", the lock is free"
	case len(nx.Holds) > 1:
		verb = " hold"
	}
	return "when " + gone + ", " + refs(nx.Holds) + verb + v.notices(nx.Holds)
}

// notices warns when the next holder will not notice its turn.
func (v Verdict) notices(next []*model.Node) string {
	for _, w := range v.Waiters {
		if w.Node == next[0] && w.Wakes == WakesNever {
			return ", but " + nodeRef(w.Node) + " will not notice (" + w.Reason + "): the lock then stays stuck"
		}
	}
	return ""
}

// expiry is when the first silent holder's session expires, when known.
func (v Verdict) expiry() (time.Duration, bool) {
	for _, h := range v.Holders {
		if h.Alive != AliveSilent {
			continue
		}
		at := h.Liveness.At
		if at.IsZero() {
			at = v.At
		}
		return h.Liveness.ExpiresIn(at)
	}
	return 0, false
}

// ActText says why Act is the command to run, and what it risks.
func (v Verdict) ActText() string {
	if v.Act == nil {
		return ""
	}
	switch v.Act.Why {
	case WhyDeadlock:
		return "the waits form a cycle and no release will come: sessions names the session to restart to break it"
	case WhySplit:
		return "recipes that cannot see each other share this lock: sessions names each holder's client; stop the one that should not hold"
	case WhyNeverWakes:
		return nodeRef(v.Act.Node) + "'s client set no watch and will never wake: deleting its node lets the queue move past it (its client is not told and still believes it waits)"
	}
	s := nodeRef(v.Act.Node) + "'s client is silent: deleting its node hands the lock on now (its client is not told and may still act when it wakes)"
	if e, ok := v.expiry(); ok {
		s += "; or wait " + upTo(e) + " for the server to expire its session"
	}
	return s
}

// listOther is at most max names of others, sanitized, with "…" for
// the rest.
func listOther(others []string, max int) string {
	parts := make([]string, 0, max+1)
	for i, o := range others {
		if i == max {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, model.SanitizeString(o, 0))
	}
	return strings.Join(parts, ", ")
}

// holderNodes are the holders' nodes.
func (v Verdict) holderNodes() []*model.Node {
	ns := make([]*model.Node, len(v.Holders))
	for i, h := range v.Holders {
		ns[i] = h.Node
	}
	return ns
}

// nodeRef names a node as every view does ("#12"); a plain ephemeral
// lock's waiter, which owns no node, by its session.
func nodeRef(n *model.Node) string {
	if n.Name == "" {
		return "session " + model.SessionHex(n.Session)
	}
	return model.NodeRef(n.Name, 24)
}

// refs names nodes: "#12", "#12 and #13", "#12, #13 and #14".
func refs(ns []*model.Node) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = nodeRef(n)
	}
	if len(parts) <= 1 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// watchRef names what a waiter waits on.
func watchRef(n *model.Node) string {
	switch {
	case n.Watches() == "":
		return "nothing it names"
	case n.WatchesChildren():
		return "the children of " + model.SanitizeString(n.Watches(), 0)
	}
	return model.NodeRef(n.Watches(), 24)
}

// whoText is a node's session, client and identity, after a sentence:
// " [session 0x1a, 10.0.0.7:4711, broker 2]"; "" when none is known.
func whoText(n *model.Node) string {
	var parts []string
	if s := model.SessionHex(n.Session); s != "" && n.Name != "" {
		parts = append(parts, "session "+s)
	}
	if n.Client() != "" {
		parts = append(parts, model.SanitizeString(n.Client(), 0))
	}
	if n.Identity() != "" {
		parts = append(parts, model.SanitizeString(n.Identity(), 0))
	}
	if n.Recipe != ordering.RecipeUnknown && n.Recipe != ordering.RecipePlain {
		parts = append(parts, n.Recipe.String())
	}
	if len(parts) == 0 {
		return ""
	}
	return " [" + strings.Join(parts, ", ") + "]"
}
