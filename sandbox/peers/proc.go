package peers

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zklock/zklock/sandbox"
)

// Kind is a client library.
type Kind string

const (
	// Curator is Apache Curator 5 (Debian's libcurator-recipes-java).
	Curator Kind = "curator"
	// Kazoo is Kazoo 2.8 (Debian's python3-kazoo).
	Kazoo Kind = "kazoo"
)

// ParseKind reads "curator" or "kazoo".
func ParseKind(s string) (Kind, error) {
	switch k := Kind(strings.ToLower(s)); k {
	case Curator, Kazoo:
		return k, nil
	}
	return "", fmt.Errorf("%w: unknown client kind %q (curator or kazoo)", ErrBadArgument, s)
}

// LockKind is what a request asks for.
type LockKind string

const (
	// Mutex is Curator's InterProcessMutex, Kazoo's Lock.
	Mutex LockKind = "mutex"
	// Read is the read side of Curator's InterProcessReadWriteLock, Kazoo's ReadLock.
	Read LockKind = "read"
	// Write is the write side of Curator's InterProcessReadWriteLock, Kazoo's WriteLock.
	Write LockKind = "write"
	// Latch is Curator's LeaderLatch (Curator only): granted once the
	// participant has leadership, released by close(). Lost when the latch
	// takes leadership away (a suspended or lost connection).
	Latch LockKind = "latch"
	// Election is Kazoo's Election (Kazoo only): granted while run() calls
	// the participant as leader, released by returning (a Kazoo Lock
	// underneath).
	Election LockKind = "election"
	// SeqMutex is a mutex configured to see the other library's mutex
	// nodes, ordered by sequence: Curator's InterProcessMutex with a lock
	// driver sorting by the sequence suffix, Kazoo's Lock with
	// extra_lock_patterns=("-lock-",). Stock clients of the two libraries
	// ignore each other on one path; these wait on each other.
	SeqMutex LockKind = "seqmutex"
)

var (
	// ErrUnavailable means a client library or its runtime is not installed.
	ErrUnavailable = errors.New("peers: client library not installed")
	// ErrExited means the driver process is gone (killed, closed or crashed).
	ErrExited = errors.New("peers: driver process exited")
	// ErrFailed means the client library reported an error (its text follows).
	ErrFailed = errors.New("peers: client failed")
	// ErrNotHeld means a release of a request that does not hold.
	ErrNotHeld = errors.New("peers: lock not held")
	// ErrBadArgument means a request the drivers cannot carry.
	ErrBadArgument = errors.New("peers: bad argument")
)

// Defaults for Options.
const (
	// DefaultSessionTimeout is short enough for a test of expiry to wait
	// it out and long enough that a loaded 2-core machine does not expire
	// a healthy session (go-zookeeper, Curator and Kazoo all ping at a third
	// of it).
	DefaultSessionTimeout = 4 * time.Second
	// DefaultConnectTimeout bounds each session's first connection: a local
	// server answers in milliseconds, an ensemble mid-election in seconds.
	DefaultConnectTimeout = 15 * time.Second
	// closeWait bounds a clean Close before the driver is killed.
	closeWait = 10 * time.Second
)

// Options says how to start a driver.
type Options struct {
	// Servers are host:port addresses (a connect string split at commas).
	Servers []string
	// ClientServers, when set, gives each client its own servers instead
	// (len(ClientServers) == Sessions): a proxy per client, say, so that a
	// fault test cuts one contender while the others carry on.
	ClientServers [][]string
	// Sessions is the number of clients, each with its own session
	// (default 1). Clients are numbered from 0.
	Sessions int
	// SessionTimeout is what each client asks the servers for
	// (DefaultSessionTimeout when zero).
	SessionTimeout time.Duration
	// ConnectTimeout bounds each client's first connection
	// (DefaultConnectTimeout when zero).
	ConnectTimeout time.Duration
	// JVMOptions are added to the Curator driver's JVM options (after
	// defaultJVMOptions, so they win): benchmarks may want a bigger heap.
	JVMOptions []string
	// TLS, when set, makes every client connect over TLS (tls.go).
	TLS *TLS
	// SASL, when set, makes every client authenticate by SASL DIGEST-MD5
	// (sasl.go).
	SASL *SASL
}

