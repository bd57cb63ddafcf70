package cmd

// `zklock watch`: the live model's changes as a stream, one line each, and
// the setup that `watch`, `export` and `record` share (connect, watch the
// paths and roots, hand over the Watcher).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/zklock/zklock/config"
	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/timeline"
	"github.com/zklock/zklock/zkview"
)

// liveFlags are the flags of the commands that watch the live model.
type liveFlags struct {
	roots      []string
	maxParents int
}

// register adds the flags to cmd; maxParents is --max-parents' default.
func (lf *liveFlags) register(cmd *cobra.Command, maxParents int) {
	cmd.Flags().StringArrayVar(&lf.roots, "root", nil, "discover lock parents below this path (repeatable)")
	cmd.Flags().IntVar(&lf.maxParents, "max-parents", maxParents, "watch at most this many lock parents (discovery stops there)")
}

// liveWatcher is a connected session and a Watcher over it.
type liveWatcher struct {
	sess  *lockops.Session
	w     *zkview.Watcher
	paths []string
	roots []string
	s     *config.Settings
}

func (lm *liveWatcher) Close() {
	lm.w.Close()
	lm.sess.Close()
}

// startLive resolves the settings, connects and starts watching args and
// the roots (the flags' and the context's). The ZooKeeper client's log
// goes to the debug log (logging.go): stdout is the command's output.
func startLive(ctx context.Context, cmd *cobra.Command, g *config.Flags, lf *liveFlags, args []string) (*liveWatcher, error) {
	s, cfg, err := lockTargets(cmd, g, args, lf.roots)
	if err != nil {
		return nil, err
	}
	if lf.maxParents <= 0 {
		return nil, fmt.Errorf("--max-parents %d: want 1 or more", lf.maxParents)
	}
	sess, err := connect(ctx, s)
	if err != nil {
		return nil, err
	}
	cfg.MaxParents = lf.maxParents
	w, err := zkview.Watch(ctx, sess, cfg)
	if err != nil {
		sess.Close()
		return nil, err
	}
	return &liveWatcher{sess: sess, w: w, paths: cfg.Paths, roots: cfg.Roots, s: s}, nil
}

// signalContext ends on SIGINT, SIGTERM or SIGHUP: the streaming commands
// stop cleanly (exit 0), having written every complete record.
func signalContext(parent context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(parent, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
}

func newWatchCmd(g *config.Flags) *cobra.Command {
	var (
		lf     liveFlags
		output *outputFlag
	)
	cmd := &cobra.Command{
		Use:   "watch [-o text|json] [--root PATH] [PATH...]",
		Short: "Stream every change of the lock queues, one line each",
		Long: `watch follows the lock parents (and the lock parents found below --root)
and prints one line per change: a node joined, acquired, released,
gave up or went with its session, a warning raised or cleared, the
monitor's link stale or fresh, a path appeared or vanished. The state
at the start is not printed (zklock ls --json prints it).

-o json (or --json) prints one JSON object per line (NDJSON, schema in
the README), for jq and log shippers. SIGINT or SIGTERM ends it with exit
code 0.`,
		Example: `  zklock watch -o json /locks/billing | jq -c 'select(.event == "acquired")'
  zklock watch --root /locks`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := output.format()
			if err != nil {
				return err
			}
			ctx, stop := signalContext(cmd.Context())
			defer stop()
			lm, err := startLive(ctx, cmd, g, &lf, args)
			if err != nil {
				return err
			}
			defer lm.Close()
			write := writeChangesText(cmd.OutOrStdout())
			if format == "json" {
				write = timeline.NewChangeWriter(cmd.OutOrStdout()).Write
			}
			return streamChanges(ctx, lm.w.Updates(), write)
		},
	}
	output = addOutputFlag(cmd, "text (a line per change) or json (an object per line, schema in docs/json.md)", "text", "json")
	lf.register(cmd, zkview.DefaultMaxParents)
	return cmd
}

// Settling: updates that follow each other closely are diffed as one step
// (Diff matches nodes by identity, so nothing is told twice or lost). A
// session's end deletes all its nodes in one transaction, but the model
// hears of each parent on its own and may publish them apart; seen in one
// step they are told session-lost (timeline.Diff). streamSettle is two
// publish intervals of the model; streamMaxLag bounds the delay under a
// steady flow of changes.
const (
	streamSettle = 50 * time.Millisecond
	streamMaxLag = 250 * time.Millisecond
)

// streamChanges writes the changes between settled snapshots until ctx
// ends (nil) or the updates stop. The first snapshot is the start: the
// state then is not a change.
func streamChanges(ctx context.Context, updates <-chan model.Update, write func([]model.Change) error) error {
	var (
		prev, pending *model.Snapshot
		first         time.Time
		timer         = time.NewTimer(time.Hour)
		timerC        <-chan time.Time
	)
	timer.Stop()
	defer timer.Stop()
	flush := func() error {
		if pending == nil {
			return nil
		}
		err := write(timeline.DiffSeen(prev, pending, timeline.SeenIn(prev)))
		prev, pending, timerC = pending, nil, nil
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return flush()
		case u, ok := <-updates:
			if !ok {
				if err := flush(); err != nil || ctx.Err() != nil {
					return err
				}
				return errors.New("watch: the live model stopped")
			}
			if u.Snapshot == nil {
				continue
			}
			if prev == nil {
				prev = u.Snapshot
				continue
			}
			now := time.Now()
			if pending == nil {
				first = now
			}
			pending = u.Snapshot
			timer.Reset(max(min(streamSettle, streamMaxLag-now.Sub(first)), 0))
			timerC = timer.C
		case <-timerC:
			if err := flush(); err != nil {
				return err
			}
		}
	}
}

// writeChangesText is watch's text form: one line per change.
func writeChangesText(w io.Writer) func([]model.Change) error {
	return func(cs []model.Change) error {
		if len(cs) == 0 {
			return nil
		}
		var b strings.Builder
		for _, c := range cs {
			j := c.ToJSON()
			fmt.Fprintf(&b, "%s %-15s", c.At.Local().Format("15:04:05.000"), j.Event)
			if j.Path != "" {
				b.WriteString(" " + j.Path)
			}
			switch {
			case j.Code != "":
				fmt.Fprintf(&b, " %s: %s", j.Code, j.Message)
			case j.Node != "" || j.Session != "" && j.Monitor == "":
				fmt.Fprintf(&b, " %s %s %s", model.NodeRef(c.Node.Name, 40), j.Role, j.Session)
				if j.Client != "" {
					b.WriteString(" " + j.Client)
				}
				if j.From != "" {
					b.WriteString(" after " + model.NodeRef(c.From, 40))
				}
				if j.Lease != "" {
					b.WriteString(" got lease " + model.NodeRef(c.Lease, 40))
				}
				if j.HeldS != nil {
					fmt.Fprintf(&b, " held %.3fs", *j.HeldS)
				}
				if j.WaitedS != nil {
					fmt.Fprintf(&b, " waited %.3fs", *j.WaitedS)
				}
				if j.Data != "" {
					b.WriteString(" " + model.SanitizeString(j.Data, 40))
				}
			case j.State != "":
				b.WriteString(" " + j.State)
			}
			b.WriteString("\n")
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
}
