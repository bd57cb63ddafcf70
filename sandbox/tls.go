package sandbox

// TLS members: a secureClientPort served by Netty beside the plain
// clientPort, with a CA, a server certificate and a client certificate
// made at start by crypto/x509 (nothing committed, nothing reused across
// runs). ZooKeeper 3.8 reads PEM key and trust stores itself
// (ssl.keyStore.type=PEM), so no keytool and no PKCS12 are needed.

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ClientAuth is ZooKeeper's ssl.clientAuth: whether a member asks TLS
// clients for a certificate.
type ClientAuth string

const (
	// ClientAuthNeed refuses a TLS client without a certificate signed by
	// the cluster's CA (ZooKeeper's default).
	ClientAuthNeed ClientAuth = "need"
	// ClientAuthWant asks for a certificate and checks one that is given,
	// but lets a client without one in.
	ClientAuthWant ClientAuth = "want"
	// ClientAuthNone does not ask.
	ClientAuthNone ClientAuth = "none"
)

// CertProblem makes the members' server certificate wrong in one way, for
// tests of what a client says about it.
type CertProblem int

const (
	// CertGood is a certificate for 127.0.0.1 and localhost, valid now,
	// signed by the cluster's CA.
	CertGood CertProblem = iota
	// CertExpired is CertGood that expired a day ago.
	CertExpired
	// CertWrongName is valid and signed by the CA, but for
	// WrongServerName only (no IP address).
	CertWrongName
	// CertUnknownCA is valid for 127.0.0.1 but signed by a CA that is not
	// in TLSFiles.CA: no client given the cluster's CA trusts it.
	CertUnknownCA
)

// WrongServerName is the only name in a CertWrongName certificate.
const WrongServerName = "zk.elsewhere.example"

// TLSOptions give every member a secureClientPort (Options.TLS).
type TLSOptions struct {
	// ClientAuth is ssl.clientAuth, ClientAuthNeed when empty.
	ClientAuth ClientAuth
	// ServerCert makes the server certificate wrong on purpose.
	ServerCert CertProblem
}

// TLSFiles are the PEM files a cluster made, in its directory (removed by
// Close). Key files hold a PKCS#8 private key.
type TLSFiles struct {
	// CA is the certificate of the CA that signed the client certificate
	// and (unless CertUnknownCA) the server certificate: a client's trust
	// bundle, and the members' trust store.
	CA string
	// OtherCA is a CA that signed nothing the members hold: a client
	// trusting only it meets an unknown authority.
	OtherCA string
	// ClientCert and ClientKey are a client certificate (CN
	// zklock-sandbox-client, for 127.0.0.1 and localhost) signed by CA.
	ClientCert, ClientKey string
	// ClientPair is ClientCert and ClientKey in one file, as Kazoo's
	// certfile and some Java setups take it.
	ClientPair string
	// ServerStore is the members' key store: key and certificate chain.
	ServerStore string
	// ServerNotAfter is when the server certificate expires.
	ServerNotAfter time.Time
}

// ClientConfig is a tls.Config that trusts CA, presents the client
// certificate and verifies the server's name as Go does by default.
func (f *TLSFiles) ClientConfig() (*tls.Config, error) {
	ca, err := os.ReadFile(f.CA)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return nil, fmt.Errorf("sandbox: no certificate in %s", f.CA)
	}
	pair, err := tls.LoadX509KeyPair(f.ClientCert, f.ClientKey)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	return &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}, nil
}

// certLife is how long good certificates last: longer than any run.
const certLife = 7 * 24 * time.Hour

// WriteTLSFiles writes a CA, a server certificate as o says and a client
// certificate under dir, as Start does for a TLS cluster; tests of TLS
// settings that need no server use it directly.
func WriteTLSFiles(dir string, o TLSOptions) (*TLSFiles, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	now := time.Now()
	ca, err := newCA("zklock sandbox CA", now)
	if err != nil {
		return nil, err
	}
	other, err := newCA("zklock sandbox other CA", now)
	if err != nil {
		return nil, err
	}
	loopback := []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
	server := leafSpec{cn: "zklock sandbox server", ips: loopback, dns: []string{"localhost"},
		notBefore: now.Add(-time.Hour), notAfter: now.Add(certLife), server: true}
	signer := ca
	switch o.ServerCert {
	case CertExpired:
		server.notBefore, server.notAfter = now.Add(-48*time.Hour), now.Add(-24*time.Hour)
	case CertWrongName:
		server.ips, server.dns = nil, []string{WrongServerName}
	case CertUnknownCA:
		signer = other
	}
	serverCert, serverKey, err := signer.issue(server)
	if err != nil {
		return nil, err
	}
	clientCert, clientKey, err := ca.issue(leafSpec{cn: "zklock-sandbox-client", ips: loopback, dns: []string{"localhost"},
		notBefore: now.Add(-time.Hour), notAfter: now.Add(certLife)})
	if err != nil {
		return nil, err
	}
	f := &TLSFiles{
		CA:             filepath.Join(dir, "ca.pem"),
		OtherCA:        filepath.Join(dir, "other-ca.pem"),
		ClientCert:     filepath.Join(dir, "client.pem"),
		ClientKey:      filepath.Join(dir, "client-key.pem"),
		ClientPair:     filepath.Join(dir, "client-pair.pem"),
		ServerStore:    filepath.Join(dir, "server-store.pem"),
		ServerNotAfter: server.notAfter,
	}
	// The server's chain carries its issuer, as a real deployment's does.
	files := map[string][]byte{
		f.CA:          certPEM(ca.der),
		f.OtherCA:     certPEM(other.der),
		f.ClientCert:  certPEM(clientCert),
		f.ClientKey:   clientKey,
		f.ClientPair:  append(certPEM(clientCert), clientKey...),
		f.ServerStore: join(serverKey, certPEM(serverCert), certPEM(signer.der)),
	}
	for p, b := range files {
		if err := os.WriteFile(p, b, 0o600); err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
	}
	return f, nil
}