func (c Options) withDefaults() (Options, error) {
	if c.Sessions == 0 {
		c.Sessions = max(1, len(c.ClientServers))
	}
	lists := [][]string{c.Servers}
	if c.ClientServers != nil {
		if len(c.ClientServers) != c.Sessions {
			return c, fmt.Errorf("%w: %d ClientServers for %d sessions", ErrBadArgument, len(c.ClientServers), c.Sessions)
		}
		lists = c.ClientServers
	}
	for _, l := range lists {
		if len(l) == 0 {
			return c, fmt.Errorf("%w: no servers", ErrBadArgument)
		}
		for _, s := range l {
			if s == "" || strings.ContainsAny(s, ",| \t\n") {
				return c, fmt.Errorf("%w: server %q", ErrBadArgument, s)
			}
		}
	}
	if c.Sessions < 0 {
		return c, fmt.Errorf("%w: %d sessions", ErrBadArgument, c.Sessions)
	}
	if c.SessionTimeout <= 0 {
		c.SessionTimeout = DefaultSessionTimeout
	}
	if c.ConnectTimeout <= 0 {
		c.ConnectTimeout = DefaultConnectTimeout
	}
	return c, nil
}

// Proc is one running driver process and its sessions. Its methods are
// safe for concurrent use.
type Proc struct {
	kind   Kind
	cfg    Options
	stderr *tail
	nextID atomic.Uint64

	wmu   sync.Mutex // one command line at a time
	stdin io.WriteCloser

	process *os.Process
	ready   chan struct{} // closed at "ready"
	exited  chan struct{} // closed once the process is reaped
	exit    error         // the process's exit status, set before exited closes

	mu       sync.Mutex
	sessions []int64
	holds    map[string]*Hold
	loops    map[string]*loopRun
	events   []PeerEvent
	changed  chan struct{} // closed and replaced at every event
	killed   bool
}

// Start starts a driver of kind with cfg.Sessions clients and returns once
// every client has a session. ctx bounds the start only (compiling the
// Curator driver the first time, starting the runtime, connecting); the
// process lives until Close or Kill. The errors wrap ErrUnavailable when a
// library is missing, and carry the driver's last stderr lines when it dies.
func Start(ctx context.Context, kind Kind, cfg Options) (*Proc, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	cmd, err := command(ctx, kind, cfg)
	if err != nil {
		return nil, err
	}
	p := &Proc{
		kind:     kind,
		cfg:      cfg,
		stderr:   newTail(64 << 10),
		ready:    make(chan struct{}),
		exited:   make(chan struct{}),
		sessions: make([]int64, cfg.Sessions),
		holds:    map[string]*Hold{},
		loops:    map[string]*loopRun{},
		changed:  make(chan struct{}),
	}
	cmd.Stderr = p.stderr
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("peers: start %s: %w", kind, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("peers: start %s: %w", kind, err)
	}
	if err := sandbox.StartChild(cmd); err != nil {
		return nil, fmt.Errorf("peers: start %s: %w", kind, err)
	}
	p.process = cmd.Process
	go func() {
		p.read(stdout)
		// Wait only after stdout is drained (os/exec's rule for pipes).
		p.exit = cmd.Wait()
		p.finish()
		close(p.exited)
	}()
	select {
	case <-p.ready:
		return p, nil
	case <-p.exited:
		return nil, withTail(fmt.Errorf("peers: %s driver exited at start (%v): %w", kind, p.exit, ErrExited), p.stderr.String())
	case <-ctx.Done():
		_ = p.Kill()
		return nil, withTail(fmt.Errorf("peers: %s driver: no session for every client (%d) with %v: %w",
			kind, cfg.Sessions, cfg.Servers, ctx.Err()), p.stderr.String())
	}
}

