package main

// The report: everything measured, written as Markdown (bench/RESULTS.md):
// how it was run, the comparison table (table.go), the lock core's
// limit rows (limits.go), how each figure is taken, the console's
// benchmarks (consoletable.go), every run, notes and failures.

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"
)

// report is everything measured.
type report struct {
	opts       options
	started    time.Time
	finished   time.Time
	machine    machineInfo
	serverOpts []string
	// runs[workload][contender]: each repetition.
	runs    map[string]map[string][]runResult
	watches map[string]watchCounts
	// floor: delete-to-wake latencies, one slice per repetition.
	floor    [][]time.Duration
	console  []benchLine
	notes    []string
	idleRate float64 // packets/s with every contender connected and idle
	mu       sync.Mutex
}

func (r *report) add(workload string, res runResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.runs[workload] == nil {
		r.runs[workload] = map[string][]runResult{}
	}
	r.runs[workload][res.Peer] = append(r.runs[workload][res.Peer], res)
}

func (r *report) note(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	logf("NOTE %s", msg)
	r.notes = append(r.notes, msg)
}

// allWorkloads are the workloads in the order the report lists their runs.
var allWorkloads = []string{wUncontended, wC8, wC32, wC8Loaded, wC32Loaded, wHold1ms, wGiveUp}

func (r *report) markdown() string {
	var b strings.Builder
	r.writeSetup(&b)
	b.WriteString("Values are medians over the repetitions, with (min-max) when they differ. ")
	b.WriteString("\"best peer\" is the best of go-zookeeper, Curator and Kazoo on that figure; limit and floor are references; zklock-rejoin is zklock's lock core looping with Lock.Rejoin (one multi per release and re-queue), never a peer.\n\n")
	b.WriteString(r.table())
	b.WriteString("\n### The lock core at the limit (#43), judged on this run\n\n")
	b.WriteString(limitTable(r))
	if len(r.runs[wC8Loaded])+len(r.runs[wC32Loaded]) > 0 {
		b.WriteString("\n### Against the floor under the same load (#43): each contended loop once more, the floor's probe beside it\n\n")
		b.WriteString(loadedTable(r))
	}
	r.writeMethod(&b)
	if len(r.console) > 0 {
		b.WriteString("\n## Console (go test -bench, each package's own sandbox server)\n\n")
		b.WriteString(consoleTable(r.console))
		b.WriteString("\n### Incident-scale targets (#18), judged on this run\n\n")
		b.WriteString(consoleTargetTable(r.console))
		b.WriteString(consoleNotes)
	}
	r.writeEveryRun(&b)
	if len(r.notes) > 0 {
		b.WriteString("\n## Notes\n\n")
		for _, n := range r.notes {
			b.WriteString("- " + n + "\n")
		}
	}
	if fails := r.failures(); fails != "" {
		b.WriteString("\n## Failures and overlaps\n\n")
		b.WriteString(fails)
	}
	return b.String()
}

// consoleNotes close the console's table: which figures answer the
// console's targets, and how to read them.
const consoleNotes = "\nMemory per watched node is BenchmarkRSS10000's and BenchmarkRSS100000's rss-gc-bytes/node: " +
	"the process's resident memory with the first full snapshot held, after a GC, minus before the Watch, against the target of <= 1 KB/node; " +
	"heap-bytes/node is the Go heap's part of it, and rss-bytes/node the same right after the load, its garbage included.\n" +
	"\nIn BenchmarkSustained200 and BenchmarkSustained2000, cpu-ms/change is the watching process's CPU per change until the last one shows; " +
	"times the rate, it is the share of a core the Watcher needs (0.5 cpu-ms/change at 2,000 changes/s is one whole core). " +
	"max-lag-changes is the most changes the writer had made and no snapshot showed yet; read it against changes/frame, the changes one snapshot carries on average: " +
	"a lag of a frame or two keeps up by merging changes into fewer snapshots, a lag far beyond it means the Watcher fell behind the writer. " +
	"allocs/change and B/change are the process's heap allocations over the writer's runs, per change (B/op and allocs/op count the queue's fill and the fresh Load after each run too); " +
	"cpu-%-of-core grows with frames/s (each snapshot is a build): a Watcher that shows changes sooner publishes more snapshots and pays for them here. " +
	"It is the whole process's, the benchmark's own reading of the writer's lines included (a pipe read and two goroutine wake-ups per change); " +
	"harness-cpu-% is that part alone, measured in one more run of the writer with the Watcher closed, and watcher-cpu-% is cpu-%-of-core less it. " +
	"BenchmarkSustainedFloor200 and BenchmarkSustainedFloor2000 are their floor: the same writer and queue watched by a bare client that does only what any watcher must " +
	"(the persistent recursive watch, a read of each new node), no model and no snapshots; its floor-cpu-% is what receiving the changes costs this machine at all, " +
	"and watcher-cpu-% less it is the Watcher's own work. switches/change (the process's context switches) and goroutines/change count what a change costs in wake-ups. " +
	"The largest lag is set by the server's slowest reads (a node is shown once read: its owner and data with it), which fall on one run and not on the next: " +
	"BenchmarkSustainedPaired2000 runs the Watcher and the bare client side by side on the same writer and server and samples both lags at each of the Watcher's snapshots, " +
	"so max-lag-over-floor (the Watcher's largest over the bare client's) and excess (the Watcher's lag less the bare client's at the same instant) are the Watcher's own part of the lag.\n"

