package main

import (
	"context"
	"errors"
	"fmt"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zklock/zklock/third_party/zk"

	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/peers"
)

const (
	// clientsMax: 32 contenders, plus the holder of the watch count.
	clientsMax = 33
	// giveUpPercent of the give-up run's requests time out at random
	// within peers.DefaultGiveUpWithin (10 ms, a few handoffs).
	giveUpPercent = 30
	// safetyHold is the hold of the second exclusion run.
	safetyHold = time.Millisecond
	// watchWaiters queue behind one holder while the watches are read.
	watchWaiters = 32
)

// serverJVM are the server's JVM options for a benchmark, the same for
// every contender: the C2 JIT (the sandbox's default stops at C1 to start
// fast) and a heap that the run never fills.
var serverJVM = []string{"-XX:TieredStopAtLevel=4", "-Xms256m", "-Xmx512m"}

// workload names, as keys of report.runs.
const (
	wUncontended = "uncontended"
	wC8          = "8 clients"
	wC32         = "32 clients"
	wHold1ms     = "8 clients, 1 ms hold"
	wGiveUp      = "8 clients, 30% give up"
)

// measure runs what the options ask for: the lock workloads on a fresh
// standalone server, then the console's benchmarks. The report is nil
// only when the server did not start; otherwise it holds what was
// measured before any error.
func measure(ctx context.Context, o options) (*report, error) {
	rep := &report{opts: o, started: time.Now(), runs: map[string]map[string][]runResult{}, watches: map[string]watchCounts{}}
	rep.machine = readMachine(ctx)
	defer func() { rep.finished = time.Now() }()

	rep.serverOpts = slices.Clone(serverJVM)
	if o.noSync {
		rep.serverOpts = append(rep.serverOpts, "-Dzookeeper.forceSync=no")
	}
	logf("starting a standalone ZooKeeper (%s)", strings.Join(rep.serverOpts, " "))
	sctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	cluster, err := sandbox.Start(sctx, sandbox.Options{Members: 1, JVMOptions: rep.serverOpts})
	cancel()
	if err != nil {
		return nil, err
	}
	if err := runLocks(ctx, rep, o, cluster); err != nil {
		return rep, err
	}
	if o.console {
		for _, b := range consoleBenches(o.quick) {
			if ctx.Err() != nil {
				return rep, ctx.Err()
			}
			logf("go test -bench %s %s", b.Name, b.Pkg)
			l := runGoBench(ctx, o.goCmd, b)
			if l.Err != "" {
				rep.note("%s: %s", b.Name, l.Err)
			}
			rep.console = append(rep.console, l)
		}
	}
	return rep, nil
}

// lockRuns is what the lock runs share: the server, the contenders and
// an administrative session, which makes lock parents before each count
// starts and lists children while watches settle.
type lockRuns struct {
	rep       *report
	o         options
	servers   []string
	addr      string // the server's client address, for mntr and wchc
	serverPID int
	cs        map[string]contender
	admin     *zk.Conn
}

// runLocks runs every lock workload the options ask for on cluster's
// server, then stops the CPU profile and closes the contenders and the
// server, so that the console benchmarks have the machine.
func runLocks(ctx context.Context, rep *report, o options, cluster *sandbox.Cluster) error {
	defer cluster.Close()
	b := &lockRuns{rep: rep, o: o, servers: cluster.Servers(), serverPID: cluster.Members()[0].PID(), cs: map[string]contender{}}
	b.addr = b.servers[0]
	if m, err := mntr(ctx, b.addr); err == nil {
		rep.machine.ZooKeeper = m["zk_version"]
	}

	logf("warming the server's JIT")
	if err := warmServer(ctx, b.servers, pick(o.quick, 3*time.Second, 10*time.Second), o.sessionTO); err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	defer func() {
		for _, c := range b.cs {
			_ = c.Close()
		}
	}()
	if err := b.startContenders(ctx); err != nil {
		return err
	}
	rep.idleRate = idlePackets(ctx, b.addr)
	admin, err := dialZK(ctx, b.servers, o.sessionTO)
	if err != nil {
		return err
	}
	defer admin.Close()
	b.admin = admin

	for _, step := range []func(context.Context) error{b.uncontended, b.contended, b.underLoad, b.safety, b.watches} {
		if err := step(ctx); err != nil {
			return err
		}
	}
	if o.cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	return nil
}

