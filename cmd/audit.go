package cmd

// The console's actions, audited: a line before and after each.

import (
	"context"

	"github.com/zklock/zklock/audit"
	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/ui"
)

// ownedBackend is a ui.Backend that says what the operator holds at a
// path: what the audit's "after" line of a take names.
type ownedBackend interface {
	ui.Backend
	// Owned is the own node at p, relative to p, and the audit's kind
	// (mutex, read, write, lease, election); "" when nothing is owned.
	Owned(p string) (node, kind string)
}

// auditedBackend writes a line before and after every console action.
type auditedBackend struct {
	inner ownedBackend
	audit *audit.Log
	sess  *lockops.Session
	// lookup says what the Watcher knows of a node: owner and client.
	lookup func(parent, node string) (int64, string)
}

var _ ui.Backend = (*auditedBackend)(nil)

// do runs one action between its two lines.
func (b *auditedBackend) do(r audit.Record, fn func() error) error {
	r.Session = model.SessionHex(b.sess.ID())
	return b.audit.Do(r, func(r *audit.Record) error {
		err := fn()
		if r.Action == "take" {
			// Known once queued; a release names it from before.
			node, kind := b.inner.Owned(r.Path)
			r.Node = node
			if kind != "" {
				r.Kind = kind // a lease or an election's place, not the kind asked
			}
		}
		return err
	})
}

func (b *auditedBackend) Take(ctx context.Context, p string, kind ordering.Kind) error {
	return b.do(audit.Record{Action: "take", Path: p, Kind: kind.String()}, func() error {
		return b.inner.Take(ctx, p, kind)
	})
}

func (b *auditedBackend) Release(ctx context.Context, p string) error {
	node, _ := b.inner.Owned(p)
	r := audit.Record{Action: "release", Path: p, Node: node}
	return b.do(r, func() error { return b.inner.Release(ctx, p) })
}

func (b *auditedBackend) Revoke(ctx context.Context, p, node string) error {
	owner, client := b.lookup(p, node)
	r := audit.Record{Action: "revoke", Path: p, Node: node, Owner: model.SessionHex(owner), Client: client}
	return b.do(r, func() error { return b.inner.Revoke(ctx, p, node) })
}

func (b *auditedBackend) ForceRelease(ctx context.Context, p, node string, session int64) error {
	_, client := b.lookup(p, node)
	r := audit.Record{Action: "force-release", Path: p, Node: node, Owner: model.SessionHex(session), Client: client}
	return b.do(r, func() error { return b.inner.ForceRelease(ctx, p, node, session) })
}
