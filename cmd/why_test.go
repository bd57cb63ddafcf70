package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/sandbox/peers"
	"github.com/zklock/zklock/third_party/zk"
	"github.com/zklock/zklock/verdict"
)

// whyJSON runs `zklock why -o json` with args and decodes its object.
func whyJSON(t *testing.T, args ...string) (verdict.JSON, string, int) {
	t.Helper()
	out, errOut, code := runBinary(t, nil, append([]string{serversFlag(t), "why", "-o", "json"}, args...)...)
	var j verdict.JSON
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("why -o json %v: %v (code %d, stderr %q)\n%s", args, err, code, errOut, out)
	}
	if j.Schema != verdict.WhySchema {
		t.Fatalf("why -o json %v: schema %d, want %d\n%s", args, j.Schema, verdict.WhySchema, out)
	}
	return j, errOut, code
}

// TestWhyHeld: a lock held through the lock core with a waiter queued
// behind it: `why` names the holder (its session as ZooKeeper owns the
// node, since when with its bound), the waiter's watch as the servers
// show it, who holds next, nothing to act on, exit 0; a lock node's own
// path is taken as its parent's.
func TestWhyHeld(t *testing.T) {
	p := testPath(t)
	locks := queueOf(t, p, 2)
	holder, waiter := locks[0].Node(), locks[1].Node()
	c := testConn(t)
	_, st, err := c.Exists(p + "/" + holder)
	if err != nil {
		t.Fatal(err)
	}
	var j verdict.JSON
	eventually(t, 30*time.Second, "the waiter's watch verified", func() bool {
		var code int
		j, _, code = whyJSON(t, p)
		return code == 0 && len(j.Waiters) == 1 && j.Waiters[0].Wakes == verdict.WakesYes
	})
	if j.State != verdict.StateHeld || j.Failing || j.Path != p || !j.Exists || j.Act != nil {
		t.Errorf("verdict: %+v", j)
	}
	if len(j.Holders) != 1 || j.Holders[0].Node != holder || j.Holders[0].Session != fmt.Sprintf("0x%x", st.EphemeralOwner) ||
		j.Holders[0].Since == "" || j.Holders[0].SinceBound == "" || j.Holders[0].HeldS == nil || j.Holders[0].Position != 1 {
		t.Errorf("holders %+v, want %s of 0x%x", j.Holders, holder, st.EphemeralOwner)
	}
	// The holder's client is alive, as its member tells.
	if h := j.Holders[0]; h.ClientAlive != verdict.AliveYes || h.Member == "" || h.TimeoutS == nil || h.SilentS == nil || *h.SilentS > *h.TimeoutS/2 {
		t.Errorf("holder's client: %+v", h)
	}
	if w := j.Waiters[0]; w.Node != waiter || w.WaitsOn != holder || w.Watch != "verified" || w.Reason != verdict.ReasonVerified || w.Client == "" {
		t.Errorf("waiter %+v", w)
	}
	if j.Next == nil || !slices.Equal(j.Next.WhenGone, []string{holder}) || !slices.Equal(j.Next.Holds, []string{waiter}) {
		t.Errorf("next %+v", j.Next)
	}

	text, errOut, code := runBinary(t, nil, serversFlag(t), "why", p+"/"+waiter)
	want := fmt.Sprintf("next: when %s releases, %s holds\n", model.NodeRef(holder, 24), model.NodeRef(waiter, 24))
	if code != 0 || !strings.HasPrefix(text, p+": held by "+model.NodeRef(holder, 24)) || !strings.Contains(text, want) {
		t.Errorf("why %s/%s: code %d, stderr %q, want a line %q:\n%s", p, waiter, code, errOut, want, text)
	}
}

// TestWhyFree: a path that does not exist is a free lock, exit 0.
func TestWhyFree(t *testing.T) {
	p := testPath(t)
	j, errOut, code := whyJSON(t, p)
	if code != 0 || j.State != verdict.StateFree || j.Exists || len(j.Holders) != 0 || j.Act != nil {
		t.Errorf("absent %s: code %d, stderr %q, %+v", p, code, errOut, j)
	}
}

// TestLockOf: a lock node's path names its parent's lock.
func TestLockOf(t *testing.T) {
	for in, want := range map[string]string{
		"/locks/a":                 "/locks/a",
		"/locks/a/lock-0000000012": "/locks/a",
		"/locks/a/" + curatorPrefix + "0000000003": "/locks/a",
		"/lock-0000000001":                         "/lock-0000000001",
		"/locks/a/leases":                          "/locks/a/leases",
	} {
		if got := lockOf(in); got != want {
			t.Errorf("lockOf(%s) = %s, want %s", in, got, want)
		}
	}
}

