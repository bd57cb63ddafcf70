package zkview

// Benchmarks at scale: a watched 10,000-node queue under a steady stream
// of changes (BenchmarkSustained200, BenchmarkSustained2000) and the
// memory a watched node costs (BenchmarkRSS10000, BenchmarkRSS100000).
//
// The sustained benchmarks run the writer in a second process (this test
// binary again, TestSustainedWriterProcess) so that this process's CPU
// time is the Watcher's: getrusage(RUSAGE_SELF) over the writer's run
// counts the Watcher, the benchmark's reader of Updates and of the
// writer's pipe, and the idle pings of two sessions, and nothing of the
// writer's go-zookeeper client. The ZooKeeper server is a child process
// and is not counted either.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/third_party/zk"
)

const (
	// sustainedQueue is the watched queue's size, kept by the writer
	// (one create at the tail for every delete of the oldest waiter).
	sustainedQueue = 10000
	// sustainedRun is one b.N iteration: the writer's run at its rate.
	sustainedRun = 5 * time.Second
	// writerTick paces the writer: each tick sends the changes due by then
	// (one at 200/s, ten at 2,000/s), so a late tick does not lower the rate.
	writerTick = 5 * time.Millisecond
	// quietAfter: after the writer stops, the model has settled once every
	// change is shown and no Update came for this long (> maxPublish).
	quietAfter = time.Second
	// settleWait bounds the wait for the last changes to show: a Watcher
	// that spends O(queue) on each change needs tens of seconds to work
	// off a 2,000/s run.
	settleWait = 2 * time.Minute
	// frameRing is how many recent frames a change the writer reports is
	// matched against: its event may reach the Watcher before the writer's
	// reply reaches the writer, and so show in a frame received first.
	frameRing = 4
	// writerEnv carries the writer process's writerPlan (JSON).
	writerEnv = "ZKVIEW_SUSTAINED_WRITER"
)

// BenchmarkSustained200: 200 changes/s (100 creates, 100 deletes) in a
// watched 10,000-node queue, 5 s per iteration, four writer goroutines
// (so that a slow fsync does not lower the rate).
func BenchmarkSustained200(b *testing.B) { benchSustained(b, 200, 4) }

// BenchmarkSustained2000: 2,000 changes/s, pipelined by 32 writer
// goroutines on one connection.
func BenchmarkSustained2000(b *testing.B) { benchSustained(b, 2000, 32) }

// writerPlan is what the writer process does: on each line "go" on its
// stdin, one run of Run at Rate changes/s under Path.
type writerPlan struct {
	Servers []string
	Path    string
	Rate    int
	Workers int
	Run     time.Duration
}

// writerLine is one line of the writer process: "ready", "C name t" (a
// create returned at t, Unix ns), "D name t" (a delete), "end", or "!"
// and an error.
type writerLine struct {
	kind byte
	name string
	seq  int32
	at   time.Time
	text string
}

// change is one write the writer reported, waiting for a frame to show it.
type change struct {
	create bool
	name   string
	seq    int32
	at     time.Time // when the writer's call returned
}

// frame is one received Update's queue and when it was received.
type frame struct {
	q  *model.Queue
	at time.Time
}

// sustainedStats gathers what the benchmark reports, over every run.
type sustainedStats struct {
	path      string
	ring      []frame  // the last frameRing frames, oldest first
	pending   []change // reported, not shown yet
	latencies []time.Duration
	changes   int
	frames    int           // Updates received during the writer's runs
	maxLag    int           // most changes returned to the writer and not shown
	cpu, wall time.Duration // over the writer's runs
	cpuAll    time.Duration // from each run's start until its last change shows
	running   bool
	last      *model.Snapshot
	lastAt    time.Time
}

// shows reports whether q reflects c: a created node present, a deleted
// one absent. q.Nodes is in sequence order, so a binary search does.
func (c change) shows(q *model.Queue) bool {
	if q == nil {
		return false
	}
	i := q.Nodes.Search(c.seq)
	present := i < q.Nodes.Len() && q.Nodes.At(i).Seq == c.seq && q.Nodes.At(i).Name == c.name
	return present == c.create
}

