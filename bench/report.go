package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"zklock/sandbox"
)

// peerNames are the contenders zklock is compared with; "limit" and the
// floor are references, never the best peer.
var peerNames = []string{"gozk", "curator", "kazoo"}

var titles = map[string]string{
	"zklock":  "zklock lockops",
	"gozk":    "go-zookeeper zk.Lock",
	"curator": "Curator InterProcessMutex",
	"kazoo":   "Kazoo Lock",
	"limit":   "limit (create+delete)",
}

type machineInfo struct {
	CPU, Cores, Memory, Kernel, OS string
	LoadStart, LoadEnd             string
	Go, Java, ZooKeeper            string
	Curator, Kazoo, GoZK           string
}

func readMachine(ctx context.Context) machineInfo {
	m := machineInfo{Cores: fmt.Sprint(runtime.NumCPU()), Go: runtime.Version()}
	m.CPU = firstField("/proc/cpuinfo", "model name")
	m.Memory = firstField("/proc/meminfo", "MemTotal")
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	m.OS = strings.Trim(firstField("/etc/os-release", "PRETTY_NAME="), `"`)
	m.LoadStart = loadAvg()
	if inst, err := sandbox.Find(); err == nil {
		if out, err := exec.CommandContext(ctx, inst.Java, "-version").CombinedOutput(); err == nil {
			m.Java, _, _ = strings.Cut(strings.TrimSpace(string(out)), "\n")
		}
	}
	m.Curator = jarVersion("/usr/share/java/curator-recipes.jar")
	if out, err := exec.CommandContext(ctx, "/usr/bin/python3", "-c", "import kazoo.version; print(kazoo.version.__version__)").Output(); err == nil {
		m.Kazoo = strings.TrimSpace(string(out))
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/go-zookeeper/zk" {
				m.GoZK = d.Version
			}
		}
	}
	return m
}

// firstField is the value after key on the first line of file that has it.
func firstField(file, key string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), key); ok {
			return strings.TrimSpace(strings.TrimLeft(rest, " \t:"))
		}
	}
	return ""
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

