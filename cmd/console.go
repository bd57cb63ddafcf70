package cmd

// The console: `zklock [flags] [PATH...]`, and runConsole, which `zklock
// demo` calls too. It wires the pieces that must not know each other: the
// lock core's session (lockops), the Watcher (zkview), the Bubble Tea
// console (ui) and the audit log.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/zklock/zklock/ensemble"
	"github.com/zklock/zklock/timeline"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/zklock/zklock/audit"
	"github.com/zklock/zklock/config"
	"github.com/zklock/zklock/holds"
	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/themes"
	"github.com/zklock/zklock/ui"
	"github.com/zklock/zklock/zkview"
	"github.com/zklock/zklock/zkview/layouts"
)

// consoleConfig is what the console watches and how it looks, beyond the
// connection settings.
type consoleConfig struct {
	Paths, Roots []string
	Title        string
	Narration    bool
	Demo         ui.Demo
	// ServerViewEvery spaces the four-letter-word polls (zkview's default
	// when zero). The demo polls often: its nodes live a second or two.
	ServerViewEvery time.Duration
}

var errNothingToWatch = errors.New("nothing to watch: give lock parent paths (zklock /locks/job) or --root /locks, or roots in the context")

// newConsoleRun is the root command's action: the console on the PATHs
// given, the --root flags and the context's roots.
func newConsoleRun(g *config.Flags, roots *[]string) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		for _, a := range args {
			if !strings.HasPrefix(a, "/") {
				// A typo of a command lands here: say both readings,
				// and the command it may have meant.
				if s := cmd.SuggestionsFor(a); len(s) > 0 {
					return exitCode(exitUsage, fmt.Errorf("unknown command %q: did you mean %s? (lock paths start with /)", a, strings.Join(s, " or ")))
				}
				return exitCode(exitUsage, fmt.Errorf("unknown command or invalid path %q (lock paths start with /; see zklock --help)", a))
			}
		}
		s, err := g.Resolve(cmd.Flags().Changed)
		if err != nil {
			return err
		}
		all := append(slices.Clone(*roots), s.Roots...)
		ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGHUP)
		defer stop()
		err = runConsole(ctx, s, consoleConfig{Paths: args, Roots: all})
		// Bubble Tea may see SIGTERM first and quit cleanly (err nil):
		// ctx, which the same signal cancels, tells.
		stopped := ctx.Err() != nil && (err == nil || errors.Is(err, context.Canceled))
		if stopped || err != nil && errors.Is(err, tea.ErrInterrupted) {
			// SIGINT, SIGTERM or SIGHUP: own locks were released on the
			// way out, unless ui.Run says otherwise.
			if errors.Is(err, ui.ErrRelease) {
				return exitCode(exitSignal, err)
			}
			return exitCode(exitSignal, errors.New("console stopped by a signal; own locks released"))
		}
		return err
	}
}

// runConsole runs the console on cc's paths and roots until the operator
// quits or ctx ends, connecting while it shows "connecting to ..."; a
// failed connect ends it with the connect error. Actions go through the
// lock core and the audit log unless the settings are read-only. On the
// way out the operator's own locks are released (ui.Run bounds each
// release) and the session is closed, which removes any node left.
func runConsole(ctx context.Context, s *config.Settings, cc consoleConfig) error {
	theme, err := consoleTheme(s)
	if err != nil {
		return err
	}
	paths, roots, err := consolePaths(cc)
	if err != nil {
		return err
	}

	// Refused before connecting: a console written into a pipe or a
	// file is escape sequences nobody reads.
	if err := requireTerminal(); err != nil {
		return err
	}

	var auditLog *audit.Log
	if !s.ReadOnly {
		// Opened before connecting: an action that cannot be audited is
		// not offered, rather than refused after the operator asked.
		if auditLog, err = audit.Open(s); err != nil {
			return err
		}
		defer auditLog.Close()
	}

	// The console starts at once and says whom it is connecting to and
	// for how long; the session, the Watcher and the backend are
	// opened meanwhile and handed to it, or their error ends it.
	lctx, cancelLive := context.WithCancel(ctx)
	defer cancelLive()
	opened, connected := openLiveAsync(lctx, s, cc, paths, roots, auditLog)

	opts := ui.Options{
		Theme:          theme,
		ReadOnly:       s.ReadOnly,
		Paths:          paths,
		Title:          cc.Title,
		Narration:      cc.Narration,
		Demo:           cc.Demo,
		Connect:        connected,
		Servers:        s.Servers,
		ConnectTimeout: s.ConnectTimeout,
		Identity:       consoleIdentity(s),
	}
	var progOpts []tea.ProgramOption
	if !isTerminal(os.Stdin) {
		// Under a test harness or a pipe there is no terminal to read
		// keys from; ctx or a signal ends the console.
		progOpts = append(progOpts, tea.WithInput(nil))
	}
	// A cancelled ctx comes back wrapped in the error: the caller tells a
	// signal from a failure (errors.Is(err, context.Canceled)).
	runErr := ui.Run(ctx, opts, progOpts...)
	return endConsole(runErr, opened, cancelLive)
}

