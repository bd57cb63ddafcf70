package cmd

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/doctor"
)

// hangGuard bounds a command that must answer at once: far above what it
// takes (under a second), far below the connect timeout the tests give
// (20 s), so only a wait for a timeout trips it.
const hangGuard = 5 * time.Second

// TestDoctorShowsTheServersOwnCertificate: with a CA that did not sign the
// server, doctor prints the certificate the server sent for itself (the
// first of its chain: its subject, its names, its issuer), not the CA
// that ends the chain; with hostname verification off too (the chain is
// still checked then, by zklock's own verification).
func TestDoctorShowsTheServersOwnCertificate(t *testing.T) {
	c := sharedTLS.Cluster(t)
	f := c.TLS()
	base := []string{"--servers=" + c.SecureServers()[0], "--tls-ca", f.OtherCA, "--tls-cert", f.ClientCert, "--tls-key", f.ClientKey}
	for _, extra := range [][]string{nil, {"--tls-insecure-skip-verify"}} {
		args := append(append(append([]string{}, base...), extra...), "doctor", "--json")
		out, _, code := runBinary(t, nil, args...)
		if code != exitFailure {
			t.Fatalf("doctor %v: code %d, want %d\n%s", extra, code, exitFailure, out)
		}
		m := doctorJSON(t, out).Members[0]
		if m.TLS == nil || m.TLS.Verified {
			t.Fatalf("doctor %v: tls %+v", extra, m.TLS)
		}
		if !strings.Contains(m.TLS.Subject, "zklock sandbox server") || !strings.Contains(m.TLS.Issuer, "zklock sandbox CA") ||
			!slices.Contains(m.TLS.Names, "127.0.0.1") || !slices.Contains(m.TLS.Names, "localhost") {
			t.Errorf("doctor %v: the certificate shown is not the server's own: %+v", extra, m.TLS)
		}
		if !strings.Contains(m.Error, `signed by "CN=zklock sandbox CA,`) {
			t.Errorf("doctor %v: error %q does not name the server certificate's issuer", extra, m.Error)
		}
	}
	text, _, _ := runBinary(t, nil, append(base, "doctor")...)
	if !strings.Contains(text, `server "CN=zklock sandbox server,O=zklock sandbox" for localhost 127.0.0.1`) {
		t.Errorf("doctor text does not show the server's certificate and names:\n%s", text)
	}
}

// TestDoctorPlainOnTLSPort: doctor without TLS on a secure port says so
// at once, as ls does, and each four-letter word says why it had no
// answer, instead of each waiting out the connect timeout.
func TestDoctorPlainOnTLSPort(t *testing.T) {
	c := sharedTLS.Cluster(t)
	start := time.Now()
	out, errOut, code := runBinary(t, nil, "--servers="+c.SecureServers()[0], "--connect-timeout", "20s", "doctor", "--json")
	took := time.Since(start)
	if code != exitFailure {
		t.Fatalf("doctor: code %d, stderr %q", code, errOut)
	}
	if took > hangGuard {
		t.Errorf("doctor took %v on a plain link to a TLS port: it waited for a timeout", took)
	}
	m := doctorJSON(t, out).Members[0]
	if m.Usable || !strings.Contains(m.Error, "the server may require TLS") {
		t.Errorf("member: usable %v error %q", m.Usable, m.Error)
	}
	for _, w := range doctor.Words {
		if v := m.FourLetter[w]; v != "no answer: the port requires TLS" {
			t.Errorf("%s: %q, want the link's problem", w, v)
		}
	}
	t.Logf("%v: %s", took.Round(time.Millisecond), strings.TrimSpace(errOut))
}

// TestTLSServerNameSetWrong: a --tls-server-name the certificate does not
// have is named as what is wrong, with the certificate's names; the
// advice is not to set --tls-server-name (it is set) but to set it right
// or drop it (the host dialled is in the certificate).
func TestTLSServerNameSetWrong(t *testing.T) {
	c := sharedTLS.Cluster(t)
	_, errOut, code := runBinary(t, nil, append(tlsFlags(c, ""), "--tls-server-name", "zk.wrong.example", "--connect-timeout", "20s", "ls", "/")...)
	assertOneLineFailure(t, errOut, code, `not "zk.wrong.example", the server name set (--tls-server-name`)
	for _, want := range []string{"localhost, 127.0.0.1", "set it to one of the certificate's names", "drop it: the certificate is valid for 127.0.0.1"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr %q lacks %q", errOut, want)
		}
	}
	if strings.Contains(errOut, "or set --tls-server-name") {
		t.Errorf("stderr %q still advises setting --tls-server-name", errOut)
	}
}

// TestInsecureSkipVerifyWarns: every one-shot command run without
// hostname verification says so in one line on stderr (doctor once for
// the three members), and nothing without it.
func TestInsecureSkipVerifyWarns(t *testing.T) {
	c := sharedTLS.Cluster(t)
	p := testPath(t)
	mkdirs(t, testTLSConn(t, c), p, nil)
	for _, args := range [][]string{{"ls", p}, {"ls", "--json", p}, {"sessions", p}, {"doctor"}} {
		for _, insecure := range []bool{true, false} {
			all := tlsFlags(c, "")
			if insecure {
				all = append(all, "--tls-insecure-skip-verify")
			}
			_, errOut, code := runBinary(t, nil, append(all, args...)...)
			if code != 0 {
				t.Fatalf("%v (insecure %v): code %d, stderr %q", args, insecure, code, errOut)
			}
			lines := strings.Split(strings.TrimRight(errOut, "\n"), "\n")
			switch {
			case !insecure && errOut != "":
				t.Errorf("%v with hostname verification: stderr %q, want nothing", args, errOut)
			case insecure && (len(lines) != 1 || !strings.HasPrefix(lines[0], "zklock: warning: TLS without hostname verification")):
				t.Errorf("%v --tls-insecure-skip-verify: stderr %q, want one warning line", args, errOut)
			}
		}
	}
}
