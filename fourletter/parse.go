package fourletter

import (
	"bufio"
	"net"
	"regexp"
	"strconv"
	"strings"
)

// ParseCons reads `cons`: one line per connection,
//
//	/127.0.0.1:38920[1](queued=0,...,sid=0x100009311fa0000,...)
//	/[0:0:0:0:0:0:0:1]:38921[1](...)          Java 14+ prints IPv6 so
//	/0:0:0:0:0:0:0:1:38921[1](...)            older Javas so
//	host.example/10.0.0.7:38921[1](...)       with a resolved name
//
// and returns session -> ip:port in Go's form ("[::1]:38921" for IPv6).
// Connections without a session yet (a four-letter word's own) have no
// sid and are left out.
func ParseCons(reply string) map[int64]string {
	m := map[int64]string{}
	sc := lines(reply)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		open := strings.Index(line, "](")
		if open < 0 {
			continue
		}
		stats := line[open+2:]
		i := strings.Index(stats, "sid=")
		if i < 0 {
			continue
		}
		sid := stats[i+4:]
		if j := strings.IndexAny(sid, ",)"); j >= 0 {
			sid = sid[:j]
		}
		id, err := parseSession(sid)
		if err != nil {
			continue
		}
		m[id] = consAddr(line[:open])
	}
	return m
}

// normalizeAddr writes an ip:port in Go's form ("[::1]:5", "10.0.0.7:5").
func normalizeAddr(addr string) string {
	host, port := "", ""
	if strings.HasPrefix(addr, "[") {
		h, p, err := net.SplitHostPort(addr)
		if err != nil {
			return addr
		}
		host, port = h, p
	} else {
		k := strings.LastIndexByte(addr, ':')
		if k < 0 {
			return addr
		}
		host, port = addr[:k], addr[k+1:]
	}
	zone := ""
	if k := strings.IndexByte(host, '%'); k >= 0 {
		host, zone = host[:k], host[k:]
	}
	if ip := net.ParseIP(host); ip != nil {
		host = ip.String()
	}
	host += zone
	return net.JoinHostPort(host, port)
}

// ParseWchc reads `wchc`: a session id line ("0x..."), then one
// tab-indented path per data watch; it returns session -> paths watched.
func ParseWchc(reply string) map[int64][]string {
	m := map[int64][]string{}
	var cur int64
	have := false
	sc := lines(reply)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "0x"):
			id, err := parseSession(line)
			cur, have = id, err == nil
		case have && strings.HasPrefix(line, "\t"):
			if p := strings.TrimSpace(line); p != "" {
				m[cur] = append(m[cur], p)
			}
		}
	}
	return m
}

// ParseWchp reads `wchp`: a path line, then one tab-indented session id
// ("0x...") per session watching it; it returns path -> sessions.
func ParseWchp(reply string) map[string][]int64 {
	m := map[string][]int64{}
	cur := ""
	sc := lines(reply)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "/"):
			cur = strings.TrimSpace(line)
		case cur != "" && strings.HasPrefix(line, "\t"):
			if id, err := parseSession(line); err == nil {
				m[cur] = append(m[cur], id)
			}
		}
	}
	return m
}

// parseSession reads a session id as the servers print it ("0x1000...").
func parseSession(s string) (int64, error) {
	id, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimSpace(s), "0x"), 16, 64)
	return int64(id), err
}

// Srvr is what zklock reads of a `srvr` reply.
type Srvr struct {
	Version string // "3.8.4" (ShortVersion of the server's)
	// Mode is "leader", "follower", "standalone" or "observer"; NotServing
	// when the member is up but does not serve clients (no quorum yet);
	// "" when the reply says neither.
	Mode string
	// Zxid is the member's last zxid ("Zxid: 0x..."); -1 when the reply
	// has none (a member not serving prints no Zxid line) or one past
	// ZooKeeper's signed long.
	Zxid int64
}

// NotServing is the Mode of a member that answers srvr with "This
// ZooKeeper instance is not currently serving requests".
const NotServing = "not serving"

var (
	srvrVersion = regexp.MustCompile(`(?m)^Zookeeper version: (.*)$`)
	srvrMode    = regexp.MustCompile(`(?m)^Mode: *([a-z]+)`)
	srvrZxid    = regexp.MustCompile(`(?m)^Zxid: *0x([0-9a-fA-F]{1,16})\s*$`)
	versionHead = regexp.MustCompile(`^[0-9][0-9A-Za-z.]*`)
)

// ParseSrvr reads the version, mode and zxid of a `srvr` reply.
func ParseSrvr(reply string) Srvr {
	s := Srvr{Zxid: -1}
	if m := srvrZxid.FindStringSubmatch(reply); m != nil {
		if z, err := strconv.ParseInt(m[1], 16, 64); err == nil {
			s.Zxid = int64(z)
		}
	}
	if m := srvrVersion.FindStringSubmatch(reply); m != nil {
		s.Version = ShortVersion(m[1])
	}
	if m := srvrMode.FindStringSubmatch(reply); m != nil {
		s.Mode = m[1]
	} else if strings.Contains(reply, "not currently serving") {
		s.Mode = NotServing
	}
	return s
}

// ShortVersion is the release of a server's version string, as srvr and
// mntr print it: "3.8.4-9316c2a7..., built on 2024-02-12" -> "3.8.4".
func ShortVersion(v string) string {
	return strings.TrimSuffix(versionHead.FindString(strings.TrimSpace(v)), ".")
}

// ParseMntr reads `mntr`: one "name<TAB>value" line per figure
// (zk_version, zk_server_state, zk_packets_received...).
func ParseMntr(reply string) map[string]string {
	m := map[string]string{}
	sc := lines(reply)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "\t"); ok {
			m[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return m
}

// lines scans a reply line by line, lines up to 1 MB long (a znode path
// can be far longer than bufio's default 64 KB).
func lines(reply string) *bufio.Scanner {
	sc := bufio.NewScanner(strings.NewReader(reply))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	return sc
}
