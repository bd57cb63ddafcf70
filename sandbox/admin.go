package sandbox

// The AdminServer: ZooKeeper's embedded Jetty serving the four-letter
// words' answers as JSON over HTTP (/commands/connections, /commands/dump,
// /commands/watches...). It is on by default in 3.5 to 3.9 at port 8080,
// which is how production ensembles run; the sandbox turns it on only when
// asked (Options.AdminServer) and then binds it on loopback, on a free
// port per member.

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ZooKeeperDefaultWords is ZooKeeper's own four-letter-word whitelist
// since 3.5 (srvr only), for Options.FourLetterWords: what production
// ensembles usually keep.
const ZooKeeperDefaultWords = "srvr"

// AdminOptions turn on every member's AdminServer.
type AdminOptions struct {
	// TLS serves it over https only (admin.forceHttps), with the members'
	// server certificate and the cluster's CA as trust store; it needs
	// Options.TLS.
	TLS bool
}

// adminProbeTimeout bounds one readiness request to the AdminServer: a
// cold Jetty's first answer (and first TLS handshake) takes a second or
// two on 2 cores.
const adminProbeTimeout = 5 * time.Second

// adminConfigLines are a member's zoo.cfg lines for its AdminServer on
// port. The ssl.quorum.* stores are what ZooKeeper 3.8's JettyAdminServer
// reads for https; they do not turn on quorum TLS (sslQuorum does).
func adminConfigLines(o *AdminOptions, f *TLSFiles, port int) []string {
	lines := []string{
		"admin.enableServer=true",
		"admin.serverAddress=127.0.0.1", // loopback only, as the client port
		"admin.serverPort=" + fmt.Sprint(port),
	}
	if o.TLS && f != nil {
		lines = append(lines,
			"admin.forceHttps=true",
			"ssl.quorum.keyStore.location="+filepath.ToSlash(f.ServerStore),
			"ssl.quorum.keyStore.type=PEM",
			"ssl.quorum.trustStore.location="+filepath.ToSlash(f.CA),
			"ssl.quorum.trustStore.type=PEM",
		)
	}
	return lines
}

// adminClassPath adds the servlet API jar that Debian's zookeeper.jar
// manifest leaves out: without it the member logs "Unable to load jetty,
// not starting JettyAdminServer" and serves no AdminServer at all. An
// Apache release's lib/ already has it.
func adminClassPath(cp string) string {
	sep := string(os.PathListSeparator)
	parts := strings.Split(cp, sep)
	for _, p := range parts {
		if filepath.Base(p) != "zookeeper.jar" {
			continue
		}
		if j := filepath.Join(filepath.Dir(p), "servlet-api.jar"); isFile(j) && !strings.Contains(cp, j) {
			parts = append(parts, j)
		}
		break
	}
	return strings.Join(parts, sep)
}

// AdminURL is the base of the member's AdminServer ("http://127.0.0.1:port"
// or https with AdminOptions.TLS), "" when the cluster runs none.
func (m *Member) AdminURL() string {
	if m.adminAddr == "" {
		return ""
	}
	scheme := "http://"
	if o := m.cluster.opts.AdminServer; o != nil && o.TLS {
		scheme = "https://"
	}
	return scheme + m.adminAddr
}

// AdminAddr is the member's AdminServer address, "127.0.0.1:port", or ""
// when the cluster runs none.
func (m *Member) AdminAddr() string { return m.adminAddr }

// AdminURLs returns each member's AdminURL in member order, nil without
// Options.AdminServer.
func (c *Cluster) AdminURLs() []string {
	if c.opts.AdminServer == nil {
		return nil
	}
	out := make([]string, len(c.members))
	for i, m := range c.members {
		out[i] = m.AdminURL()
	}
	return out
}

// probeAdmin asks the member's AdminServer for ruok; it is ready when it
// answers 200. Nothing is verified over TLS (a bad certificate may be the
// point of the test); the client certificate is presented.
func (m *Member) probeAdmin(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, adminProbeTimeout)
	defer cancel()
	tr := &http.Transport{DisableKeepAlives: true}
	if f := m.cluster.tls; f != nil {
		pair, err := tls.LoadX509KeyPair(f.ClientCert, f.ClientKey)
		if err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true, Certificates: []tls.Certificate{pair}}
	}
	defer tr.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.AdminURL()+"/commands/ruok", nil)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return fmt.Errorf("sandbox: AdminServer of member %d: %w", m.id, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("sandbox: AdminServer of member %d answered %s", m.id, resp.Status)
	}
	return nil
}
