package locklist

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/ui/draw"
)

// Row is one watched lock parent, summarised for the list. Times are
// kept rather than durations so that a clock tick needs no rebuild.
type Row struct {
	Path      string // raw; the key
	label     string // sanitized path
	system    string // sanitized system label ("solr overseer"), "" for a recipe
	lower     string // label in lower case, for the filter
	state     model.PathState
	labelW    int    // cells of label
	Holder    string // sanitized identity of the holder(s)
	holders   int
	Waiters   int
	Depth     int
	WaitSince time.Time // oldest waiter's Since; zero when nobody waits
	HoldSince time.Time // first holder's tenure start; zero when nobody holds
	holdBound model.Bound
	danger    bool   // split-holders, deadlock or mixed-recipes
	warn      bool   // any other warning
	codes     string // warning codes, for the filter and the marker
	// The overlay: what the root knows beside the queue (its own locks,
	// the marked session, a deadlock across locks). A row kept from the
	// previous snapshot has its overlay cleared and set again.
	own       bool // one of the operator's own locks
	ownLost   bool // and lost or suspended: it may no longer be held
	Marked    bool // the marked session (sessions pane) has a node here
	crossLock bool // in a cross-lock deadlock: danger, code cross-lock-deadlock
	// q is the row's queue in the snapshot it was built from (read
	// only), nil for a configured path the snapshot lacks.
	q *model.Queue
}

// crossLockCode is the filter's word for a lock in a cross-lock deadlock.
const crossLockCode = "cross-lock-deadlock"

// dangerous says whether the row is drawn and sorted as broken: split
// holders, a deadlock, mixed recipes, over its limit, or a cross-lock
// deadlock.
func (r *Row) dangerous() bool { return r.danger || r.crossLock }

// matches says whether the row passes the filter: needle (lower case, ""
// for any) in its path or its warning codes, and a waiter when
// waitingOnly.
func (r *Row) matches(needle string, waitingOnly bool) bool {
	if waitingOnly && r.Waiters == 0 {
		return false
	}
	return needle == "" || strings.Contains(r.lower, needle) || strings.Contains(r.codes, needle) ||
		r.crossLock && strings.Contains(crossLockCode, needle)
}

// sameQueue says whether q summarizes as p did: the Watcher hands out a
// queue's Nodes unchanged until the queue changes, so for most queues of
// a wide root this is a comparison of headers.
func sameQueue(p, q *model.Queue) bool {
	if p.Path != q.Path || p.State != q.State || p.Type != q.Type || p.Limit() != q.Limit() || p.LimitSource() != q.LimitSource() ||
		p.Label() != q.Label() || p.Facts() != q.Facts() || len(p.Warnings()) != len(q.Warnings()) || !p.Nodes.Shares(q.Nodes) {
		return false
	}
	for i := range p.Warnings() {
		if p.Warnings()[i].Code != q.Warnings()[i].Code {
			return false
		}
	}
	return true
}

// summarize derives the list row of one queue.
func summarize(q *model.Queue) Row {
	r := Row{Path: q.Path, label: draw.Clean(q.Path, 0), state: q.State, Depth: q.Nodes.Len()}
	r.lower = strings.ToLower(r.label)
	if q.Label() != "" {
		r.system = draw.Clean(q.Label(), 40)
		r.lower += " " + strings.ToLower(r.system) // the filter finds "solr"
	}
	r.labelW = draw.Width(r.label)
	var first *model.Node
	for _, n := range q.Nodes.All() {
		if n.Role == ordering.RoleHolder || n.Believes == ordering.RoleHolder {
			r.holders++
			if first == nil {
				first = n
			}
			continue
		}
		r.Waiters++
		if r.WaitSince.IsZero() || n.Since().Before(r.WaitSince) {
			r.WaitSince = n.Since()
		}
	}
	if first != nil {
		r.HoldSince, r.holdBound = first.Tenure()
		switch {
		case q.Type == model.TypeSemaphore:
			r.Holder = "holders " + q.LimitText() // as holdersText (semaphore.go) says it
		case r.holders > 1 && first.Kind == ordering.KindRead:
			r.Holder = strconv.Itoa(r.holders) + " readers"
		case r.holders > 1:
			r.Holder = strconv.Itoa(r.holders) + " holders"
		case first.Identity() != "":
			r.Holder = draw.Clean(first.Identity(), 0) // as its system names it
		case len(first.Data()) > 0:
			r.Holder = model.Sanitize(first.Data(), 0)
		default:
			r.Holder = draw.Session(first.Session)
		}
	}
	if f := q.Facts(); q.Type == model.TypeBarrier && f != nil && f.Set != nil {
		r.Holder = "open" // a single barrier: set or open, not held by its node's data
		if *f.Set {
			r.Holder = "set"
		}
	}
	var codes []string
	for _, w := range q.Warnings() {
		codes = append(codes, w.Code)
		switch w.Code {
		case model.WarnSplitHolders, model.WarnDeadlock, model.WarnMixedRecipes, model.WarnOverLimit:
			r.danger = true
		default:
			r.warn = true
		}
	}
	r.codes = strings.Join(codes, " ")
	return r
}

// commonParent is the longest parent path ending in "/" that every row's
// path starts with; "" for fewer than two rows or only the root.
func commonParent(rows []Row) string {
	if len(rows) < 2 {
		return ""
	}
	p := rows[0].Path
	for _, r := range rows[1:] {
		for !strings.HasPrefix(r.Path, p) {
			p = p[:len(p)-1]
		}
	}
	p = p[:strings.LastIndex(p, "/")+1]
	if p == "/" {
		return ""
	}
	for _, r := range rows {
		if len(r.Path) == len(p) {
			return "" // a row would have an empty name
		}
	}
	return p
}

// systemCell is a row's system label as drawn in a PATH cell w wide,
// and the room left before it for the path: the label whole after the
// path when at least minPathCells of the path fit, else the label alone
// (it says more than the path's last few characters); "" when the row
// has no label.
func systemCell(label string, w int) (text string, pathW int) {
	const minPathCells = 8
	if label == "" {
		return "", w
	}
	if pathW = w - lipgloss.Width(label) - 1; pathW >= minPathCells {
		return label, pathW
	}
	return draw.Clean(label, w), 0
}
