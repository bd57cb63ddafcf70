package cmd

// `zklock demo`: a real ZooKeeper on this machine (unless an ensemble is
// named), the demo's contending clients (package demo), and the console on
// them, for a room.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/zklock/zklock/config"
	"github.com/zklock/zklock/demo"
	"github.com/zklock/zklock/ensemble"
	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/sandbox"
)

func newDemoCmd(g *config.Flags) *cobra.Command {
	var port int
	cmd := &cobra.Command{
		Use:   "demo [--port N]",
		Short: "A real local ZooKeeper, contending clients and the console",
		Long: `demo starts a standalone ZooKeeper on 127.0.0.1 (unless --servers or
--context names an ensemble), clients contending for three locks under
` + demo.Root + ` (a busy mutex, a read/write lock, a quiet lock), workers
sharing the leases of a semaphore, schedulers electing a leader, a
Solr-like overseer election under ` + demo.SolrRoot + ` whose leader record lags
behind each failover (leader-mismatch, then cleared), and the console on
them, with the narration line on.

Presenter's keys: p pauses or resumes the clients, space steps one handoff,
x kills the session of the selected lock's holder (its node vanishes with
it), S makes a split-holders queue (a Kazoo-style client on a Curator
queue); on the Solr election, x kills the overseer and S keeps its leader
record stale. On quit the clients stop, and the local server and its data are
removed.

--port N puts the local ZooKeeper on 127.0.0.1:N (a free port otherwise),
so that a second tool can be pointed at the demo from a script:
zklock --servers 127.0.0.1:N ls /demo/locks/billing.`,
		Example: `  zklock demo
  zklock demo --port 2181 &  zklock --servers 127.0.0.1:2181 watch --root /demo/locks`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runDemo(cmd, g, port) },
	}
	cmd.Flags().IntVar(&port, "port", 0, "client port of the local ZooKeeper on 127.0.0.1 (default: a free one)")
	return cmd
}

func runDemo(cmd *cobra.Command, g *config.Flags, port int) error {
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	gf := *g
	// Only an explicit ensemble is used: a ZK_SERVERS left in the
	// environment must not put the demo's clients on production.
	external := gf.Servers != "" || gf.Context != ""
	if err := checkDemoPort(port, external); err != nil {
		return err
	}
	var cluster *sandbox.Cluster
	if !external {
		fmt.Fprintln(cmd.ErrOrStderr(), "zklock demo: starting a local ZooKeeper…")
		var err error
		cluster, err = sandbox.Start(ctx, sandbox.Options{TickTime: demo.TickTime, StartTimeout: demo.StartTimeout, ClientPort: port})
		if err != nil {
			if ctx.Err() != nil {
				return exitCode(exitSignal, errors.New("demo: interrupted while ZooKeeper was starting; nothing left behind"))
			}
			return fmt.Errorf("demo: %w", err)
		}
		defer func() {
			if err := cluster.Close(); err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "zklock demo: %s\n", oneLine(err.Error()))
				return
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "zklock demo: stopped ZooKeeper, removed %s\n", cluster.Dir())
		}()
		fmt.Fprintf(cmd.ErrOrStderr(), "zklock demo: ZooKeeper %s on %s, data in %s\n",
			cluster.Install().Version, cluster.ConnectString(), cluster.Dir())
		gf.Servers = cluster.ConnectString()
	}
	s, err := gf.Resolve(cmd.Flags().Changed)
	if err != nil {
		return err
	}
	// The demo states its semaphore's limit, as a context's semaphores:
	// would: Curator keeps it in its clients only.
	s.Semaphores = maps.Clone(s.Semaphores)
	if s.Semaphores == nil {
		s.Semaphores = map[string]int{}
	}
	maps.Copy(s.Semaphores, demo.Limits())
	d, err := startWorkload(ctx, s, !external)
	if err != nil {
		return err
	}
	runErr := runConsole(ctx, s, consoleConfig{
		Paths:     append(demo.Paths(), demo.SystemPaths()...),
		Roots:     []string{demo.Root},
		Title:     "zklock demo",
		Narration: true,
		Demo:      d,
		// Billing's nodes live a second or two: poll `cons`/`wchc` often
		// enough that most links show verified. A standalone sandbox with
		// a few dozen sessions answers in well under a millisecond.
		ServerViewEvery: demoServerViewEvery,
	})
	d.Stop()
	if ctx.Err() != nil && (runErr == nil || errors.Is(runErr, context.Canceled)) {
		// Stopped by a signal (Bubble Tea may see SIGTERM first and quit
		// cleanly, so runErr can be nil): everything is cleaned up, say so.
		return exitCode(exitSignal, errors.New("demo stopped by a signal; its clients and server are gone"))
	}
	return runErr
}

// checkDemoPort refuses a --port the local ZooKeeper cannot have, before
// it is started (a start takes seconds): out of range, given with an
// ensemble of the operator's, or taken by another process.
func checkDemoPort(port int, external bool) error {
	switch {
	case port == 0:
		return nil
	case port < 1 || port > 65535:
		return exitCode(exitUsage, fmt.Errorf("demo: --port %d: want a port from 1 to 65535", port))
	case external:
		return exitCode(exitUsage, errors.New("demo: --port is the local ZooKeeper's port; with --servers or --context the demo uses that ensemble"))
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return fmt.Errorf("demo: port %d on 127.0.0.1 is taken (%s): choose another --port, or leave it out for a free one", port, ensemble.ErrText(errors.Unwrap(err)))
	}
	return ln.Close()
}

// demoServerViewEvery: see runConsole's call above.
const demoServerViewEvery = 2 * time.Second

// startWorkload connects the demo's admin session and starts the
// contenders with the console's connection settings.
func startWorkload(ctx context.Context, s *config.Settings, sandboxed bool) (*demo.Workload, error) {
	admin, err := connect(ctx, s, lockops.WithSessionTimeout(demo.SessionTimeout))
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	cctx, cancel := context.WithTimeout(ctx, s.ConnectTimeout)
	defer cancel()
	return demo.Start(cctx, admin, demo.Options{Servers: s.Servers, SessionOptions: ensemble.SessionOptions(s), Sandboxed: sandboxed, Solr: true})
}
