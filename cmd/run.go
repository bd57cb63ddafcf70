package cmd

// `zklock run`: hold a lock while a command runs, as `consul lock` and
// `flock` do. The command's stdin, stdout and stderr are zklock's; SIGINT
// and SIGTERM sent to zklock are passed on; the lock is released when the
// command exits; if the lock is lost meanwhile the command is stopped
// (SIGTERM, a grace period, SIGKILL), because it no longer runs alone.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/zklock/zklock/config"
	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/zkview"
)

const (
	// defaultGrace is how long a command that lost its lock may take to
	// stop after SIGTERM before SIGKILL: enough to roll back a
	// transaction, short enough that two writers do not overlap for long.
	defaultGrace = 10 * time.Second
	// runReleaseTimeout bounds the release after the command exits; the
	// session's close removes the node anyway.
	runReleaseTimeout = 10 * time.Second
	// holderLookupTimeout bounds the look at who holds the lock when
	// --timeout passes, for the message.
	holderLookupTimeout = 3 * time.Second
	// exitCommandNotFound and exitCannotExec are the shells' codes for a
	// command that does not exist or cannot run.
	exitCommandNotFound = 127
	exitCannotExec      = 126
)

type runOptions struct {
	timeout    time.Duration
	grace      time.Duration
	note       string
	kind       string
	style      string
	allowMixed bool
	quiet      bool
	limit      int
}

func newRunCmd(g *config.Flags) *cobra.Command {
	var o runOptions
	cmd := &cobra.Command{
		Use:   "run [flags] PATH -- CMD [ARGS...]",
		Short: "Hold a lock while a command runs",
		Long: `run takes the lock at PATH (a lock parent), runs CMD with zklock's stdin,
stdout and stderr, releases the lock when CMD exits and exits with CMD's
code. CMD sees ZKLOCK_PATH (the lock parent), ZKLOCK_NODE (the full
path of its lock node), ZKLOCK_FENCING_TOKEN (the node's czxid: pass it
to the resource, which refuses a token lower than the highest it saw),
ZKLOCK_SEQ (the node's sequence, when it has one) and ZKLOCK_SESSION
(0x...) in its environment. SIGINT, SIGTERM and SIGHUP
sent to zklock are passed on to CMD.

While it waits, run says on stderr where it is in the queue, the node it
watches, who holds the lock and for how long (one line redrawn in place on
a terminal, erased once the lock is held; one line per change otherwise);
--quiet turns that off.

If the lock is lost while CMD runs (session expired, node deleted by
someone else), CMD is sent SIGTERM, then SIGKILL after --grace, and zklock
exits 69; also when CMD exited before the loss was told and the release
finds the session ended (zklock stopped past its session timeout). If
--timeout passes before the lock is held, CMD does not run and zklock
exits 75 (EX_TEMPFAIL: busy, try later).

The node is named like the clients already in the queue (Curator style
for an empty queue, or --style); a queue of recipes that cannot see each
other is refused unless --allow-mixed.

On a semaphore (Curator's leases and locks, or Kazoo's lease children,
max_leases data or PATH-__lock__ sibling; or --kind lease) run takes one
lease in the protocol its clients use, so that they count it. The limit
comes from --limit, else the context's semaphores:, else the parent (Kazoo
states it; the console can deduce Curator's while a lease waits); without
one a Curator semaphore is refused. On a LeaderLatch election (or one the
context names under elections:, or --kind election) run joins as a
participant and CMD runs while it leads.`,
		Example: `  zklock run --timeout 30s --note "reindex" /locks/search -- ./reindex.sh --full
  zklock run --kind read /locks/catalog -- pg_dump catalog
  zklock run --limit 3 /jobs/gpu-slots -- ./train.sh
  zklock run /services/scheduler/leader -- ./scheduler --active`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runUnderLock(cmd, g, args, o) },
	}
	f := cmd.Flags()
	f.DurationVar(&o.timeout, "timeout", 0, "give up (exit 75) if the lock is not held within this long (0: wait)")
	f.DurationVar(&o.grace, "grace", defaultGrace, "after a lost lock, time between SIGTERM and SIGKILL")
	f.StringVar(&o.note, "note", "", "text added to the lock node's data (who and why)")
	f.StringVar(&o.kind, "kind", "mutex", "mutex, read, write, lease (one of a semaphore's) or election (default: as the parent holds)")
	f.IntVar(&o.limit, "limit", 0, "a semaphore's number of leases (Curator keeps it in its clients only)")
	f.StringVar(&o.style, "style", "", "node naming: curator or kazoo (default: as the queue)")
	f.BoolVar(&o.allowMixed, "allow-mixed", false, "join a queue that mixes recipes (two holders are then possible)")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "say nothing on stderr while waiting in the queue")
	return cmd
}

