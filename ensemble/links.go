package ensemble

// One line for each way a link to a server can fail for good: which
// server, what is wrong, and what to change.

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/zklock/zklock/config"
	"github.com/zklock/zklock/lockops"
)

// linkFailure is a connect that failed for good: msg is the line the
// operator reads; err keeps the chain for errors.As.
type LinkFailure struct {
	msg string
	err error
}

func (e *LinkFailure) Error() string { return e.msg }
func (e *LinkFailure) Unwrap() error { return e.err }

// linkErrors collects the *lockops.LinkError in err's tree, in order.
func LinkErrors(err error) []*lockops.LinkError {
	var out []*lockops.LinkError
	var walk func(error)
	walk = func(e error) {
		if le, ok := e.(*lockops.LinkError); ok {
			out = append(out, le)
			return
		}
		switch u := e.(type) {
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				walk(x)
			}
		case interface{ Unwrap() error }:
			if x := u.Unwrap(); x != nil {
				walk(x)
			}
		}
	}
	walk(err)
	return out
}

// linkMessage is one line for failures that stop the connect: servers
// with the same problem share a clause.
func LinkMessage(s *config.Settings, les []*lockops.LinkError) string {
	type group struct {
		first   *lockops.LinkError
		servers []string
	}
	var groups []*group
	for _, le := range les {
		i := slices.IndexFunc(groups, func(g *group) bool { return g.first.Problem == le.Problem })
		if i < 0 {
			groups = append(groups, &group{first: le})
			i = len(groups) - 1
		}
		groups[i].servers = append(groups[i].servers, le.Server)
	}
	var parts []string
	for _, g := range groups {
		parts = append(parts, problemLine(s, strings.Join(g.servers, ","), g.first))
	}
	return strings.Join(parts, "; ")
}

// problemLine says what is wrong with servers (all with le's problem) and
// the fix.
func problemLine(s *config.Settings, servers string, le *lockops.LinkError) string {
	now := time.Now().UTC()
	many := strings.Contains(servers, ",")
	verb := func(one, plural string) string {
		if many {
			return plural
		}
		return one
	}
	switch le.Problem {
	case lockops.LinkCertExpired:
		if c := le.Cert; c != nil && now.Before(c.NotBefore) {
			return fmt.Sprintf("TLS: the certificate of %s is not valid before %s (now %s): the clock of this machine or of the server is wrong",
				servers, stamp(c.NotBefore), stamp(now))
		}
		if c := le.Cert; c != nil {
			return fmt.Sprintf("TLS: the certificate of %s expired at %s (now %s): renew it on the server (its ssl.keyStore)",
				servers, stamp(c.NotAfter), stamp(now))
		}
		return fmt.Sprintf("TLS: the certificate of %s has expired: renew it on the server (its ssl.keyStore)", servers)
	case lockops.LinkUnknownAuthority:
		issuer := "an unknown CA"
		if c := ServerCert(le); c != nil {
			issuer = fmt.Sprintf("%q", c.Issuer.String())
		}
		trusted := "the system's CAs"
		if s.TLS != nil && s.TLS.CA != "" {
			trusted = s.TLS.CA
		}
		return fmt.Sprintf("TLS: the certificate of %s is signed by %s, which is not in %s: give the CA that signed it with --tls-ca",
			servers, issuer, trusted)
	case lockops.LinkNameMismatch:
		return nameMismatchLine(s, servers, le)
	case lockops.LinkCertInvalid:
		return fmt.Sprintf("TLS: the certificate of %s is not valid (%s): fix it on the server", servers, ErrText(le.Err))
	case lockops.LinkClientCertRefused:
		if s.TLS == nil || len(s.TLS.Config.Certificates) == 0 {
			return fmt.Sprintf("TLS: %s %s a client certificate (%s): give --tls-cert and --tls-key", servers, verb("requires", "require"), ErrText(le.Err))
		}
		return fmt.Sprintf("TLS: %s refused the client certificate %s (%s): give one signed by a CA in the server's ssl.trustStore (--tls-cert, --tls-key)",
			servers, s.TLS.Cert, ErrText(le.Err))
	case lockops.LinkTLSRefused:
		return fmt.Sprintf("TLS: %s refused the handshake (%s): the server's ssl.protocol or ssl.ciphersuites do not match this client's (TLS 1.2+)", servers, ErrText(le.Err))
	case lockops.LinkNotTLS:
		return fmt.Sprintf("%s %s plain ZooKeeper, not TLS: give the secureClientPort, or drop the --tls flags (or the context's tls: block)", servers, verb("speaks", "speak"))
	case lockops.LinkRefused:
		return fmt.Sprintf("connection refused by %s: is ZooKeeper running there, on that port (clientPort, or secureClientPort with --tls)?", servers)
	case lockops.LinkUnknownHost:
		return fmt.Sprintf("unknown host %s: check the server list (--servers, ZK_SERVERS or the context)", servers)
	case lockops.LinkRequiresTLS:
		return fmt.Sprintf("%s closed the connection before answering: the server may require TLS (that port answers a TLS handshake): give --tls-ca CA (and --tls-cert, --tls-key if it asks for a client certificate), or a context with a tls: block", servers)
	}
	return fmt.Sprintf("%s: %s (%s)", servers, le.Problem, ErrText(le.Err))
}

