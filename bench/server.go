package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/zklock/zklock/fourletter"
)

// fourLetterWait bounds one four-letter word: a loaded 2-core machine
// answers in milliseconds, a wedged server never.
const fourLetterWait = 10 * time.Second

// mntr returns the server's mntr figures by name.
func mntr(ctx context.Context, addr string) (map[string]string, error) {
	ctx, cancel := context.WithTimeout(ctx, fourLetterWait)
	defer cancel()
	out, err := fourletter.Ask(ctx, addr, "mntr")
	if err != nil {
		return nil, err
	}
	return fourletter.ParseMntr(out), nil
}

// serverCounts are the mntr counters a run is measured by, read before and
// after it. The server serves the harness alone, so a delta over a run is
// that run's (with a few pings; the harness's own four-letter words are
// not packets).
type serverCounts struct {
	// Packets is zk_packets_received: every request and ping the server
	// got from every client.
	Packets int64
	// Commits is zk_cnt_sync_processor_batch_size: the batches the sync
	// processor wrote to the transaction log, each one fsync (unless
	// forceSync=no). Writes that arrive while one is written wait for the
	// next and share it; a read queued behind a write waits with it.
	Commits int64
}

func readCounts(ctx context.Context, addr string) (serverCounts, error) {
	m, err := mntr(ctx, addr)
	if err != nil {
		return serverCounts{}, err
	}
	var c serverCounts
	for _, f := range []struct {
		key string
		to  *int64
	}{{"zk_packets_received", &c.Packets}, {"zk_cnt_sync_processor_batch_size", &c.Commits}} {
		v, ok := m[f.key]
		if !ok {
			return serverCounts{}, fmt.Errorf("bench: no %s in mntr", f.key)
		}
		if *f.to, err = strconv.ParseInt(v, 10, 64); err != nil {
			return serverCounts{}, fmt.Errorf("bench: mntr %s: %w", f.key, err)
		}
	}
	return c, nil
}

// watchCounts reads the server's data watches (wchc: session -> paths;
// wchp: path -> sessions) and keeps those on children of parent.
type watchCounts struct {
	Total       int // data watches on lock nodes
	MaxSession  int // most lock-node watches held by one session
	MaxOnNode   int // most sessions watching one lock node
	Sessions    int // sessions with at least one lock-node watch
	MaxNodeName string
}

func readWatches(ctx context.Context, addr, parent string) (watchCounts, error) {
	ctx, cancel := context.WithTimeout(ctx, fourLetterWait)
	defer cancel()
	wchc, err := fourletter.Ask(ctx, addr, "wchc")
	if err != nil {
		return watchCounts{}, err
	}
	wchp, err := fourletter.Ask(ctx, addr, "wchp")
	if err != nil {
		return watchCounts{}, err
	}
	under := func(p string) bool { return filepath.Dir(p) == parent }
	var w watchCounts
	for _, paths := range fourletter.ParseWchc(wchc) {
		n := 0
		for _, p := range paths {
			if under(p) {
				n++
			}
		}
		w.Total += n
		w.MaxSession = max(w.MaxSession, n)
		if n > 0 {
			w.Sessions++
		}
	}
	for p, sessions := range fourletter.ParseWchp(wchp) {
		if under(p) && len(sessions) > w.MaxOnNode {
			w.MaxOnNode, w.MaxNodeName = len(sessions), filepath.Base(p)
		}
	}
	return w, nil
}

// totalWatches is wchs's "Total watches" (data watches).
func totalWatches(ctx context.Context, addr string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, fourLetterWait)
	defer cancel()
	out, err := fourletter.Ask(ctx, addr, "wchs")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(out, "\n") {
		if _, v, ok := strings.Cut(line, "Total watches:"); ok {
			return strconv.Atoi(strings.TrimSpace(v))
		}
	}
	return 0, fmt.Errorf("bench: no total in wchs: %q", out)
}

// CPU accounting. On a 2-core machine the server, the clients and
// everything else running compete for the same cores; these figures tell
// whether a run was bound by the server's CPU or by the machine's.

// clockTick is USER_HZ, 100 on every Linux this runs on.
const clockTick = 100

type cpuSample struct {
	at          time.Time
	busy, total uint64 // machine jiffies
	server      time.Duration
	self        time.Duration // this process: the Go clients
	drivers     time.Duration // Curator/Kazoo driver processes (our children)
}

// plus is s with what was spent from a to b added: samples summed over
// slices of a run give, against the zero sample, the slices' CPU and
// their wall time without the time between them.
func (s cpuSample) plus(a, b cpuSample) cpuSample {
	s.at = s.at.Add(b.at.Sub(a.at))
	s.busy += b.busy - a.busy
	s.total += b.total - a.total
	s.server += b.server - a.server
	s.self += b.self - a.self
	s.drivers += b.drivers - a.drivers
	return s
}

// cpuUse is what a run cost, per acquisition where it says so.
type cpuUse struct {
	MachineBusy float64       // share of the machine's cores busy, 0..1
	ServerPer   time.Duration // server CPU per acquisition
	ClientPer   time.Duration // client CPU (this process + drivers) per acquisition
	ServerShare float64       // server CPU over wall time, in cores
}

func sampleCPU(serverPID int) cpuSample {
	s := cpuSample{at: time.Now()}
	if b, err := os.ReadFile("/proc/stat"); err == nil {
		line, _, _ := strings.Cut(string(b), "\n")
		f := strings.Fields(line)
		for i, v := range f[1:] {
			n, _ := strconv.ParseUint(v, 10, 64)
			s.total += n
			if i != 3 && i != 4 { // idle, iowait
				s.busy += n
			}
		}
	}
	s.server = procCPU(serverPID)
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		s.self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	self := os.Getpid()
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == serverPID {
			continue
		}
		if ppid, _, ok := procStat(pid); ok && ppid == self {
			s.drivers += procCPU(pid)
		}
	}
	return s
}

// procStat reads a process's parent and user+system CPU.
func procStat(pid int) (ppid int, cpu time.Duration, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, false
	}
	// The command name is in parentheses and may hold spaces.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return ppid, time.Duration(ut+st) * time.Second / clockTick, true
}

func procCPU(pid int) time.Duration {
	if pid <= 0 {
		return 0
	}
	_, c, _ := procStat(pid)
	return c
}

func cpuBetween(a, b cpuSample, acquisitions int) cpuUse {
	var u cpuUse
	if b.total > a.total {
		u.MachineBusy = float64(b.busy-a.busy) / float64(b.total-a.total)
	}
	if wall := b.at.Sub(a.at); wall > 0 {
		u.ServerShare = float64(b.server-a.server) / float64(wall)
	}
	if acquisitions > 0 {
		u.ServerPer = (b.server - a.server) / time.Duration(acquisitions)
		u.ClientPer = (b.self - a.self + b.drivers - a.drivers) / time.Duration(acquisitions)
	}
	return u
}