// report takes a change the writer reported: shown already by a frame
// received since its call returned (or before: latency 0), or pending.
func (st *sustainedStats) report(c change) {
	st.changes++
	for _, f := range st.ring {
		if c.shows(f.q) {
			st.latencies = append(st.latencies, max(0, f.at.Sub(c.at)))
			return
		}
	}
	st.pending = append(st.pending, c)
}

// frame takes one Update received at now: the pending changes it shows
// are done.
func (st *sustainedStats) frame(u model.Update, now time.Time) {
	st.last, st.lastAt = u.Snapshot, now
	if st.running {
		st.frames++
	}
	q := queueOf(u.Snapshot, st.path)
	st.pending = slices.DeleteFunc(st.pending, func(c change) bool {
		if !c.shows(q) {
			return false
		}
		st.latencies = append(st.latencies, now.Sub(c.at))
		return true
	})
	if len(st.ring) == frameRing {
		st.ring = slices.Delete(st.ring, 0, 1)
	}
	st.ring = append(st.ring, frame{q: q, at: now})
}

// benchSustained runs the writer at rate against a watched
// sustainedQueue-node queue, b.N runs of sustainedRun. Reported:
//   - p50-ms, p99-ms, max-ms: from the writer's call returning to the
//     receipt of the first Update whose snapshot shows the change (matched
//     by node name and sequence; 0 when a frame showed it first);
//   - cpu-%-of-core: this process's CPU time over the writer's runs (see
//     the file comment), over their wall time: what the Watcher got, which
//     is less than it needed when it fell behind;
//   - harness-cpu-%, watcher-cpu-%: the benchmark's own share of a core
//     in one more run of the writer with the Watcher closed (harnessShare),
//     and cpu-%-of-core less it;
//   - cpu-ms/change: the CPU time from each run's start until its last
//     change shows, over the changes: rate x this is the share of a core
//     the Watcher needs to keep up;
//   - frames/s, changes/s, changes/frame: Updates received and changes
//     made during the runs;
//   - max-lag-changes: at each Update, the changes the writer reported
//     that no snapshot has shown yet; the most. Keeping up means at most
//     about one frame's changes;
//   - never-shown: changes still not shown settleWait after a run;
//   - final-diff-nodes: nodes in which the last snapshot after a run
//     differs from a fresh Load (an error when not 0).
func benchSustained(b *testing.B, rate, workers int) {
	c, p, mon, w := watchedQueue(b)
	st := &sustainedStats{path: p}
	st.firstSnapshot(b, w)
	wp := startWriter(b, writerPlan{Servers: c.Servers(), Path: p, Rate: rate, Workers: workers, Run: sustainedRun})

	var cpu0 time.Duration
	var t0 time.Time
	var held heldRuns
	var win runWindow
	// take handles one line of the writer; false once its run ended.
	take := func(l writerLine) bool {
		switch l.kind {
		case 'r':
			st.running, cpu0, t0 = true, cpuTime(b), time.Now()
			held.start(w)
			win.start(b)
		case 'C', 'D':
			st.report(change{create: l.kind == 'C', name: l.name, seq: l.seq, at: l.at})
		case 'e':
			st.cpu += cpuTime(b) - cpu0
			st.wall += time.Since(t0)
			st.running = false
			held.end(w)
			win.end(b)
			return false
		case '!':
			b.Fatalf("writer: %s", l.text)
		}
		return true
	}
	var finalDiff, unshown int
	for b.Loop() {
		wp.start(b)
		for running := true; running; {
			select {
			case l, ok := <-wp.lines:
				if !ok {
					b.Fatalf("the writer process ended: %s", wp.output())
				}
				running = take(l)
			case u, ok := <-w.Updates():
				if !ok {
					b.Fatal("updates closed")
				}
				now := time.Now()
				st.frame(u, now)
				// What the writer reported by now, before the lag is told.
				for drained := false; !drained && running; {
					select {
					case l, ok := <-wp.lines:
						if !ok {
							b.Fatalf("the writer process ended: %s", wp.output())
						}
						running = take(l)
					default:
						drained = true
					}
				}
				st.maxLag = max(st.maxLag, len(st.pending))
			}
		}
		// The writer stopped: every change shows, then the model is quiet.
		// The CPU time until the last change shows is what the run's
		// changes cost, even when the Watcher fell behind.
		deadline := time.After(settleWait)
		caughtUp := false
	settle:
		for len(st.pending) > 0 || time.Since(st.lastAt) < quietAfter {
			if !caughtUp && len(st.pending) == 0 {
				caughtUp = true
				st.cpuAll += cpuTime(b) - cpu0
			}
			select {
			case u, ok := <-w.Updates():
				if !ok {
					b.Fatal("updates closed")
				}
				st.frame(u, time.Now())
			case <-time.After(quietAfter):
			case <-deadline:
				b.Errorf("%d changes not shown %v after the writer stopped, first %s", len(st.pending), settleWait, st.pending[0].name)
				unshown += len(st.pending)
				st.pending = nil
				if !caughtUp {
					st.cpuAll += cpuTime(b) - cpu0
				}
				break settle
			}
		}
		finalDiff += st.freshDiff(b, mon)
	}
	if len(st.latencies) == 0 || st.wall == 0 {
		b.Fatal("no change measured")
	}
	w.Close()
	harness := harnessShare(b, wp)
	b.ReportMetric(ms(percentile(st.latencies, 0.5)), "p50-ms")
	b.ReportMetric(ms(percentile(st.latencies, 0.99)), "p99-ms")
	b.ReportMetric(ms(slices.Max(st.latencies)), "max-ms")
	b.ReportMetric(100*st.cpu.Seconds()/st.wall.Seconds(), "cpu-%-of-core")
	b.ReportMetric(harness, "harness-cpu-%")
	b.ReportMetric(100*st.cpu.Seconds()/st.wall.Seconds()-harness, "watcher-cpu-%")
	b.ReportMetric(ms(st.cpuAll)/float64(st.changes), "cpu-ms/change")
	b.ReportMetric(float64(st.frames)/st.wall.Seconds(), "frames/s")
	b.ReportMetric(float64(st.changes)/st.wall.Seconds(), "changes/s")
	b.ReportMetric(float64(st.maxLag), "max-lag-changes")
	if st.frames > 0 {
		b.ReportMetric(float64(st.changes)/float64(st.frames), "changes/frame")
		// The largest lag in frames: how many frames' worth of changes
		// the writer was ahead of the snapshots at worst.
		b.ReportMetric(float64(st.maxLag)*float64(st.frames)/float64(st.changes), "max-lag-frames")
	}
	held.report(b)
	win.report(b, st.changes)
	b.ReportMetric(float64(finalDiff)/float64(b.N), "final-diff-nodes")
	b.ReportMetric(float64(unshown)/float64(b.N), "never-shown")
}

