package ui

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// demoFleet is what `zklock demo` shows once its contenders are busy
// (demo/workload.go, demo/solr.go): six lock parents under /demo/locks, a
// busy Curator mutex, a read/write lock, a semaphore of three leases, a
// Curator leader latch, Solr's overseer election and a quiet mutex, the
// nodes named and their data written as the demo's clients write them.
func demoFleet() (*model.Snapshot, []model.Change) {
	const root = "/demo/locks"
	c, m := ordering.RecipeCurator, ordering.KindMutex
	sess := func(i int) int64 { return 0x10000048ca60000 + int64(i) }
	client := func(i int) string { return fmt.Sprintf("127.0.0.1:%d", 37400+8*i) }
	uuid := func(i int) string {
		return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", 0x2026f505+i*0x1f3a7, i*0x91, i*7, i*13, 0x1b18028c+i)
	}
	chain := func(path string, first int32, kind func(i int) (ordering.Kind, string), who []string, verified int) model.Queue {
		nodes := make([]model.Node, len(who))
		prev := ""
		for i, w := range who {
			k, part := kind(i)
			name := fmt.Sprintf("_c_%s-%s%010d", uuid(int(first)+i), part, first+int32(i))
			role := ordering.RoleWaiting
			if i == 0 || k == ordering.KindRead && prev != "" && nodes[i-1].Role == ordering.RoleHolder {
				role = ordering.RoleHolder
			}
			n := node(name, first+int32(i), k, c, role, sess(int(first)+i), client(int(first)+i), w, time.Duration(len(who)-i)*time.Second)
			if role == ordering.RoleWaiting {
				link := model.LinkVerified
				if i >= verified {
					link = model.LinkInferred
				}
				n = waits(n, prev, link)
			}
			nodes[i], prev = n, name
		}
		return model.Queue{Path: path, State: model.PathPresent, Nodes: model.NodesOf(nodes...)}
	}
	mutex := func(int) (ordering.Kind, string) { return m, "lock-" }
	billing := chain(root+"/billing", 14, mutex, []string{"ledger-export@billing-1", "tax-calc@worker-2", "invoice-sender@worker-3",
		"refund-sweeper@worker-1", "dunning-mailer@worker-2", "fx-rates-sync@cron-1", "payments-settle@worker-4"}, 5)
	orders := chain(root+"/orders", 33, func(i int) (ordering.Kind, string) {
		if i == 3 {
			return ordering.KindWrite, "__WRIT__"
		}
		return ordering.KindRead, "__READ__"
	}, []string{"checkout@web-1", "orders-api@web-2", "order-search@web-3", "orders-migrate@batch-1"}, 4)
	reports := chain(root+"/reports", 7, mutex, []string{"weekly-report@batch-2", "daily-report@batch-1"}, 2)
	latch := chain(root+"/scheduler-leader", 3, func(int) (ordering.Kind, string) { return m, "latch-" },
		[]string{"scheduler@node-1", "scheduler@node-2", "scheduler@node-3"}, 3)
	latch.Type = model.TypeElection

	// The semaphore (Curator's InterProcessSemaphoreV2): five leases, three
	// held, two created beyond the limit, waiting on the leases' children.
	var slots []model.Node
	for i, w := range []string{"render@gpu-1", "render@gpu-2", "render@gpu-3", "render@gpu-4", "render@gpu-5"} {
		role := ordering.RoleHolder
		if i >= 3 {
			role = ordering.RoleWaiting
		}
		n := node(fmt.Sprintf("_c_%s-lease-%010d", uuid(40+i), 11+i), int32(11+i), ordering.KindOther, c, role, sess(40+i), client(40+i), w, time.Duration(5-i)*time.Second)
		if role == ordering.RoleWaiting {
			n = waits(n, root+"/render-slots/leases", model.LinkInferred)
		}
		n.Lease = true
		n.SetParent(root + "/render-slots/leases")
		slots = append(slots, n)
	}
	sem := model.Queue{Path: root + "/render-slots", State: model.PathPresent, Type: model.TypeSemaphore, Nodes: model.NodesOf(slots...)}.WithRare(model.QueueRare{
		Limit: 3, LimitSource: model.LimitFromConfig, Other: []string{"leases", "locks"},
	})

	solr := systemsFleet().Queue("/solr/overseer_elect/election")
	overseer := *solr
	overseer.Path = root + "/solr/overseer_elect/election"
	overseer.SetWarnings(nil)

	s := fleet()
	s.Conn.Context, s.Conn.Server, s.Conn.Ensemble = "", "127.0.0.1:39951", []string{"127.0.0.1:39951"}
	s.Conn.SessionID = sess(1)
	s.WatchMode = model.ModeRecursive
	s.Queues = model.QueuesOf(billing, orders, reports, latch, sem, overseer)
	gone := func(seq int32) string { return fmt.Sprintf("_c_%s-lock-%010d", uuid(int(seq)), seq) }
	changes := []model.Change{
		{At: ago(3 * time.Second), Kind: model.ChangeAcquired, Path: orders.Path, Node: *orders.Nodes.At(0), From: gone(32), Gap: 461 * time.Microsecond},
		{At: ago(2 * time.Second), Kind: model.ChangeJoined, Path: sem.Path, Node: slots[4], Holders: 3, Limit: 3},
		{At: ago(time.Second), Kind: model.ChangeAcquired, Path: billing.Path, Node: *billing.Nodes.At(0), From: gone(13), Gap: 564 * time.Microsecond},
		{At: ago(0), Kind: model.ChangeJoined, Path: billing.Path, Node: *billing.Nodes.At(6)},
	}
	return s, changes
}

