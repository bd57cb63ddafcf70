package eventlog

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/charmbracelet/lipgloss"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/themes"
	"github.com/zklock/zklock/ui/draw"
)

// logCapacity bounds the event log: enough for a long incident on a busy
// ensemble, small enough that the ring never matters for memory.
const logCapacity = 2000

// Kind says who an entry is from, which picks its style.
type Kind int

const (
	ZK     Kind = iota // an event from zkview
	You                // the operator's own action or lock
	Failed             // an action that failed
	Demo               // the presenter's action on the demo's clients
)

// Entry is one line of the log: when, from whom, the change (if from
// zkview), and its path and text, both sanitized.
type Entry struct {
	At   time.Time
	Kind Kind
	ev   model.ChangeKind
	Path string // sanitized
	Text string // sanitized
}

// Log is the bottom pane: the newest events last, in a fixed ring.
type Log struct {
	draw.Pane
	Ring  []Entry
	start int // index of the oldest entry once the ring is full
	// back is how many entries the view is scrolled up from the newest;
	// 0 follows new events as they come.
	back int
}

// reorderWithin is how far apart in time two feeds of the log (zkview's
// events, the lock core's reports of the operator's own steps) may report
// one moment: an entry at most this much older than the newest goes in
// its place by time. An older one (a replay jumped back) is appended.
const reorderWithin = 2 * time.Second

// Update scrolls the log with the navigation keys and the wheel.
func (l Log) Update(msg tea.Msg) (Log, tea.Cmd) {
	rows := l.Height - 2
	switch msg := msg.(type) {
	case tea.KeyMsg:
		if d, ok := draw.NavDelta(msg, l.Nav, max(l.Height-3, 1)); ok {
			l.scroll(d, rows)
		}
	case tea.MouseMsg:
		if d, ok := draw.WheelDelta(msg); ok {
			l.scroll(d, rows)
		}
	}
	return l, nil
}

// View draws the log in its border, width x height cells.
func (l Log) View() []string {
	foot, lines := l.body(l.St, l.Width-2, l.Height-2)
	return draw.Box(l.Border, l.St.Title.Render("Events"), foot, lines, l.Width, l.Height)
}

// Add logs e in time order among the entries of the last reorderWithin,
// after those of the same time.
func (l *Log) Add(e Entry) { l.insert(e, false) }

// AddFirst logs e in time order, before the entries of the same time: a
// step known to have come first (a take's answer before the lock core's
// report it led to, both stamped with the report's time).
func (l *Log) AddFirst(e Entry) { l.insert(e, true) }

func (l *Log) insert(e Entry, first bool) {
	if len(l.Ring) < logCapacity {
		l.Ring = append(l.Ring, e)
	} else {
		l.Ring[l.start] = e
		l.start = (l.start + 1) % logCapacity
	}
	for i := len(l.Ring) - 1; i > 0; i-- {
		prev := l.At(i - 1).At
		if prev.Before(e.At) || prev.Equal(e.At) && !first || prev.Sub(e.At) > reorderWithin {
			break
		}
		*l.At(i - 1), *l.At(i) = *l.At(i), *l.At(i - 1)
	}
	if l.back > 0 {
		// Keep the operator's place while they read back.
		l.back = min(l.back+1, len(l.Ring)-1)
	}
}

// AddChange logs a change of the model in the console's words
// (model.Change.Text).
func (l *Log) AddChange(c model.Change) {
	l.Add(Entry{At: c.At, Kind: ZK, ev: c.Kind, Path: draw.Clean(c.Path, 0), Text: NodeRefs(draw.Clean(c.Text(), 0))})
}

// NodeRefs names the lock nodes in an event's text by sequence number, as
// the queue pane does: "#41 gone → #42 holds" reads at a glance, where
// two 55-character Curator names fill the line and cut off what matters.
// The full names stay in the node details (enter).
func NodeRefs(text string) string {
	words := strings.Split(text, " ")
	for i, w := range words {
		core := strings.TrimLeft(w, "(")
		lead := len(w) - len(core)
		core = strings.TrimRight(core, "),:;.")
		// A bare sequence ("0000000041") is left as written.
		if n, ok := ordering.ParseName(core); ok && n.Kind != ordering.KindOther && strings.Trim(core, "-0123456789") != "" {
			words[i] = w[:lead] + "#" + strconv.Itoa(int(n.Seq)) + w[lead+len(core):]
		}
	}
	return strings.Join(words, " ")
}

// At returns the i-th entry, oldest first.
func (l *Log) At(i int) *Entry {
	return &l.Ring[(l.start+i)%len(l.Ring)]
}

// scroll moves the view by delta entries: negative towards older ones.
func (l *Log) scroll(delta, rows int) {
	l.back = min(max(l.back-delta, 0), max(len(l.Ring)-rows, 0))
}

// body draws the newest entries that fit in h lines of w cells.
func (l *Log) body(st *themes.Styles, w, h int) (foot string, lines []string) {
	n := len(l.Ring)
	if n == 0 {
		return "", []string{st.Muted.Render(draw.Fit(" No events yet.", w))}
	}
	end := n - l.back
	first := max(end-h, 0)
	lines = make([]string, 0, h)
	for i := first; i < end; i++ {
		e := l.At(i)
		label, style := l.label(st, e)
		const headW = 8 + 1 + 8 + 1 // time, kind
		rest := e.Path
		if e.Text != "" {
			if rest != "" {
				rest += "  "
			}
			rest += e.Text
		}
		lines = append(lines, st.Muted.Render(draw.Clock(e.At)+" ")+style.Render(draw.Fit(label, 8))+" "+
			st.Text.Render(draw.Clean(rest, max(w-headW, 1))))
	}
	if l.back > 0 {
		foot = st.Muted.Render(fmt.Sprintf("%d newer below", l.back))
	}
	return foot, lines
}

func (l *Log) label(st *themes.Styles, e *Entry) (string, lipgloss.Style) {
	switch e.Kind {
	case You:
		return "you", st.Own
	case Failed:
		return "failed", st.Danger
	case Demo:
		return "demo", st.Key
	}
	word := e.ev.LogWord()
	switch word {
	case "handoff":
		return word, st.Holder
	case "created":
		return word, st.Waiter
	case "deleted":
		return word, st.Muted
	case "conn":
		return word, st.Warning
	case "warning":
		return word, st.Danger
	case "path":
		return word, st.Title
	}
	return word, st.Text
}
