package cmd

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/audit"
	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
)

// TestReleaseForceHandsOver: `release --force --yes` on the holder's node
// deletes it (the holder learns it lost the lock) and the next waiter
// takes the lock; the facts shown name the owner; the audit log has the
// action before and after.
func TestReleaseForceHandsOver(t *testing.T) {
	p := testPath(t)
	sa, sb := testSession(t), testSession(t)
	holder := holdLock(t, sa, p, lockops.WithNote("nightly-job"))
	waiter := lockops.NewLock(sb, p)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	acquired := make(chan error, 1)
	go func() { acquired <- waiter.Acquire(ctx) }()
	eventually(t, 20*time.Second, "the waiter to queue", func() bool { return waiter.State() == ordering.LockQueued && waiter.Node() != "" })

	auditFile := filepath.Join(t.TempDir(), "audit.log")
	node := p + "/" + holder.Node()
	out, errOut, code := runBinary(t, nil, serversFlag(t), "--audit-log", auditFile, "release", "--force", "--yes", node)
	if code != 0 {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
	owner := fmt.Sprintf("0x%x", sa.ID())
	for _, want := range []string{"FORCE-RELEASE " + node, "Owner     session " + owner, "nightly-job", "HOLDER", "RISK: the holder is not told", "deleted " + node} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	select {
	case err := <-acquired:
		if err != nil {
			t.Fatalf("the waiter did not take the lock: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the waiter never took the lock")
	}
	select {
	case <-holder.Done():
		if !errors.Is(holder.Err(), lockops.ErrNodeDeleted) {
			t.Errorf("holder's loss: %v, want ErrNodeDeleted", holder.Err())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the holder was not told it lost the lock")
	}
	_ = waiter.Release(ctx)

	recs := readAudit(t, auditFile)
	if len(recs) != 2 {
		t.Fatalf("audit: %+v", recs)
	}
	for i, phase := range []string{audit.PhaseBefore, audit.PhaseAfter} {
		r := recs[i]
		if r.Action != "force-release" || r.Phase != phase || r.Path != p || r.Node != holder.Node() || r.Owner != owner || r.Client == "" {
			t.Errorf("audit %s: %+v", phase, r)
		}
	}
	if recs[1].Outcome != audit.OutcomeOK {
		t.Errorf("audit after: outcome %q", recs[1].Outcome)
	}

	// The node is gone now: a second try is one clear line.
	_, errOut, code = runBinary(t, nil, serversFlag(t), "--audit-log", auditFile, "release", "--force", "--yes", node)
	assertOneLineFailure(t, errOut, code, "no such node")
}

// TestRevoke: `revoke --yes` makes a revocable holder let go; the audit
// log records it.
func TestRevoke(t *testing.T) {
	p := testPath(t)
	s := testSession(t)
	holder := holdLock(t, s, p, lockops.WithRevocable())
	auditFile := filepath.Join(t.TempDir(), "audit.log")
	out, errOut, code := runBinary(t, nil, serversFlag(t), "--audit-log", auditFile, "revoke", "--yes", p+"/"+holder.Node())
	if code != 0 {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, "REVOKE "+p) || !strings.Contains(out, "asked "+holder.Node()) {
		t.Errorf("output:\n%s", out)
	}
	select {
	case <-holder.Done():
		if !errors.Is(holder.Err(), lockops.ErrRevoked) {
			t.Errorf("holder's end: %v, want ErrRevoked", holder.Err())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the revocable holder did not let go")
	}
	recs := readAudit(t, auditFile)
	if len(recs) != 2 || recs[0].Action != "revoke" || recs[1].Outcome != audit.OutcomeOK || recs[1].Owner != fmt.Sprintf("0x%x", s.ID()) {
		t.Errorf("audit: %+v", recs)
	}
}