// TestWhyUnwatchedWaiter: a waiter that set no watch (a raw
// ephemeral-sequential node of a plain client) never wakes: one `why`
// says so once its node is older than the grace, exits 2 and names the
// command that moves the queue past it; the held lock and the waiter
// behind the holder are told as before.
func TestWhyUnwatchedWaiter(t *testing.T) {
	p := testPath(t)
	locks := queueOf(t, p, 2)
	raw := testConn(t)
	node, err := raw.Create(p+"/lock-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
	if err != nil {
		t.Fatal(err)
	}
	name := path.Base(node)
	_, st, err := raw.Get(node)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the raw node older than the grace", func() bool {
		return time.Since(time.UnixMilli(st.Ctime)) > 1500*time.Millisecond
	})
	j, errOut, code := whyJSON(t, p)
	if code != exitCheck || j.State != verdict.StateStuck || !j.Failing || len(j.Waiters) != 2 {
		t.Fatalf("code %d, stderr %q, %+v", code, errOut, j)
	}
	if w := j.Waiters[1]; w.Node != name || w.WaitsOn != locks[1].Node() || w.Watch != "missing" || w.Wakes != verdict.WakesNever || w.Reason != verdict.ReasonMissing {
		t.Errorf("the raw waiter: %+v", w)
	}
	if w := j.Waiters[0]; w.Node != locks[1].Node() || w.Wakes != verdict.WakesYes {
		t.Errorf("the lock core's waiter: %+v", w)
	}
	want := "zklock --servers " + testCluster(t).ConnectString() + " release --force " + node
	if j.Act == nil || j.Act.Command != want || j.Act.Why != verdict.WhyNeverWakes || j.Act.Node != name {
		t.Errorf("act %+v, want %s", j.Act, want)
	}
}

// whySilentTimeout is the paused holder's session timeout: past half of
// it `why` must call it silent, and its read must end before all of it
// on a loaded machine.
const whySilentTimeout = 20 * time.Second

// TestWhySilentHolder: a Kazoo holder stopped with SIGSTOP past half its
// session timeout: `why` says its client is silent and when its session
// expires, that the waiter holds when it goes, and names release --force
// of the holder's node; exit 0, as ls --check shows silent-holder and
// does not fail on it.
func TestWhySilentHolder(t *testing.T) {
	p := testPath(t)
	servers := testCluster(t).Servers()
	holder := peers.StartT(t, peers.Kazoo, peers.Options{Servers: servers, SessionTimeout: whySilentTimeout})
	t.Cleanup(func() { _ = holder.Resume() }) // before its close: a stopped driver cannot quit
	waiter := peers.StartT(t, peers.Kazoo, peers.Options{Servers: servers, SessionTimeout: whySilentTimeout})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	h, err := holder.Acquire(ctx, 0, p, peers.Mutex)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := waiter.Request(0, p, peers.Mutex); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the waiter queued and verified", func() bool {
		j, _, _ := whyJSON(t, p)
		return len(j.Waiters) == 1 && j.Waiters[0].Wakes == verdict.WakesYes && len(j.Holders) == 1 && j.Holders[0].ClientAlive == verdict.AliveYes
	})
	if err := holder.Pause(); err != nil {
		t.Fatal(err)
	}
	paused := time.Now()
	eventually(t, whySilentTimeout, "past half the timeout", func() bool { return time.Since(paused) > whySilentTimeout/2+time.Second })
	j, errOut, code := whyJSON(t, p)
	if time.Since(paused) >= whySilentTimeout {
		t.Fatalf("the read ended %v after the pause, past the session timeout: the machine is too loaded to tell", time.Since(paused))
	}
	hj := j.Holders
	if code != 0 || j.State != verdict.StateSilent || len(hj) != 1 || hj[0].Node != h.Node() || hj[0].ClientAlive != verdict.AliveSilent ||
		hj[0].ExpiresInS == nil || *hj[0].ExpiresInS > whySilentTimeout.Seconds()/2 {
		t.Fatalf("code %d, stderr %q, %+v", code, errOut, j)
	}
	if j.Act == nil || j.Act.Why != verdict.WhySilent || !strings.HasSuffix(j.Act.Command, " release --force "+p+"/"+h.Node()) {
		t.Errorf("act %+v", j.Act)
	}
	if j.Next == nil || !strings.Contains(j.Next.Text, "or its session expires (in ≤") {
		t.Errorf("next %+v", j.Next)
	}
	if !slices.ContainsFunc(j.Warnings, func(w model.JSONWarning) bool { return w.Code == model.WarnSilentHolder }) {
		t.Errorf("warnings %+v lack silent-holder", j.Warnings)
	}
}
