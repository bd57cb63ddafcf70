package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

var (
	// ErrOptions means Options hold an impossible value.
	ErrOptions = errors.New("sandbox: bad options")
	// ErrExited means a server process exited while it was expected to start.
	ErrExited = errors.New("sandbox: server exited")
	// ErrPortInUse means a server could not bind one of its ports: another
	// process took it between the pick and the bind.
	ErrPortInUse = errors.New("sandbox: port already in use")
	// ErrNotReady means a server did not serve clients within the time allowed.
	ErrNotReady = errors.New("sandbox: server not ready")
	// ErrNoLeader means no member reported itself leader (or standalone) in time.
	ErrNoLeader = errors.New("sandbox: no leader")
	// ErrNotRunning means the member has no live process.
	ErrNotRunning = errors.New("sandbox: member not running")
	// ErrStuck means a process survived SIGKILL for longer than it should.
	ErrStuck = errors.New("sandbox: process did not exit")
	// ErrClosed means the cluster was closed.
	ErrClosed = errors.New("sandbox: cluster closed")
)

const (
	defaultTickTime     = 2 * time.Second // ZooKeeper's own default
	defaultStartTimeout = 30 * time.Second
	// minMaxSessionTimeout keeps sessions of a few seconds possible with a
	// 100 ms tick, where ZooKeeper's default cap (20 ticks) would be 2 s.
	minMaxSessionTimeout = 60 * time.Second
	// The follower limits are counted in ticks. These time floors keep a
	// short tick from making a loaded 2-core machine miss them: initial
	// sync within 5 s, a follower heard from within 2 s. At the 2 s default
	// tick the tick floors (10 and 5, ZooKeeper's sample values) apply.
	initLimitTime = 5 * time.Second
	syncLimitTime = 2 * time.Second
)

// Options configure Start. The zero value is one standalone server with
// ZooKeeper's default tick.
type Options struct {
	// Members is the number of servers: 0 or 1 for a standalone server, 3
	// (or any other count above 1) for an ensemble on one machine.
	Members int
	// TickTime is ZooKeeper's tick, 2 s by default. Session timeouts are
	// bounded below by 2 ticks, so tests of session expiry use a short tick
	// such as 100 ms.
	TickTime time.Duration
	// MaxSessionTimeout is the longest session a client may negotiate. The
	// default is the larger of ZooKeeper's own (20 ticks) and 60 s.
	MaxSessionTimeout time.Duration
	// StartTimeout bounds each start of a member (and of the whole cluster),
	// 30 s by default.
	StartTimeout time.Duration
	// Dir is the parent of the cluster's temporary directory, os.TempDir()
	// by default.
	Dir string
	// Stdout, when set, receives a copy of every member's log, each line
	// prefixed with "zkN| ". The log files are written regardless.
	Stdout io.Writer
	// ExtraConfig lines ("key=value") are appended to every member's
	// zoo.cfg after the generated ones, so they override them.
	ExtraConfig []string
	// JVMOptions are appended after the defaults, so they override them.
	// The defaults favour a fast start (C1 JIT only, serial GC, 256 MB
	// heap); a benchmark that wants the server at full speed can pass
	// "-XX:TieredStopAtLevel=4".
	JVMOptions []string
	// TLS, when set, gives every member a secureClientPort (TLS through
	// Netty) beside its plain client port, and makes a CA and certificates
	// for it (Cluster.TLS, tls.go).
	TLS *TLSOptions
	// ClientPort is a standalone server's client port, for a caller that
	// must know it in advance (zklock demo --port); 0 picks a free one.
	// A port in use fails Start with ErrPortInUse, without a retry.
	ClientPort int
	// SASL, when set, makes every member authenticate clients by SASL
	// (sasl.go).
	SASL *SASLOptions
	// FourLetterWords is every member's 4lw.commands.whitelist: "" allows
	// every word ("*"), the sandbox's default, on which the console's
	// tests rely; ZooKeeperDefaultWords is ZooKeeper's own default, as
	// production ensembles run. The readiness wait needs only srvr, which
	// ZooKeeper always allows.
	FourLetterWords string
	// AdminServer, when set, turns on every member's AdminServer on a
	// free loopback port (admin.go).
	AdminServer *AdminOptions

	// pickPorts replaces freePorts in tests that need a port clash.
	pickPorts func(n int) ([]int, error)
}