// startContenders connects each contender's clients and warms it; a
// contender whose clients are not installed is skipped with a note.
func (b *lockRuns) startContenders(ctx context.Context) error {
	for _, name := range b.o.contenders {
		logf("connecting %d %s clients", clientsMax, name)
		cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		c, err := startContender(cctx, name, b.servers, clientsMax, b.o.sessionTO)
		cancel()
		if err != nil {
			if errors.Is(err, peers.ErrUnavailable) {
				b.rep.note("%s skipped: %v", name, err)
				continue
			}
			return fmt.Errorf("start %s: %w", name, err)
		}
		b.cs[name] = c
		// Warm each contender the same way: its runtime's JIT (the JVM's
		// above all), its connections, its lock path's parents.
		wspec := peers.LoopSpec{Path: "/bench/" + name + "/warm", Clients: clientRange(8), Duration: pick(b.o.quick, time.Second, 3*time.Second)}
		if _, err := c.Loop(ctx, wspec); err != nil {
			return fmt.Errorf("warm %s: %w", name, err)
		}
	}
	return nil
}

// order is the contenders in the order of round: rotated by one each
// round, so that none always runs first.
func (b *lockRuns) order(round int) []contender {
	var out []contender
	for _, name := range b.o.contenders {
		if c, ok := b.cs[name]; ok {
			out = append(out, c)
		}
	}
	return rotate(out, round)
}

// measure runs one loop of c under workload, once, on a lock path of
// its own, and adds its result to the report with the server's counts
// and the CPU it cost.
func (b *lockRuns) measure(ctx context.Context, workload string, c contender, round int, spec peers.LoopSpec) error {
	return b.measureSliced(ctx, workload, []contender{c}, round, spec, 1)
}

// measureSliced measures every contender of cs under workload for one
// round, cut into n slices: slice k runs each contender's loop for a
// 1/n share of spec's duration or cycles, the contenders in the order
// rotated by k, and each contender's slices make its result for the
// round. This machine's fsync and scheduling drift by 2x over tens of
// seconds (12-02: two of ours at 1.2 ms release parts for 20 s, then 0.9
// ms): contenders measured whole, one after the other, are compared
// across different disks; taken in turn, slice by slice, each sees the
// same ones.
func (b *lockRuns) measureSliced(ctx context.Context, workload string, cs []contender, round int, spec peers.LoopSpec, n int) error {
	if spec.Duration > 0 {
		spec.Duration /= time.Duration(n)
	}
	spec.Cycles = (spec.Cycles + n - 1) / n
	parts := map[string][]slice{}
	for k := range n {
		for _, c := range rotate(cs, k) {
			s, err := b.runSlice(ctx, workload, c, round, k, spec)
			if err != nil {
				return err
			}
			parts[c.Name()] = append(parts[c.Name()], s)
		}
	}
	for _, c := range cs {
		res := combine(c.Name(), len(spec.Clients), spec, parts[c.Name()], c.Name() != "limit")
		b.rep.add(workload, res)
		logf("%-8s %-22s %6d held %5.0f acq/s  cycle p50 %6.3f p99 %6.3f ms  handoff p50 %6.3f p99 %6.3f ms (p50 of its parts: release %5.3f, wake %6.3f)  %4.2f req/acq  %4.2f commits/acq (%4.0f/s)  overlaps %d  server %3.0f%% machine %3.0f%%%s",
			c.Name(), workload, res.Held, res.AcqPerSec, ms(res.CycleP50), ms(res.CycleP99), ms(res.HandoffP50), ms(res.HandoffP99), ms(res.ReleaseP50), ms(res.WakeP50),
			res.Requests, res.Commits, res.CommitsPerSec, res.Overlaps, 100*res.CPU.ServerShare, 100*res.CPU.MachineBusy, errSuffix(res))
	}
	return nil
}

// slice is one contender's loop in one slice of a round: its cycles and
// what the server counted and the machine spent meanwhile.
type slice struct {
	cycles           []peers.Cycle
	packets, commits int64
	cpu0, cpu1       cpuSample
}

// runSlice runs c's loop for slice k of round, on a lock path of its own
// made before the server's counts are read: Curator makes a container,
// go-zookeeper and zklock persistent nodes, the limit loop here; none of
// that is per acquisition.
func (b *lockRuns) runSlice(ctx context.Context, workload string, c contender, round, k int, spec peers.LoopSpec) (slice, error) {
	if ctx.Err() != nil {
		return slice{}, ctx.Err()
	}
	spec.Path = fmt.Sprintf("/bench/%s/%s-%d.%d", c.Name(), strings.NewReplacer(" ", "", ",", "", "%", "").Replace(workload), round, k)
	if err := makeParents(b.admin, spec.Path); err != nil {
		return slice{}, err
	}
	n0, err := readCounts(ctx, b.addr)
	if err != nil {
		return slice{}, err
	}
	s := slice{cpu0: sampleCPU(b.serverPID)}
	s.cycles, err = c.Loop(ctx, spec)
	s.cpu1 = sampleCPU(b.serverPID)
	if err != nil {
		return slice{}, fmt.Errorf("%s %s: %w", c.Name(), workload, err)
	}
	n1, err := readCounts(ctx, b.addr)
	if err != nil {
		return slice{}, err
	}
	s.packets, s.commits = n1.Packets-n0.Packets, n1.Commits-n0.Commits
	return s, nil
}