var errRunUsage = errors.New("usage: zklock run [flags] PATH -- CMD [ARGS...]")

func parseKind(s string) (ordering.Kind, error) {
	switch s {
	case "mutex":
		return ordering.KindMutex, nil
	case "read":
		return ordering.KindRead, nil
	case "write":
		return ordering.KindWrite, nil
	}
	return 0, fmt.Errorf("--kind %q: want mutex, read or write", s)
}

// runUnderLock is `zklock run`: it takes the lock, runs the command while
// it holds it, and returns the command's exit code (or why it could not).
func runUnderLock(cmd *cobra.Command, g *config.Flags, args []string, o runOptions) error {
	p, argv, err := parseRunArgs(cmd.ArgsLenAtDash(), args, o)
	if err != nil {
		return err
	}
	lockOpts, err := runLockOptions(o)
	if err != nil {
		return err
	}
	s, err := g.Resolve(cmd.Flags().Changed)
	if err != nil {
		return err
	}
	if err := s.RequireWrite("run a command under a lock"); err != nil {
		return err
	}
	// Found before queueing: a typo must not hold up the queue.
	bin, err := exec.LookPath(argv[0])
	if err != nil {
		return exitCode(exitCommandNotFound, fmt.Errorf("run: %w", err))
	}
	audit, err := config.OpenAudit(s)
	if err != nil {
		return err
	}
	defer audit.Close()

	// Signals are caught from here on: while waiting they cancel the
	// wait (the node is deleted), while CMD runs they are passed on.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)

	ctx := cmd.Context()
	sess, err := connect(ctx, s)
	if err != nil {
		return err
	}
	defer sess.Close()

	if err := refuseNotALock(ctx, sess, s.Barriers, p); err != nil {
		return err
	}
	var rep *waitReporter
	if !o.quiet {
		rep = newWaitReporter(os.Stderr, isTerminal(os.Stderr), p, queueLookup(sess, p))
		lockOpts = append(lockOpts, lockops.WithProgress(rep.Progress))
	}
	target, err := chooseRunTarget(ctx, sess, s, p, o, cmd.Flags().Changed("kind"), lockOpts)
	if err != nil {
		return err
	}
	j := &runJob{
		path: p, argv: argv, bin: bin, o: o, sess: sess, target: target, sigs: sigs, audit: audit,
		rec: config.AuditRecord{Action: "run", Path: p, Kind: target.kind, Command: argv, Session: model.SessionHex(sess.ID())},
	}
	before := j.rec
	before.Phase = config.PhaseBefore
	if err := audit.Write(before); err != nil {
		return fmt.Errorf("run not done: %w", err)
	}
	if err := j.acquire(ctx, rep); err != nil {
		return err
	}
	return j.runCommand()
}

// parseRunArgs splits `run`'s arguments into the lock path and CMD with
// its arguments, and checks what can be checked before connecting: the
// path, --kind, --limit, --timeout and --grace.
func parseRunArgs(dash int, args []string, o runOptions) (p string, argv []string, err error) {
	switch {
	case len(args) == 0:
		return "", nil, exitCode(exitUsage, fmt.Errorf("run: no lock path and no command (%w)", errRunUsage))
	case dash < 0:
		// Without --, CMD's own flags would be read as zklock's.
		return "", nil, exitCode(exitUsage, fmt.Errorf("run: put -- between the lock path and the command (%w)", errRunUsage))
	case dash != 1:
		return "", nil, exitCode(exitUsage, fmt.Errorf("run: one lock path before --, got %d (%w)", dash, errRunUsage))
	case len(args) < 2:
		return "", nil, exitCode(exitUsage, fmt.Errorf("run: no command after -- (%w)", errRunUsage))
	case o.timeout < 0 || o.grace < 0:
		return "", nil, exitCode(exitUsage, errors.New("run: --timeout and --grace must not be negative"))
	}
	p, argv = args[0], args[1:]
	if err := lockops.ValidPath(p); err != nil {
		return "", nil, err
	}
	if p == "/" {
		return "", nil, errors.New("run: the root cannot be a lock parent")
	}
	if err := checkRunKind(o); err != nil {
		return "", nil, err
	}
	return p, argv, nil
}

// runLockOptions are the lock options the flags choose: note, style and
// allow-mixed.
func runLockOptions(o runOptions) ([]lockops.Option, error) {
	opts := []lockops.Option{lockops.WithNote(o.note)}
	if o.style != "" {
		st, err := ordering.ParseStyle(o.style)
		if err != nil {
			return nil, err
		}
		opts = append(opts, lockops.WithStyle(st))
	}
	if o.allowMixed {
		opts = append(opts, lockops.WithAllowMixed())
	}
	return opts, nil
}

