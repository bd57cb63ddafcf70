package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zklock/zklock/fourletter"
)

const (
	// stopGrace is how long Stop lets ZooKeeper shut down after SIGTERM; a
	// healthy server exits in well under a second.
	stopGrace = 10 * time.Second
	// exitWait bounds the wait for a process after SIGKILL. The kernel kills
	// at once; only a process stuck in the kernel takes longer, and then the
	// caller gets ErrStuck instead of hanging.
	exitWait = 10 * time.Second
	// pollInterval spaces the four-letter-word probes while waiting: short
	// enough that readiness is seen within a blink, long enough not to flood
	// the server's log.
	pollInterval = 50 * time.Millisecond
	// errorLogLines is how much of a member's log an error carries.
	errorLogLines = 40
)

// Member is one ZooKeeper server of a Cluster. Its ports, data directory
// and log file stay the same across Stop, Kill and Restart.
type Member struct {
	cluster *Cluster
	index   int // position in Cluster.Members
	id      int // myid, index+1
	dir     string
	cfgPath string
	logPath string
	addr    string
	// secureAddr is the TLS client address, "" without Options.TLS.
	secureAddr string
	// adminAddr is the AdminServer's address, "" without
	// Options.AdminServer.
	adminAddr string

	mu   sync.Mutex
	proc *process // the latest process, nil before the first start
}

// process is one run of a member's JVM.
type process struct {
	cmd     *exec.Cmd
	started time.Time
	done    chan struct{} // closed once the process has exited and been reaped
	err     error         // cmd.Wait's result, valid once done is closed
	paused  bool          // guarded by Member.mu
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// ID is the member's ZooKeeper myid: its index in Cluster.Members plus one.
func (m *Member) ID() int { return m.id }

// Addr is the member's client address, "127.0.0.1:port".
func (m *Member) Addr() string { return m.addr }

// SecureAddr is the member's TLS client address, "127.0.0.1:port", or ""
// when the cluster has no TLS.
func (m *Member) SecureAddr() string { return m.secureAddr }

// LogPath is the file that holds the member's stdout and stderr, across
// restarts.
func (m *Member) LogPath() string { return m.logPath }

// LogTail returns the last n lines of the member's log.
func (m *Member) LogTail(n int) string { return tailFile(m.logPath, n) }

// Running reports whether the member's process is alive (paused counts as
// alive).
func (m *Member) Running() bool {
	p := m.current()
	return p != nil && !p.exited()
}

// Paused reports whether the member is running and stopped by Pause.
func (m *Member) Paused() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.proc != nil && !m.proc.exited() && m.proc.paused
}

// PID is the process id of the running member, 0 when it is not running.
func (m *Member) PID() int {
	p := m.current()
	if p == nil || p.exited() {
		return 0
	}
	return p.cmd.Process.Pid
}

func (m *Member) current() *process {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.proc
}

// Stop asks the member to shut down (SIGTERM) and waits for it to exit; after
// 10 s, or as soon as ctx ends, it kills it (SIGKILL). A paused member is
// resumed after the SIGTERM so that it can act on it. Stopping a member that
// is not running does nothing.
func (m *Member) Stop(ctx context.Context) error {
	p := m.current()
	if p == nil || p.exited() {
		return nil
	}
	if err := terminateProcess(p.cmd.Process); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("sandbox: stop member %d: %w", m.id, err)
	}
	_ = resumeProcess(p.cmd.Process) // a stopped JVM cannot handle SIGTERM; harmless otherwise
	grace := time.NewTimer(stopGrace)
	defer grace.Stop()
	select {
	case <-p.done:
		return nil
	case <-grace.C:
	case <-ctx.Done():
	}
	return m.killProcess(p)
}

// Kill kills the member with SIGKILL, as a crash would, and waits until the
// process is gone. Killing a member that is not running does nothing.
func (m *Member) Kill() error {
	p := m.current()
	if p == nil {
		return nil
	}
	return m.killProcess(p)
}

func (m *Member) killProcess(p *process) error {
	if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("sandbox: kill member %d: %w", m.id, err)
	}
	t := time.NewTimer(exitWait)
	defer t.Stop()
	select {
	case <-p.done:
		return nil
	case <-t.C:
		return fmt.Errorf("%w: member %d (pid %d) still there %v after SIGKILL", ErrStuck, m.id, p.cmd.Process.Pid, exitWait)
	}
}

// Pause stops the member's process with SIGSTOP: its sockets stay open but
// nothing answers, as with a long GC pause or a hung machine. Clients time
// out on their own; peers notice after syncLimit ticks. On Linux it returns
// once every thread of the member has stopped, not merely been signalled.
func (m *Member) Pause() error { return m.signalPause(true) }

// Resume continues a paused member with SIGCONT.
func (m *Member) Resume() error { return m.signalPause(false) }