func (o Options) withDefaults() (Options, error) {
	if o.Members < 0 {
		return o, fmt.Errorf("%w: Members %d", ErrOptions, o.Members)
	}
	if o.Members == 0 {
		o.Members = 1
	}
	if o.TickTime == 0 {
		o.TickTime = defaultTickTime
	}
	if o.TickTime < time.Millisecond {
		return o, fmt.Errorf("%w: TickTime %v (at least 1ms)", ErrOptions, o.TickTime)
	}
	if o.MaxSessionTimeout == 0 {
		o.MaxSessionTimeout = max(20*o.TickTime, minMaxSessionTimeout)
	}
	if o.MaxSessionTimeout < 2*o.TickTime {
		return o, fmt.Errorf("%w: MaxSessionTimeout %v is below the minimum session timeout, 2 ticks (%v)",
			ErrOptions, o.MaxSessionTimeout, 2*o.TickTime)
	}
	if o.AdminServer != nil && o.AdminServer.TLS && o.TLS == nil {
		return o, fmt.Errorf("%w: AdminServer over TLS needs Options.TLS (its certificates)", ErrOptions)
	}
	if strings.ContainsAny(o.FourLetterWords, "\n\r") {
		return o, fmt.Errorf("%w: FourLetterWords %q", ErrOptions, o.FourLetterWords)
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = defaultStartTimeout
	}
	if o.Dir == "" {
		o.Dir = os.TempDir()
	}
	if o.pickPorts == nil {
		o.pickPorts = freePorts
	}
	if o.ClientPort != 0 {
		if o.Members != 1 || o.ClientPort < 1 || o.ClientPort > 65535 {
			return o, fmt.Errorf("%w: ClientPort %d (a port 1 to 65535, for a standalone server)", ErrOptions, o.ClientPort)
		}
		pick := o.pickPorts
		o.pickPorts = func(n int) ([]int, error) {
			ports, err := pick(n)
			if err == nil {
				ports[0] = o.ClientPort // the first is the client port
			}
			return ports, err
		}
	}
	return o, nil
}

// Cluster is a standalone ZooKeeper server or an ensemble, each member a
// child process of this one with its own temporary directory.
type Cluster struct {
	inst    Install
	opts    Options
	root    string
	members []*Member
	tls     *TLSFiles // nil without Options.TLS
	saslJVM []string  // JVM options of Options.SASL

	outMu     sync.Mutex // keeps lines whole in Options.Stdout
	closed    atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

// Start finds Java and ZooKeeper (see Find), starts opts.Members servers on
// free loopback ports, and returns once every member answers ruok with imok
// and srvr with a serving mode (leader, follower or standalone). Waiting is
// bounded by ctx and opts.StartTimeout; ctx does not limit the servers'
// lifetime, Close does. When a server cannot bind a port another process
// took in the meantime, Start tries once more on new ports. Any other
// failure, a member exiting at start included, returns an error with the
// last lines of that member's log and leaves nothing behind.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	inst, err := Find()
	if err != nil {
		return nil, err
	}
	return startWith(ctx, inst, opts)
}

func startWith(ctx context.Context, inst Install, opts Options) (*Cluster, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	c, err := startOnce(ctx, inst, opts)
	if err == nil || !errors.Is(err, ErrPortInUse) || ctx.Err() != nil || opts.ClientPort != 0 {
		return c, err
	}
	c, err2 := startOnce(ctx, inst, opts)
	if err2 != nil {
		// The first error's log lines would only repeat the second's.
		first, _, _ := strings.Cut(err.Error(), "\n")
		return nil, fmt.Errorf("%w\n(the first attempt, on other ports, failed too: %s)", err2, first)
	}
	return c, nil
}