// Request asks client to acquire kind on path and returns at once; the
// driver acquires in the background (Hold.Acquired, Hold.Wait).
func (p *Proc) Request(client int, path string, kind LockKind) (*Hold, error) {
	return request(p, client, path, kind)
}

// Acquire asks client to acquire kind on path and waits until it holds.
// If ctx ends first, the request is cancelled (the client deletes its
// node, or releases a lock granted meanwhile) and ctx's error returned.
func (p *Proc) Acquire(ctx context.Context, client int, path string, kind LockKind) (*Hold, error) {
	return acquire(ctx, p, client, path, kind)
}

// Loop runs spec and returns every cycle once each client has stopped.
// When ctx ends first, the clients are told to stop (a waiting acquire is
// cancelled, a hold cut short and released) and Loop returns the cycles
// so far with ctx's error. Several loops may run at once on different
// clients of one Proc.
func (p *Proc) Loop(ctx context.Context, spec LoopSpec) ([]Cycle, error) {
	return runLoop(ctx, p, spec)
}

// Kind is the client library this process runs.
func (p *Proc) Kind() Kind { return p.kind }

// Sessions are the clients' current session ids, by client number. A
// client whose session expired and was replaced shows the new one.
func (p *Proc) Sessions() []int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]int64(nil), p.sessions...)
}

// Session is client's current session id.
func (p *Proc) Session(client int) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if client < 0 || client >= len(p.sessions) {
		return 0
	}
	return p.sessions[client]
}

// Done is closed once the driver process has exited.
func (p *Proc) Done() <-chan struct{} { return p.exited }

// LogTail is the last n lines the driver wrote to stderr (the client
// library's warnings, a Java or Python traceback).
func (p *Proc) LogTail(n int) string { return p.stderr.Last(n) }

// Kill sends SIGKILL and waits until the process is gone. Its sessions are
// not closed: the servers expire them after their timeout, deleting their
// ephemeral nodes, as when a client machine dies.
func (p *Proc) Kill() error {
	p.mu.Lock()
	p.killed = true
	p.mu.Unlock()
	if err := p.process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("peers: kill %s driver: %w", p.kind, err)
	}
	select {
	case <-p.exited:
		return nil
	case <-time.After(closeWait):
		return fmt.Errorf("peers: %s driver (pid %d) still running %v after SIGKILL", p.kind, p.process.Pid, closeWait)
	}
}

// Close closes every session cleanly (the servers delete their nodes at
// once) and waits for the process to exit; after closeWait it kills it.
// Close after Kill, or twice, is harmless.
func (p *Proc) Close() error {
	select {
	case <-p.exited:
		return nil
	default:
	}
	_ = p.send("quit")
	p.wmu.Lock()
	_ = p.stdin.Close()
	p.wmu.Unlock()
	select {
	case <-p.exited:
		return nil
	case <-time.After(closeWait):
	}
	if err := p.Kill(); err != nil {
		return err
	}
	return fmt.Errorf("peers: %s driver did not exit within %v of quit; killed", p.kind, closeWait)
}

// CloseSession closes client's session cleanly: its nodes go at once, its
// held locks with them. It returns once the driver says so.
func (p *Proc) CloseSession(ctx context.Context, client int) error {
	if err := p.checkClient(client); err != nil {
		return err
	}
	since := p.eventCount()
	if err := p.send("close " + strconv.Itoa(client)); err != nil {
		return err
	}
	_, err := p.waitEventFrom(ctx, since, func(e PeerEvent) bool { return e.Type == EventClosed && e.Client == client })
	return err
}

