package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/sandbox/peers"
)

// TestRunAgainstRealPeers: `zklock run` processes and stock Curator or
// Kazoo clients looping on one path never hold at once (intervals by the
// one system clock, checked with peers.Overlaps), and zklock's nodes are
// named like the peers' so that the peers see them.
func TestRunAgainstRealPeers(t *testing.T) {
	for _, tc := range []struct {
		kind  peers.Kind
		style []string // zklock run flags
		name  func(string) bool
	}{
		// Curator: zklock follows the queue's style by itself.
		{peers.Curator, nil, func(n string) bool { return strings.HasPrefix(n, "_c_") && strings.Contains(n, "-lock-") }},
		// Kazoo: chosen explicitly, since a queue that happens to be empty
		// when zklock joins would be joined in Curator style.
		{peers.Kazoo, []string{"--style", "kazoo"}, func(n string) bool { return strings.Contains(n, "__lock__") }},
	} {
		t.Run(string(tc.kind), func(t *testing.T) {
			t.Parallel()
			runAgainstPeer(t, tc.kind, tc.style, tc.name)
		})
	}
}

func runAgainstPeer(t *testing.T, kind peers.Kind, styleFlags []string, wellNamed func(string) bool) {
	p := testPath(t)
	proc := peers.StartT(t, kind, peers.Options{Servers: testCluster(t).Servers(), Sessions: 3})

	stopLoop := loopInBackground(t, proc, peers.LoopSpec{Path: p, Duration: 90 * time.Second, Hold: 30 * time.Millisecond})
	// Let the peers start so that zklock joins a live queue.
	c := testConn(t)
	eventually(t, 30*time.Second, "the peers to queue", func() bool { k, _, _ := c.Children(p); return len(k) > 0 })

	dir := t.TempDir()
	log := filepath.Join(dir, "intervals")
	script := `echo "$ZKLOCK_NODE" >> "$NODES"; echo "S $ID $(date +%s%N)" >> "$LOG"; sleep 0.05; echo "E $ID $(date +%s%N)" >> "$LOG"`
	const lanes, runsPerLane = 2, 3
	// Everything that may end the test is done here, not in the lanes.
	bin, srv := buildBinary(t), serversFlag(t)
	var wg sync.WaitGroup
	errs := make(chan string, lanes*runsPerLane)
	for lane := range lanes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range runsPerLane {
				id := fmt.Sprintf("%d.%d", lane, r)
				args := append([]string{srv, "--audit-log", filepath.Join(dir, "audit"), "run"}, styleFlags...)
				args = append(args, p, "--", "sh", "-c", script)
				pr, err := startProc(t, bin, []string{"LOG=" + log, "ID=" + id, "NODES=" + filepath.Join(dir, "nodes")}, args...)
				if err != nil {
					errs <- err.Error()
					return
				}
				select {
				case <-pr.done:
				case <-time.After(binaryLimit):
					_ = pr.cmd.Process.Kill()
					<-pr.done
				}
				if code := pr.cmd.ProcessState.ExitCode(); code != 0 {
					errs <- fmt.Sprintf("run %s: exit %d: %s", id, code, pr.err.String())
				}
			}
		}()
	}
	wg.Wait()
	cycles := stopLoop()
	close(errs)
	for e := range errs {
		t.Error(e)
	}

	all := peers.Intervals(string(kind), cycles)
	held := len(all)
	all = append(all, runIntervals(t, log)...)
	if held == 0 || len(all)-held != lanes*runsPerLane {
		t.Fatalf("%d %s holds and %d zklock runs; want both sides to have held", held, kind, len(all)-held)
	}
	if ov := peers.Overlaps(all); len(ov) > 0 {
		t.Fatalf("%d overlapping critical sections, first %v and %v", len(ov), ov[0][0], ov[0][1])
	}
	b, _ := os.ReadFile(filepath.Join(dir, "nodes"))
	for _, np := range strings.Fields(string(b)) {
		n := filepath.Base(np)
		if !wellNamed(n) {
			t.Errorf("zklock's node %s is not named like %s's", n, kind)
		}
		if pn, ok := ordering.ParseName(n); !ok || pn.Kind != ordering.KindMutex {
			t.Errorf("zklock's node %s does not parse as a mutex node", n)
		}
	}
	t.Logf("%s: %d peer holds, %d zklock runs, no overlap", kind, held, lanes*runsPerLane)
}

// runIntervals reads the "S id ns" / "E id ns" lines the commands wrote.
func runIntervals(t *testing.T, file string) []peers.Interval {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]*peers.Interval{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			t.Fatalf("bad line %q", line)
		}
		ns, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			t.Fatalf("bad line %q", line)
		}
		iv := m[f[1]]
		if iv == nil {
			iv = &peers.Interval{Who: "github.com/zklock/zklock/" + f[1]}
			m[f[1]] = iv
		}
		if f[0] == "S" {
			iv.Start = time.Unix(0, ns)
		} else {
			iv.End = time.Unix(0, ns)
		}
	}
	var out []peers.Interval
	for _, iv := range m {
		if iv.Start.IsZero() || iv.End.IsZero() {
			t.Fatalf("incomplete interval %v", iv)
		}
		out = append(out, *iv)
	}
	return out
}

// loopInBackground runs proc's contention loop on spec until the returned
// stop is called; stop returns the loop's cycles, and fails the test if
// the loop ended with an error before it was stopped (a loop cut short by
// stop itself is not an error).
func loopInBackground(t *testing.T, proc *peers.Proc, spec peers.LoopSpec) (stop func() []peers.Cycle) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var (
		cycles []peers.Cycle
		err    error
		done   = make(chan struct{})
	)
	go func() {
		defer close(done)
		cycles, err = proc.Loop(ctx, spec)
	}()
	t.Cleanup(func() { cancel(); <-done })
	return func() []peers.Cycle {
		t.Helper()
		select {
		case <-done:
			if err != nil {
				t.Fatalf("peer loop ended before the test stopped it: %v", err)
			}
		default:
		}
		cancel()
		<-done
		return cycles
	}
}