// nameMismatchLine says which names the server's certificate has and
// where the name it was checked against came from: the host dialled, or a
// server name set on purpose (then setting it again is no advice: the
// name set is what is wrong).
func nameMismatchLine(s *config.Settings, servers string, le *lockops.LinkError) string {
	names := "no name at all"
	c := ServerCert(le)
	if n := CertNames(c); len(n) > 0 {
		names = strings.Join(n, ", ")
	}
	if s.TLS == nil || s.TLS.ServerName == "" {
		return fmt.Sprintf("TLS: the certificate of %s is for %s, not %q: connect by one of those names, or set --tls-server-name to one (last resort: --tls-insecure-skip-verify)",
			servers, names, le.Name)
	}
	line := fmt.Sprintf("TLS: the certificate of %s is for %s, not %q, the server name set (--tls-server-name, or the context's tls server_name): set it to one of the certificate's names",
		servers, names, s.TLS.ServerName)
	if host, _, err := net.SplitHostPort(le.Server); err == nil && c != nil && c.VerifyHostname(host) == nil {
		line += fmt.Sprintf(", or drop it: the certificate is valid for %s, the host dialled", host)
	}
	return line
}

// serverCert is the certificate the server presented for itself (the
// first of the chain it sent), when the handshake got that far. le.Cert is
// where verification stopped instead: for an unknown authority, the end
// of the chain, which is the server's CA when the server sends it.
func ServerCert(le *lockops.LinkError) *x509.Certificate {
	var cve *tls.CertificateVerificationError
	if errors.As(le.Err, &cve) && len(cve.UnverifiedCertificates) > 0 {
		return cve.UnverifiedCertificates[0]
	}
	return le.Cert
}

// certNames are the DNS names and IP addresses c is valid for.
func CertNames(c *x509.Certificate) []string {
	if c == nil {
		return nil
	}
	n := append([]string{}, c.DNSNames...)
	for _, ip := range c.IPAddresses {
		n = append(n, ip.String())
	}
	return n
}

// linkHints adds, to an unreachable ensemble's line, what the last
// attempts met where it says more than "unreachable".
func LinkHints(s *config.Settings, err error) string {
	var parts []string
	for _, le := range LinkErrors(err) {
		switch le.Problem {
		case lockops.LinkHandshakeFailed:
			parts = append(parts, fmt.Sprintf("the TLS handshake with %s failed (%s): is it the secureClientPort?", le.Server, ErrText(le.Err)))
		case lockops.LinkDropped:
			if s.TLS == nil {
				parts = append(parts, fmt.Sprintf("%s closed the connection before answering: the server may require TLS, or is not serving", le.Server))
			} else {
				parts = append(parts, fmt.Sprintf("%s closed the TLS connection before answering: it may not be serving", le.Server))
			}
		case lockops.LinkDialFailed:
			// The unreachable line says it already.
		default:
			parts = append(parts, problemLine(s, le.Server, le))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return ": " + strings.Join(parts, "; ")
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// errText is an error on one line, without lockops' prefix.
func ErrText(err error) string {
	if err == nil {
		return "no detail"
	}
	var le *lockops.LinkError
	if errors.As(err, &le) && le.Err != nil {
		err = le.Err
	}
	return strings.ReplaceAll(err.Error(), "\n", "; ")
}
