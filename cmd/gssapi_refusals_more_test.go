package cmd

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/sandboxtest"
)

// TestGSSAPIRealmRefusals: the refusals a realm makes, end to end, each
// one line naming the cause and the fix, with --connect-timeout long so
// that a retry instead of a stop would show in the time logged:
//   - a client principal the KDC does not know (deleted after its keytab
//     was made);
//   - a client keytab older than the principal's key;
//   - clock skew: the KDC's clock (libfaketime) 10 minutes ahead, past
//     Kerberos's 5;
//   - a server holding an old key of its service principal (re-keyed in
//     the KDC after the server started): the KDC issues the ticket, the
//     server cannot read it.
func TestGSSAPIRealmRefusals(t *testing.T) {
	k, server := kerberosZK(t)
	n := pathSeq.Add(1)
	gone, stale, svc := fmt.Sprintf("carol%d", n), fmt.Sprintf("dave%d", n), fmt.Sprintf("zkstale%d", n)
	for _, p := range []string{gone, stale, svc + "/localhost"} {
		if err := k.AddPrincipal(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	if err := k.DeletePrincipal(t.Context(), gone); err != nil {
		t.Fatal(err)
	}
	if err := k.Rekey(t.Context(), stale); err != nil {
		t.Fatal(err)
	}

	skewed, err := sandbox.StartKDC(t.Context(), sandbox.KDCOptions{Realm: "SKEW.TEST", Principals: []string{"alice"}, ClockOffset: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { skewed.Close() })

	// A server of its own for the stale service key: the shared one's key
	// must stay right for the other tests.
	c := sandboxtest.Start(t, sandbox.Options{SASL: k.ZooKeeperSASL(svc + "/localhost")})
	staleServer := sandboxtest.Localhost(t, c.Servers()[0])
	if err := k.Rekey(t.Context(), svc+"/localhost"); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"unknown client principal", gssapiFlags(k, server, gone),
			[]string{"the KDC refused the client principal: log in as " + k.Principal(gone) + ": (6) KDC_ERR_C_PRINCIPAL_UNKNOWN", "check --sasl-principal"}},
		{"client keytab of an old key", gssapiFlags(k, server, stale),
			[]string{"the KDC refused the client principal: log in as " + k.Principal(stale) + ": (24) KDC_ERR_PREAUTH_FAILED", "--sasl-keytab holds its current key"}},
		{"clock skew", gssapiFlags(skewed, server, "alice"),
			[]string{"clock skew too great: log in as alice@SKEW.TEST: (37) KRB_AP_ERR_SKEW", "differ by more than Kerberos allows (5 minutes)", "NTP"}},
		{"server with an old service key", append(gssapiFlags(k, staleServer, "alice"), "--sasl-service", svc),
			[]string{"SASL GSSAPI refused by " + staleServer + ": the server did not accept the Kerberos ticket: its keytab may hold another key"}},
	}
	buildBinary(t) // before the clock starts
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, errOut, code := runBinary(t, nil, append(tt.args, "--connect-timeout", "30s", "ls", "/")...)
			t.Logf("failed in %v: %s", time.Since(start), strings.TrimSpace(errOut))
			assertOneLineFailure(t, errOut, code, tt.want[0])
			for _, w := range tt.want[1:] {
				if !strings.Contains(errOut, w) {
					t.Errorf("the line does not say %q", w)
				}
			}
		})
	}
}