// combine is one contender's result over its slices of a round: its
// cycles analysed together (a handoff never spans two slices: the first
// request of a slice comes after the last release of the one before),
// rates over the slices' windows, not the time between them.
func combine(peer string, clients int, spec peers.LoopSpec, parts []slice, handoffs bool) runResult {
	var all []peers.Cycle
	var window time.Duration
	var packets, commits int64
	var cpu0, cpu1 cpuSample
	for _, s := range parts {
		all = append(all, s.cycles...)
		window += span(s.cycles)
		packets += s.packets
		commits += s.commits
		cpu1 = cpu1.plus(s.cpu0, s.cpu1)
	}
	res := analyze(peer, clients, spec, all, handoffs)
	res.Window = window
	res.AcqPerSec = 0
	if window > 0 {
		res.AcqPerSec = float64(res.Held) / window.Seconds()
		res.CommitsPerSec = float64(commits) / window.Seconds()
	}
	if res.Held > 0 {
		res.Requests = float64(packets) / float64(res.Held)
		res.Commits = float64(commits) / float64(res.Held)
	}
	res.CPU = cpuBetween(cpu0, cpu1, res.Held)
	return res
}

// rotate is cs rotated left by k.
func rotate(cs []contender, k int) []contender {
	k %= max(len(cs), 1)
	return slices.Concat(cs[k:], cs[:k])
}

// uncontended: one client, o.cycles acquire+release cycles, each round.
func (b *lockRuns) uncontended(ctx context.Context) error {
	if !b.o.workloads["uncontended"] {
		return nil
	}
	for round := range b.o.runs {
		if err := b.measureSliced(ctx, wUncontended, b.order(round), round, peers.LoopSpec{Clients: []int{0}, Cycles: b.o.cycles}, b.o.slices); err != nil {
			return err
		}
	}
	return nil
}

// contended: 8 and 32 clients with hold 0, then the floor, each round.
func (b *lockRuns) contended(ctx context.Context) error {
	for round := range b.o.runs {
		for _, n := range []int{8, 32} {
			if !b.o.workloads[fmt.Sprint(n)] {
				continue
			}
			w := map[int]string{8: wC8, 32: wC32}[n]
			if err := b.measureSliced(ctx, w, b.order(round), round, peers.LoopSpec{Clients: clientRange(n), Duration: b.o.duration}, b.o.slices); err != nil {
				return err
			}
		}
		// The floor is taken in every round, right after its contended
		// runs: this machine's fsync and scheduling drift by 2x within
		// minutes (a floor taken once at the end of a run came out at
		// 1.27 ms against handoffs of 0.87-1.19 ms minutes before).
		if b.o.workloads["floor"] {
			lat, err := handoffFloor(ctx, b.servers, fmt.Sprintf("/bench/floor/%d", round), b.o.cycles, b.o.sessionTO)
			if err != nil {
				return fmt.Errorf("floor: %w", err)
			}
			b.rep.floor = append(b.rep.floor, lat)
			logf("floor    delete to wake p50 %6.3f p99 %6.3f ms", ms(percentile(lat, 50)), ms(percentile(lat, 99)))
		}
	}
	return nil
}

// safety: the exclusion runs, 8 clients holding 1 ms, then 8 clients of
// which some give up (not go-zookeeper's zk.Lock, which cannot), once.
func (b *lockRuns) safety(ctx context.Context) error {
	for _, c := range b.order(0) {
		if c.Name() == "limit" || !b.o.workloads["safety"] {
			continue
		}
		if err := b.measure(ctx, wHold1ms, c, 0, peers.LoopSpec{Clients: clientRange(8), Duration: b.o.safetyDur, Hold: safetyHold}); err != nil {
			return err
		}
		if c.Name() == "gozk" {
			continue // zk.Lock has no way to give up
		}
		if err := b.measure(ctx, wGiveUp, c, 0, peers.LoopSpec{Clients: clientRange(8), Duration: b.o.safetyDur, GiveUpPercent: giveUpPercent}); err != nil {
			return err
		}
	}
	return nil
}