func (m *Member) signalPause(pause bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.proc
	if p == nil || p.exited() {
		return fmt.Errorf("%w: member %d", ErrNotRunning, m.id)
	}
	op, signal := "resume", resumeProcess
	if pause {
		op, signal = "pause", pauseProcess
	}
	if err := signal(p.cmd.Process); err != nil {
		return fmt.Errorf("sandbox: %s member %d: %w", op, m.id, err)
	}
	p.paused = pause
	if pause {
		if err := waitStopped(p.cmd.Process.Pid, 5*time.Second); err != nil {
			return fmt.Errorf("sandbox: pause member %d: %w", m.id, err)
		}
	}
	return nil
}

// Restart starts the member again on the same ports and data directory
// (stopping it first if it is running) and waits until it serves clients,
// bounded by ctx and Options.StartTimeout. A member of an ensemble serves
// once it has joined a quorum, so restarting one member while the others are
// down waits for them. If it does not become ready, it is killed and the
// error carries its last log lines.
func (m *Member) Restart(ctx context.Context) error {
	if err := m.Stop(ctx); err != nil {
		return err
	}
	p, err := m.launch()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, m.cluster.opts.StartTimeout)
	defer cancel()
	if err := m.waitServing(ctx, p); err != nil {
		return errors.Join(err, m.killProcess(p))
	}
	return nil
}

// javaArgs are the JVM's arguments. The heap and JIT settings make a server
// start in about a second on a 2-core machine and keep three of them cheap.
func (m *Member) javaArgs() []string {
	args := []string{
		"-Xms16m", "-Xmx256m",
		"-XX:+UseSerialGC",            // one GC thread: the machine has few cores, the heap is tiny
		"-XX:TieredStopAtLevel=1",     // C1 only: starts fast, fast enough for tests
		"-XX:-UsePerfData",            // no /tmp/hsperfdata file left behind by a SIGKILL
		"-XX:+ExitOnOutOfMemoryError", // die loudly rather than limp
		// A member killed before its first snapshot has transaction logs
		// and no snapshot; 3.5+ refuses to start from that unless told the
		// empty snapshot is fine. Sandbox data is disposable.
		"-Dzookeeper.snapshot.trust.empty=true",
		// Election notifications back off up to 60 s by default; a member
		// that started late would make the others wait that long.
		"-Dzookeeper.fastleader.maxNotificationInterval=1000",
		// Peers dial each other with a 5 s timeout by default; a paused
		// member would stall elections that long.
		"-Dzookeeper.cnxTimeout=2000",
		"-Dorg.slf4j.simpleLogger.showDateTime=true",
		"-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS",
		// Every four-letter word logs a line at INFO; our readiness probes
		// and the console's polling would bury everything else.
		"-Dorg.slf4j.simpleLogger.log.org.apache.zookeeper.server.NIOServerCnxn=warn",
		"-Dorg.slf4j.simpleLogger.log.org.apache.zookeeper.server.NettyServerCnxn=warn", // the same, with TLS
	}
	args = append(args, m.cluster.saslJVM...)
	args = append(args, m.cluster.opts.JVMOptions...)
	return append(args,
		"-cp", m.cluster.inst.ClassPath,
		"org.apache.zookeeper.server.quorum.QuorumPeerMain", m.cfgPath)
}