// tlsConfigLines are the zoo.cfg lines of a TLS member. Keys ZooKeeper
// does not know as its own (serverCnxnFactory, ssl.*) become system
// properties prefixed "zookeeper.", which is where it reads them.
func tlsConfigLines(f *TLSFiles, o TLSOptions, securePort int) []string {
	auth := o.ClientAuth
	if auth == "" {
		auth = ClientAuthNeed
	}
	return []string{
		"secureClientPort=" + fmt.Sprint(securePort),
		"secureClientPortAddress=127.0.0.1",
		// The NIO factory speaks no TLS; Netty serves both ports.
		"serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory",
		"ssl.keyStore.location=" + filepath.ToSlash(f.ServerStore),
		"ssl.keyStore.type=PEM",
		"ssl.trustStore.location=" + filepath.ToSlash(f.CA),
		"ssl.trustStore.type=PEM",
		"ssl.clientAuth=" + string(auth),
	}
}

// tlsClassPath adds the Netty jars that Debian's zookeeper.jar manifest
// leaves out: its Class-Path names netty-handler, -buffer, -common and
// -transport, but SslHandler extends netty-codec's ByteToMessageDecoder
// and the transport needs netty-resolver. Elsewhere (an Apache release's
// lib/) they are already on the class path.
func tlsClassPath(cp string) string {
	sep := string(os.PathListSeparator)
	parts := strings.Split(cp, sep)
	for _, p := range parts {
		if filepath.Base(p) != "zookeeper.jar" {
			continue
		}
		dir := filepath.Dir(p)
		for _, jar := range []string{"netty-codec.jar", "netty-resolver.jar", "netty-transport-native-unix-common.jar"} {
			if j := filepath.Join(dir, jar); isFile(j) && !strings.Contains(cp, j) {
				parts = append(parts, j)
			}
		}
		break
	}
	return strings.Join(parts, sep)
}

type authority struct {
	cert *x509.Certificate
	der  []byte
	key  *ecdsa.PrivateKey
}

type leafSpec struct {
	cn                  string
	ips                 []net.IP
	dns                 []string
	notBefore, notAfter time.Time
	server              bool
}

func newCA(cn string, now time.Time) (*authority, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("sandbox: CA key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: cn, Organization: []string{"zklock sandbox"}},
		NotBefore:             now.Add(-72 * time.Hour), // covers the expired leaf's life
		NotAfter:              now.Add(certLife),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("sandbox: CA certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("sandbox: CA certificate: %w", err)
	}
	return &authority{cert: cert, der: der, key: key}, nil
}

// issue returns a leaf certificate (DER) and its PKCS#8 key (PEM).
func (a *authority) issue(s leafSpec) ([]byte, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: key: %w", err)
	}
	usage := []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	if s.server {
		usage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: s.cn, Organization: []string{"zklock sandbox"}},
		NotBefore:    s.notBefore,
		NotAfter:     s.notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  usage,
		IPAddresses:  s.ips,
		DNSNames:     s.dns,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.cert, &key.PublicKey, a.key)
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: certificate %s: %w", s.cn, err)
	}
	pk, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: key: %w", err)
	}
	return der, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pk}), nil
}

// serial is a random 64-bit serial number. crypto/rand.Read does not
// fail (since Go 1.24 it crashes the program instead of returning an
// error), hence no error here.
func serial() *big.Int {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	b[0] &= 0x7f // positive
	return new(big.Int).SetBytes(b)
}

func certPEM(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func join(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// tlsProbeTimeout bounds the readiness handshake: twice a cold JVM's.
const tlsProbeTimeout = 5 * time.Second

// probeTLS completes one TLS handshake with a member's secure port addr.
// A member binds that port only after its plain one answers, and a cold
// JVM's first handshake takes seconds (2.3 s measured on 2 cores): a member
// counts as ready once this handshake is done, so that the first client's
// is not the slow one. Nothing is verified here, since a bad certificate
// may be the point of the test; f's client certificate is presented.
func probeTLS(ctx context.Context, f *TLSFiles, addr string) error {
	pair, err := tls.LoadX509KeyPair(f.ClientCert, f.ClientKey)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, tlsProbeTimeout)
	defer cancel()
	var d tls.Dialer
	d.Config = &tls.Config{InsecureSkipVerify: true, Certificates: []tls.Certificate{pair}}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("sandbox: TLS handshake with %s: %w", addr, err)
	}
	return conn.Close()
}
