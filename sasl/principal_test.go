package sasl

import (
	"context"
	"errors"
	"net"
	"testing"
)

// fakeDNS is a Resolver over two tables, as /etc/hosts and a zone would
// answer: reverse (address to names) and forward (name to addresses).
type fakeDNS struct {
	reverse map[string][]string
	forward map[string][]string
}

var errNXDomain = errors.New("no such host")

func (f fakeDNS) LookupAddr(_ context.Context, addr string) ([]string, error) {
	if n, ok := f.reverse[addr]; ok {
		return n, nil
	}
	return nil, errNXDomain
}

func (f fakeDNS) LookupHost(_ context.Context, host string) ([]string, error) {
	if net.ParseIP(host) != nil {
		return []string{host}, nil
	}
	if a, ok := f.forward[host]; ok {
		return a, nil
	}
	return nil, errNXDomain
}

// TestServerHost: the host of the servers' principal as the Java client
// 3.8 names it, from an address, a short name, a CNAME, a name with no
// reverse record, a forged reverse record, and with canonicalization off.
func TestServerHost(t *testing.T) {
	dns := fakeDNS{
		reverse: map[string][]string{
			"10.0.0.1":  {"zk1.example.com."},
			"10.0.0.2":  {"zk2.example.com.", "zk2-alias.example.com."},
			"10.0.0.9":  {"bank.example.org."}, // forged: bank.example.org is not 10.0.0.9
			"127.0.0.1": {"localhost", "vm"},   // /etc/hosts: no final dot, first name wins
		},
		forward: map[string][]string{
			"zk1":                 {"10.0.0.1"},
			"zk1.example.com":     {"10.0.0.1"},
			"zk.example.com":      {"10.0.0.2"}, // a CNAME of zk2's, as the resolver follows it
			"zk2.example.com":     {"10.0.0.2"},
			"bank.example.org":    {"192.0.2.7"},
			"noptr.example.com":   {"10.0.0.5"},
			"localhost":           {"127.0.0.1"},
			"vm":                  {"127.0.0.1"},
			"round-robin.example": {"10.0.0.1", "10.0.0.2"},
			"ZK1.Example.COM":     {"10.0.0.1"},
		},
	}
	tcp := func(ip string) net.Addr { return &net.TCPAddr{IP: net.ParseIP(ip), Port: 2181} }
	tests := []struct {
		name      string
		server    string
		remote    net.Addr
		canon     bool
		want      string
		wantNoCan string
	}{
		{"an address", "10.0.0.1:2181", tcp("10.0.0.1"), true, "zk1.example.com", "zk1.example.com"},
		{"a short name", "zk1:2181", tcp("10.0.0.1"), true, "zk1.example.com", "zk1"},
		{"a CNAME", "zk.example.com:2181", tcp("10.0.0.2"), true, "zk2.example.com", "zk.example.com"},
		{"the address reached, of several", "round-robin.example:2181", tcp("10.0.0.2"), true, "zk2.example.com", "round-robin.example"},
		{"remote unknown: the name's first address", "round-robin.example:2181", nil, true, "zk1.example.com", "round-robin.example"},
		{"no reverse record: as written", "noptr.example.com:2181", tcp("10.0.0.5"), true, "noptr.example.com", "noptr.example.com"},
		{"an address with no reverse record", "10.0.0.5:2181", tcp("10.0.0.5"), true, "10.0.0.5", "10.0.0.5"},
		{"a forged reverse record is not taken", "10.0.0.9:2181", tcp("10.0.0.9"), true, "10.0.0.9", "10.0.0.9"},
		{"loopback from /etc/hosts", "127.0.0.1:2181", tcp("127.0.0.1"), true, "localhost", "localhost"},
		{"another name of loopback", "vm:2181", tcp("127.0.0.1"), true, "localhost", "vm"},
		{"lower case", "ZK1.Example.COM:2181", tcp("10.0.0.1"), true, "zk1.example.com", "zk1.example.com"},
		{"no port", "zk1", nil, true, "zk1.example.com", "zk1"},
		{"unresolvable name: as written", "gone.example.com:2181", nil, true, "gone.example.com", "gone.example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := serverHost(t.Context(), dns, tt.server, tt.remote, true); got != tt.want {
				t.Errorf("canonicalized: %q, want %q", got, tt.want)
			}
			if got := serverHost(t.Context(), dns, tt.server, tt.remote, false); got != tt.wantNoCan {
				t.Errorf("as written: %q, want %q", got, tt.wantNoCan)
			}
		})
	}
}

// TestParseServerPrincipal: a principal given outright is SERVICE/HOST
// with or without @REALM; anything else is one clear error.
func TestParseServerPrincipal(t *testing.T) {
	tests := []struct {
		in                   string
		service, host, realm string
		bad                  bool
	}{
		{in: "zookeeper/zk1.example.com", service: "zookeeper", host: "zk1.example.com"},
		{in: "zookeeper/zk1.example.com@EXAMPLE.COM", service: "zookeeper", host: "zk1.example.com", realm: "EXAMPLE.COM"},
		{in: "zk/localhost@ZKLOCK.TEST", service: "zk", host: "localhost", realm: "ZKLOCK.TEST"},
		{in: "zookeeper", bad: true},
		{in: "zookeeper@EXAMPLE.COM", bad: true},
		{in: "/zk1", bad: true},
		{in: "zookeeper/", bad: true},
		{in: "zookeeper/a/b", bad: true},
		{in: "zookeeper/zk1@A@B", bad: true},
		{in: "", bad: true},
	}
	for _, tt := range tests {
		s, h, r, err := ParseServerPrincipal(tt.in)
		if tt.bad {
			if !errors.Is(err, ErrServerPrincipalName) {
				t.Errorf("%q: err %v, want ErrServerPrincipalName", tt.in, err)
			}
			continue
		}
		if err != nil || s != tt.service || h != tt.host || r != tt.realm {
			t.Errorf("%q: %q %q %q %v, want %q %q %q", tt.in, s, h, r, err, tt.service, tt.host, tt.realm)
		}
	}
}