func jarVersion(path string) string {
	z, err := zip.OpenReader(path)
	if err != nil {
		return ""
	}
	defer z.Close()
	for _, f := range z.File {
		if f.Name != "META-INF/MANIFEST.MF" {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return ""
		}
		defer rc.Close()
		sc := bufio.NewScanner(rc)
		for sc.Scan() {
			for _, k := range []string{"Bundle-Version:", "Implementation-Version:"} {
				if v, ok := strings.CutPrefix(sc.Text(), k); ok {
					return strings.TrimSpace(v)
				}
			}
		}
	}
	// Debian's jars carry no version in the manifest; a copy beside it is
	// named after it (curator-recipes.jar and curator-recipes-5.4.0.jar).
	stem := strings.TrimSuffix(path, ".jar") + "-"
	matches, _ := filepath.Glob(stem + "[0-9]*.jar")
	if len(matches) > 0 {
		return strings.TrimSuffix(strings.TrimPrefix(matches[len(matches)-1], stem), ".jar")
	}
	return ""
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

func (r *report) present(peer string) bool {
	for _, byPeer := range r.runs {
		if len(byPeer[peer]) > 0 {
			return true
		}
	}
	return false
}

func (r *report) columns() []string {
	var out []string
	for _, p := range []string{"zklock", "gozk", "curator", "kazoo", "limit"} {
		if r.present(p) {
			out = append(out, p)
		}
	}
	return out
}

// row is one figure of the table.
type row struct {
	figure string
	vals   map[string]summary
	// rounds: each peer's figure in each repetition, in run order (NaN
	// where a repetition has none). Repetition k of every contender ran in
	// the same round, minutes apart at most: pairs that share the
	// machine's mood.
	rounds map[string][]float64
	digits int
	higher bool // higher is better
	// unranked: neither higher nor lower is better (how busy the server
	// was, how often it committed): no best peer, no ratio.
	unranked bool
	floor    string // the floor column, for handoffs
	target   string
	verdict  string
}

func fmtSummary(s summary, digits int) string {
	if s.N == 0 || math.IsNaN(s.Median) {
		return "-"
	}
	v := fmt.Sprintf("%.*f", digits, s.Median)
	if s.N > 1 && s.Min != s.Max {
		v += fmt.Sprintf(" (%.*f-%.*f)", digits, s.Min, digits, s.Max)
	}
	return v
}

// best is the best peer's median (zklock, limit and the floor excluded).
func (rw row) best() (string, float64) {
	name, v := "", math.NaN()
	if rw.unranked {
		return name, v
	}
	for _, p := range peerNames {
		s, ok := rw.vals[p]
		if !ok || s.N == 0 || math.IsNaN(s.Median) {
			continue
		}
		if math.IsNaN(v) || (rw.higher && s.Median > v) || (!rw.higher && s.Median < v) {
			name, v = p, s.Median
		}
	}
	return name, v
}

// pairedRatios are zklock's figure over the best peer's in each round,
// for the rounds where both have one: the spread of the ratio itself,
// which the spreads of the medians overstate when the whole machine slows
// down for a round.
func (rw row) pairedRatios() []float64 {
	var out []float64
	for k, z := range rw.rounds["zklock"] {
		b := math.NaN()
		for _, p := range peerNames {
			if k >= len(rw.rounds[p]) {
				continue
			}
			v := rw.rounds[p][k]
			if !math.IsNaN(v) && (math.IsNaN(b) || (rw.higher && v > b) || (!rw.higher && v < b)) {
				b = v
			}
		}
		if !math.IsNaN(z) && !math.IsNaN(b) && b != 0 {
			out = append(out, z/b)
		}
	}
	return out
}

func (rw row) ratio() float64 {
	_, b := rw.best()
	z, ok := rw.vals["zklock"]
	if !ok || z.N == 0 || math.IsNaN(b) || b == 0 {
		return math.NaN()
	}
	return z.Median / b
}

// handoffMs is a handoff figure of a run in milliseconds, NaN for a run
// without handoffs (the next holder never waited).
func handoffMs(f func(runResult) time.Duration) func(runResult) float64 {
	return func(x runResult) float64 {
		if x.Handoffs == 0 {
			return math.NaN()
		}
		return ms(f(x))
	}
}

// handoffParts are the two halves of a workload's handoff: the previous
// holder's release round trip (the server's delete, under the load of
// that moment) and the next holder's wake after it (what the waiting
// client adds: its notification, and a listing if it lists again).
func handoffParts(per func(string, int, bool, func(runResult) float64) row, w string) []row {
	release := per(w, 3, false, handoffMs(func(x runResult) time.Duration { return x.ReleaseP50 }))
	release.figure = w + ": handoff p50, release part (ms)"
	wake := per(w, 3, false, handoffMs(func(x runResult) time.Duration { return x.WakeP50 }))
	wake.figure = w + ": handoff p50, wake part (ms)"
	return []row{release, wake}
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "**not met**"
}

func (r *report) rows() []row {
	cols := r.columns()
	per := func(workload string, digits int, higher bool, f func(runResult) float64) row {
		rw := row{vals: map[string]summary{}, rounds: map[string][]float64{}, digits: digits, higher: higher}
		for _, p := range cols {
			rw.vals[p] = r.stat(workload, p, f)
			for _, res := range r.runs[workload][p] {
				rw.rounds[p] = append(rw.rounds[p], f(res))
			}
		}
		return rw
	}
	zk := func(rw row) float64 { return rw.vals["zklock"].Median }
	var rows []row

	u := per(wUncontended, 3, false, func(x runResult) float64 { return ms(x.CycleP50) })
	u.figure = "uncontended acquire+release p50 (ms)"
	u.target = "<= 0.9x best"
	if q := u.ratio(); !math.IsNaN(q) {
		u.verdict = verdict(q <= 0.9)
	}
	rows = append(rows, u)
	u = per(wUncontended, 3, false, func(x runResult) float64 { return ms(x.CycleP99) })
	u.figure = "uncontended acquire+release p99 (ms)"
	rows = append(rows, u)
	u = per(wUncontended, 2, false, func(x runResult) float64 { return x.Requests })
	u.figure = "uncontended requests/acquisition"
	u.target = "<= 3"
	if z := zk(u); !math.IsNaN(z) {
		u.verdict = verdict(z <= 3.05)
	}
	rows = append(rows, u)

	floor := r.floorSummary()
	for _, w := range []string{wC8, wC32} {
		// Hold-0 throughput is bounded by the log (a run is a chain of
		// commits, see logBound): the target is a share of that bound and
		// a lead over the best peer the bound leaves room for, not a flat
		// multiple the log cannot allow.
		a := per(w, 0, true, func(x runResult) float64 { return x.AcqPerSec })
		a.figure = w + ": acquisitions/s"
		a.target = ">= 1.1x best, >= 0.8 of log bound"
		bound := r.logBound(w, cols)
		if q := a.ratio(); !math.IsNaN(q) {
			share := zk(bound)
			a.verdict = verdict(q >= 1.1 && !math.IsNaN(share) && share >= 0.8)
		}
		rows = append(rows, a)

		h := per(w, 3, false, handoffMs(func(x runResult) time.Duration { return x.HandoffP50 }))
		h.figure = w + ": handoff p50 (ms)"
		h.floor = fmtSummary(floor[0], 3)
		h.target = "<= 0.8x best, <= 1.15x floor"
		if q := h.ratio(); !math.IsNaN(q) {
			h.verdict = verdict(q <= 0.8 && zk(h) <= 1.15*floor[0].Median)
			h.verdict += " (" + r.overFloor(h) + ")"
		}
		rows = append(rows, h)
		h = per(w, 3, false, handoffMs(func(x runResult) time.Duration { return x.HandoffP99 }))
		h.figure = w + ": handoff p99 (ms)"
		h.floor = fmtSummary(floor[1], 3)
		rows = append(rows, h)
		rows = append(rows, handoffParts(per, w)...)

		c := per(w, 2, false, func(x runResult) float64 { return ms(x.CycleP50) })
		c.figure = w + ": acquire+release p50 (ms)"
		rows = append(rows, c)
		c = per(w, 2, false, func(x runResult) float64 { return ms(x.CycleP99) })
		c.figure = w + ": acquire+release p99 (ms)"
		rows = append(rows, c)

		q := per(w, 2, false, func(x runResult) float64 { return x.Requests })
		q.figure = w + ": requests/acquisition"
		// zklock watches its own node while it holds (lock loss is
		// signalled), which no peer does: up to two requests more than the
		// cheapest peer buy that safety.
		q.target = "<= cheapest peer + 2"
		if z := zk(q); !math.IsNaN(z) {
			_, b := q.best()
			q.verdict = verdict(!math.IsNaN(b) && z <= b+2.05)
		}
		rows = append(rows, q)

		// Every acquisition writes twice (create, delete); the server
		// commits a write with whatever arrived while the one before was
		// being written, one fsync per commit. Fewer commits than writes
		// is that sharing.
		cm := per(w, 2, false, func(x runResult) float64 { return x.Commits })
		cm.figure = w + ": log commits/acquisition"
		rows = append(rows, cm)
		cm = per(w, 0, true, func(x runResult) float64 { return x.CommitsPerSec })
		cm.figure = w + ": log commits/s"
		cm.unranked = true
		rows = append(rows, cm)
		rows = append(rows, bound)

		s := per(w, 0, false, func(x runResult) float64 { return float64(x.CPU.ServerPer.Microseconds()) })
		s.figure = w + ": server CPU/acquisition (us)"
		rows = append(rows, s)
		s = per(w, 0, false, func(x runResult) float64 { return float64(x.CPU.ClientPer.Microseconds()) })
		s.figure = w + ": client CPU/acquisition (us)"
		rows = append(rows, s)
		s = per(w, 0, false, func(x runResult) float64 { return 100 * x.CPU.ServerShare })
		s.figure = w + ": server busy (% of one core)"
		s.unranked = true
		rows = append(rows, s)
		s = per(w, 0, false, func(x runResult) float64 { return 100 * x.CPU.MachineBusy })
		s.figure = w + ": machine busy (% of all cores)"
		s.unranked = true
		rows = append(rows, s)
	}

	// With a 1 ms critical section the next holder is waiting, its listing
	// done, when the release comes: the handoff itself, without the rush
	// of hold-0 cycles on the server. No target of its own; the ratios
	// are shown for comparison with the hold-0 rows.
	h := per(wHold1ms, 3, false, handoffMs(func(x runResult) time.Duration { return x.HandoffP50 }))
	h.figure = wHold1ms + ": handoff p50 (ms)"
	h.floor = fmtSummary(floor[0], 3)
	if z := zk(h); !math.IsNaN(z) && floor[0].Median > 0 {
		h.verdict = "(" + r.overFloor(h) + ")"
	}
	rows = append(rows, h)
	rows = append(rows, handoffParts(per, wHold1ms)...)

	wrow := func(figure string, f func(watchCounts) int) row {
		rw := row{figure: figure, vals: map[string]summary{}}
		for _, p := range cols {
			if w, ok := r.watches[p]; ok {
				rw.vals[p] = summarize([]float64{float64(f(w))})
			}
		}
		return rw
	}
	rows = append(rows, wrow(fmt.Sprintf("data watches on lock nodes, 1 holder + %d waiting", watchWaiters), func(w watchCounts) int { return w.Total }))
	ws := wrow("most data watches held by one session", func(w watchCounts) int { return w.MaxSession })
	ws.target = "<= 2 per waiter"
	if z, ok := ws.vals["zklock"]; ok && z.N > 0 {
		ws.verdict = verdict(z.Median <= 2)
	}
	rows = append(rows, ws)
	rows = append(rows, wrow("most sessions watching one lock node", func(w watchCounts) int { return w.MaxOnNode }))

	sum := func(workloads ...string) func(string) (summary, bool) {
		return func(p string) (summary, bool) {
			n, any := 0, false
			for _, w := range workloads {
				for _, res := range r.runs[w][p] {
					n += res.Overlaps
					any = true
				}
			}
			return summarize([]float64{float64(n)}), any
		}
	}
	for _, o := range []struct {
		figure    string
		workloads []string
	}{
		{"overlaps, hold 0 (every contended run)", []string{wC8, wC32}},
		{"overlaps, 1 ms hold", []string{wHold1ms}},
		{"overlaps, 30% of requests give up", []string{wGiveUp}},
	} {
		rw := row{figure: o.figure, vals: map[string]summary{}, target: "0"}
		f := sum(o.workloads...)
		for _, p := range cols {
			if s, ok := f(p); ok {
				rw.vals[p] = s
			}
		}
		if z, ok := rw.vals["zklock"]; ok {
			rw.verdict = verdict(z.Median == 0)
			if l, ok := rw.vals["limit"]; ok {
				if l.Median > 0 {
					rw.verdict += "; the check bites (limit)"
				} else {
					rw.verdict += "; **limit found none: the check did not bite**"
				}
			}
		}
		rows = append(rows, rw)
	}
	return rows
}

// logBound is how close a workload's runs came to a chain of log
// commits each as long as the floor (a delete's commit and the wake on
// it): acquisitions/s x commits/acquisition x the floor p50 of the same
// round. At 1.00 every commit waited for the one before, so the only way
// to more acquisitions/s is fewer commits per acquisition: a create and a
// delete sharing one.
func (r *report) logBound(w string, cols []string) row {
	rw := row{figure: w + ": share of the log bound (acq/s x commits/acq x floor)", vals: map[string]summary{}, rounds: map[string][]float64{}, digits: 2, higher: true}
	for _, p := range cols {
		var vs []float64
		for k, res := range r.runs[w][p] {
			v := math.NaN()
			if k < len(r.floor) && p != "limit" {
				v = res.AcqPerSec * res.Commits * percentile(r.floor[k], 50).Seconds()
			}
			rw.rounds[p] = append(rw.rounds[p], v)
			if !math.IsNaN(v) {
				vs = append(vs, v)
			}
		}
		rw.vals[p] = summarize(vs)
	}
	return rw
}

// overFloor says how far zklock's handoff row is from the floor: the
// medians' ratio, and its spread over the rounds (round k's handoff over
// the floor taken right after round k's runs).
func (r *report) overFloor(h row) string {
	floor := r.floorSummary()
	out := fmt.Sprintf("%.2fx floor", h.vals["zklock"].Median/floor[0].Median)
	var qs []float64
	for k, z := range h.rounds["zklock"] {
		if k < len(r.floor) && !math.IsNaN(z) {
			if f := ms(percentile(r.floor[k], 50)); f > 0 {
				qs = append(qs, z/f)
			}
		}
	}
	if q := summarize(qs); q.N > 1 {
		out += fmt.Sprintf("; rounds %.2f-%.2f", q.Min, q.Max)
	}
	return out
}

// floorSummary: medians over repetitions of the floor's p50 and p99.
func (r *report) floorSummary() [2]summary {
	var p50, p99 []float64
	for _, lat := range r.floor {
		p50 = append(p50, ms(percentile(lat, 50)))
		p99 = append(p99, ms(percentile(lat, 99)))
	}
	return [2]summary{summarize(p50), summarize(p99)}
}

// table is the comparison as a Markdown table.
func (r *report) table() string {
	cols := r.columns()
	var b strings.Builder
	b.WriteString("| figure |")
	for _, c := range cols {
		b.WriteString(" " + titles[c] + " |")
	}
	b.WriteString(" floor | best peer | zklock / best | target | verdict |\n|---|")
	b.WriteString(strings.Repeat("---|", len(cols)+5) + "\n")
	for _, rw := range r.rows() {
		b.WriteString("| " + rw.figure + " |")
		for _, c := range cols {
			b.WriteString(" " + fmtSummary(rw.vals[c], rw.digits) + " |")
		}
		fl := rw.floor
		if fl == "" {
			fl = "-"
		}
		name, _ := rw.best()
		q := rw.ratio()
		qs := "-"
		if !math.IsNaN(q) {
			qs = fmt.Sprintf("%.2fx", q)
			if pr := summarize(rw.pairedRatios()); pr.N > 1 {
				qs += fmt.Sprintf(" (rounds %.2f-%.2f)", pr.Min, pr.Max)
			}
		}
		if name == "" {
			name = "-"
		}
		fmt.Fprintf(&b, " %s | %s | %s | %s | %s |\n", fl, name, qs, dash(rw.target), dash(rw.verdict))
	}
	return b.String()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (r *report) markdown() string {
	var b strings.Builder
	m := r.machine
	m.LoadEnd = loadAvg()
	fmt.Fprintf(&b, "# zklock benchmarks\n\n")
	fmt.Fprintf(&b, "- Command: `%s`\n", r.opts.command)
	fmt.Fprintf(&b, "- Date: %s (took %s)\n", r.started.Format("2006-01-02 15:04 MST"), r.finished.Sub(r.started).Round(time.Second))
	fmt.Fprintf(&b, "- Machine: %s, %s cores, %s, %s, kernel %s; load average %s at the start, %s at the end\n",
		dash(m.CPU), m.Cores, dash(m.Memory), dash(m.OS), dash(m.Kernel), dash(m.LoadStart), dash(m.LoadEnd))
	fmt.Fprintf(&b, "- ZooKeeper %s, standalone sandbox server, fresh for this run; server JVM options %s (the same for every contender)",
		dash(m.ZooKeeper), strings.Join(r.serverOpts, " "))
	if !r.opts.noSync {
		b.WriteString("; fsync on every commit (ZooKeeper's default)")
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "- Clients: %s; go-zookeeper %s; Curator %s (%s); Kazoo %s (/usr/bin/python3); %d sessions per contender, session timeout %s\n",
		m.Go, dash(m.GoZK), dash(m.Curator), dash(m.Java), dash(m.Kazoo), clientsMax, r.opts.sessionTO)
	fmt.Fprintf(&b, "- Runs: uncontended %d cycles; contended %s each; each repeated %d times, contenders in rotated order; 1 ms hold and give-up runs %s each\n\n",
		r.opts.cycles, r.opts.duration, r.opts.runs, r.opts.safetyDur)

	b.WriteString("Values are medians over the repetitions, with (min-max) when they differ. ")
	b.WriteString("\"best peer\" is the best of go-zookeeper, Curator and Kazoo on that figure; limit and floor are references.\n\n")
	b.WriteString(r.table())

	b.WriteString("\n## How each figure is taken\n\n")
	b.WriteString("- acquire+release: from the acquire call to the release's return, one cycle, by the clock of the process that ran the client (Go's time.Now, Java's Instant.now, Python's time.time_ns: one system clock).\n")
	b.WriteString("- acquisitions/s: held cycles over the run's span (first request to last release return).\n")
	b.WriteString("- handoff: a holder's release call to the next holder's acquire return, counted when the next one was already waiting.\n")
	b.WriteString("- handoff parts: the release part is the previous holder's release call to its return (the server's delete round trip under the load of that moment); the wake part, that return to the next holder's acquire return (its notification arrives with the delete's reply; then the client's own work, and a listing if its recipe lists again). Medians of each part, so they need not add up to the handoff's.\n")
	b.WriteString("- floor: one session deletes a node, another wakes on its data watch (go-zookeeper): delete call to wake.\n")
	fmt.Fprintf(&b, "- requests/acquisition: the server's mntr zk_packets_received over the run, over held cycles. It includes the pings of every connected session (%.1f packets/s with all contenders idle).\n", r.idleRate)
	b.WriteString("- log commits: the server's mntr zk_cnt_sync_processor_batch_size over the run: the batches its sync processor wrote to the transaction log, one fsync each. Writes that arrive while a batch is being written share the next one; a read queued behind a write waits for its batch. Per acquisition (over held cycles) and per second of the run's span. The limit loop's commits carry many writes each, so its rate is not the log's capacity.\n")
	b.WriteString("- share of the log bound: acquisitions/s x log commits/acquisition x the floor p50 of the same round. Near 1.00, the run was a chain of commits each as long as a delete's commit and the wake on it, one waiting for the other: more acquisitions/s then need fewer commits per acquisition (a create sharing a delete's), not a faster client. Not given for the limit loop, whose writes overlap.\n")
	b.WriteString("- zklock / best: the ratio of the medians; \"rounds\" is the spread of zklock's figure over the best peer's in the same round (repetition k of every contender ran within minutes of each other).\n")
	b.WriteString("- data watches: wchc and wchp once one client holds and 32 others wait and the server's total has settled; only watches on the lock parent's children count (Curator's /zookeeper/config watch does not).\n")
	b.WriteString("- overlaps: every critical section (acquire return to release call) of a run through peers.Overlaps. zk.Lock cannot give up, so it has no give-up run; limit is checked in the hold-0 runs only.\n")
	b.WriteString("- CPU: /proc/stat for the machine, /proc/PID/stat for the server and the driver processes, getrusage for this process (the Go clients).\n")
	b.WriteString("- Go clients run in the harness process; Curator's 33 clients in one JVM, Kazoo's in one Python process (peers' drivers).\n")

	if len(r.console) > 0 {
		b.WriteString("\n## Console (go test -bench, each package's own sandbox server)\n\n| benchmark | what | figures |\n|---|---|---|\n")
		for _, l := range r.console {
			var fs []string
			keys := make([]string, 0, len(l.Metrics))
			for k := range l.Metrics {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				fs = append(fs, fmt.Sprintf("%s %s", fmtFloat(l.Metrics[k]), k))
			}
			fig := strings.Join(fs, ", ")
			if l.Err != "" {
				fig = "failed: " + strings.ReplaceAll(l.Err, "\n", " ")
			}
			fmt.Fprintf(&b, "| %s (%s, %dx) | %s | %s |\n", l.Bench.Name, l.Bench.Pkg, l.N, l.Bench.What, fig)
		}
		b.WriteString("\nMemory per watched node is BenchmarkChange10000's heap-bytes/node (the Watcher's model of a 10,000-node queue, after GC).\n")
	}

	b.WriteString("\n## Every run\n\n| contender | workload | run | held | gave up | failed | acq/s | acquire+release p50/p99 ms | handoff p50/p99 ms | req/acq | commits/acq | overlaps | server CPU | machine |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, w := range []string{wUncontended, wC8, wC32, wHold1ms, wGiveUp} {
		for _, p := range r.columns() {
			for i, res := range r.runs[w][p] {
				fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %.0f | %.3f / %.3f | %.3f / %.3f | %.2f | %.2f | %d | %.0f%% | %.0f%% |\n",
					p, w, i+1, res.Held, res.GaveUp, res.Failed, res.AcqPerSec, ms(res.CycleP50), ms(res.CycleP99),
					ms(res.HandoffP50), ms(res.HandoffP99), res.Requests, res.Commits, res.Overlaps, 100*res.CPU.ServerShare, 100*res.CPU.MachineBusy)
			}
		}
	}
	if len(r.notes) > 0 {
		b.WriteString("\n## Notes\n\n")
		for _, n := range r.notes {
			b.WriteString("- " + n + "\n")
		}
	}
	var fails bytes.Buffer
	for _, w := range []string{wUncontended, wC8, wC32, wHold1ms, wGiveUp} {
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
	if fails.Len() > 0 {
		b.WriteString("\n## Failures and overlaps\n\n")
		b.Write(fails.Bytes())
	}
	return b.String()
}

func fmtFloat(v float64) string {
	switch {
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.0f", v)
	default:
		return fmt.Sprintf("%.3g", v)
	}
}
