package cmd

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/sessions"
)

// The output of `zklock sessions`: the text (writeSessionsText), the JSON
// (the schema is sessions.JSONSessions, the model's serialisable form) and
// the --check judgment.

// writeSessionsText writes `zklock sessions`: one line per session (id,
// client, what it blocks, the oldest wait behind it, what it holds and
// waits on), most blocking first, then every cycle spelled out. Every
// text read from ZooKeeper is sanitized.
func writeSessionsText(w io.Writer, ss *sessions.Sessions) error {
	var b strings.Builder
	if len(ss.List) == 0 {
		b.WriteString("no session holds or waits on the watched locks\n")
	} else {
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "SESSION\tCLIENT\tBLOCKS\tDIRECT\tOLDEST WAIT\tHOLDS\tWAITS ON")
		for _, s := range ss.List {
			oldest := "-"
			if s.Blocks > 0 && s.OldestWait > 0 {
				oldest = model.GapText(s.OldestWait)
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t%s\n", model.SessionHex(s.Session), orDash(model.SanitizeString(s.Who(), 0)),
				s.Blocks, s.BlocksDirect, oldest, nodeList(s.Holds, time.Time{}, 4), nodeList(s.Waits, ss.At, 4))
		}
		tw.Flush()
		for _, s := range ss.List {
			if h := s.Health; h.SilentTooLong(h.At) {
				fmt.Fprintf(&b, "%s on %s: %s (paused or hung)\n", model.SessionHex(s.Session), model.SanitizeString(h.Member, 0), h.Text(ss.At))
			}
		}
	}
	for _, d := range ss.Deadlocks {
		b.WriteString("\n")
		writeDeadlockText(&b, ss, d)
	}
	if len(ss.Deadlocks) > 0 {
		b.WriteString("\n")
		line := ""
		for _, word := range strings.Fields(sessions.SessionsCaveat) {
			if line != "" && len(line)+1+len(word) > 76 {
				b.WriteString(line + "\n")
				line = ""
			}
			line = strings.TrimSpace(line + " " + word)
		}
		b.WriteString(line + "\n")
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("sessions: write text: %w", err)
	}
	return nil
}

// writeDeadlockText spells one cycle out: a heading, then per session its
// client, what it holds, and what it waits on since when, held by whom.
func writeDeadlockText(b *strings.Builder, ss *sessions.Sessions, d model.Deadlock) {
	age := model.GapText(ss.At.Sub(d.Since))
	switch d.State {
	case model.CycleDeadlock:
		fmt.Fprintf(b, "CROSS-LOCK DEADLOCK: %s, no handoff for %s (since %s)\n", model.CycleText(d.Sessions), age, d.Since.Format("15:04:05"))
	case model.CycleSelfWait:
		fmt.Fprintf(b, "SELF-WAIT: session %s waits behind its own node (for %s)\n", model.SessionHex(d.Sessions[0]), age)
	default:
		fmt.Fprintf(b, "CYCLE: %s, seen for %s: a deadlock if it stands %s with no handoff\n", model.CycleText(d.Sessions), age, sessions.DeadlockAfter)
	}
	for _, wt := range d.Waits {
		client := "client unknown"
		holds := "-"
		if s := ss.Find(wt.Session); s != nil {
			if who := s.Who(); who != "" {
				client = model.SanitizeString(who, 0)
			}
			holds = nodeList(s.Holds, time.Time{}, 6)
		}
		fmt.Fprintf(b, "  %s (%s) holds %s; waits on %s %s since %s, held by %s (%s)\n",
			model.SessionHex(wt.Session), client, holds, model.SanitizeString(wt.Path, 0), model.NodeRef(wt.Node, 24),
			wt.Since.Format("15:04:05"), model.SessionHex(wt.Holder), model.NodeRef(wt.HolderNode, 24))
	}
}

// nodeList is "/locks/a #7, /locks/b #3" (with each wait's age when now is
// set), at most max, then a count of the rest; "-" when empty.
func nodeList(ns []sessions.SessionNode, now time.Time, max int) string {
	if len(ns) == 0 {
		return "-"
	}
	parts := make([]string, 0, min(len(ns), max)+1)
	for i, n := range ns {
		if i == max {
			parts = append(parts, fmt.Sprintf("+%d more", len(ns)-max))
			break
		}
		s := model.SanitizeString(n.Path, 0)
		if what := nodeWhat(n) + model.NodeRef(n.Node, 24); what != "" {
			s += " " + what // a contender with no node of its own (a plain lock's, a barrier's waiter) has none
		}
		if !now.IsZero() && !n.Since.IsZero() {
			s += " (" + n.SinceBound.Mark() + model.GapText(now.Sub(n.Since)) + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// nodeWhat tells a semaphore's two nodes of one contender apart: its
// lease and its node in the admission lock ("" for a lock's node).
func nodeWhat(n sessions.SessionNode) string {
	switch {
	case n.Kind == "lease":
		return "lease "
	case n.Admission:
		return "admission lock "
	}
	return ""
}

// orDash is s, or "-" for an empty table cell.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// writeSessionsJSON writes `sessions --json`: sessions.SessionsJSON's value
// (the schema is documented on sessions.JSONSessions).
func writeSessionsJSON(w io.Writer, ss *sessions.Sessions) error {
	if err := writeJSON(w, sessions.SessionsJSON(ss)); err != nil {
		return fmt.Errorf("sessions: write json: %w", err)
	}
	return nil
}

// deadlockCode is the exit code a check gives a snapshot's cycles: 2 when
// any has stood long enough to be a deadlock, else 0.
func deadlockCode(snap *model.Snapshot) int {
	for _, d := range snap.Deadlocks {
		if d.State == model.CycleDeadlock {
			return exitCheck
		}
	}
	return 0
}