// send writes one command line.
func (p *Proc) send(line string) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		return withTail(fmt.Errorf("peers: %s driver: %w (%v)", p.kind, ErrExited, err), p.stderr.Last(20))
	}
	return nil
}

func (p *Proc) checkClient(client int) error {
	if client < 0 || client >= p.cfg.Sessions {
		return fmt.Errorf("%w: client %d of %d", ErrBadArgument, client, p.cfg.Sessions)
	}
	return nil
}

// checkPath refuses what the line protocol cannot carry.
func checkPath(path string) error {
	if !strings.HasPrefix(path, "/") || strings.ContainsAny(path, " \t\r\n") {
		return fmt.Errorf("%w: lock path %q (absolute, no white space)", ErrBadArgument, path)
	}
	return nil
}

func checkLockKind(k LockKind) error {
	switch k {
	case Mutex, Read, Write, Latch, Election, SeqMutex:
		return nil
	}
	if _, ok := k.SemaphoreLimit(); ok {
		return nil
	}
	return fmt.Errorf("%w: lock kind %q (mutex, read, write, latch, election, seqmutex or semaphore:N)", ErrBadArgument, k)
}

// exitErr is what requests still open when the process exits get.
func (p *Proc) exitErr() error {
	p.mu.Lock()
	killed := p.killed
	p.mu.Unlock()
	if killed {
		return fmt.Errorf("peers: %s driver killed: %w", p.kind, ErrExited)
	}
	return withTail(fmt.Errorf("peers: %s driver exited (%v): %w", p.kind, p.exit, ErrExited), p.stderr.Last(20))
}

// finish fails every request and loop still open once the process is gone.
func (p *Proc) finish() {
	err := p.exitErr()
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, h := range p.holds {
		h.settleLocked(err)
		delete(p.holds, id)
	}
	for id, l := range p.loops {
		l.err = err
		close(l.done)
		delete(p.loops, id)
	}
	p.broadcastLocked()
}

// read handles the driver's lines until its stdout closes.
func (p *Proc) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		after, err := p.handle(line)
		if after != nil {
			after()
		}
		if err != nil {
			// A line this package does not understand is a bug on one side
			// of the protocol; keep it where a failing test will show it.
			_, _ = fmt.Fprintf(p.stderr, "peers: %v: %q\n", err, line)
		}
	}
}

// handle applies one line; after, when not nil, is to be called once p.mu
// is released (a loop's OnCycle, which may call back into the Proc).
func (p *Proc) handle(line string) (after func(), err error) {
	f := strings.SplitN(line, " ", 2)
	rest := ""
	if len(f) == 2 {
		rest = f[1]
	}
	arrived := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	switch f[0] {
	case lineSession, lineReady, lineState, lineClosed:
		return nil, p.sessionLineLocked(f[0], rest, arrived)
	case lineAcquired, lineCancelled, lineFailed, lineReleased, lineLost:
		return nil, p.holdLineLocked(f[0], rest)
	case lineCycle, lineLoopDone:
		return p.loopLineLocked(f[0], rest)
	default:
		return nil, fmt.Errorf("unknown line")
	}
}

// sessionLineLocked handles a line of kind session, ready, state or
// closed (rest: what follows the kind; arrived: when it was read).
func (p *Proc) sessionLineLocked(kind, rest string, arrived time.Time) error {
	switch kind {
	case lineSession:
		var c int
		var hexID string
		if _, err := fmt.Sscan(rest, &c, &hexID); err != nil || c < 0 || c >= len(p.sessions) {
			return fmt.Errorf("bad session line")
		}
		id, err := strconv.ParseUint(hexID, 16, 64)
		if err != nil {
			return err
		}
		p.sessions[c] = int64(id)
		p.addEventLocked(PeerEvent{Type: EventSession, Client: c, Session: int64(id), Time: arrived})
	case lineReady:
		select {
		case <-p.ready: // a second "ready" would be a driver bug; never panic on it
		default:
			close(p.ready)
		}
	case lineState:
		var c int
		var st string
		var t int64
		if _, err := fmt.Sscan(rest, &c, &st, &t); err != nil {
			return err
		}
		p.addEventLocked(PeerEvent{Type: EventState, Client: c, State: ConnState(st), Time: unixNano(t)})
	case lineClosed:
		c, err := strconv.Atoi(rest)
		if err != nil {
			return err
		}
		p.addEventLocked(PeerEvent{Type: EventClosed, Client: c, Time: arrived})
	}
	return nil
}