// consolePaths are the console's lock paths and roots, cleaned; a usage
// error when there is nothing to watch.
func consolePaths(cc consoleConfig) (paths, roots []string, err error) {
	paths, err = cleanPaths(cc.Paths)
	if err != nil {
		return nil, nil, err
	}
	roots, err = cleanPaths(cc.Roots)
	if err != nil {
		return nil, nil, fmt.Errorf("root: %w", err)
	}
	if len(paths) == 0 && len(roots) == 0 {
		return nil, nil, exitCode(exitUsage, errNothingToWatch)
	}
	return paths, roots, nil
}

// opening is the outcome of openLive.
type opening struct {
	live *liveConsole
	err  error
}

// openLiveAsync opens the session, the Watcher and the backend (openLive)
// in the background. opened gets the outcome; connected hands the console
// its feeds, or the error that ends it.
func openLiveAsync(ctx context.Context, s *config.Settings, cc consoleConfig, paths, roots []string, auditLog *audit.Log) (<-chan opening, <-chan ui.Connected) {
	opened := make(chan opening, 1)
	connected := make(chan ui.Connected, 1)
	go func() {
		live, err := openLive(ctx, s, cc, paths, roots, auditLog)
		// opened first: when the console quits on the error, runConsole
		// finds it there.
		opened <- opening{live, err}
		if err != nil {
			connected <- ui.Connected{Err: err}
			return
		}
		connected <- live.feeds
	}()
	return opened, connected
}

// endConsole closes what openLiveAsync opened once the console (ui.Run)
// ended with runErr, and says how runConsole ends: an attempt to connect
// still under way is abandoned (cancelLive), and its error is not the
// console's.
func endConsole(runErr error, opened <-chan opening, cancelLive context.CancelFunc) error {
	var o opening
	select {
	case o = <-opened:
	default:
		// The operator quit, or a signal came, while connecting: the
		// attempt is abandoned, and its error is not the console's.
		cancelLive()
		o = <-opened
		o.err = nil
	}
	if o.live != nil {
		// After ui.Run, which released the operator's locks through it.
		o.live.close()
	}
	if runErr == nil && o.err != nil {
		// The console ended on the connect error: the same one line as
		// before it drew anything.
		return o.err
	}
	return runErr
}

// liveConsole is what the console shows and acts through once connected:
// the session, the Watcher on it, the recorder teeing the model's
// updates, and (unless read-only) the audited lock backend.
type liveConsole struct {
	sess  *lockops.Session
	w     *zkview.Watcher
	rec   *consoleRecorder
	lb    *holds.Manager[ui.OwnLock] // nil when read-only
	feeds ui.Connected
}

