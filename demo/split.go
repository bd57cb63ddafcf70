// The presenter's split: a Kazoo-style client joins a Curator queue, and
// the console flags split-holders.

package demo

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// Split makes a Kazoo-style client join p's Curator-style queue: Kazoo
// sees only "__lock__" names, so it believes it holds, while Curator sorts
// the new node last and its holder believes the same. On an empty queue a
// Curator-style client takes the lock first. A read/write queue shows no
// split (readers may share), nor do the semaphore and the election, so the
// split goes to the busy mutex instead.
//
// On the Solr overseer election, S keeps its leader record stale after
// the failovers (or lets it catch up again) instead.
func (d *Workload) Split(ctx context.Context, p string) (string, error) {
	if d.solr != nil && p == SolrElection {
		return d.solr.toggleStale(), nil
	}
	if !isDemoLock(p) {
		return "", fmt.Errorf("%w: %s", errNotDemoLock, model.SanitizeString(p, 80))
	}
	if !isDemoLockPath(p) {
		what := "a semaphore"
		if p == Leader {
			what = "an election"
		}
		note := fmt.Sprintf(" (%s is %s: the split is on %s)", p, what, Billing)
		text, err := d.Split(ctx, Billing)
		if err != nil {
			return "", err
		}
		return text + note, nil
	}
	q, err := d.queue(ctx, p)
	if err != nil {
		return "", err
	}
	note := ""
	for _, e := range q.Entries {
		if e.Kind == ordering.KindRead || e.Kind == ordering.KindWrite {
			note = fmt.Sprintf(" (%s is a read/write lock, where readers share: the split is on %s)", p, Billing)
			p = Billing
			if q, err = d.queue(ctx, p); err != nil {
				return "", err
			}
			break
		}
	}
	d.mu.Lock()
	if d.splits[p] {
		d.mu.Unlock()
		return "", fmt.Errorf("%w on %s", errSplitActive, p)
	}
	d.splits[p] = true
	d.mu.Unlock()
	end := func() {
		d.mu.Lock()
		delete(d.splits, p)
		d.mu.Unlock()
	}

	if len(q.Entries) == 0 {
		curator := &demoClient{demoRole: demoRole{who: "ledger-sync@java-svc-1", path: p, kind: ordering.KindMutex, hold: demoSpan{splitLife, splitLife}}, split: true}
		if _, err := d.startSplitClient(ctx, curator, ordering.StyleCurator); err != nil {
			end()
			return "", err
		}
	}
	kazoo := &demoClient{demoRole: demoRole{who: "nightly-export.py@batch-7", path: p, kind: ordering.KindMutex, hold: demoSpan{splitHold, splitHold}}, split: true}
	node, err := d.startSplitClient(ctx, kazoo, ordering.StyleKazoo)
	if err != nil {
		end()
		return "", err
	}
	go func() {
		// The split is over when its clients are gone.
		t := time.NewTimer(splitLife + splitHold)
		defer t.Stop()
		select {
		case <-t.C:
		case <-d.ctx.Done():
		}
		end()
	}()
	text := fmt.Sprintf("split: %s joined %s in Kazoo style as %s%s", kazoo.who, p, demoNodeRef(node), note)
	return text + d.splitHoldersText(ctx, p) + fmt.Sprintf(" (for %s)", splitLife), nil
}

// splitHoldersText says who believes it holds p once the split is made,
// "" when the queue cannot be read or shows no split yet.
func (d *Workload) splitHoldersText(ctx context.Context, p string) string {
	q, err := d.queue(ctx, p)
	if err != nil {
		return ""
	}
	names := q.SplitHolders()
	if len(names) < 2 {
		return ""
	}
	refs := make([]string, len(names))
	for i, n := range names {
		refs[i] = demoNodeRef(n)
	}
	return fmt.Sprintf(": Kazoo sees only __lock__ nodes and Curator sorts it last, so %s each believe they hold", demoJoinAnd(refs))
}

// startSplitClient starts a client that takes p in the given style,
// allowing a mixed queue, for at most splitLife, and returns its node name
// once created.
func (d *Workload) startSplitClient(ctx context.Context, c *demoClient, style ordering.Style) (string, error) {
	sess, err := lockops.Connect(ctx, d.servers, d.sessOpts...)
	if err != nil {
		return "", fmt.Errorf("demo: split client: %w", err)
	}
	c.sess, c.pid = sess, 1000+rand.N(30000)
	created := make(chan string, 1)
	var l demoHold = lockops.NewLock(sess, c.path, lockops.WithStyle(style), lockops.WithAllowMixed(),
		lockops.WithData([]byte(c.identity())),
		lockops.WithProgress(func(p ordering.Progress) {
			if p.Node != "" {
				select {
				case created <- p.Node:
				default:
				}
			}
		}))
	if style == ordering.StyleKazoo {
		l = newStockKazooHold(sess, c.path, []byte(c.identity()))
	}
	d.mu.Lock()
	d.clients = append(d.clients, c)
	d.mu.Unlock()
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		defer func() {
			sess.Close()
			c.set(demoIdle, "")
			d.mu.Lock()
			d.clients = slices.DeleteFunc(d.clients, func(o *demoClient) bool { return o == c })
			d.mu.Unlock()
		}()
		lctx, cancel := context.WithTimeout(d.ctx, splitLife)
		defer cancel()
		c.set(demoQueued, "")
		if err := l.Acquire(lctx); err != nil {
			return
		}
		select {
		case created <- l.Node(): // a stock Kazoo hold tells no progress
		default:
		}
		c.set(demoHolding, l.Node())
		d.hold(d.ctx, c, l)
	}()
	select {
	case node := <-created:
		return node, nil
	case <-ctx.Done():
		sess.Close()
		return "", fmt.Errorf("demo: split client: %w", ctx.Err())
	}
}
