package sasl

// The servers' Kerberos principal, named as ZooKeeper's Java client 3.8
// names it (SaslServerPrincipal): zookeeper.server.principal when set,
// else <service>/<host>, the host being the canonical name of the address
// the connection reached (zookeeper.sasl.client.canonicalize.hostname,
// true by default), so that an address, a short name or a CNAME in the
// connect string yields zookeeper/<canonical fqdn>.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"
)

// ErrServerPrincipalName means a server principal given outright is not
// of the form SERVICE/HOST or SERVICE/HOST@REALM.
var ErrServerPrincipalName = errors.New("sasl: server principal")

// Resolver is what naming the server asks of DNS; *net.Resolver has it.
type Resolver interface {
	LookupAddr(ctx context.Context, addr string) ([]string, error)
	LookupHost(ctx context.Context, host string) ([]string, error)
}

// canonicalWait bounds the look-ups of one connection's host name, as
// go-zookeeper's own DNS step is bounded (3 s): past it the host is
// used as given, as the Java client does when its reverse look-up fails.
const canonicalWait = 3 * time.Second

// ParseServerPrincipal splits a principal given outright, SERVICE/HOST or
// SERVICE/HOST@REALM (realm "" when none: the host's realm in krb5.conf).
func ParseServerPrincipal(p string) (service, host, realm string, err error) {
	name, realm, _ := strings.Cut(p, "@")
	service, host, ok := strings.Cut(name, "/")
	if !ok || service == "" || host == "" || strings.ContainsAny(host, "/@") || strings.Contains(realm, "@") {
		return "", "", "", fmt.Errorf("%w %q: want SERVICE/HOST or SERVICE/HOST@REALM, such as zookeeper/zk1.example.com@EXAMPLE.COM", ErrServerPrincipalName, p)
	}
	return service, host, realm, nil
}

// serverHost is the host part of the servers' principal for a connection
// to server (host:port as written) that reached remote (nil: unknown),
// as the Java client 3.8 names it:
//   - canonicalize: the canonical name of the address reached (its
//     reverse name, confirmed by a forward look-up: InetAddress's
//     getCanonicalHostName), else the host as written;
//   - not: the host as written, but an address written is named by its
//     confirmed reverse name too (InetSocketAddress.getHostName does that
//     look-up for an address).
//
// The name is lower-cased without a final dot, as MIT's
// krb5_sname_to_principal makes host-based principals.
func serverHost(ctx context.Context, r Resolver, server string, remote net.Addr, canonicalize bool) string {
	host, _, err := net.SplitHostPort(server)
	if err != nil {
		host = server
	}
	ctx, cancel := context.WithTimeout(ctx, canonicalWait)
	defer cancel()
	ip := remoteIP(remote)
	if net.ParseIP(host) != nil {
		ip = host
	}
	if canonicalize && ip == "" {
		if addrs, err := r.LookupHost(ctx, host); err == nil && len(addrs) > 0 {
			ip = addrs[0]
		}
	}
	if (canonicalize && ip != "") || net.ParseIP(host) != nil {
		if name := confirmedName(ctx, r, ip); name != "" {
			host = name
		}
	}
	return strings.ToLower(strings.TrimSuffix(host, "."))
}

// remoteIP is the IP address of a TCP address, "" when there is none.
func remoteIP(a net.Addr) string {
	switch a := a.(type) {
	case *net.TCPAddr:
		if a != nil && a.IP != nil {
			return a.IP.String()
		}
	case nil:
	default:
		if host, _, err := net.SplitHostPort(a.String()); err == nil && net.ParseIP(host) != nil {
			return host
		}
	}
	return ""
}

// confirmedName is ip's first reverse name when that name resolves back
// to ip (the Java resolver's check against a forged PTR record), "" when
// it has none.
func confirmedName(ctx context.Context, r Resolver, ip string) string {
	want := net.ParseIP(ip)
	names, err := r.LookupAddr(ctx, ip)
	if err != nil || len(names) == 0 || want == nil {
		return ""
	}
	name := strings.TrimSuffix(names[0], ".")
	addrs, err := r.LookupHost(ctx, name)
	if err != nil {
		return ""
	}
	for _, a := range addrs {
		if want.Equal(net.ParseIP(a)) {
			return name
		}
	}
	return ""
}