// watches: each contender's server watches with one holder and
// watchWaiters waiting.
func (b *lockRuns) watches(ctx context.Context) error {
	for _, c := range b.order(0) {
		if c.Name() == "limit" || !b.o.workloads["watches"] {
			continue
		}
		w, err := countWatches(ctx, c, b.admin, b.addr)
		if err != nil {
			return fmt.Errorf("%s watches: %w", c.Name(), err)
		}
		b.rep.watches[c.Name()] = w
		logf("%-8s watches while %d wait: %d on lock nodes, at most %d by one session, at most %d on one node",
			c.Name(), watchWaiters, w.Total, w.MaxSession, w.MaxOnNode)
	}
	return nil
}

func errSuffix(r runResult) string {
	var s []string
	if r.GaveUp > 0 {
		s = append(s, fmt.Sprintf("%d gave up", r.GaveUp))
	}
	if r.Failed > 0 {
		s = append(s, fmt.Sprintf("%d failed: %s", r.Failed, r.FirstErr))
	}
	if r.Overlaps > 0 && r.Peer != "limit" {
		s = append(s, "OVERLAP "+r.FirstOverlap)
	}
	if len(s) == 0 {
		return ""
	}
	return "  (" + strings.Join(s, "; ") + ")"
}

func clientRange(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// warmServer runs through the server, from 8 sessions, every request
// the contenders send (create and create2, listings and data reads with
// and without watches, exists watches, deletes, and a multi: Rejoin's),
// so that its JIT has compiled each one's path before any contender is
// measured: warmed on creates, listings and data watches alone, the
// round first measured ran slower for zklock, whose create2 and exists
// watches were still cold (12-02: 0.85-1.13x of go-zookeeper in the
// first round, 1.25-1.44x in the second).
func warmServer(ctx context.Context, servers []string, d time.Duration, timeout time.Duration) error {
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			conn, err := dialZK(ctx, servers, timeout)
			if err != nil {
				errs[i] = err
				return
			}
			defer conn.Close()
			p := fmt.Sprintf("/bench/warm/%d", i)
			if err := makeParents(conn, p); err != nil {
				errs[i] = err
				return
			}
			for end := time.Now().Add(d); time.Now().Before(end) && ctx.Err() == nil; {
				n, err := conn.Create(p+"/n-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
				if err != nil {
					errs[i] = err
					return
				}
				_, _, _ = conn.Children(p)
				_, _, _, _ = conn.GetW(n)
				_, _, _, _ = conn.ExistsW(n)
				_, _, _, _ = conn.ChildrenW(p)
				m, _, err := conn.Create2(p+"/n-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
				if err != nil {
					errs[i] = err
					return
				}
				_, _, _ = conn.Get(m)
				if _, err := conn.Multi(&zk.DeleteRequest{Path: m, Version: -1}, &zk.DeleteRequest{Path: n, Version: -1}); err != nil {
					errs[i] = err
					return
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// idlePackets measures the packets per second the server gets while every
// contender is connected and idle (their pings): the noise in each run's
// request count.
func idlePackets(ctx context.Context, addr string) float64 {
	n0, err := readCounts(ctx, addr)
	if err != nil {
		return -1
	}
	t0 := time.Now()
	select {
	case <-time.After(2 * time.Second):
	case <-ctx.Done():
		return -1
	}
	n1, err := readCounts(ctx, addr)
	if err != nil {
		return -1
	}
	return float64(n1.Packets-n0.Packets) / time.Since(t0).Seconds()
}

// countWatches queues watchWaiters behind one holder and reads the
// server's watch lists once they have settled: the children are all
// there and the total number of watches has not changed for a while.
func countWatches(ctx context.Context, c contender, mon *zk.Conn, addr string) (watchCounts, error) {
	p := "/bench/" + c.Name() + "/watches"
	if err := makeParents(mon, p); err != nil {
		return watchCounts{}, err
	}
	end, err := c.Queue(ctx, p, watchWaiters)
	if err != nil {
		return watchCounts{}, err
	}
	defer func() {
		ectx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = end(ectx)
	}()
	deadline := time.Now().Add(20 * time.Second)
	last, stable := -1, 0
	tick := time.NewTicker(150 * time.Millisecond)
	defer tick.Stop()
	for stable < 4 {
		if time.Now().After(deadline) {
			return watchCounts{}, fmt.Errorf("watches did not settle within 20s (last total %d)", last)
		}
		select {
		case <-ctx.Done():
			return watchCounts{}, ctx.Err()
		case <-tick.C:
		}
		kids, _, err := mon.Children(p)
		if err != nil {
			return watchCounts{}, err
		}
		n, err := totalWatches(ctx, addr)
		if err != nil {
			return watchCounts{}, err
		}
		if len(kids) == watchWaiters+1 && n == last {
			stable++
		} else {
			stable = 0
		}
		last = n
	}
	return readWatches(ctx, addr, p)
}