// harnessShare is the share of a core (%) this process spends on the
// benchmark's own side of one more run of the writer, with the Watcher
// closed: reading the writer's lines, a pipe read and two goroutine
// wake-ups per change, which cpu-%-of-core counts too (3.7-3.9 % of a
// core at 200 lines/s in a bare Go program). watcher-cpu-% is
// cpu-%-of-core less this. The runs' own bookkeeping per change and per
// Update is not in it, so the Watcher's share is, if anything, overstated.
func harnessShare(b *testing.B, wp *writerProc) float64 {
	wp.start(b)
	var cpu0 time.Duration
	var t0 time.Time
	for l := range wp.lines {
		switch l.kind {
		case 'r':
			cpu0, t0 = cpuTime(b), time.Now()
		case 'e':
			return 100 * (cpuTime(b) - cpu0).Seconds() / time.Since(t0).Seconds()
		case '!':
			b.Fatalf("writer: %s", l.text)
		}
	}
	b.Fatalf("the writer process ended: %s", wp.output())
	return 0
}

// writerProc is the writer process, run by the benchmark.
type writerProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan writerLine
	mu    sync.Mutex
	other bytes.Buffer // lines that are not the protocol's, and stderr
}

// startWriter starts the writer process (this test binary running
// TestSustainedWriterProcess) and stops it when the benchmark ends.
func startWriter(b testing.TB, plan writerPlan) *writerProc {
	b.Helper()
	js, err := json.Marshal(plan)
	if err != nil {
		b.Fatal(err)
	}
	wp := &writerProc{lines: make(chan writerLine, 1<<16)}
	wp.cmd = exec.Command(os.Args[0], "-test.run=^TestSustainedWriterProcess$", "-test.count=1")
	wp.cmd.Env = append(os.Environ(), writerEnv+"="+string(js))
	wp.cmd.Stderr = &lockedWriter{mu: &wp.mu, w: &wp.other}
	if wp.stdin, err = wp.cmd.StdinPipe(); err != nil {
		b.Fatal(err)
	}
	stdout, err := wp.cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := wp.cmd.Start(); err != nil {
		b.Fatalf("start the writer process: %v", err)
	}
	read := make(chan struct{})
	go func() {
		defer close(read)
		defer close(wp.lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if l, ok := parseWriterLine(sc.Text()); ok {
				wp.lines <- l
				continue
			}
			wp.mu.Lock()
			fmt.Fprintln(&wp.other, sc.Text())
			wp.mu.Unlock()
		}
	}()
	b.Cleanup(func() {
		_ = wp.stdin.Close() // EOF: the writer ends
		done := make(chan error, 1)
		go func() {
			for range wp.lines { // keep the pipe drained until it closes
			}
			<-read
			done <- wp.cmd.Wait()
		}()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = wp.cmd.Process.Kill()
			<-done
		}
	})
	return wp
}

