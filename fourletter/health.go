package fourletter

import (
	"strconv"
	"strings"
	"time"
)

// Connection is what `cons` says of one connection with a session: who,
// when the member last answered it, and what it negotiated.
type Connection struct {
	Session int64
	Client  string // ip:port in Go's form
	// LastResponse (lresp) is when the member last answered the session,
	// in ms on the member's monotonic clock (not wall time); -1 when the
	// line has none.
	LastResponse int64
	// Timeout (to) is the negotiated session timeout; 0 when absent.
	Timeout time.Duration
	// Received (recved) counts the packets the member received on the
	// connection; -1 when absent.
	Received int64
	// Established (est) is when the connection was made, on the member's
	// wall clock (ms since the epoch); zero when absent.
	Established time.Time
}

// ParseConnections reads `cons` as ParseCons does, with each connection's
// health figures (lresp, to, recved, est). Connections without a session
// are left out; a figure that is absent or unreadable keeps its zero
// meaning (see Connection).
func ParseConnections(reply string) []Connection {
	var out []Connection
	sc := lines(reply)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		open := strings.Index(line, "](")
		if open < 0 {
			continue
		}
		fields := consFields(strings.TrimSuffix(line[open+2:], ")"))
		id, err := parseSession(fields["sid"])
		if err != nil || fields["sid"] == "" {
			continue
		}
		c := Connection{Session: id, Client: consAddr(line[:open]), LastResponse: -1, Received: -1}
		if v, err := strconv.ParseInt(fields["lresp"], 10, 64); err == nil {
			c.LastResponse = v
		}
		if v, err := strconv.ParseInt(fields["to"], 10, 64); err == nil && v > 0 {
			c.Timeout = time.Duration(v) * time.Millisecond
		}
		if v, err := strconv.ParseInt(fields["recved"], 10, 64); err == nil {
			c.Received = v
		}
		if v, err := strconv.ParseInt(fields["est"], 10, 64); err == nil && v > 0 {
			c.Established = time.UnixMilli(v)
		}
		out = append(out, c)
	}
	return out
}

// consFields splits "queued=0,recved=10,sid=0x1,..." into its pairs.
func consFields(s string) map[string]string {
	m := map[string]string{}
	for kv := range strings.SplitSeq(s, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return m
}

// ClientAddr reads a client address as the servers print it
// ("/127.0.0.1:5", "host/10.0.0.7:5", "/0:0:0:0:0:0:0:1:5", or cons's
// with the interest ops, "/127.0.0.1:5[1") into Go's form ("[::1]:5").
func ClientAddr(addr string) string { return consAddr(addr) }

// consAddr reads the client address before "](": "/127.0.0.1:5[1" or
// "host/10.0.0.7:5[1".
func consAddr(addr string) string {
	if k := strings.LastIndexByte(addr, '['); k >= 0 { // the interest ops
		addr = addr[:k]
	}
	if k := strings.LastIndexByte(addr, '/'); k >= 0 {
		addr = addr[k+1:]
	}
	return normalizeAddr(addr)
}

// Dump is what zklock reads of a `dump` reply: the session tracker's
// expiry buckets, which only the leader (or a standalone server) keeps.
type Dump struct {
	// Expiry maps a session to the moment the member will expire it if it
	// hears nothing more: the bucket's time on the member's wall clock, to
	// the second (dump prints no finer).
	Expiry map[int64]time.Time
	// ZoneKnown is false when a bucket's time zone was neither UTC/GMT nor
	// this machine's own: its times are then read as UTC and may be off by
	// the zone's offset, so callers should not use them.
	ZoneKnown bool
	// Ephemerals maps a session to its ephemeral nodes.
	Ephemerals map[int64][]string
}

// javaDate is java.util.Date's toString, which dump prints.
const javaDate = "Mon Jan 02 15:04:05 MST 2006"

// ParseDump reads `dump`:
//
//	SessionTracker dump:
//	Session Sets (3)/(2):
//	0 expire at Tue Dec 01 23:44:08 UTC 2026:
//	2 expire at Tue Dec 01 23:44:12 UTC 2026:
//		0x100000416da0000
//	ephemeral nodes dump:
//	Sessions with Ephemerals (2):
//	0x100000473410000:
//		/l/x-0000000001
//	Connections dump:
//	...
//
// The "Connections dump" part (connection expiry, not session expiry) is
// not read.
func ParseDump(reply string) Dump {
	d := Dump{Expiry: map[int64]time.Time{}, Ephemerals: map[int64][]string{}, ZoneKnown: true}
	section := ""
	var bucket time.Time
	haveBucket := false
	var owner int64
	haveOwner := false
	sc := lines(reply)
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "SessionTracker dump"), strings.HasPrefix(line, "Session Sets"):
			section = "sessions"
		case strings.HasPrefix(line, "ephemeral nodes dump"):
			section = "ephemerals"
		case strings.HasPrefix(line, "Connections dump"):
			section = ""
		case section == "sessions" && strings.Contains(line, " expire at "):
			when := strings.TrimSuffix(trimmed[strings.Index(trimmed, " expire at ")+len(" expire at "):], ":")
			t, err := time.Parse(javaDate, when)
			haveBucket = err == nil
			if haveBucket {
				bucket = t
				d.ZoneKnown = d.ZoneKnown && zoneKnown(t)
			}
		case section == "sessions" && haveBucket && strings.HasPrefix(line, "\t"):
			if id, err := parseSession(trimmed); err == nil {
				d.Expiry[id] = bucket
			}
		case section == "ephemerals" && strings.HasPrefix(line, "0x"):
			id, err := parseSession(strings.TrimSuffix(trimmed, ":"))
			owner, haveOwner = id, err == nil
		case section == "ephemerals" && haveOwner && strings.HasPrefix(line, "\t") && trimmed != "":
			d.Ephemerals[owner] = append(d.Ephemerals[owner], trimmed)
		}
	}
	return d
}

// zoneKnown reports whether time.Parse understood t's zone abbreviation:
// UTC and GMT always, others only as this machine's own zone (an unknown
// one is given a made-up location with offset 0).
func zoneKnown(t time.Time) bool {
	name, _ := t.Zone()
	return name == "UTC" || name == "GMT" || t.Location() == time.Local
}