// runJob is one `zklock run` once connected and its target chosen: the
// hold to take, the command to run under it, and the audit record that
// says how it ended.
type runJob struct {
	path   string
	argv   []string // CMD and its arguments, as given
	bin    string   // CMD found on PATH
	o      runOptions
	sess   *lockops.Session
	target runTarget
	sigs   <-chan os.Signal
	audit  *config.AuditLog
	rec    config.AuditRecord
}

// finish writes the audit record's outcome and returns the error to exit
// with: nil for a clean exit 0, else code with err.
func (j *runJob) finish(outcome string, code int, err error) error {
	j.rec.Outcome, j.rec.ExitCode = outcome, &code
	if err != nil {
		j.rec.Error = oneLine(err.Error())
	}
	if aerr := j.audit.After(j.rec, nil); aerr != nil {
		warn(aerr)
	}
	if code == exitOK && err == nil {
		return nil
	}
	return exitCode(code, err)
}

// acquire waits for the hold, saying where it is in the queue through
// rep (nil: --quiet). It returns nil once held; otherwise the run is
// over, its record written, and the error says why, with the exit code:
// a signal, --timeout (naming who holds), a refusal, another failure.
func (j *runJob) acquire(ctx context.Context, rep *waitReporter) error {
	if rep != nil {
		rep.Start(ctx)
	}
	interrupted, err := acquireUnlessSignalled(ctx, j.target.hold, j.o.timeout, j.sigs)
	if rep != nil {
		rep.Stop()
	}
	j.rec.Node = j.target.node()
	p := j.path
	switch {
	case err == nil:
		return nil
	case interrupted != nil:
		return j.finish("interrupted", exitSignal, fmt.Errorf("run: %s while waiting for %s; left the queue", interrupted, p))
	case errors.Is(err, context.DeadlineExceeded) && j.o.timeout > 0:
		return j.finish("not-acquired", exitNotAcquired,
			fmt.Errorf("run: %s not acquired within %s%s", p, j.o.timeout, holderText(ctx, j.sess, p)))
	case runRefusal(p, err) != nil:
		return j.finish(config.OutcomeError, exitFailure, runRefusal(p, err))
	case errors.Is(err, ordering.ErrMixedRecipes):
		return j.finish(config.OutcomeError, exitFailure,
			fmt.Errorf("run: refusing to join %s: %w (pass --allow-mixed to join anyway; two holders are then possible)", p, err))
	default:
		return j.finish(config.OutcomeError, exitFailure, fmt.Errorf("run: %w", err))
	}
}

// runCommand runs CMD under the hold, releases the hold when CMD exits
// and ends the run with CMD's code, or with exitLost if the hold was
// lost meanwhile (CMD was then stopped).
func (j *runJob) runCommand() error {
	nodePath := runNodePath(j.path, j.target)
	child := exec.Command(j.bin, j.argv[1:]...)
	child.Args[0] = j.argv[0]
	child.Stdin, child.Stdout, child.Stderr = os.Stdin, os.Stdout, os.Stderr
	child.Env = j.childEnv(nodePath)
	stopWithParent(child)
	if err := child.Start(); err != nil {
		rerr := releaseRun(j.target.hold)
		return j.finish(config.OutcomeError, exitCannotExec, errors.Join(fmt.Errorf("run: %w", err), rerr))
	}
	gen := j.sess.Generation()
	code, lostErr := superviseChild(child, j.target.hold, j.sigs, j.o.grace)
	rerr := releaseRun(j.target.hold)
	if lostErr == nil && endedSince(j.sess, gen) {
		// CMD exited before the loss was told (zklock stopped past its
		// session's timeout, say): the release found the session gone.
		// CMD's code would claim a hold that did not last.
		lostErr = errSessionEndedAtRelease
	}
	if lostErr != nil {
		return j.finish("lost", exitLost, fmt.Errorf("run: %s %s lost while %s ran: %v", j.target.what(), nodePath, j.argv[0], lostErr))
	}
	if rerr != nil {
		// The command's code stands; the node goes with the session.
		warn(rerr)
	}
	return j.finish("exited", code, nil)
}

// errSessionEndedAtRelease: the hold's session ended while CMD ran, as
// the release found it, CMD having exited before the loss was told.
var errSessionEndedAtRelease = errors.New("its session ended (seen when releasing, after the command exited)")

// endedSince says whether the session of generation gen has ended:
// expired, or replaced by a new one.
func endedSince(s *lockops.Session, gen uint64) bool {
	return s.Generation() != gen || s.State() == lockops.SessionExpired
}