func startOnce(ctx context.Context, inst Install, opts Options) (*Cluster, error) {
	n := opts.Members
	perMember := 1
	if n > 1 {
		perMember = 3 // client, quorum, election
	}
	secure := 0 // index of the first secure client port, 0 for none
	if opts.TLS != nil {
		secure = n * perMember
		perMember++
	}
	admin := 0 // index of the first AdminServer port, 0 for none
	if opts.AdminServer != nil {
		admin = n * perMember
		perMember++
	}
	ports, err := opts.pickPorts(n * perMember)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	root, err := os.MkdirTemp(opts.Dir, "zklock-sandbox-")
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	c := &Cluster{inst: inst, opts: opts, root: root}
	if opts.TLS != nil {
		if c.tls, err = WriteTLSFiles(filepath.Join(root, "tls"), *opts.TLS); err != nil {
			return nil, errors.Join(err, c.Close())
		}
		c.inst.ClassPath = tlsClassPath(c.inst.ClassPath)
	}
	if opts.AdminServer != nil {
		c.inst.ClassPath = adminClassPath(c.inst.ClassPath)
	}
	if opts.SASL != nil {
		if c.saslJVM, err = writeSASL(root, *opts.SASL); err != nil {
			return nil, errors.Join(err, c.Close())
		}
	}
	var servers []string
	if n > 1 {
		for i := range n {
			servers = append(servers, fmt.Sprintf("server.%d=127.0.0.1:%d:%d", i+1, ports[n+2*i], ports[n+2*i+1]))
		}
	}
	for i := range n {
		if err := c.addMember(i, ports, secure, admin, servers); err != nil {
			return nil, errors.Join(err, c.Close())
		}
	}

	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()
	procs := make([]*process, n)
	for i, m := range c.members {
		if procs[i], err = m.launch(); err != nil {
			return nil, errors.Join(err, c.Close())
		}
	}
	if err := c.waitAllServing(ctx, procs); err != nil {
		return nil, errors.Join(err, c.Close())
	}
	return c, nil
}

// addMember makes member i of c and writes its zoo.cfg: its client port
// is ports[i], its secure and AdminServer ports ports[secure+i] and
// ports[admin+i] when the options ask for them (secure, admin: 0
// otherwise), servers the ensemble's server lines.
func (c *Cluster) addMember(i int, ports []int, secure, admin int, servers []string) error {
	opts := c.opts
	m := &Member{
		cluster: c,
		index:   i,
		id:      i + 1,
		dir:     filepath.Join(c.root, "zk"+strconv.Itoa(i+1)),
		addr:    "127.0.0.1:" + strconv.Itoa(ports[i]),
	}
	m.cfgPath = filepath.Join(m.dir, "zoo.cfg")
	m.logPath = filepath.Join(m.dir, "server.log")
	var extra []string
	if c.tls != nil {
		m.secureAddr = "127.0.0.1:" + strconv.Itoa(ports[secure+i])
		extra = tlsConfigLines(c.tls, *opts.TLS, ports[secure+i])
	}
	if opts.AdminServer != nil {
		m.adminAddr = "127.0.0.1:" + strconv.Itoa(ports[admin+i])
		extra = append(extra, adminConfigLines(opts.AdminServer, c.tls, ports[admin+i])...)
	}
	c.members = append(c.members, m)
	return m.writeConfig(ports[i], servers, extra)
}

// waitAllServing waits for every member, so that an ensemble, which serves
// only once a quorum is up, is waited for as a whole; a member that exits
// fails the wait at once instead of after the timeout.
func (c *Cluster) waitAllServing(ctx context.Context, procs []*process) error {
	errs := make(chan error, len(procs))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for i, m := range c.members {
		go func() { errs <- m.waitServing(ctx, procs[i]) }()
	}
	var first error
	for range procs {
		if err := <-errs; err != nil && first == nil {
			first = err
			cancel() // the others would only report the same cancellation
		}
	}
	return first
}

// Servers returns each member's client address, "127.0.0.1:port", in member
// order.
func (c *Cluster) Servers() []string {
	out := make([]string, len(c.members))
	for i, m := range c.members {
		out[i] = m.addr
	}
	return out
}

// ConnectString is Servers joined with commas, as ZooKeeper clients take it.
func (c *Cluster) ConnectString() string { return strings.Join(c.Servers(), ",") }

