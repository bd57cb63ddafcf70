package cmd

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/zklock/zklock/sandbox/peers"
)

// TestGSSAPIPeers: stock Curator (a client JAAS file with Krb5LoginModule
// and alice's keytab, as a Java service is configured) and stock Kazoo
// (sasl_options GSSAPI: pure-sasl and python3-kerberos, from a credential
// cache kinit made) each contend with `zklock run` (keytab) as alice on a
// parent only sasl:alice@REALM may use. Nobody gets in without Kerberos:
// that both sides hold at all proves each authenticated; no two critical
// sections overlap.
func TestGSSAPIPeers(t *testing.T) {
	for _, kind := range []peers.Kind{peers.Curator, peers.Kazoo} {
		t.Run(string(kind), func(t *testing.T) { gssapiPeer(t, kind) })
	}
}

func gssapiPeer(t *testing.T, kind peers.Kind) {
	k, server := kerberosZK(t)
	alice, _ := gssapiSession(t, k, []string{server}, "alice")
	p := testPath(t)
	mkdirsAs(t, alice, p, kerberosOnly(k, "alice"))
	dir := t.TempDir()
	cc := filepath.Join(dir, "alice.cc")
	if err := k.Kinit(t.Context(), "alice", cc, 0); err != nil {
		t.Fatal(err)
	}
	s, err := peers.WriteClientKrb5JAAS(dir, k.Keytab("alice"), k.Principal("alice"), k.Krb5Conf(), cc)
	if err != nil {
		t.Fatal(err)
	}
	// localhost: the host of the service principal, for Kazoo as for zklock.
	proc := peers.StartT(t, kind, peers.Options{Servers: []string{server}, Sessions: 2, SASL: s})
	stopLoop := loopInBackground(t, proc, peers.LoopSpec{Path: p, Duration: 60 * time.Second, Hold: 20 * time.Millisecond})
	eventually(t, 30*time.Second, "the peers to queue", func() bool {
		kids, _, _ := alice.ChildrenStat(context.Background(), p)
		return len(kids) > 0
	})

	log := filepath.Join(dir, "intervals")
	script := `echo "S $ID $(date +%s%N)" >> "$LOG"; sleep 0.05; echo "E $ID $(date +%s%N)" >> "$LOG"`
	const lanes, runsPerLane = 2, 3
	bin := buildBinary(t)
	var wg sync.WaitGroup
	errs := make(chan string, lanes*runsPerLane)
	for lane := range lanes {
		wg.Go(func() {
			for r := range runsPerLane {
				id := fmt.Sprintf("%d.%d", lane, r)
				// --style: as in saslLeaderKill, a run finding the queue empty
				// must not make a Kazoo queue mixed.
				args := append(gssapiFlags(k, server, "alice"), "run", "--style", string(kind), p, "--", "sh", "-c", script)
				pr, err := startProc(t, bin, []string{"LOG=" + log, "ID=" + id}, args...)
				if err != nil {
					errs <- err.Error()
					return
				}
				select {
				case <-pr.done:
				case <-time.After(binaryLimit):
					_ = pr.cmd.Process.Kill()
					<-pr.done
				}
				if code := pr.cmd.ProcessState.ExitCode(); code != 0 {
					errs <- fmt.Sprintf("run %s: exit %d: %s", id, code, pr.err.String())
				}
			}
		})
	}
	wg.Wait()
	cycles := stopLoop()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	all := peers.Intervals(string(kind), cycles)
	held := len(all)
	all = append(all, runIntervals(t, log)...)
	if held == 0 || len(all)-held != lanes*runsPerLane {
		t.Fatalf("%d %s holds and %d zklock runs; want both sides to have held", held, kind, len(all)-held)
	}
	if ov := peers.Overlaps(all); len(ov) > 0 {
		t.Fatalf("%d overlapping critical sections, first %v and %v", len(ov), ov[0][0], ov[0][1])
	}
	t.Logf("%s over GSSAPI: %d peer holds, %d zklock runs, no overlap on the sasl:%s parent", kind, held, lanes*runsPerLane, k.Principal("alice"))
}