// writeSetup writes the title and how the run was made: command, date,
// machine, server, clients, runs.
func (r *report) writeSetup(b *strings.Builder) {
	m := r.machine
	m.LoadEnd = loadAvg()
	fmt.Fprintf(b, "# zklock benchmarks\n\n")
	fmt.Fprintf(b, "- Command: `%s`\n", r.opts.command)
	fmt.Fprintf(b, "- Date: %s (took %s)\n", r.started.Format("2006-01-02 15:04 MST"), r.finished.Sub(r.started).Round(time.Second))
	fmt.Fprintf(b, "- Machine: %s, %s cores, %s, %s, kernel %s; load average %s at the start, %s at the end\n",
		dash(m.CPU), m.Cores, dash(m.Memory), dash(m.OS), dash(m.Kernel), dash(m.LoadStart), dash(m.LoadEnd))
	fmt.Fprintf(b, "- ZooKeeper %s, standalone sandbox server, fresh for this run; server JVM options %s (the same for every contender)",
		dash(m.ZooKeeper), strings.Join(r.serverOpts, " "))
	if !r.opts.noSync {
		b.WriteString("; fsync on every commit (ZooKeeper's default)")
	}
	b.WriteString("\n")
	fmt.Fprintf(b, "- Clients: %s; go-zookeeper %s; Curator %s (%s); Kazoo %s (/usr/bin/python3); %d sessions per contender, session timeout %s\n",
		m.Go, dash(m.GoZK), dash(m.Curator), dash(m.Java), dash(m.Kazoo), clientsMax, r.opts.sessionTO)
	fmt.Fprintf(b, "- Runs: uncontended %d cycles; contended %s each; each repeated %d times (rounds), each round's run cut into %d slices taken by the contenders in turn, in rotated order; 1 ms hold and give-up runs %s each\n\n",
		r.opts.cycles, r.opts.duration, r.opts.runs, r.opts.slices, r.opts.safetyDur)
}

// writeMethod writes how each figure of the table is taken.
func (r *report) writeMethod(b *strings.Builder) {
	b.WriteString("\n## How each figure is taken\n\n")
	b.WriteString("- acquire+release: from the acquire call to the release's return, one cycle, by the clock of the process that ran the client (Go's time.Now, Java's Instant.now, Python's time.time_ns: one system clock).\n")
	b.WriteString("- acquisitions/s: held cycles over the run's span (first request to last release return).\n")
	b.WriteString("- handoff: a holder's release call to the next holder's acquire return, counted when the next one was already waiting.\n")
	b.WriteString("- handoff parts: the release part is the previous holder's release call to its return (the server's delete round trip under the load of that moment); the wake part, that return to the next holder's acquire return (its notification arrives with the delete's reply; then the client's own work, and a listing if its recipe lists again). Medians of each part, so they need not add up to the handoff's.\n")
	b.WriteString("- zklock-rejoin: each client Acquires once, then loops Lock.Rejoin (delete of its node and create of the next at the queue's tail in one multi) and Releases at the end. A cycle's acquire is Acquire's or the previous Rejoin's (requested at that Rejoin's call), its release call the Rejoin call, its release return the arrival of the multi's answer (from the lock's progress report, Progress.At).\n")
	b.WriteString("- floor: one session deletes a node, another wakes on its data watch (go-zookeeper): delete call to wake.\n")
	fmt.Fprintf(b, "- probe beside: the floor's cycle every %v while a contender's contended loop runs once more (%s, after the rounds), from the loop's start to its end: the delete call to its return (the server's delete round trip under that loop's load: what a release costs at least) and to the wake (what a handoff costs at least under that load). The idle floor above is taken between rounds, with no load: a handoff under load also waits for the other clients' writes in the server's commit pipeline, which the probe beside it waits for too.\n", loadedEvery, r.opts.loadedDuration())
	fmt.Fprintf(b, "- requests/acquisition: the server's mntr zk_packets_received over the run, over held cycles. It includes the pings of every connected session (%.1f packets/s with all contenders idle).\n", r.idleRate)
	b.WriteString("- log commits: the server's mntr zk_cnt_sync_processor_batch_size over the run: the batches its sync processor wrote to the transaction log, one fsync each. Writes that arrive while a batch is being written share the next one; a read queued behind a write waits for its batch. Per acquisition (over held cycles) and per second of the run's span. The limit loop's commits carry many writes each, so its rate is not the log's capacity.\n")
	b.WriteString("- share of the log bound: acquisitions/s x log commits/acquisition x the floor p50 of the same round. Near 1.00, the run was a chain of commits each as long as a delete's commit and the wake on it, one waiting for the other: more acquisitions/s then need fewer commits per acquisition (a create sharing a delete's), not a faster client. Not given for the limit loop, whose writes overlap.\n")
	b.WriteString("- zklock / best: the ratio of the medians; \"rounds\" is the spread of zklock's figure over the best peer's in the same round (in round k, every contender's slices were taken in turn: each slice a few seconds from the others' same slice).\n")
	b.WriteString("- data watches: wchc and wchp once one client holds and 32 others wait and the server's total has settled; only watches on the lock parent's children count (Curator's /zookeeper/config watch does not).\n")
	b.WriteString("- overlaps: every critical section (acquire return to release call) of a run through peers.Overlaps. zk.Lock cannot give up, so it has no give-up run; limit is checked in the hold-0 runs only.\n")
	b.WriteString("- CPU: /proc/stat for the machine, /proc/PID/stat for the server and the driver processes, getrusage for this process (the Go clients).\n")
	b.WriteString("- Go clients run in the harness process; Curator's 33 clients in one JVM, Kazoo's in one Python process (peers' drivers).\n")
}

