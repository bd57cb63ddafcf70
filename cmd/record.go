package cmd

// `zklock record` and `zklock replay`: the Watcher's updates to a file
// that survives being killed, and back.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/timeline"
	"github.com/zklock/zklock/zkview"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/spf13/cobra"
	"github.com/zklock/zklock/config"
	"github.com/zklock/zklock/ui"
)

func newRecordCmd(g *config.Flags) *cobra.Command {
	var (
		lf            liveFlags
		out, outOldOp string
	)
	cmd := &cobra.Command{
		Use:   "record -f FILE [--root PATH] [PATH...]",
		Short: "Record the lock queues' changes to a file, for replay",
		Long: `record watches the lock parents (and those found below --root) and writes
every update of the Watcher to FILE: a full snapshot at the start and
every 30 seconds, and what changed in between, compressed. The file is
only appended to and flushed after each update: a recorder killed at any
moment (SIGKILL, a crash, a full disk) leaves a file that replays up to
its last complete update. SIGINT or SIGTERM ends it cleanly (exit 0).

zklock replay FILE opens the console over it; zklock replay --json FILE
prints its change stream (the lines of zklock watch --json).`,
		Example: `  zklock record -f incident.zkrec --root /locks
  zklock replay incident.zkrec`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := recordFile(cmd, out, outOldOp)
			if err != nil {
				return err
			}
			// Refuse before connecting: an incident's recording is not
			// overwritten by the next one.
			f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if err != nil {
				if errors.Is(err, os.ErrExist) {
					return fmt.Errorf("record: %s exists (record to another file)", out)
				}
				return fmt.Errorf("record: %w", err)
			}
			ctx, stop := signalContext(cmd.Context())
			defer stop()
			lm, err := startLive(ctx, cmd, g, &lf, args)
			if err != nil {
				f.Close()
				os.Remove(out)
				return err
			}
			defer lm.Close()
			n, err := record(ctx, f, lm)
			if cerr := f.Close(); err == nil && cerr != nil {
				err = fmt.Errorf("record: %w", cerr)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "zklock: recorded %d updates to %s\n", n, out)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "file", "f", "", "the file to write (must not exist)")
	// -o FILE was record's file until -o meant a format in every other
	// command: still taken for one release, with a warning, and hidden.
	cmd.Flags().StringVarP(&outOldOp, "output", "o", "", "deprecated: -f FILE")
	_ = cmd.Flags().MarkHidden("output")
	lf.register(cmd, zkview.DefaultMaxParents)
	return cmd
}

// recordFile is the file record writes: -f, or the deprecated -o with a
// warning. Neither, or both, is a usage error.
func recordFile(cmd *cobra.Command, file, old string) (string, error) {
	switch {
	case cmd.Flags().Changed("output") && cmd.Flags().Changed("file"):
		return "", exitCode(exitUsage, errors.New("record: -f FILE and -o FILE: give -f"))
	case cmd.Flags().Changed("output"):
		warn(errors.New("record: -o FILE is deprecated and will mean a format, as in every other command: use -f FILE"))
		file = old
	}
	if file == "" {
		return "", exitCode(exitUsage, errors.New("record: give -f FILE"))
	}
	return file, nil
}

// record writes every update to f until ctx ends; it returns how many.
func record(ctx context.Context, f *os.File, lm *liveWatcher) (int, error) {
	r, err := timeline.NewRecorder(f, timeline.RecordingHeader{
		Started: lm.w.Snapshot().At,
		Zklock:  version,
		Servers: strings.Join(lm.s.Servers, ","),
		Context: lm.s.ContextName,
		Paths:   lm.paths,
		Roots:   lm.roots,
	})
	if err != nil {
		return 0, err
	}
	n := 0
	for {
		select {
		case <-ctx.Done():
			return n, r.Close()
		case u, ok := <-lm.w.Updates():
			if !ok {
				_ = r.Close()
				return n, errors.New("record: the Watcher stopped")
			}
			if err := r.Record(u); err != nil {
				return n, err
			}
			n++
		}
	}
}

