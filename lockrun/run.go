package lockrun

// `zklock run` once connected and its hold chosen: wait for the hold
// (progress, signals, --timeout), run CMD under it, stop CMD if the hold
// is lost (SIGTERM, a grace period, SIGKILL), release it when CMD exits,
// and say how it ended. The exit codes are cmd's: a Result says what
// happened, cmd maps it.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zklock/zklock/holds"
	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
)

const (
	// DefaultGrace is how long a command that lost its lock may take to
	// stop after SIGTERM before SIGKILL: enough to roll back a
	// transaction, short enough that two writers do not overlap for long.
	DefaultGrace = 10 * time.Second
	// releaseTimeout bounds the release after the command exits; the
	// session's close removes the node anyway.
	releaseTimeout = 10 * time.Second
)

// Outcome is how a run ended.
type Outcome int

const (
	Exited      Outcome = iota // CMD ran under the hold and exited (Result.Code)
	Interrupted                // a signal ended the wait; the node was deleted
	NotAcquired                // --timeout passed before the hold was held
	Refused                    // refused or failed before CMD ran
	NotStarted                 // held, but CMD could not be started
	Lost                       // the hold was lost while CMD ran; CMD was stopped
)

// String is the outcome as the audit log spells it.
func (o Outcome) String() string {
	switch o {
	case Exited:
		return "exited"
	case Interrupted:
		return "interrupted"
	case NotAcquired:
		return "not-acquired"
	case Lost:
		return "lost"
	}
	return "error"
}

// Result is how one run ended.
type Result struct {
	Outcome Outcome
	// Code is CMD's exit code (128+N when signal N ended it), for Exited.
	Code int
	// Err says why, in one line for the operator; nil for Exited.
	Err error
	// Node is the own node relative to the path, as known when the wait
	// ended ("" when none was made).
	Node string
}

// Job is one `zklock run` once connected and its hold chosen.
type Job struct {
	Path string
	Argv []string // CMD and its arguments, as given
	Bin  string   // CMD found on PATH
	// Timeout bounds the wait (0: none); Grace is the time between
	// SIGTERM and SIGKILL after a loss.
	Timeout, Grace time.Duration
	Session        *lockops.Session
	Hold           *holds.Hold
	// Signals are the signals zklock caught: while waiting they end the
	// wait, while CMD runs they are passed on.
	Signals <-chan os.Signal
	// Reporter says where the wait stands (nil: --quiet).
	Reporter *Reporter
	// Warn is told what does not change the exit code (a failed
	// release after CMD exited).
	Warn func(error)
}

// Run takes the hold, runs CMD under it, releases the hold and says how
// it ended.
func (j *Job) Run(ctx context.Context) Result {
	if res, held := j.acquire(ctx); !held {
		return res
	}
	return j.runCommand(j.Hold.Node())
}

// acquire waits for the hold, saying where it is in the queue through
// the Reporter. It says held once held; otherwise the run is over and
// the Result says why: a signal, --timeout (naming who holds), a
// refusal, another failure.
func (j *Job) acquire(ctx context.Context) (res Result, held bool) {
	if j.Reporter != nil {
		j.Reporter.Start(ctx)
	}
	interrupted, err := acquireUnlessSignalled(ctx, j.Hold, j.Timeout, j.Signals)
	if j.Reporter != nil {
		j.Reporter.Stop()
	}
	res = Result{Node: j.Hold.Node(), Outcome: Refused}
	p := j.Path
	switch {
	case err == nil:
		return res, true
	case interrupted != nil:
		res.Outcome, res.Err = Interrupted, fmt.Errorf("run: %s while waiting for %s; left the queue", interrupted, p)
	case errors.Is(err, context.DeadlineExceeded) && j.Timeout > 0:
		res.Outcome, res.Err = NotAcquired, fmt.Errorf("run: %s not acquired within %s%s", p, j.Timeout, holderText(ctx, j.Session, p))
	case refusal(p, err) != nil:
		res.Err = refusal(p, err)
	case errors.Is(err, ordering.ErrMixedRecipes):
		res.Err = fmt.Errorf("run: refusing to join %s: %w (pass --allow-mixed to join anyway; two holders are then possible)", p, err)
	default:
		res.Err = fmt.Errorf("run: %w", err)
	}
	return res, false
}

// runCommand runs CMD under the hold (its node node, relative to the
// path), releases the hold when CMD exits and ends the run with CMD's
// code, or Lost if the hold was lost meanwhile (CMD was then stopped).
func (j *Job) runCommand(node string) Result {
	nodePath := path.Join(j.Path, node)
	child := exec.Command(j.Bin, j.Argv[1:]...)
	child.Args[0] = j.Argv[0]
	child.Stdin, child.Stdout, child.Stderr = os.Stdin, os.Stdout, os.Stderr
	child.Env = j.childEnv(nodePath)
	stopWithParent(child)
	if err := child.Start(); err != nil {
		rerr := release(j.Hold)
		return Result{Outcome: NotStarted, Node: node, Err: errors.Join(fmt.Errorf("run: %w", err), rerr)}
	}
	gen := j.Session.Generation()
	code, lostErr := superviseChild(child, j.Hold, j.Signals, j.Grace)
	rerr := release(j.Hold)
	if lostErr == nil && endedSince(j.Session, gen) {
		// CMD exited before the loss was told (zklock stopped past its
		// session's timeout, say): the release found the session gone.
		// CMD's code would claim a hold that did not last.
		lostErr = errSessionEndedAtRelease
	}
	if lostErr != nil {
		return Result{Outcome: Lost, Node: node, Err: fmt.Errorf("run: %s %s lost while %s ran: %v", j.Hold.What(), nodePath, j.Argv[0], lostErr)}
	}
	if rerr != nil && j.Warn != nil {
		// The command's code stands; the node goes with the session.
		j.Warn(rerr)
	}
	return Result{Outcome: Exited, Node: node, Code: code}
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
func (j *Job) childEnv(nodePath string) []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(runHoldEnv, name)
	})
	env = append(env, "ZKLOCK_PATH="+j.Path, "ZKLOCK_NODE="+nodePath,
		"ZKLOCK_FENCING_TOKEN="+strconv.FormatInt(j.Hold.FencingToken(), 10),
		fmt.Sprintf("ZKLOCK_SESSION=0x%x", j.Session.ID()))
	if n, ok := ordering.ParseName(path.Base(nodePath)); ok {
		env = append(env, fmt.Sprintf("ZKLOCK_SEQ=%d", n.Seq))
	}
	return env
}