// start asks the writer for one run.
func (wp *writerProc) start(b testing.TB) {
	if _, err := io.WriteString(wp.stdin, "go\n"); err != nil {
		b.Fatalf("writer process: %v: %s", err, wp.output())
	}
}

// output is what the writer process said outside the protocol.
func (wp *writerProc) output() string {
	wp.mu.Lock()
	defer wp.mu.Unlock()
	return strings.TrimSpace(wp.other.String())
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// writerPrefix marks the protocol's lines in the writer's stdout, which
// also carries the test framework's own ("PASS").
const writerPrefix = "zkw "

func parseWriterLine(s string) (writerLine, bool) {
	rest, ok := strings.CutPrefix(s, writerPrefix)
	if !ok || rest == "" {
		return writerLine{}, false
	}
	l := writerLine{kind: rest[0], text: strings.TrimSpace(rest[1:])}
	if l.kind != 'C' && l.kind != 'D' {
		return l, true
	}
	f := strings.Fields(l.text)
	if len(f) != 2 {
		return writerLine{kind: '!', text: "bad line: " + s}, true
	}
	ns, err := strconv.ParseInt(f[1], 10, 64)
	n, named := ordering.ParseName(f[0])
	if err != nil || !named {
		return writerLine{kind: '!', text: "bad line: " + s}, true
	}
	l.name, l.seq, l.at = f[0], n.Seq, time.Unix(0, ns)
	return l, true
}

// TestSustainedWriterProcess is the writer of BenchmarkSustained*, in a
// process of its own so that the benchmark's CPU time is the Watcher's;
// without the benchmark's plan in its environment it skips. Each "go" on
// stdin starts one run: it lists the queue, then at the plan's rate
// alternates a create at the tail with a delete of the oldest waiter
// (the queue's size stays put), from Workers goroutines over one
// connection, and reports each change when its call returns.
func TestSustainedWriterProcess(t *testing.T) {
	env := os.Getenv(writerEnv)
	if env == "" {
		t.Skip("the writer process of BenchmarkSustained200/2000; they start it")
	}
	var plan writerPlan
	if err := json.Unmarshal([]byte(env), &plan); err != nil {
		t.Fatal(err)
	}
	conn := rawConn(t, plan.Servers)
	var outMu sync.Mutex
	say := func(format string, args ...any) {
		outMu.Lock()
		defer outMu.Unlock()
		fmt.Fprintf(os.Stdout, writerPrefix+format+"\n", args...)
	}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if err := writerRun(conn, plan, say); err != nil {
			say("! %v", err)
		}
		say("end")
	}
}

