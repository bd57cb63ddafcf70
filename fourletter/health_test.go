package fourletter

import (
	"slices"
	"testing"
	"time"
)

func TestParseConnections(t *testing.T) {
	out := ` /127.0.0.1:38920[1](queued=0,recved=10,sent=10,sid=0x100009311fa0000,lop=PING,est=1795395636133,to=4000,lcxid=0x8,lzxid=0x4,lresp=9646945,llat=0,minlat=0,avglat=1,maxlat=6)
 /127.0.0.1:38934[0](queued=0,recved=1,sent=0)
 /[0:0:0:0:0:0:0:1]:41000[1](queued=0,recved=3,sent=3,sid=0x2,lop=PING)
 host.example/10.0.0.7:4711[1](queued=0,sid=0xff,lresp=x,to=-5)
garbage line
`
	got := ParseConnections(out)
	want := []Connection{
		{Session: 0x100009311fa0000, Client: "127.0.0.1:38920", LastResponse: 9646945, Timeout: 4 * time.Second,
			Received: 10, Established: time.UnixMilli(1795395636133)},
		{Session: 2, Client: "[::1]:41000", LastResponse: -1, Received: 3},
		{Session: 0xff, Client: "10.0.0.7:4711", LastResponse: -1, Received: -1},
	}
	if !slices.EqualFunc(got, want, func(a, b Connection) bool { return a == b }) {
		t.Errorf("ParseConnections =\n%+v\nwant\n%+v", got, want)
	}
}

func TestParseDump(t *testing.T) {
	out := "SessionTracker dump:\nSession Sets (3)/(2):\n0 expire at Tue Dec 01 23:44:08 UTC 2026:\n" +
		"2 expire at Tue Dec 01 23:44:12 UTC 2026:\n\t0x100000416da0000\n\t0x100000473410000\n" +
		"1 expire at Tue Dec 01 23:44:14 UTC 2026:\n\t0x5\n" +
		"ephemeral nodes dump:\nSessions with Ephemerals (2):\n0x100000473410000:\n\t/l/x-0000000001\n0x5:\n\t/a\n\t/b\n" +
		"Connections dump:\nConnections Sets (2)/(3):\n2 expire at Tue Dec 01 23:44:16 UTC 2026:\n\tip: /127.0.0.1:43976 sessionId: 0x100000473410000\n"
	d := ParseDump(out)
	at := func(s string) time.Time { t, _ := time.Parse(time.RFC3339, s); return t }
	if len(d.Expiry) != 3 || !d.Expiry[0x100000416da0000].Equal(at("2026-12-01T23:44:12Z")) ||
		!d.Expiry[5].Equal(at("2026-12-01T23:44:14Z")) || !d.ZoneKnown {
		t.Errorf("Expiry = %v (zone known %v)", d.Expiry, d.ZoneKnown)
	}
	if !slices.Equal(d.Ephemerals[5], []string{"/a", "/b"}) || len(d.Ephemerals) != 2 {
		t.Errorf("Ephemerals = %v", d.Ephemerals)
	}
	odd := ParseDump("Session Sets (1)/(1):\n1 expire at Tue Dec 01 23:44:14 XYZT 2026:\n\t0x5\n")
	if odd.ZoneKnown || len(odd.Expiry) != 1 {
		t.Errorf("an unknown zone: %+v, want ZoneKnown false", odd)
	}
	if d := ParseDump("1 expire at Tue Dec 01 23:44:14 UTC 2026:\n\t0x5\n"); len(d.Expiry) != 0 {
		t.Errorf("a bucket outside the session section: %v", d.Expiry)
	}
}
