package cmd

// `zklock demo`: a real ZooKeeper on this machine (unless an ensemble is
// named), the demo's contending clients (package demo), and the console on
// them, for a room.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/zklock/zklock/config"
	"github.com/zklock/zklock/demo"
	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/sandbox"

	"github.com/spf13/cobra"
)

func newDemoCmd(g *config.Flags) *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "A real local ZooKeeper, contending clients and the console",
		Long: `demo starts a standalone ZooKeeper on 127.0.0.1 (unless --servers or
--context names an ensemble), clients contending for three locks under
` + demo.Root + ` (a busy mutex, a read/write lock, a quiet lock), workers
sharing the leases of a semaphore, schedulers electing a leader, and the
console on them, with the narration line on.

Presenter's keys: p pauses or resumes the clients, space steps one handoff,
x kills the session of the selected lock's holder (its node vanishes with
it), S makes a split-holders queue (a Kazoo-style client on a Curator
queue). On quit the clients stop, and the local server and its data are
removed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runDemo(cmd, g) },
	}
}

func runDemo(cmd *cobra.Command, g *config.Flags) error {
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	gf := *g
	// Only an explicit ensemble is used: a ZK_SERVERS left in the
	// environment must not put the demo's clients on production.
	external := gf.Servers != "" || gf.Context != ""
	var cluster *sandbox.Cluster
	if !external {
		fmt.Fprintln(cmd.ErrOrStderr(), "zklock demo: starting a local ZooKeeper…")
		var err error
		cluster, err = sandbox.Start(ctx, sandbox.Options{TickTime: demo.TickTime, StartTimeout: demo.StartTimeout})
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
		Paths:     demo.Paths(),
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
	return demo.Start(cctx, admin, demo.Config{Servers: s.Servers, SessionOptions: sessionOptions(s), Sandboxed: sandboxed})
}