// writerRun is one run of the writer process.
func writerRun(conn *zk.Conn, plan writerPlan, say func(string, ...any)) error {
	kids, _, err := conn.Children(plan.Path)
	if err != nil {
		return fmt.Errorf("list %s: %w", plan.Path, err)
	}
	q := ordering.Order(kids)
	total := int(plan.Run.Seconds() * float64(plan.Rate))
	if len(q.Entries) < total/2+2 {
		return fmt.Errorf("%d nodes, need %d waiters to delete", len(q.Entries), total/2)
	}
	victims := q.Entries[1:] // the holder stays: the oldest waiters go
	jobs := make(chan int, plan.Rate)
	var wg sync.WaitGroup
	for range plan.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range jobs {
				if k%2 == 0 {
					p, err := conn.Create(plan.Path+"/_c_0123456789abcdef0123456789abcdef-lock-", []byte("bench client data"),
						zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
					if err != nil {
						say("! create: %v", err)
						continue
					}
					say("C %s %d", p[strings.LastIndexByte(p, '/')+1:], time.Now().UnixNano())
					continue
				}
				name := victims[k/2].Name
				if err := conn.Delete(plan.Path+"/"+name, -1); err != nil {
					say("! delete %s: %v", name, err)
					continue
				}
				say("D %s %d", name, time.Now().UnixNano())
			}
		}()
	}
	tick := time.NewTicker(writerTick)
	defer tick.Stop()
	say("ready")
	start := time.Now()
	for sent := 0; sent < total; {
		<-tick.C
		due := min(total, int(time.Since(start).Seconds()*float64(plan.Rate)))
		for ; sent < due; sent++ {
			jobs <- sent
		}
	}
	close(jobs)
	wg.Wait()
	return nil
}

// BenchmarkRSS10000: the memory of watching a 10,000-node queue, per node.
func BenchmarkRSS10000(b *testing.B) { benchRSS(b, 10000) }

// BenchmarkRSS100000: the same for 100,000 nodes (filling takes a minute).
func BenchmarkRSS100000(b *testing.B) { benchRSS(b, 100000) }

// benchRSS fills a queue, then, with the session already connected and
// after a GC that returns freed memory to the system, starts a Watcher
// and waits for its first full snapshot. Reported per node:
//   - rss-bytes/node: whole-process resident memory (/proc/self/statm)
//     just then, minus before: what the operator's machine pays right
//     after the first load, garbage of the load included;
//   - rss-gc-bytes/node: the same after another GC and FreeOSMemory, the
//     snapshot still held (the steady state);
//   - heap-bytes/node: the Go heap in use after that GC, minus before.
//
// The difference includes the go-zookeeper receive buffer grown for the
// first listing and the Watcher's goroutines: fixed costs, spread over
// the nodes.
func benchRSS(b *testing.B, size int) {
	c := testCluster(b)
	p := testPath(b)
	fill(b, rawConn(b, c.Servers()), []string{p}, size)
	var rss, rssGC, heap float64
	for b.Loop() {
		mon := session(b, c.Servers(), lockops.WithSessionTimeout(30*time.Second))
		runtime.GC()
		debug.FreeOSMemory()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		r0 := rssBytes(b)
		w, err := Watch(context.Background(), mon, Options{Paths: []string{p}})
		if err != nil {
			b.Fatal(err)
		}
		var snap *model.Snapshot
		deadline := time.After(2 * time.Minute)
		for q := (*model.Queue)(nil); q == nil || q.Nodes.Len() != size; {
			select {
			case u := <-w.Updates():
				snap, q = u.Snapshot, queueOf(u.Snapshot, p)
			case <-deadline:
				b.Fatalf("the first full snapshot did not come within 2m")
			}
		}
		r1 := rssBytes(b)
		runtime.GC()
		debug.FreeOSMemory()
		runtime.ReadMemStats(&m1)
		r2 := rssBytes(b)
		runtime.KeepAlive(snap)
		w.Close()
		mon.Close()
		rss += float64(r1 - r0)
		rssGC += float64(r2 - r0)
		heap += float64(m1.HeapAlloc) - float64(m0.HeapAlloc)
	}
	per := float64(b.N) * float64(size)
	b.ReportMetric(rss/per, "rss-bytes/node")
	b.ReportMetric(rssGC/per, "rss-gc-bytes/node")
	b.ReportMetric(heap/per, "heap-bytes/node")
}

