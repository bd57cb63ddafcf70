package cmd

import (
	"encoding/json"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/doctor"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/sandboxtest"
)

func doctorJSON(t *testing.T, out string) doctor.Report {
	t.Helper()
	var r doctor.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, out)
	}
	return r
}

// checkUsable checks what every healthy sandbox member reports.
func checkUsable(t *testing.T, m *doctor.Member) {
	t.Helper()
	if !m.Usable || m.Error != "" || m.SessionTimeoutMS <= 0 {
		t.Errorf("%s: usable %v error %q timeout %d", m.Server, m.Usable, m.Error, m.SessionTimeoutMS)
	}
	if !strings.HasPrefix(m.Version, "3.") || m.AddWatch != "supported" {
		t.Errorf("%s: version %q addWatch %q", m.Server, m.Version, m.AddWatch)
	}
	for _, w := range doctor.Words {
		if m.FourLetter[w] != "allowed" {
			t.Errorf("%s: %s %q, want allowed (the sandbox allows every word)", m.Server, w, m.FourLetter[w])
		}
	}
}

func TestDoctorPlain(t *testing.T) {
	out, errOut, code := runBinary(t, nil, serversFlag(t), "doctor", "-o", "json")
	if code != 0 {
		t.Fatalf("doctor: code %d, stderr %q\n%s", code, errOut, out)
	}
	r := doctorJSON(t, out)
	if r.Schema != doctor.Schema || !strings.HasPrefix(out, "{\n  \"schema\": 1,") {
		t.Errorf("doctor -o json: schema %d, want %d first:\n%s", r.Schema, doctor.Schema, out)
	}
	if len(r.Members) != 1 || r.TLS != nil || len(r.Problems) != 0 {
		t.Fatalf("doctor: %s", out)
	}
	m := r.Members[0]
	checkUsable(t, m)
	if m.Mode != "standalone" || m.TLS != nil {
		t.Errorf("mode %q tls %+v", m.Mode, m.TLS)
	}
	// The sandbox runs on this machine: its clock is ours.
	if !r.Clock.Measured || math.Abs(r.Clock.OffsetMS) > r.Clock.UncertaintyMS+5 {
		t.Errorf("clock: %+v", r.Clock)
	}
	if len(r.Roots) != 1 || r.Roots[0].Path != "/" || !r.Roots[0].Readable {
		t.Errorf("roots: %+v", r.Roots)
	}

	text, errOut, code := runBinary(t, nil, serversFlag(t), "doctor")
	if code != 0 {
		t.Fatalf("doctor: code %d, stderr %q", code, errOut)
	}
	// The sandbox is far from its rollover (no test can push a real
	// server near it: TestDoctorZxidLine judges that by hand).
	if z := m.Zxid; z == nil || z.NearRollover || z.Zxid != fmt.Sprintf("%#x", uint64(z.Epoch)<<32|uint64(z.Counter)) {
		t.Errorf("zxid %+v, want srvr's, split, far from its rollover", z)
	}
	for _, want := range []string{"standalone", "srvr ruok cons wchc mntr allowed", "addWatch    supported", "plain TCP", "clock", "problems    none",
		"zxid        0x", "of the way to its rollover"} {
		if !strings.Contains(text, want) {
			t.Errorf("doctor text lacks %q:\n%s", want, text)
		}
	}
}

// TestDoctorTLSContext: a context written with ZooKeeper's own client
// property names reaches the TLS ensemble; doctor reports each member's
// mode and TLS, the lock roots, and skips the clock in a read-only
// context.
func TestDoctorTLSContext(t *testing.T) {
	c := sharedTLS.Cluster(t)
	f := c.TLS()
	mkdirs(t, testTLSConn(t, c), "/doctor/locks", nil)
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	yaml := `contexts:
  secure:
    servers: [` + strings.Join(c.SecureServers(), ", ") + `]
    roots: [/doctor/locks]
    tls:
      zookeeper.client.secure: true
      zookeeper.ssl.trustStore.location: ` + f.CA + `
      zookeeper.ssl.trustStore.type: PEM
      zookeeper.ssl.keyStore.location: ` + f.ClientPair + `
      zookeeper.ssl.keyStore.type: PEM
  readonly:
    servers: [` + strings.Join(c.SecureServers(), ", ") + `]
    read_only: true
    tls: {ca: ` + f.CA + `, cert: ` + f.ClientCert + `, key: ` + f.ClientKey + `}
`
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"ZKLOCK_CONFIG=" + cfg}
	out, errOut, code := runBinary(t, env, "doctor", "secure", "--json")
	if code != 0 {
		t.Fatalf("doctor secure: code %d, stderr %q\n%s", code, errOut, out)
	}
	r := doctorJSON(t, out)
	if r.Context != "secure" || r.TLS == nil || !r.TLS.HostnameVerified || len(r.Members) != 3 || len(r.Problems) != 0 {
		t.Fatalf("doctor secure: %s", out)
	}
	modes := map[string]int{}
	for _, m := range r.Members {
		checkUsable(t, m)
		modes[m.Mode]++
		if m.TLS == nil || !m.TLS.Verified || !strings.HasPrefix(m.TLS.Protocol, "TLS") || m.TLS.Cipher == "" ||
			!strings.Contains(m.TLS.Subject, "zklock sandbox server") || time.Until(m.TLS.NotAfter) < 24*time.Hour {
			t.Errorf("%s: tls %+v", m.Server, m.TLS)
		}
	}
	if modes["leader"] != 1 || modes["follower"] != 2 {
		t.Errorf("modes %v, want one leader and two followers", modes)
	}
	if !r.Clock.Measured || len(r.Roots) != 1 || !r.Roots[0].Readable || r.Roots[0].Path != "/doctor/locks" {
		t.Errorf("clock %+v roots %+v", r.Clock, r.Roots)
	}

	text, _, code := runBinary(t, env, "doctor", "secure")
	for _, want := range []string{"context secure", ", TLS", "TLS 1.", "zklock sandbox server", "leader", "follower", "lock root   /doctor/locks readable"} {
		if code != 0 || !strings.Contains(text, want) {
			t.Errorf("doctor text (code %d) lacks %q:\n%s", code, want, text)
		}
	}
	t.Logf("doctor secure:\n%s", text)

	out, errOut, code = runBinary(t, env, "doctor", "readonly", "--json")
	if code != 0 {
		t.Fatalf("doctor readonly: code %d, stderr %q\n%s", code, errOut, out)
	}
	if r := doctorJSON(t, out); r.Clock.Measured || !strings.Contains(r.Clock.Note, "read-only") {
		t.Errorf("read-only context: clock %+v", r.Clock)
	}
	// --write is a flag of doctor's (its clock probe writes): it lifts
	// the context's read-only.
	out, errOut, code = runBinary(t, env, "doctor", "readonly", "--write", "--json")
	if r := doctorJSON(t, out); code != 0 || !r.Clock.Measured {
		t.Errorf("read-only context with --write: code %d, stderr %q, clock %+v", code, errOut, r.Clock)
	}
}