// launch starts a new process for the member; it does not wait for it.
func (m *Member) launch() (*process, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	// Checked under m.mu, which Close also takes to kill: a launch either
	// sees the cluster closed or is seen (and killed) by Close.
	if m.cluster.closed.Load() {
		return nil, ErrClosed
	}
	if m.proc != nil && !m.proc.exited() {
		return nil, fmt.Errorf("sandbox: member %d is already running", m.id)
	}
	logf, err := os.OpenFile(m.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("sandbox: member %d log: %w", m.id, err)
	}
	fmt.Fprintf(logf, "--- sandbox: %s starting member %d on %s ---\n", time.Now().Format("15:04:05.000"), m.id, m.addr)

	cmd := exec.Command(m.cluster.inst.Java, m.javaArgs()...)
	cmd.Dir = m.dir
	var out io.Writer = logf
	if dst := m.cluster.opts.Stdout; dst != nil {
		out = io.MultiWriter(logf, &prefixWriter{mu: &m.cluster.outMu, dst: dst, prefix: []byte("zk" + strconv.Itoa(m.id) + "| ")})
	}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = serverProcAttr()
	if err := startProcess(cmd); err != nil {
		logf.Close()
		return nil, fmt.Errorf("sandbox: start member %d with %s: %w", m.id, m.cluster.inst.Java, err)
	}
	p := &process{cmd: cmd, started: time.Now(), done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	m.proc = p
	return p, nil
}

// waitServing waits until p answers ruok with imok and srvr with a serving
// mode. It returns early, with the log's last lines, when p exits.
func (m *Member) waitServing(ctx context.Context, p *process) error {
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	var last string
	for {
		if p.exited() {
			return m.exitError(p)
		}
		ok, state := m.probe(ctx)
		if ok {
			return nil
		}
		last = state
		select {
		case <-p.done:
			return m.exitError(p)
		case <-ctx.Done():
			return fmt.Errorf("%w: member %d (%s) after %v: %w; last probe: %s\n%s",
				ErrNotReady, m.id, m.addr, time.Since(p.started).Round(time.Millisecond), ctx.Err(), last, m.tailSince())
		case <-tick.C:
		}
	}
}

// probe asks ruok then srvr; it reports whether the member serves clients
// and, when not, what it saw.
func (m *Member) probe(ctx context.Context) (bool, string) {
	pctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	// ruok is refused under ZooKeeper's default whitelist; srvr, asked
	// next, is always allowed and says as much.
	reply, err := fourletter.Ask(pctx, m.addr, "ruok")
	switch {
	case errors.Is(err, fourletter.ErrRefused):
	case err != nil:
		return false, err.Error()
	case reply != "imok":
		return false, fmt.Sprintf("ruok answered %q", reply)
	}
	mode, err := memberMode(ctx, m.addr)
	if err != nil {
		return false, err.Error()
	}
	if !serving(mode) {
		return false, "srvr: not serving yet"
	}
	if m.secureAddr != "" {
		if err := probeTLS(ctx, m.cluster.tls, m.secureAddr); err != nil {
			return false, err.Error()
		}
	}
	if m.adminAddr != "" {
		if err := m.probeAdmin(ctx); err != nil {
			return false, err.Error()
		}
	}
	return true, ""
}

// exitError describes a process that exited while it should be starting.
func (m *Member) exitError(p *process) error {
	<-p.done
	run := m.thisRun()
	err := fmt.Errorf("%w: member %d (%s): %v", ErrExited, m.id, m.addr, p.err)
	var exit *exec.ExitError
	if strings.Contains(run, "Address already in use") ||
		(errors.As(p.err, &exit) && exit.ExitCode() == exitUnableToBindQuorumPort) {
		err = fmt.Errorf("%w: %w", ErrPortInUse, err)
	}
	return fmt.Errorf("%w\n--- last lines of %s ---\n%s", err, m.logPath, lastLines(run, errorLogLines))
}

// exitUnableToBindQuorumPort is ZooKeeper's ExitCode.UNABLE_TO_BIND_QUORUM_PORT:
// a member exits with it when its quorum or election port is taken.
const exitUnableToBindQuorumPort = 14

// tailSince returns the last lines of the latest run.
func (m *Member) tailSince() string { return lastLines(m.thisRun(), errorLogLines) }

// thisRun returns the end of the log from the latest run's start marker on,
// without the lines our own readiness probes cause: a port clash of an
// earlier run must not be blamed on this one, and the cause of a failure
// must not scroll away under "Processing ruok command" lines.
func (m *Member) thisRun() string {
	all := tailFile(m.logPath, 1<<20)
	if i := strings.LastIndex(all, "--- sandbox: "); i >= 0 {
		all = all[i:]
	}
	lines := strings.Split(all, "\n")
	kept := lines[:0]
	for _, l := range lines {
		if !strings.Contains(l, "Processing ruok command") && !strings.Contains(l, "Processing srvr command") {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}

// writeConfig writes the member's data directory, myid and zoo.cfg;
// extra lines (TLS) go before Options.ExtraConfig, which overrides them.
func (m *Member) writeConfig(clientPort int, servers, extra []string) error {
	o := m.cluster.opts
	data := filepath.Join(m.dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if err := os.WriteFile(filepath.Join(data, "myid"), []byte(strconv.Itoa(m.id)+"\n"), 0o644); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	words := o.FourLetterWords
	if words == "" {
		words = "*" // the console and the tests read cons, wchc, srvr, mntr
	}
	tick := o.TickTime.Milliseconds()
	ticks := func(d time.Duration, floor int64) int64 {
		return max(floor, (d.Milliseconds()+tick-1)/tick)
	}
	lines := []string{
		"# Generated by zklock's sandbox package for one test, bench or demo run.",
		"tickTime=" + strconv.FormatInt(tick, 10),
		"initLimit=" + strconv.FormatInt(ticks(initLimitTime, 10), 10),
		"syncLimit=" + strconv.FormatInt(ticks(syncLimitTime, 5), 10),
		"maxSessionTimeout=" + strconv.FormatInt(o.MaxSessionTimeout.Milliseconds(), 10),
		// Java properties treat a backslash as an escape.
		"dataDir=" + filepath.ToSlash(data),
		"clientPort=" + strconv.Itoa(clientPort),
		"clientPortAddress=127.0.0.1", // loopback only: a test server is nobody else's business
		// Every client of a test or benchmark comes from 127.0.0.1; the
		// default cap of 60 connections per address would refuse the 61st.
		"maxClientCnxns=0",
		"4lw.commands.whitelist=" + words,
		// Off unless Options.AdminServer (its lines come in extra): it
		// would take port 8080 on every interface.
		"admin.enableServer=false",
	}
	lines = append(lines, servers...)
	lines = append(lines, extra...)
	lines = append(lines, o.ExtraConfig...)
	cfg := strings.Join(lines, "\n") + "\n"
	if err := os.WriteFile(m.cfgPath, []byte(cfg), 0o644); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	return nil
}
