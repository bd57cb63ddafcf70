package cmd

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/third_party/zk"
)

// x509ID is the identity ZooKeeper's X509AuthenticationProvider gives a
// client presenting c's client certificate: the subject in RFC 2253 form
// (Java's X500Principal.getName()), which Go's pkix.Name.String() writes
// the same way for the sandbox's plain CN and O.
func x509ID(t *testing.T, c *sandbox.Cluster) string {
	t.Helper()
	b, err := os.ReadFile(c.TLS().ClientCert)
	if err != nil {
		t.Fatal(err)
	}
	blk, _ := pem.Decode(b)
	if blk == nil {
		t.Fatalf("%s: no PEM block", c.TLS().ClientCert)
	}
	cert, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return cert.Subject.String()
}

// TestX509ACL: a parent only the TLS client certificate's identity may use
// (scheme x509): zklock over TLS with that certificate lists its queue,
// force-releases the holder and runs; over the plain port, with no
// certificate, it is refused with NoAuth naming the path. The console's
// header says the certificate's identity.
func TestX509ACL(t *testing.T) {
	c := sharedTLS.Cluster(t)
	id := x509ID(t, c)
	s := tlsSession(t, c)
	p := testPath(t)
	mkdirsAs(t, s, p, []zk.ACL{{Perms: zk.PermAll, Scheme: "x509", ID: id}})
	holder := holdOver(t, s, p, ordering.LockHolding)

	flags := tlsFlags(c, "")
	// The console reads the queue and says whom the servers take it for.
	pane := startPane(t, 160, 48, e2eEnv(t), append([]string{buildBinary(t)}, append(flags, p)...)...)
	pane.waitText("x509 "+id, holder.Node()[:11])
	pane.keys("q")
	pane.waitText("[exit 0]")

	out, errOut, code := runBinary(t, nil, append(flags, "ls", "--json", p)...)
	if code != 0 {
		t.Fatalf("ls as %s: code %d, stderr %q", id, code, errOut)
	}
	if jp := lsJSON(t, out)[0]; len(jp.Queue) != 1 || jp.Queue[0].Node != holder.Node() {
		t.Fatalf("ls as %s: %+v", id, jp)
	}
	_, errOut, code = runBinary(t, nil, "--servers="+c.ConnectString(), "release", "--force", "--yes", p+"/"+holder.Node())
	assertOneLineFailure(t, errOut, code, "NoAuth")
	if !strings.Contains(errOut, p) || !strings.Contains(errOut, "--tls-cert (x509)") {
		t.Errorf("the NoAuth refusal does not name %s and the x509 fix: %q", p, errOut)
	}
	t.Logf("without the certificate: %s", strings.TrimSpace(errOut))

	_, errOut, code = runBinary(t, nil, append(flags, "release", "--force", "--yes", p+"/"+holder.Node())...)
	if code != 0 {
		t.Fatalf("release --force as %s: code %d, stderr %q", id, code, errOut)
	}
	select {
	case <-holder.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("the force-released holder was not told its lock is lost")
	}
	out, errOut, code = runBinary(t, nil, append(flags, "run", p, "--", "sh", "-c", `echo "$ZKLOCK_NODE"`)...)
	if code != 0 || !strings.HasPrefix(out, p+"/") {
		t.Fatalf("run as %s: code %d, out %q, stderr %q", id, code, out, errOut)
	}
	t.Logf("x509:%s", id)
}