func newReplayCmd(g *config.Flags) *cobra.Command {
	var asJSON, snapshots bool
	cmd := &cobra.Command{
		Use:   "replay [--json [--snapshots]] FILE",
		Short: "Replay a recording in the console, or print it",
		Long: `replay opens the console over a recording made by zklock record, read-only,
with a timeline: pause, step update by update, jump to a time, play at
1x to 100x; the clock shown is the recording's.

--json prints the recording's change stream instead, the lines zklock
watch --json printed live; --snapshots adds, after each update, a line
with the whole snapshot in ls --json's form.

A recording cut short (its recorder killed) replays up to its last
complete update, with a line on stderr saying so.`,
		Example: `  zklock replay incident.zkrec
  zklock replay --json incident.zkrec | jq -c 'select(.event == "session-lost")'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rec, err := openRecording(args[0])
			if err != nil {
				return err
			}
			if rec.Cut {
				warn(fmt.Errorf("%s: %v: replaying the %d updates before", args[0], rec.CutErr, rec.Len()))
			}
			if asJSON {
				return replayJSON(cmd.OutOrStdout(), rec, snapshots)
			}
			return runReplayConsole(cmd, g, rec, args[0])
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the change stream (watch --json lines) instead of the console")
	cmd.Flags().BoolVar(&snapshots, "snapshots", false, "with --json: a snapshot line (ls --json form) after each update")
	return cmd
}

// openRecording reads a recording file whole.
func openRecording(name string) (*timeline.Recording, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	defer f.Close()
	rec, err := timeline.ReadRecording(f)
	if err != nil {
		return nil, fmt.Errorf("replay %s: %w", name, err)
	}
	if rec.Len() == 0 {
		return nil, fmt.Errorf("replay %s: the recording holds no update", name)
	}
	return rec, nil
}

// jsonSnapshotLine is replay --snapshots' line after each update.
type jsonSnapshotLine struct {
	Schema int              `json:"schema"`
	Time   string           `json:"time"`
	Event  string           `json:"event"` // "snapshot"
	Step   int              `json:"step"`
	Paths  []model.JSONPath `json:"paths"`
}

// replayJSON prints the recording's changes (and snapshots).
func replayJSON(w io.Writer, rec *timeline.Recording, snapshots bool) error {
	cw := timeline.NewChangeWriter(w)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	cur := rec.NewCursor()
	var prev *model.Snapshot
	for i := range rec.Len() {
		snap := cur.Seek(i)
		if err := cw.Write(timeline.DiffSeen(prev, snap, timeline.SeenIn(prev))); err != nil {
			return err
		}
		if snapshots {
			line := jsonSnapshotLine{Schema: model.StreamSchema, Time: snap.At.UTC().Format("2006-01-02T15:04:05.000Z07:00"),
				Event: "snapshot", Step: i, Paths: model.ToJSON(snap)}
			if err := enc.Encode(line); err != nil {
				return fmt.Errorf("replay: %w", err)
			}
		}
		prev = snap
	}
	return nil
}

// runReplayConsole opens the console over rec: read-only, no Backend,
// snapshots from a timeline.Player on the recording's clock.
func runReplayConsole(cmd *cobra.Command, g *config.Flags, rec *timeline.Recording, name string) error {
	s, err := g.Resolve(cmd.Flags().Changed)
	if err != nil {
		return err
	}
	theme, err := consoleTheme(s)
	if err != nil {
		return err
	}
	if err := requireTerminal(); err != nil {
		return fmt.Errorf("%w (replay --json prints the recording)", err)
	}
	ctx, stop := signalContext(cmd.Context())
	defer stop()
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	player := timeline.NewPlayer(pctx, rec)
	var progOpts []tea.ProgramOption
	if !isTerminal(os.Stdin) {
		progOpts = append(progOpts, tea.WithInput(nil))
	}
	opts := ui.ReplayOptions(rec.Header, player)
	opts.Theme = theme
	opts.Title = "zklock replay " + model.SanitizeString(filepath.Base(name), 40)
	err = ui.Run(ctx, opts, progOpts...)
	if ctx.Err() != nil && (err == nil || errors.Is(err, context.Canceled)) {
		return nil
	}
	return err
}
