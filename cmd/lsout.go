package cmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// The output of `zklock ls`: the text (writeLsText), the JSON (the schema
// is model.JSONPath, the model's serialisable form) and the --check
// judgment.

// writeLsText writes `ls`: per path a heading, its warnings, and a table of
// its queue in sequence order. Every text read from ZooKeeper is
// sanitized.
func writeLsText(w io.Writer, snap *model.Snapshot) error {
	var b strings.Builder
	switch {
	case snap.ServerView:
		fmt.Fprintf(&b, "server view: members asked at %s", snap.ServerViewAt.Format("15:04:05")) // AdminServer or 4lw
		if snap.ServerViewNote != "" {
			fmt.Fprintf(&b, " (%s)", model.SanitizeString(snap.ServerViewNote, 0))
		}
		b.WriteString("\n")
	case snap.ServerViewNote != "":
		fmt.Fprintf(&b, "server view: off: %s\n", model.SanitizeString(snap.ServerViewNote, 0))
	}
	if snap.Stale {
		fmt.Fprintf(&b, "STALE: %s since %s\n", snap.Conn.State, snap.Conn.Since.Format("15:04:05"))
	}
	if snap.DiscoveryCapped {
		b.WriteString("discovery stopped at its bound: more lock parents may exist\n")
	}
	if snap.SystemsNote != "" {
		b.WriteString(model.SanitizeString(snap.SystemsNote, 0) + "\n")
	}
	for i, q := range snap.Queues.All() {
		if i > 0 || b.Len() > 0 {
			b.WriteString("\n")
		}
		writeQueueText(&b, *q, snap.At)
	}
	if snap.Queues.Len() == 0 {
		b.WriteString("no lock parents\n")
	}
	for _, d := range snap.Deadlocks {
		// Across queues: spelled out by `zklock sessions`.
		fmt.Fprintf(&b, "\nsessions: %s\n", d.Text(snap.At))
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("ls: write text: %w", err)
	}
	return nil
}

// writeQueueText writes one queue of `ls`: its heading, warnings, table
// and other children.
func writeQueueText(b *strings.Builder, q model.Queue, now time.Time) {
	path := model.SanitizeString(q.Path, 0)
	switch q.State {
	case model.PathAbsent:
		if q.Type == model.TypeBarrier {
			fmt.Fprintf(b, "%s: %s\n", path, model.RecipeSummary(&q)) // a named barrier: open
			return
		}
		fmt.Fprintf(b, "%s: does not exist\n", path)
		return
	case model.PathNoAuth:
		fmt.Fprintf(b, "%s: no permission to list (%s)\n", path, model.SanitizeString(q.Err(), 0))
		return
	case model.PathError:
		fmt.Fprintf(b, "%s: error: %s\n", path, model.SanitizeString(q.Err(), 0))
		return
	case model.PathPending:
		fmt.Fprintf(b, "%s: not read yet\n", path)
		return
	}
	holders, identities := 0, false
	for _, n := range q.Nodes.All() {
		if n.Role == ordering.RoleHolder {
			holders++
		}
		identities = identities || n.Identity() != ""
	}
	if q.Label() != "" {
		path += " (" + model.SanitizeString(q.Label(), 0) + ")"
	}
	if sum := model.RecipeSummary(&q); sum != "" {
		fmt.Fprintf(b, "%s: %s\n", path, sum)
	} else if q.Type == model.TypeElection {
		fmt.Fprintf(b, "%s: election, %d participants, %d leading, %d following\n", path, q.Nodes.Len(), holders, q.Nodes.Len()-holders)
	} else if q.Type == model.TypeSemaphore {
		_, waiting := q.LeaseCounts()
		fmt.Fprintf(b, "%s: semaphore, holders %s%s, %d waiting\n", path, q.LimitText(), limitFrom(q.LimitSource()), waiting)
	} else {
		fmt.Fprintf(b, "%s: %d lock nodes, %d holding, %d waiting\n", path, q.Nodes.Len(), holders, q.Nodes.Len()-holders)
	}
	for _, w := range q.Warnings() {
		fmt.Fprintf(b, "  WARNING %s: %s\n", w.Code, model.SanitizeString(w.Message, 0))
	}
	if q.Nodes.Len() > 0 {
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		ident := func(string) string { return "" } // the column only for a system's nodes
		if identities {
			ident = func(s string) string { return s + "\t" }
		}
		fmt.Fprintln(tw, "  #\tSEQ\tROLE\tKIND\tRECIPE\tSESSION\tCLIENT\t"+ident("IDENTITY")+"WAITS ON\tAGE\tDATA\tNODE")
		for i, n := range q.Nodes.All() {
			writeNodeRow(tw, q, i, n, now, ident)
		}
		tw.Flush()
	}
	if len(q.Other()) > 0 {
		others := make([]string, len(q.Other()))
		for i, o := range q.Other() {
			others[i] = model.SanitizeString(o, 0)
		}
		fmt.Fprintf(b, "  other children: %s\n", strings.Join(others, ", "))
	}
}

