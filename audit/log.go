package audit

// The log: one JSON line per operator action and phase, appended and
// fsynced before the action goes on, so that a crash mid-action still
// leaves the "before" line that says who was about to do what.

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/zklock/zklock/config"
)

// ErrLog is wrapped by every failure to open or write the log.
var ErrLog = errors.New("audit log")

// ErrNotDone is wrapped by Do's error when the "before" line could not be
// written: the action did not run.
var ErrNotDone = errors.New("not done")

// Audit phases and outcomes, as the log spells them.
const (
	PhaseBefore = "before"
	PhaseAfter  = "after"

	OutcomeOK    = "ok"
	OutcomeError = "error"
)

// Record is one line of the audit log. Field names are stable: they
// are documented in the README for whoever reads the log.
type Record struct {
	Time    string `json:"time"` // RFC 3339, UTC, milliseconds
	User    string `json:"user"` // the operator's login
	Host    string `json:"host"` // this machine
	PID     int    `json:"pid"`  // this zklock process
	Context string `json:"context,omitempty"`
	Servers string `json:"servers"`
	// Chroot is the chroot every path of the record is relative to ("" for
	// none); Servers carries it too, as a connect string would.
	Chroot   string   `json:"chroot,omitempty"`
	TLS      bool     `json:"tls,omitempty"`  // the session was over TLS
	Action   string   `json:"action"`         // take | release | revoke | force-release | run
	Phase    string   `json:"phase"`          // before | after
	Path     string   `json:"path"`           // the lock parent
	Kind     string   `json:"kind,omitempty"` // take, run: mutex | read | write | lease | election
	Node     string   `json:"node,omitempty"`
	Owner    string   `json:"owner_session,omitempty"` // the node's ephemeralOwner, 0x...
	Client   string   `json:"client,omitempty"`        // that session's ip:port, when known
	Session  string   `json:"operator_session,omitempty"`
	Outcome  string   `json:"outcome,omitempty"` // after: ok | error | a word the action defines
	Error    string   `json:"error,omitempty"`
	Command  []string `json:"command,omitempty"`   // run: CMD and its arguments
	ExitCode *int     `json:"exit_code,omitempty"` // run: what zklock exits with
}

// Log appends records to one file. Safe for concurrent use.
type Log struct {
	mu      sync.Mutex
	f       *os.File
	path    string
	user    string
	host    string
	context string
	servers string
	chroot  string
	tls     bool
}

// DefaultPath is under the user's state directory (XDG), where logs
// that outlive a run belong.
func DefaultPath() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "zklock", "audit.log"), nil
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("%w: no home directory for the default path (give --audit-log): %w", ErrLog, err)
	}
	return filepath.Join(h, ".local", "state", "zklock", "audit.log"), nil
}

// Open opens (creating) the audit log of the settings.
func Open(s *config.Settings) (*Log, error) {
	p := config.ExpandHome(s.AuditLog)
	if p == "" {
		var err error
		if p, err = DefaultPath(); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrLog, err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrLog, err)
	}
	a := &Log{f: f, path: p, context: s.ContextName, servers: strings.Join(s.Servers, ","), chroot: s.Chroot, tls: s.TLS != nil}
	if s.Chroot != "" {
		a.servers += s.Chroot
	}
	a.user = os.Getenv("USER")
	if u, err := user.Current(); err == nil && u.Username != "" {
		a.user = u.Username
	}
	a.host, _ = os.Hostname()
	return a, nil
}

// Write appends r, filled with who and where, and fsyncs it. An action
// whose "before" line cannot be written must not go on.
func (a *Log) Write(r Record) error {
	r.Time = time.Now().UTC().Format("2006-01-02T15:04:05.000Z07:00")
	r.User, r.Host, r.PID = a.user, a.host, os.Getpid()
	r.Context, r.Servers, r.Chroot, r.TLS = a.context, a.servers, a.chroot, a.tls
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrLog, err)
	}
	b = append(b, '\n')
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, err := a.f.Write(b); err != nil {
		return fmt.Errorf("%w %s: %w", ErrLog, a.path, err)
	}
	if err := a.f.Sync(); err != nil {
		return fmt.Errorf("%w %s: %w", ErrLog, a.path, err)
	}
	return nil
}

// Close closes the file.
func (a *Log) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.f.Close()
}

// Do runs one action between its two lines: r as the "before" line,
// then fn, then r as fn left it as the "after" line. fn may fill in what
// only the action learns (the node taken, how a run ended); an outcome it
// sets is kept, else the outcome is ok, or error with err's text when fn
// fails. If the "before" line cannot be written, fn does not run and the
// error wraps ErrNotDone. Otherwise Do returns fn's error, joined with
// the "after" line's failure if any.
func (a *Log) Do(r Record, fn func(*Record) error) error {
	r.Phase = PhaseBefore
	if err := a.Write(r); err != nil {
		return fmt.Errorf("%s %w: %w", r.Action, ErrNotDone, err)
	}
	err := fn(&r)
	if aerr := a.after(r, err); aerr != nil {
		return errors.Join(err, aerr)
	}
	return err
}

// after fills the outcome of r from err, unless the action set one, and
// writes it.
func (a *Log) after(r Record, err error) error {
	r.Phase = PhaseAfter
	if r.Outcome == "" {
		r.Outcome = OutcomeOK
		if err != nil {
			r.Outcome = OutcomeError
			r.Error = strings.ReplaceAll(err.Error(), "\n", " ")
		}
	}
	return a.Write(r)
}
