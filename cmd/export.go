package cmd

// `zklock export`: Prometheus metrics of the live model, read from the
// latest snapshot at each scrape (package exporter).

import (
	"errors"
	"fmt"
	"net"

	"github.com/spf13/cobra"

	"github.com/zklock/zklock/config"
	"github.com/zklock/zklock/exporter"
	"github.com/zklock/zklock/zkview"
)

func newExportCmd(g *config.Flags) *cobra.Command {
	var (
		lf     liveFlags
		listen string
		top    int
	)
	cmd := &cobra.Command{
		Use:   "export --listen ADDR [--root PATH] [PATH...]",
		Short: "Serve Prometheus metrics of the lock queues",
		Long: `export watches the lock parents (and those found below --root) and
serves their metrics at http://ADDR/metrics for Prometheus: per lock
parent the holders, waiters, oldest wait, current hold, handoffs and
warnings by code; the connection's state and the age of the servers'
four-letter-word view. Metric names are in docs/metrics.md; alert rules
with their runbooks in deploy/prometheus/ and docs/runbooks.md; a
systemd unit in deploy/systemd/.

Labels stay bounded: paths come only from the watched paths and roots,
and per-path series only for the --top lock parents of each scrape:
those with a failing warning (split-holders, deadlock, over-limit,
missing-watch) first, then those with waiters by their oldest wait,
then the longest held. Aggregate series count every parent (zklock_parents,
zklock_parents_held, zklock_parents_waiting, zklock_holders,
zklock_waiters, zklock_parents_warned, zklock_oldest_wait_since_timestamp_seconds);
zklock_export_dropped_parents says how many had no series of their own.
Until every path was read once,
zklock_first_picture_complete is 0 and the lock parents served are a
partial picture. Times are Unix timestamps (..._timestamp_seconds).`,
		Example: `  zklock export --listen :9464 --root /locks
  curl -s localhost:9464/metrics | grep zklock_lock_waiters`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if listen == "" {
				return errors.New("export: give --listen ADDR (for example :9464)")
			}
			if top <= 0 {
				return fmt.Errorf("--top %d: want 1 or more", top)
			}
			// Listen before connecting: a busy port is said at once.
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return fmt.Errorf("export: %w", err)
			}
			defer ln.Close()
			ctx, stop := signalContext(cmd.Context())
			defer stop()
			lm, err := startLive(ctx, cmd, g, &lf, args)
			if err != nil {
				return err
			}
			defer lm.Close()
			c := exporter.New(lm.w.Snapshot, exportConfig(top))
			go c.Follow(ctx, lm.w.Updates())
			fmt.Fprintf(cmd.OutOrStdout(), "zklock export: serving http://%s/metrics\n", ln.Addr())
			return exporter.Serve(ctx, ln, c)
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "", "address to serve /metrics on (host:port, :port)")
	cmd.Flags().IntVar(&top, "top", exporter.DefaultTop, "per-path series for this many lock parents per scrape, the longest waiting first (aggregates cover all)")
	// The old name of --top, kept so that existing units still start.
	cmd.Flags().IntVar(&top, "max-series-parents", exporter.DefaultTop, "")
	_ = cmd.Flags().MarkDeprecated("max-series-parents", "use --top")
	// Discovery is the model's: the aggregates count every parent found,
	// the top ones get series of their own.
	lf.register(cmd, zkview.DefaultMaxParents)
	return cmd
}

// exportConfig is what the collector serves besides the model: this
// binary's build and what fails `ls --check`.
func exportConfig(top int) exporter.Config {
	b := buildInfo()
	return exporter.Config{Top: top, Build: exporter.Build{Version: b.Version, Commit: b.Commit, Go: b.Go}, Failing: checkFailing}
}