// readmeScreenshot is the console README.md shows: the demo's layout at
// 118x30, the billing mutex selected, the narration on.
func readmeScreenshot(theme string) Console {
	snap, changes := demoFleet()
	var paths []string
	for _, q := range snap.Queues.All() {
		paths = append(paths, q.Path)
	}
	m := New(Options{Theme: mustTheme(theme), Backend: &fakeBackend{}, Paths: paths, Now: func() time.Time { return t0 },
		Title: "zklock demo", Demo: &fakeDemo{}, Narration: true})
	m = step(m, sizeMsg(118, 30))
	m = step(m, updateMsg{model.Update{Snapshot: snap, Changes: changes}})
	return selectPath(m, "/demo/locks/billing")
}

// readmeMark names, in README.md, the golden the screenshot block after
// it shows.
const readmeMark = "<!-- screenshot: ui/testdata/TestReadmeScreenshot/demo-118x30.golden -->"

// TestReadmeScreenshot: README's screenshot is the golden of the demo's
// layout, line for line (trailing blanks dropped, as a terminal capture
// drops them). `go test ./ui -run TestReadmeScreenshot -update` rewrites
// both.
func TestReadmeScreenshot(t *testing.T) {
	var want string
	t.Run("demo-118x30", func(t *testing.T) {
		layoutGolden(t, "demo-118x30", 118, 30, readmeScreenshot)
		want = ansi.Strip(readmeScreenshot("dark").View())
	})
	lines := strings.Split(want, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	shot := strings.Join(lines, "\n")
	if got := strings.Count(shot, "\n│"); got < 20 {
		t.Fatalf("the screenshot has %d boxed lines:\n%s", got, shot)
	}
	for _, want := range []string{"· 6", "billing", "render-slots", "orders", "scheduler-leader", "solr overseer", "reports", "▸ narration"} {
		if !strings.Contains(shot, want) {
			t.Errorf("the screenshot lacks %q: it is not the demo's layout:\n%s", want, shot)
		}
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	before, block, after, ok := screenshotBlock(string(readme))
	if !ok {
		t.Fatalf("README.md has no %s followed by a ``` block", readmeMark)
	}
	if block == shot {
		return
	}
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile("../README.md", []byte(before+shot+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's screenshot differs from %s (go test ./ui -run TestReadmeScreenshot -update):\nREADME:\n%s\ngolden:\n%s", readmeMark, block, shot)
}

// screenshotBlock splits README's text around the screenshot: what is
// before its block's text, the text, and what follows it.
func screenshotBlock(readme string) (before, block, after string, ok bool) {
	i := strings.Index(readme, readmeMark)
	if i < 0 {
		return "", "", "", false
	}
	open := strings.Index(readme[i:], "```\n")
	if open < 0 {
		return "", "", "", false
	}
	start := i + open + len("```\n")
	end := strings.Index(readme[start:], "\n```")
	if end < 0 {
		return "", "", "", false
	}
	return readme[:start], readme[start : start+end], readme[start+end:], true
}