// rssBytes is the process's resident set size.
func rssBytes(b testing.TB) int64 {
	raw, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		b.Fatalf("rss: %v", err)
	}
	f := strings.Fields(string(raw))
	if len(f) < 2 {
		b.Fatalf("rss: /proc/self/statm reads %q", raw)
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		b.Fatalf("rss: %v", err)
	}
	return pages * int64(os.Getpagesize())
}

// BenchmarkFirstPicture1000x10 is the console's first picture of 1,000
// lock parents of 10 nodes: Watch (a persistent watch set on each parent,
// its listing, a Get per node) until a snapshot shows every parent read;
// partial pictures on the way are counted (the parents appear as they
// load). BenchmarkBareLoad1000x10 is its floor.
func BenchmarkFirstPicture1000x10(b *testing.B) {
	c, parents := fillParents(b, 1000, 10)
	partial := 0
	for b.Loop() {
		mon := session(b, c.Servers())
		w, err := Watch(context.Background(), mon, Options{Paths: parents})
		if err != nil {
			b.Fatal(err)
		}
	wait:
		for {
			select {
			case u := <-w.Updates():
				s := u.Snapshot
				if s.Unread == 0 && s.Queues.Len() == 1000 && s.Queues.At(999).Nodes.Len() == 10 && s.Queues.At(0).Nodes.Len() == 10 {
					break wait
				}
				if s.Unread > 0 && s.Unread < 1000 {
					partial++
				}
			case <-time.After(time.Minute):
				b.Fatal("no full picture within a minute")
			}
		}
		b.StopTimer()
		w.Close()
		mon.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(partial)/float64(b.N), "partial-pictures")
}

// firstSnapshot waits for w's first full snapshot, so that the writer's
// first changes are not measured against the initial load.
func (st *sustainedStats) firstSnapshot(b *testing.B, w *Watcher) {
	deadline := time.After(settleWait)
	for q := (*model.Queue)(nil); q == nil || q.Nodes.Len() != sustainedQueue; {
		select {
		case u := <-w.Updates():
			q = queueOf(u.Snapshot, st.path)
			st.frame(u, time.Now())
		case <-deadline:
			b.Fatalf("the first full snapshot did not come within %v", settleWait)
		}
	}
}

// freshDiff compares the last snapshot with a fresh Load and returns in
// how many nodes they differ (an error when not 0): a Watcher that kept
// up by dropping changes would show a small lag.
func (st *sustainedStats) freshDiff(b *testing.B, mon *lockops.Session) int {
	ctx, cancel := context.WithTimeout(context.Background(), settleWait)
	fresh, err := Load(ctx, mon, Options{Paths: []string{st.path}})
	cancel()
	if err != nil {
		b.Fatal(err)
	}
	n, desc := queueDiff(queueOf(st.last, st.path), queueOf(fresh, st.path))
	if n > 0 {
		b.Errorf("the last snapshot after the writer stopped differs from a fresh Load in %d nodes: %s", n, desc)
	}
	return n
}

// watchedQueue fills a sustainedQueue-node queue p on the package's
// server c and watches it with a Watcher w on a session mon of its own;
// w is closed when the benchmark ends (before its sessions are).
func watchedQueue(b *testing.B) (c *sandbox.Cluster, p string, mon *lockops.Session, w *Watcher) {
	c = testCluster(b)
	p = testPath(b)
	fill(b, rawConn(b, c.Servers()), []string{p}, sustainedQueue)
	mon = session(b, c.Servers(), lockops.WithSessionTimeout(30*time.Second))
	w, err := Watch(context.Background(), mon, Options{Paths: []string{p}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(w.Close)
	return c, p, mon, w
}
