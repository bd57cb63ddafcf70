package ui

import (
	"fmt"
	"math/rand"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/timeline"
	"github.com/zklock/zklock/ui/draw"
)

// propertyModels are every golden's model, a semaphore selected and a
// replay: what TestViewProperties draws at random sizes.
func propertyModels(t *testing.T) map[string]Console {
	out := map[string]Console{}
	for _, sc := range scenarios {
		out[sc.name] = sc.setup(newTest("mono", 80, 24))
	}
	for _, sc := range sessionScenarios {
		out[sc.name] = sc.setup(t, newTest("mono", 80, 24))
	}
	out["connecting"], _ = connectingTest(80, 24, 3*time.Second)
	slots := kazooSlots()
	slots.SetWarnings(nil)
	slots.SetLimit(3)
	snap := fleet()
	snap.Queues = model.QueuesOf(append(snap.Queues.Slice(), slots)...)
	m := step(newTest("mono", 80, 24), updateMsg{model.Update{Snapshot: snap}})
	out["semaphore"] = selectPath(m, "/jobs/slots")
	tl := &fakeTimeline{st: timeline.PlayerState{At: t0, Steps: 305, Speed: 1, Start: t0, End: t0.Add(time.Minute)}}
	out["replay"] = newTest("mono", 80, 24, func(o *Options) { o.Replay = tl; o.ReadOnly = true; o.Backend = nil })
	return out
}

// sentences are texts the console writes whole or cut with "…", never
// cut bare: a cut that ends without "…" reads as the whole text.
var sentences = []string{
	"waits for a lease: children of /jobs/slots ? inferred (children watches are not listed by the servers)",
	"No lock nodes: nobody holds or waits for this lock.",
	"Watching it: the queue appears here when a client creates it.",
	"space play/pause",
	"zklock oncall@ops-1 INC-4411",
}

// TestViewProperties: over every golden's model at random sizes from
// 60x16 to 200x60 (seeded), no line is wider than the terminal, every
// cut ends in "…", and what the operator must read is there at every
// width: the selected lock's name (its path's last element), a
// semaphore's holders against its limit, the holder's role.
func TestViewProperties(t *testing.T) {
	var cuts []string
	draw.CutSeen = func(in, out string) {
		if strings.TrimSpace(ansi.Strip(ansi.TruncateLeft(in, ansi.StringWidth(out), ""))) != "" &&
			!strings.HasSuffix(strings.TrimRight(ansi.Strip(out), " "), "…") {
			cuts = append(cuts, fmt.Sprintf("%q cut to %q", ansi.Strip(in), ansi.Strip(out)))
		}
	}
	defer func() { draw.CutSeen = nil }()
	rng := rand.New(rand.NewSource(28))
	models := propertyModels(t)
	names := make([]string, 0, len(models))
	for n := range models {
		names = append(names, n)
	}
	for _, name := range sortedKeys(names) {
		m := models[name]
		for range 30 {
			w, h := 60+rng.Intn(141), 16+rng.Intn(45)
			m = step(m, sizeMsg(w, h))
			cuts = cuts[:0]
			view := ansi.Strip(m.View())
			where := fmt.Sprintf("%s at %dx%d", name, w, h)
			checkFrame(t, view, w, h)
			for _, c := range cuts {
				t.Errorf("%s: cut without …: %s", where, c)
			}
			checkSentences(t, where, view)
			if m.dialog == nil && m.view == viewMain {
				checkEssentials(t, where, m, view)
			}
		}
	}
}

func sortedKeys(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// checkSentences finds each sentence's longest start shown on a line (12
// bytes at least): one that stops inside a word must go on with "…".
// (Stopping between words is how a sentence wraps, or drops a clause
// the width has no room for.)
func checkSentences(t *testing.T, where, view string) {
	t.Helper()
	for _, l := range strings.Split(view, "\n") {
		for _, s := range sentences {
			for n := len(s); n >= 12; n-- {
				i := strings.Index(l, s[:n])
				if i < 0 {
					continue
				}
				if n == len(s) {
					break // whole
				}
				midWord := isWordByte(s[n]) && isWordByte(s[n-1])
				if midWord && !strings.HasPrefix(l[i+n:], "…") {
					t.Errorf("%s: %q cut bare: %q", where, s, l)
				}
				break
			}
		}
	}
}

// checkEssentials: the selected lock's name, a semaphore's N/L and the
// holder's role are on screen.
func checkEssentials(t *testing.T, where string, m Console, view string) {
	t.Helper()
	sel := m.list.Selected
	if sel == "" {
		return
	}
	if last := path.Base(sel); !strings.Contains(view, last) {
		t.Errorf("%s: the selected lock's name %q is not shown", where, last)
	}
	q := m.snap.Queue(sel)
	if q == nil || q.Nodes.Len() == 0 {
		return
	}
	if q.Type == model.TypeSemaphore && !strings.Contains(view, q.LimitText()) {
		t.Errorf("%s: holders %s not shown", where, q.LimitText())
	}
	if q.Nodes.At(0).Believes == ordering.RoleHolder && m.queue.Top == 0 {
		if word := strings.ToUpper(model.RoleWord(q.Type, ordering.RoleHolder)); !strings.Contains(view, word) {
			t.Errorf("%s: role %s not shown", where, word)
		}
	}
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