// TestDoctorExpiredAndRefusals: a member whose certificate expired is
// reported with its certificate and the fix (exit 1); its plain port,
// which allows only srvr and ruok, shows the other words refused.
func TestDoctorExpiredAndRefusals(t *testing.T) {
	c := sharedExpired.Cluster(t)
	out, errOut, code := runBinary(t, nil, append(tlsFlags(c, ""), "doctor", "--json")...)
	assertOneLineFailure(t, errOut, code, "expired at")
	r := doctorJSON(t, out)
	m := r.Members[0]
	if m.Usable || !strings.Contains(m.Error, "expired at") || m.TLS == nil || m.TLS.Verified || !m.TLS.NotAfter.Before(time.Now()) {
		t.Errorf("expired member: %+v tls %+v", m, m.TLS)
	}
	if len(r.Problems) != 1 || !strings.Contains(r.Problems[0], c.SecureServers()[0]) {
		t.Errorf("problems %q", r.Problems)
	}

	out, errOut, code = runBinary(t, nil, "--servers="+c.ConnectString(), "doctor", "--json")
	if code != 0 {
		t.Fatalf("doctor on the plain port: code %d, stderr %q", code, errOut)
	}
	m = doctorJSON(t, out).Members[0]
	want := map[string]string{"srvr": "allowed", "ruok": "allowed", "cons": "refused", "wchc": "refused", "mntr": "refused"}
	for w, v := range want {
		if m.FourLetter[w] != v {
			t.Errorf("%s: %q, want %q", w, m.FourLetter[w], v)
		}
	}
	if m.Mode != "standalone" || m.Version == "" {
		t.Errorf("mode %q version %q from srvr", m.Mode, m.Version)
	}
}

// TestDoctorServerView: per member, which source tells the sessions and
// watches and what each refused: as deployed (default whitelist,
// AdminServer) the AdminServer; without it (Debian's service) none, with
// the fix.
func TestDoctorServerView(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		opts    sandbox.Options
		sources []string
		fix     string
	}{
		{"as deployed", sandbox.Options{FourLetterWords: sandbox.ZooKeeperDefaultWords, AdminServer: &sandbox.AdminOptions{}}, []string{"admin"}, ""},
		{"no AdminServer", sandbox.Options{FourLetterWords: sandbox.ZooKeeperDefaultWords}, []string{}, "turn on the AdminServer"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := sandboxtest.Start(t, tt.opts)
			port := "1" // nothing listens there
			if a := c.Members()[0].AdminAddr(); a != "" {
				_, port, _ = net.SplitHostPort(a)
			}
			out, errOut, code := runBinary(t, nil, "--servers="+c.ConnectString(), "--admin-port", port, "doctor", "--json")
			if code != 0 {
				t.Fatalf("code %d, stderr %q", code, errOut)
			}
			sv := doctorJSON(t, out).Members[0].ServerView
			if sv == nil || !slices.Equal(sv.Sources, tt.sources) || !strings.Contains(sv.Fix, tt.fix) || (tt.fix == "") != (sv.Fix == "") {
				t.Fatalf("server view %+v, want sources %v and fix %q", sv, tt.sources, tt.fix)
			}
			if !slices.ContainsFunc(sv.Refused, func(r doctor.Refusal) bool { return r.Source == "4lw" && r.Command == "cons" }) {
				t.Errorf("refusals %+v lack 4lw cons", sv.Refused)
			}
			text, _, _ := runBinary(t, nil, "--servers="+c.ConnectString(), "--admin-port", port, "doctor")
			if want := "servers     told by AdminServer"; tt.fix == "" && !strings.Contains(text, want) {
				t.Errorf("text lacks %q:\n%s", want, text)
			}
		})
	}
}
