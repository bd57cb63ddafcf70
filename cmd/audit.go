package cmd

// The console's actions, audited: a line before and after each.

import (
	"context"
	"errors"
	"fmt"

	"github.com/zklock/zklock/config"
	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/ui"
)

// auditedBackend writes a line before and after every console action.
type auditedBackend struct {
	inner *lockBackend
	audit *config.AuditLog
	sess  *lockops.Session
	// lookup says what the Watcher knows of a node: owner and client.
	lookup func(parent, node string) (int64, string)
}

var _ ui.Backend = (*auditedBackend)(nil)

// do runs one action between its two lines.
func (b *auditedBackend) do(r config.AuditRecord, fn func() error) error {
	r.Phase = config.PhaseBefore
	r.Session = model.SessionHex(b.sess.ID())
	if err := b.audit.Write(r); err != nil {
		return fmt.Errorf("%s not done: %w", r.Action, err)
	}
	err := fn()
	if r.Action == "take" {
		// Known once queued; a release names it from before.
		r.Node = b.ownNode(r.Path)
		if k := b.ownKind(r.Path); k != "" {
			r.Kind = k // a lease or an election's place, not the kind asked
		}
	}
	if aerr := b.audit.After(r, err); aerr != nil {
		return errors.Join(err, aerr)
	}
	return err
}

func (b *auditedBackend) ownNode(p string) string {
	b.inner.mu.Lock()
	defer b.inner.mu.Unlock()
	if o, ok := b.inner.locks[p]; ok {
		return o.node()
	}
	return ""
}

func (b *auditedBackend) ownKind(p string) string {
	b.inner.mu.Lock()
	defer b.inner.mu.Unlock()
	if o, ok := b.inner.locks[p]; ok {
		return o.kind
	}
	return ""
}

func (b *auditedBackend) Take(ctx context.Context, p string, kind ordering.Kind) error {
	return b.do(config.AuditRecord{Action: "take", Path: p, Kind: kind.String()}, func() error {
		return b.inner.Take(ctx, p, kind)
	})
}

func (b *auditedBackend) Release(ctx context.Context, p string) error {
	r := config.AuditRecord{Action: "release", Path: p, Node: b.ownNode(p)}
	return b.do(r, func() error { return b.inner.Release(ctx, p) })
}

func (b *auditedBackend) Revoke(ctx context.Context, p, node string) error {
	owner, client := b.lookup(p, node)
	r := config.AuditRecord{Action: "revoke", Path: p, Node: node, Owner: model.SessionHex(owner), Client: client}
	return b.do(r, func() error { return b.inner.Revoke(ctx, p, node) })
}

func (b *auditedBackend) ForceRelease(ctx context.Context, p, node string, session int64) error {
	_, client := b.lookup(p, node)
	r := config.AuditRecord{Action: "force-release", Path: p, Node: node, Owner: model.SessionHex(session), Client: client}
	return b.do(r, func() error { return b.inner.ForceRelease(ctx, p, node, session) })
}
