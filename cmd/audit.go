package cmd

// The audit log: one JSON line per operator action and phase, appended and
// fsynced before the action goes on, so that a crash mid-action still
// leaves the "before" line that says who was about to do what.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"zklock/lockops"
	"zklock/ui"
)

var errAudit = errors.New("audit log")

// Audit phases and outcomes, as the log spells them.
const (
	phaseBefore = "before"
	phaseAfter  = "after"

	outcomeOK    = "ok"
	outcomeError = "error"
)

// auditRecord is one line of the audit log. Field names are stable: they
// are documented in the README for whoever reads the log.
type auditRecord struct {
	Time     string   `json:"time"` // RFC 3339, UTC, milliseconds
	User     string   `json:"user"` // the operator's login
	Host     string   `json:"host"` // this machine
	PID      int      `json:"pid"`  // this zklock process
	Context  string   `json:"context,omitempty"`
	Servers  string   `json:"servers"`
	Action   string   `json:"action"`         // take | release | revoke | force-release | run
	Phase    string   `json:"phase"`          // before | after
	Path     string   `json:"path"`           // the lock parent
	Kind     string   `json:"kind,omitempty"` // take, run: mutex | read | write
	Node     string   `json:"node,omitempty"`
	Owner    string   `json:"owner_session,omitempty"` // the node's ephemeralOwner, 0x...
	Client   string   `json:"client,omitempty"`        // that session's ip:port, when known
	Session  string   `json:"operator_session,omitempty"`
	Outcome  string   `json:"outcome,omitempty"` // after: ok | error | a word the action defines
	Error    string   `json:"error,omitempty"`
	Command  []string `json:"command,omitempty"`   // run: CMD and its arguments
	ExitCode *int     `json:"exit_code,omitempty"` // run: what zklock exits with
}

// auditLog appends records to one file. Safe for concurrent use.
type auditLog struct {
	mu      sync.Mutex
	f       *os.File
	path    string
	user    string
	host    string
	context string
	servers string
}

// defaultAuditPath is under the user's state directory (XDG), where logs
// that outlive a run belong.
func defaultAuditPath() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "zklock", "audit.log"), nil
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("%w: no home directory for the default path (give --audit-log): %w", errAudit, err)
	}
	return filepath.Join(h, ".local", "state", "zklock", "audit.log"), nil
}

// openAudit opens (creating) the audit log of the settings.
func openAudit(s *settings) (*auditLog, error) {
	p := expandHome(s.auditLog)
	if p == "" {
		var err error
		if p, err = defaultAuditPath(); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return nil, fmt.Errorf("%w: %w", errAudit, err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errAudit, err)
	}
	a := &auditLog{f: f, path: p, context: s.contextName, servers: strings.Join(s.servers, ",")}
	if s.chroot != "" {
		a.servers += s.chroot
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
func (a *auditLog) Write(r auditRecord) error {
	r.Time = time.Now().UTC().Format("2006-01-02T15:04:05.000Z07:00")
	r.User, r.Host, r.PID = a.user, a.host, os.Getpid()
	r.Context, r.Servers = a.context, a.servers
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("%w: %w", errAudit, err)
	}
	b = append(b, '\n')
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, err := a.f.Write(b); err != nil {
		return fmt.Errorf("%w %s: %w", errAudit, a.path, err)
	}
	if err := a.f.Sync(); err != nil {
		return fmt.Errorf("%w %s: %w", errAudit, a.path, err)
	}
	return nil
}

// Close closes the file.
func (a *auditLog) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.f.Close()
}

// after fills the outcome of r from err and writes it.
func (a *auditLog) after(r auditRecord, err error) error {
	r.Phase = phaseAfter
	if r.Outcome == "" {
		r.Outcome = outcomeOK
	}
	if err != nil {
		r.Outcome = outcomeError
		r.Error = oneLine(err.Error())
	}
	return a.Write(r)
}

// sessionHex is how sessions are written everywhere: 0x and hex.
func sessionHex(id int64) string {
	if id == 0 {
		return ""
	}
	return fmt.Sprintf("0x%x", id)
}

// auditedBackend writes a line before and after every console action.
type auditedBackend struct {
	inner *lockBackend
	audit *auditLog
	sess  *lockops.Session
	// lookup says what the live model knows of a node: owner and client.
	lookup func(parent, node string) (int64, string)
}

var _ ui.Backend = (*auditedBackend)(nil)

// do runs one action between its two lines.
func (b *auditedBackend) do(r auditRecord, fn func() error) error {
	r.Phase = phaseBefore
	r.Session = sessionHex(b.sess.ID())
	if err := b.audit.Write(r); err != nil {
		return fmt.Errorf("%s not done: %w", r.Action, err)
	}
	err := fn()
	if r.Action == "take" {
		// Known once queued; a release names it from before.
		r.Node = b.ownNode(r.Path)
	}
	if aerr := b.audit.after(r, err); aerr != nil {
		return errors.Join(err, aerr)
	}
	return err
}

func (b *auditedBackend) ownNode(p string) string {
	b.inner.mu.Lock()
	defer b.inner.mu.Unlock()
	if o, ok := b.inner.locks[p]; ok {
		return o.lock.Node()
	}
	return ""
}

func (b *auditedBackend) Take(ctx context.Context, p string, kind lockops.Kind) error {
	return b.do(auditRecord{Action: "take", Path: p, Kind: kind.String()}, func() error {
		return b.inner.Take(ctx, p, kind)
	})
}

func (b *auditedBackend) Release(ctx context.Context, p string) error {
	r := auditRecord{Action: "release", Path: p, Node: b.ownNode(p)}
	return b.do(r, func() error { return b.inner.Release(ctx, p) })
}

func (b *auditedBackend) Revoke(ctx context.Context, p, node string) error {
	owner, client := b.lookup(p, node)
	r := auditRecord{Action: "revoke", Path: p, Node: node, Owner: sessionHex(owner), Client: client}
	return b.do(r, func() error { return b.inner.Revoke(ctx, p, node) })
}

func (b *auditedBackend) ForceRelease(ctx context.Context, p, node string, session int64) error {
	_, client := b.lookup(p, node)
	r := auditRecord{Action: "force-release", Path: p, Node: node, Owner: sessionHex(session), Client: client}
	return b.do(r, func() error { return b.inner.ForceRelease(ctx, p, node, session) })
}
