package queuepane

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/themes"
	"github.com/zklock/zklock/ui/draw"
)

// Semaphores in the console. zkview composes a semaphore's queue: its
// lease holders first (kind lease, no order among them), then its waiters
// in the order they will be served, the first of which waits for a lease
// on a children watch (Node.WatchesChildren), which the servers cannot
// confirm. The lock list and the queue header say "holders N/limit", or
// that the limit is unknown.

// holdersText is a semaphore's holders against its limit: "holders 2/3",
// "holders 2 (limit unknown)".
func holdersText(q *model.Queue) string {
	return "holders " + q.LimitText()
}

// leaseRef names a lease node in chains and banners: Curator's by its
// sequence under leases/ ("lease #4"), Kazoo's, which have none, by the
// start of their random name.
func leaseRef(n *model.Node) string {
	if n.Recipe == ordering.RecipeKazoo {
		return "lease " + draw.Clean(n.Name[:min(len(n.Name), 8)], 8) + "…"
	}
	return "lease #" + strconv.Itoa(int(n.Seq))
}

// leaseName is a lease's NODE cell: Kazoo's 32 hex digits may end in ten
// digits that are no sequence, so shortName's rule is not applied.
func leaseName(n *model.Node, width int) string {
	if n.Recipe == ordering.RecipeKazoo {
		return draw.Clean(n.Name[:min(len(n.Name), 8)]+"…", width)
	}
	return draw.Clean(ShortName(n.Name), width)
}

// childrenChain is the line under a waiter on a children watch (a
// semaphore's contender waiting for a lease) in w cells: the longest
// telling that fits, the reason the watch is inferred said last and
// dropped first.
func childrenChain(st *themes.Styles, n *model.Node, w int) string {
	const (
		lead   = "└─▶ waits for a lease"
		of     = ": children of "
		why    = " (children watches are not listed by the servers)"
		status = " ? inferred"
	)
	watched := draw.Clean(n.Watches(), 0)
	tellings := [][3]string{{of + watched, status, why}, {of + watched, status, ""}}
	if room := w - ansi.StringWidth(lead+of+status); room > 8 {
		// The watched path cut from the left keeps its lock's name.
		tellings = append(tellings, [3]string{of + draw.CleanLeft(n.Watches(), room), status, ""})
	}
	tellings = append(tellings, [3]string{"", status, ""})
	t := tellings[len(tellings)-1]
	for _, c := range tellings {
		if ansi.StringWidth(lead+c[0]+c[1]+c[2]) <= w {
			t = c
			break
		}
	}
	var b strings.Builder
	b.WriteString(st.Muted.Render(lead + t[0]))
	b.WriteString(st.Inferred.Render(t[1] + t[2]))
	return b.String()
}
