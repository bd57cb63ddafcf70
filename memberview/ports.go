package memberview

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// DefaultAdminPort is the AdminServer's port in ZooKeeper 3.5 to 3.9
// (admin.serverPort's default): where it is when nobody moved it.
const DefaultAdminPort = 8080

// ErrAdminPort is returned for an --admin-port value that names no port.
var ErrAdminPort = errors.New("memberview: bad admin port")

// AdminPorts says where each member's AdminServer listens: one port for
// every member's host, or one port per member in --servers order.
type AdminPorts struct {
	all   int   // every member; 0 never asks
	each  []int // per member, when set
	given bool  // false: the default
}

// ParseAdminPorts reads --admin-port (context key admin_port): "" for the
// default (8080 on each member's host), "0" never to ask, "N" for port N
// on each host, or "N1,N2,N3" for one port per member in --servers order
// (members sharing a host); members is how many --servers names.
func ParseAdminPorts(s string, members int) (AdminPorts, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return AdminPorts{all: DefaultAdminPort}, nil
	}
	parts := strings.Split(s, ",")
	ports := make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 0 || n > 65535 || (n == 0 && len(parts) > 1) {
			return AdminPorts{}, fmt.Errorf("%w: %q (a port 1-65535, 0 never to ask, or one port per member)", ErrAdminPort, s)
		}
		ports[i] = n
	}
	if len(ports) == 1 {
		return AdminPorts{all: ports[0], given: true}, nil
	}
	if len(ports) != members {
		return AdminPorts{}, fmt.Errorf("%w: %d ports for %d members (%q)", ErrAdminPort, len(ports), members, s)
	}
	return AdminPorts{each: ports, given: true}, nil
}

// Off reports whether the AdminServer is never asked.
func (a AdminPorts) Off() bool { return a.each == nil && a.all == 0 }

// Default reports whether the ports are ZooKeeper's default, not given.
func (a AdminPorts) Default() bool { return !a.given }

// Addr is the AdminServer address of member i, whose client address is
// member ("host:port"); "" when it is not asked.
func (a AdminPorts) Addr(i int, member string) string {
	port := a.all
	if a.each != nil {
		if i >= len(a.each) {
			return ""
		}
		port = a.each[i]
	}
	if port == 0 {
		return ""
	}
	host, _, err := net.SplitHostPort(member)
	if err != nil {
		host = member
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}

// String writes the ports back as --admin-port takes them.
func (a AdminPorts) String() string {
	if a.each == nil {
		return strconv.Itoa(a.all)
	}
	s := make([]string, len(a.each))
	for i, p := range a.each {
		s[i] = strconv.Itoa(p)
	}
	return strings.Join(s, ",")
}