// runHoldEnv are the variables that describe a run's hold to CMD.
var runHoldEnv = []string{"ZKLOCK_PATH", "ZKLOCK_NODE", "ZKLOCK_FENCING_TOKEN", "ZKLOCK_SEQ", "ZKLOCK_SESSION"}

// childEnv is CMD's environment: zklock's own, without the hold's
// variables inherited from an outer run (a nested hold without a
// sequence must not show the outer one's), plus this hold's path, node,
// fencing token (the node's czxid, decimal), sequence (decimal, when the
// name has one) and session ("0x..." as ZooKeeper's tools print it).
func (j *runJob) childEnv(nodePath string) []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(runHoldEnv, name)
	})
	env = append(env, "ZKLOCK_PATH="+j.path, "ZKLOCK_NODE="+nodePath,
		"ZKLOCK_FENCING_TOKEN="+strconv.FormatInt(j.target.hold.FencingToken(), 10),
		fmt.Sprintf("ZKLOCK_SESSION=0x%x", j.sess.ID()))
	if n, ok := ordering.ParseName(path.Base(nodePath)); ok {
		env = append(env, fmt.Sprintf("ZKLOCK_SEQ=%d", n.Seq))
	}
	return env
}

// acquireUnlessSignalled waits for the lock, bounded by timeout (0: no
// bound), and gives up on a signal; it returns the signal that ended the
// wait, if any.
func acquireUnlessSignalled(ctx context.Context, l runHold, timeout time.Duration, sigs <-chan os.Signal) (os.Signal, error) {
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	if timeout > 0 {
		var c2 context.CancelFunc
		actx, c2 = context.WithTimeout(actx, timeout)
		defer c2()
	}
	res := make(chan error, 1)
	go func() { res <- l.Acquire(actx) }()
	select {
	case err := <-res:
		return nil, err
	case sig := <-sigs:
		cancel()
		// Acquire deletes the node before it returns.
		<-res
		return sig, context.Canceled
	}
}

// superviseChild waits for the command, passing signals on and stopping it
// if the lock is lost. It returns the code to exit with (the command's, or
// 128+signal as shells do) and the loss, if any, saying how the command
// was stopped.
func superviseChild(child *exec.Cmd, l runHold, sigs <-chan os.Signal, grace time.Duration) (int, error) {
	exited := make(chan error, 1)
	go func() { exited <- child.Wait() }()
	lost := l.Done()
	var (
		lostErr error
		kill    <-chan time.Time
		killed  bool
	)
	for {
		select {
		case <-exited:
			if lostErr != nil {
				how := "SIGTERM"
				if killed {
					how = fmt.Sprintf("SIGTERM, then SIGKILL after %s", grace)
				}
				lostErr = fmt.Errorf("%w; sent %s", lostErr, how)
			}
			return childExitCode(child.ProcessState), lostErr
		case sig := <-sigs:
			if sig == syscall.SIGINT && keyboardSignalsChild() {
				continue // Ctrl-C: CMD has had it from the terminal
			}
			_ = child.Process.Signal(sig)
		case <-lost:
			lost = nil
			lostErr = l.Err()
			if lostErr == nil {
				lostErr = errors.New("released")
			}
			_ = child.Process.Signal(syscall.SIGTERM)
			t := time.NewTimer(grace)
			defer t.Stop()
			kill = t.C
		case <-kill:
			kill, killed = nil, true
			_ = child.Process.Kill()
		}
	}
}

// childExitCode is the command's exit code, or 128+N when signal N ended
// it.
func childExitCode(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

func releaseRun(l runHold) error {
	ctx, cancel := context.WithTimeout(context.Background(), runReleaseTimeout)
	defer cancel()
	if err := l.Release(ctx); err != nil && !errors.Is(err, lockops.ErrNotHeld) {
		return fmt.Errorf("run: %w", err)
	}
	return nil
}

// holderText says who holds p, for the "not acquired" message: the
// operator's next question.
func holderText(ctx context.Context, sess *lockops.Session, p string) string {
	hctx, cancel := context.WithTimeout(ctx, holderLookupTimeout)
	defer cancel()
	snap, err := zkview.Load(hctx, sess, zkview.Options{Paths: []string{p}})
	if err != nil || snap.Queues.Len() == 0 {
		return ""
	}
	var hs []model.Node
	for _, n := range snap.Queues.At(0).Nodes.All() {
		if n.Role == ordering.RoleHolder {
			hs = append(hs, *n)
		}
	}
	if len(hs) == 0 {
		return ""
	}
	return "; held by " + holdersText(hs, true, nil)
}