// writeNodeRow writes the row of n, the i-th node of q, in ls's node
// table; ident makes the IDENTITY cell (nothing when the table has no
// such column: only a system's queue has one).
func writeNodeRow(tw io.Writer, q model.Queue, i int, n *model.Node, now time.Time, ident func(string) string) {
	role := model.RoleWord(q.Type, n.Role)
	if n.Part() != "" {
		role = n.Part()
	} else if n.Believes != n.Role {
		role += " (believes " + model.RoleWord(q.Type, n.Believes) + ")"
	}
	seq, node := strconv.Itoa(int(n.Seq)), model.SanitizeString(n.RelName(q.Path), 0)
	if n.Recipe == ordering.RecipeEphemeral || n.Lease && n.Recipe == ordering.RecipeKazoo || n.Part() == model.PartBarrier || n.Part() == model.PartWaiter {
		seq = "-" // the plain ephemeral lock's node has no sequence, nor a barrier's
	}
	if n.Name == "" {
		node = "- (no node: an exists watch)"
	}
	waits := "-"
	switch {
	case n.WatchesChildren():
		waits = "children of " + model.SanitizeString(n.Watches(), 0) + " " + n.Link.String()
	case n.Watches() != "":
		waits = model.NodeRef(n.Watches(), 24) + " " + n.Link.String()
	}
	if n.Herd {
		waits += " HERD"
	}
	session, client := "-", "-"
	if !n.Ctime().IsZero() || n.Name == "" {
		session = fmt.Sprintf("0x%x", n.Session)
	}
	if n.Client() != "" {
		client = model.SanitizeString(n.Client(), 0)
	}
	data := n.DataText(32)
	if data == "" {
		data = "-"
	}
	identity := "-"
	if n.Identity() != "" {
		identity = model.SanitizeString(n.Identity(), 0)
	}
	held := age(*n, now)
	if h := n.Health(); h.SilentTooLong(h.At) {
		held += " · " + h.Text(now)
	}
	fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\t%s\t%s%s\t%s\t%s\t%s\n", i+1, seq, role, n.KindName(), n.Recipe,
		session, client, ident(identity), waits, held, data, node)
}

// age is "held 1.2s" (or "held ≤2.0s" for a holder found holding, bounded
// by its creation; see model.Node.Tenure) or "waits 3.0s".
func age(n model.Node, now time.Time) string {
	t := n.TenureText(now)
	switch {
	case t == "":
		return "-"
	case n.Part() != "":
		return t // a recipe's part: neither held nor waiting
	case n.Role == ordering.RoleHolder:
		return "held " + t
	}
	return "waits " + t
}

// limitFrom is " (deduced)" and the like after a semaphore's limit.
func limitFrom(src string) string {
	if src == "" {
		return ""
	}
	return " (" + src + ")"
}

// writeLsJSON writes `ls --json`: model.ToJSON's value (the schema is
// documented on model.JSONPath), byte for byte as writeJSON would write
// it, but streamed one path at a time: a root of 100,000 lock parents
// never holds the whole array, and the output starts at once.
func writeLsJSON(w io.Writer, snap *model.Snapshot) error {
	if err := streamLsJSON(w, snap); err != nil {
		return fmt.Errorf("ls: write json: %w", err)
	}
	return nil
}

func streamLsJSON(w io.Writer, snap *model.Snapshot) error {
	if snap.Queues.Len() == 0 {
		_, err := io.WriteString(w, "[]\n")
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	// One element as writeJSON indents it inside the array: each line
	// after the first gets the array's indent as a prefix.
	var elem bytes.Buffer
	enc := json.NewEncoder(&elem)
	enc.SetEscapeHTML(false)
	enc.SetIndent("  ", "  ")
	sep := "[\n  "
	for _, q := range snap.Queues.All() {
		elem.Reset()
		if err := enc.Encode(model.PathJSON(q)); err != nil {
			return err
		}
		bw.WriteString(sep)
		bw.Write(bytes.TrimSuffix(elem.Bytes(), []byte("\n")))
		sep = ",\n  "
	}
	bw.WriteString("\n]\n")
	return bw.Flush()
}

// checkCode is `ls --check`'s exit code: 2 when any queue has a warning
// that fails a check (failsCheck), or the sessions show a cross-lock
// deadlock (deadlockCode), else 0.
func checkCode(snap *model.Snapshot) int {
	for _, q := range snap.Queues.All() {
		for _, w := range q.Warnings() {
			if failsNow(w, snap.At) {
				return exitCheck
			}
		}
	}
	return deadlockCode(snap)
}

// checkFailing are the warning codes that fail `ls --check`: two
// holders, a cycle, a waiter that will never wake, too many leases, a
// system's leader record that disagrees with its election (once it has
// lasted: failsNow).
// checkShown are those shown and not failed on; duplicate-participant
// among them, since a reconnect makes one for a moment (the old session
// lives until its timeout) and the election it concerns still has one
// leader by sequence order: split-holders fails where two believe they
// lead; silent-holder too, since a paused holder may resume, and one
// that does not is expired and hands the lock on by itself. Every
// warning code of
// zkview is in one of the two (TestCheckCodesInHelp), and `ls --help`
// and the exit codes table name checkFailing from here.
var (
	checkFailing = []string{model.WarnSplitHolders, model.WarnDeadlock, model.WarnOverLimit, model.WarnMissingWatch, model.WarnLeaderMismatch}
	checkShown   = []string{model.WarnMixedRecipes, model.WarnHerd, model.WarnStale, model.WarnSelfWait, model.WarnDuplicateParticipant, model.WarnSilentHolder}
)

// failsCheck reports whether a queue's warning fails `ls --check`.
func failsCheck(code string) bool { return slices.Contains(checkFailing, code) }

// failsNow reports whether w fails `ls --check` at now: a failing code,
// and for a leader-mismatch one that has lasted LeaderMismatchAfter (a
// failover passes through a short one; ls reads again to judge it, see
// zkview.ConfirmCycles).
func failsNow(w model.Warning, now time.Time) bool {
	if w.Code == model.WarnLeaderMismatch && w.Lasted(now) < model.LeaderMismatchAfter {
		return false
	}
	return failsCheck(w.Code)
}

// checkFailingList is checkFailing as "`a`, `b` or `c`" (README's
// backquotes; --help drops them).
func checkFailingList() string {
	quoted := make([]string, len(checkFailing))
	for i, c := range checkFailing {
		quoted[i] = "`" + c + "`"
	}
	return orList(quoted)
}