// openLive connects and starts watching cc's paths and roots. On an error
// it closes what it opened.
func openLive(ctx context.Context, s *config.Settings, cc consoleConfig, paths, roots []string, auditLog *audit.Log) (*liveConsole, error) {
	// Not connect: its warning line on stderr would cut into the screen
	// the console is drawing; the header says it instead.
	sess, err := ensemble.ConnectBounded(ctx, s)
	if err != nil {
		return nil, err
	}
	w, err := zkview.Watch(ctx, sess, zkview.Options{
		Paths:           paths,
		Roots:           roots,
		ServerView:      true, // zkview says so in the header when the members refuse
		Systems:         layouts.New,
		ServerViewEvery: cc.ServerViewEvery,
		Context:         s.ContextName,
		Elections:       s.Elections,
		Barriers:        s.Barriers,
		SemaphoreLimits: s.Semaphores,
		AdminPorts:      s.AdminPorts,
		AdminTLS:        s.TLS.AdminConfig(),
	})
	if err != nil {
		sess.Close()
		return nil, err
	}
	// ctrl+r records what the console shows (zklock record's format).
	rec := newConsoleRecorder(os.Getenv("ZKLOCK_RECORD_DIR"), timeline.RecordingHeader{
		Zklock:  version,
		Servers: strings.Join(s.Servers, ","),
		Context: s.ContextName,
		Paths:   paths,
		Roots:   roots,
	})
	live := &liveConsole{sess: sess, w: w, rec: rec}
	live.feeds = ui.Connected{Updates: rec.tee(ctx, w.Updates()), Recorder: rec}
	if !s.ReadOnly {
		lb := holds.NewManager(sess, holds.Config{Semaphores: s.Semaphores, Elections: s.Elections}, ui.OwnFromProgress)
		live.lb = lb
		live.feeds.Own = lb.Own()
		live.feeds.Backend = &auditedBackend{
			inner:  lb,
			audit:  auditLog,
			sess:   sess,
			lookup: snapshotLookup(w),
		}
	}
	return live, nil
}

// close ends the backend's acquisitions, the recording, the Watcher
// and the session, in that order; closing the session removes any own
// node left.
func (l *liveConsole) close() {
	if l.lb != nil {
		l.lb.Close()
	}
	l.rec.close()
	l.w.Close()
	l.sess.Close()
}

// cleanPaths validates lock parent paths and drops duplicates, keeping the
// order given.
func cleanPaths(ps []string) ([]string, error) {
	var out []string
	for _, p := range ps {
		if err := lockops.ValidPath(p); err != nil {
			return nil, err
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// errNoTerminal is the console's refusal when stdout is not a terminal.
var errNoTerminal = errors.New("the console needs a terminal on stdout; for a script or a pipe use zklock ls, sessions or watch")

// requireTerminal refuses to start the console unless stdout is a
// terminal (logs never go there: see logging.go).
func requireTerminal() error {
	if !isTerminal(os.Stdout) {
		return errNoTerminal
	}
	return nil
}

// snapshotLookup finds what the Watcher knows of a node (owner session
// and client address), for the audit log.
func snapshotLookup(w *zkview.Watcher) func(parent, node string) (int64, string) {
	return func(parent, node string) (int64, string) {
		snap := w.Snapshot()
		if snap == nil {
			return 0, ""
		}
		for _, q := range snap.Queues.All() {
			if q.Path != parent {
				continue
			}
			for _, n := range q.Nodes.All() {
				if n.Name == node {
					return n.Session, n.Client()
				}
			}
		}
		return 0, ""
	}
}

// isTerminal reports whether f is a terminal (not merely a character
// device: /dev/null is one too).
func isTerminal(f *os.File) bool { return term.IsTerminal(f.Fd()) }

// nodeParent splits a node path into its lock parent and name.
func nodeParent(nodePath string) (string, string) {
	return path.Dir(nodePath), path.Base(nodePath)
}

// consoleTheme is the settings' theme (the default when none is named),
// mono when NO_COLOR is set (themes.LoadEnv).
func consoleTheme(s *config.Settings) (themes.Theme, error) {
	name := s.Theme
	if name == "" {
		name = themes.Default
	}
	return themes.LoadEnv(name, os.Getenv)
}

// consoleIdentity is whom the session authenticates as, for the header,
// in the ACL schemes' words: "sasl alice", "sasl alice@EXAMPLE.COM", and
// "x509 CN=deploy,O=Example" for a TLS client certificate (the subject in
// RFC 2253, as ZooKeeper's X509AuthenticationProvider names it); empty
// with neither.
func consoleIdentity(s *config.Settings) string {
	var ids []string
	if s.SASL != nil {
		ids = append(ids, "sasl "+s.SASL.Identity())
	}
	if s.TLS != nil && s.TLS.Config != nil && len(s.TLS.Config.Certificates) > 0 {
		if leaf := s.TLS.Config.Certificates[0].Leaf; leaf != nil {
			ids = append(ids, "x509 "+leaf.Subject.String())
		}
	}
	return strings.Join(ids, " · ")
}