// holdLineLocked handles a line about a hold: acquired, cancelled,
// failed, released or lost.
func (p *Proc) holdLineLocked(kind, rest string) error {
	switch kind {
	case lineAcquired:
		var id, node string
		var treq, tacq int64
		if _, err := fmt.Sscan(rest, &id, &node, &treq, &tacq); err != nil {
			return err
		}
		if h := p.holds[id]; h != nil {
			h.acquiredLocked(dash(node), unixNano(treq), unixNano(tacq))
		}
	case lineCancelled:
		if h := p.holds[rest]; h != nil {
			h.settleLocked(fmt.Errorf("peers: request %s cancelled: %w", rest, context.Canceled))
			delete(p.holds, rest)
		}
	case lineFailed:
		id, text, _ := strings.Cut(rest, " ")
		if h := p.holds[id]; h != nil {
			h.settleLocked(fmt.Errorf("%w: %s", ErrFailed, text))
			delete(p.holds, id)
		}
	case lineReleased:
		var id string
		var tcall, tret int64
		if _, err := fmt.Sscan(rest, &id, &tcall, &tret); err != nil {
			return err
		}
		if h := p.holds[id]; h != nil {
			h.releasedLocked(unixNano(tcall), unixNano(tret))
			delete(p.holds, id)
		}
	case lineLost:
		var id string
		var t int64
		if _, err := fmt.Sscan(rest, &id, &t); err != nil {
			return err
		}
		if h := p.holds[id]; h != nil {
			h.lostLocked(unixNano(t))
			p.addEventLocked(PeerEvent{Type: EventLost, Client: h.client, Hold: h, Time: unixNano(t)})
		}
	}
	return nil
}

// loopLineLocked handles a line about a loop: a cycle done (after calls
// the loop's onCycle, outside the lock) or the loop ended.
func (p *Proc) loopLineLocked(kind, rest string) (after func(), err error) {
	switch kind {
	case lineCycle:
		c, loop, err := parseCycle(rest)
		if err != nil {
			return nil, err
		}
		if l := p.loops[loop]; l != nil {
			if !l.discard {
				l.cycles = append(l.cycles, c)
			}
			if f := l.onCycle; f != nil {
				return func() { f(c) }, nil
			}
		}
	case lineLoopDone:
		if l := p.loops[rest]; l != nil {
			close(l.done)
			delete(p.loops, rest)
		}
	}
	return nil, nil
}

// unixNano reads a driver's time; 0 is "none".
func unixNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

func dash(s string) string {
	if s == "-" {
		return ""
	}
	return s
}

// Pause stops the driver process with SIGSTOP, every client in it at once,
// as a long GC pause of the JVM or a stalled VM would: its sessions send
// no pings, so the servers expire them after their timeout while the
// clients, frozen, still believe they hold. It returns once every thread
// has stopped (Linux). Resume lets it go on.
func (p *Proc) Pause() error {
	if err := sandbox.PauseProcess(p.process); err != nil {
		return fmt.Errorf("peers: %s driver: %w", p.kind, err)
	}
	return nil
}

// Resume continues a paused driver (SIGCONT). Its clients then learn, each
// by its own library's means, that their sessions are gone.
func (p *Proc) Resume() error {
	if err := sandbox.ResumeProcess(p.process); err != nil {
		return fmt.Errorf("peers: %s driver: %w", p.kind, err)
	}
	return nil
}