// writeEveryRun writes one line per run: each contender, workload and
// repetition.
func (r *report) writeEveryRun(b *strings.Builder) {
	b.WriteString("\n## Every run\n\n| contender | workload | run | held | gave up | failed | acq/s | acquire+release p50/p99 ms | handoff p50/p99 ms | req/acq | commits/acq | overlaps | server CPU | machine |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, w := range allWorkloads {
		for _, p := range r.columns() {
			for i, res := range r.runs[w][p] {
				fmt.Fprintf(b, "| %s | %s | %d | %d | %d | %d | %.0f | %.3f / %.3f | %.3f / %.3f | %.2f | %.2f | %d | %.0f%% | %.0f%% |\n",
					p, w, i+1, res.Held, res.GaveUp, res.Failed, res.AcqPerSec, ms(res.CycleP50), ms(res.CycleP99),
					ms(res.HandoffP50), ms(res.HandoffP99), res.Requests, res.Commits, res.Overlaps, 100*res.CPU.ServerShare, 100*res.CPU.MachineBusy)
			}
		}
	}
}

// failures lists each run's failed requests and overlaps (the limit
// loop's overlaps are its purpose, not failures); "" when there are none.
func (r *report) failures() string {
	var fails bytes.Buffer
	for _, w := range allWorkloads {
		for _, p := range r.columns() {
			for _, res := range r.runs[w][p] {
				if res.FirstErr != "" {
					fmt.Fprintf(&fails, "- %s, %s: %d failed, first: %s\n", p, w, res.Failed, res.FirstErr)
				}
				if res.Overlaps > 0 && p != "limit" {
					fmt.Fprintf(&fails, "- %s, %s: %d overlaps, first: %s\n", p, w, res.Overlaps, res.FirstOverlap)
				}
			}
		}
	}
	return fails.String()
}

// stat pulls one figure out of every repetition of a workload.
func (r *report) stat(workload, peer string, f func(runResult) float64) summary {
	var vs []float64
	for _, res := range r.runs[workload][peer] {
		if v := f(res); !math.IsNaN(v) {
			vs = append(vs, v)
		}
	}
	return summarize(vs)
}

// present says whether any workload has a run of peer.
func (r *report) present(peer string) bool {
	for _, byPeer := range r.runs {
		if len(byPeer[peer]) > 0 {
			return true
		}
	}
	return false
}

// columns are the contenders that ran, in the table's order.
func (r *report) columns() []string {
	var out []string
	for _, p := range []string{"zklock", rejoinName, "gozk", "curator", "kazoo", "limit"} {
		if r.present(p) {
			out = append(out, p)
		}
	}
	return out
}

// table is the comparison of the lock runs as a Markdown table (table.go).
func (r *report) table() string { return comparisonTable(r.columns(), r.rows()) }