// SecureServers returns each member's TLS client address in member order,
// nil without Options.TLS.
func (c *Cluster) SecureServers() []string {
	if c.tls == nil {
		return nil
	}
	out := make([]string, len(c.members))
	for i, m := range c.members {
		out[i] = m.secureAddr
	}
	return out
}

// TLS is the CA and certificates the cluster made, nil without
// Options.TLS.
func (c *Cluster) TLS() *TLSFiles { return c.tls }

// Members returns the members in order; Members()[i].ID() is i+1.
func (c *Cluster) Members() []*Member { return append([]*Member(nil), c.members...) }

// Dir is the cluster's temporary directory, removed by Close.
func (c *Cluster) Dir() string { return c.root }

// Install is the Java and ZooKeeper the cluster runs.
func (c *Cluster) Install() Install { return c.inst }

// Leader returns the index (into Members) of the member whose srvr says
// leader, or standalone. While there is none, during an election, it asks
// again until ctx ends. Members that are stopped or paused are skipped.
func (c *Cluster) Leader(ctx context.Context) (int, error) {
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		modes, live := c.modes(ctx)
		for i, mode := range modes {
			if mode == "leader" || mode == "standalone" {
				return i, nil
			}
		}
		if live == 0 {
			return -1, fmt.Errorf("%w: no member is running", ErrNoLeader)
		}
		select {
		case <-ctx.Done():
			return -1, fmt.Errorf("%w: %w (modes: %s)", ErrNoLeader, ctx.Err(), strings.Join(modes, ", "))
		case <-tick.C:
		}
	}
}

// WaitReady waits until every running, unpaused member serves clients and
// one of them leads, bounded by ctx.
func (c *Cluster) WaitReady(ctx context.Context) error {
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		modes, live := c.modes(ctx)
		ready, leader := 0, false
		for _, mode := range modes {
			if serving(mode) {
				ready++
			}
			leader = leader || mode == "leader" || mode == "standalone"
		}
		if live > 0 && ready == live && leader {
			return nil
		}
		if live == 0 {
			return fmt.Errorf("%w: no member is running", ErrNotReady)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %w (modes: %s)", ErrNotReady, ctx.Err(), strings.Join(modes, ", "))
		case <-tick.C:
		}
	}
}

// modes asks every running, unpaused member for its mode, all at once so
// that one slow member does not delay the others. A member skipped or not
// answering has mode "down", "paused" or "" (not serving).
func (c *Cluster) modes(ctx context.Context) (modes []string, live int) {
	modes = make([]string, len(c.members))
	var wg sync.WaitGroup
	for i, m := range c.members {
		switch {
		case !m.Running():
			modes[i] = "down"
		case m.Paused():
			modes[i] = "paused"
		default:
			live++
			wg.Go(func() {
				mode, err := memberMode(ctx, m.addr)
				if err != nil {
					mode = "unreachable"
				}
				modes[i] = mode
			})
		}
	}
	wg.Wait()
	for i, mode := range modes {
		if mode == "" {
			modes[i] = "not serving"
		}
	}
	return modes, live
}

// LogTail returns the last n lines of every member's log, each block
// labelled with the member and its log file.
func (c *Cluster) LogTail(n int) string {
	var b strings.Builder
	for _, m := range c.members {
		fmt.Fprintf(&b, "=== zk%d %s (%s) ===\n", m.id, m.addr, m.logPath)
		if tail := m.LogTail(n); tail != "" {
			b.WriteString(tail)
			b.WriteString("\n")
		}
	}
	return b.String()
}

// Close kills every member (SIGKILL: the data is thrown away, so a clean
// shutdown buys nothing) and removes the cluster's temporary directory.
// Calling it again returns the first call's result.
func (c *Cluster) Close() error {
	c.closeOnce.Do(func() {
		c.closed.Store(true)
		var errs []error
		for _, m := range c.members {
			errs = append(errs, m.Kill())
		}
		if err := os.RemoveAll(c.root); err != nil {
			errs = append(errs, fmt.Errorf("sandbox: %w", err))
		}
		c.closeErr = errors.Join(errs...)
	})
	return c.closeErr
}
