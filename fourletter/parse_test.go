package fourletter

import (
	"maps"
	"slices"
	"testing"
)

func TestParseCons(t *testing.T) {
	out := ` /127.0.0.1:38920[1](queued=0,recved=10,sent=10,sid=0x100009311fa0000,lop=PING,est=1795395636133,to=4000,lcxid=0x8,lzxid=0x4,lresp=9646945,llat=0,minlat=0,avglat=1,maxlat=6)
 /127.0.0.1:38934[0](queued=0,recved=1,sent=0)
 /[0:0:0:0:0:0:0:1]:41000[1](queued=0,recved=3,sent=3,sid=0x2,lop=PING)
 /0:0:0:0:0:0:0:1:41001[1](queued=0,recved=3,sent=3,sid=0x3,lop=PING)
 host.example/10.0.0.7:4711[1](queued=0,sid=0xff,lop=PING)
 /[fe80:0:0:0:0:0:0:1%eth0]:5[1](queued=0,sid=0x4)
garbage line
`
	got := ParseCons(out)
	want := map[int64]string{
		0x100009311fa0000: "127.0.0.1:38920",
		2:                 "[::1]:41000",
		3:                 "[::1]:41001",
		0xff:              "10.0.0.7:4711",
		4:                 "[fe80::1%eth0]:5",
	}
	if !maps.Equal(got, want) {
		t.Errorf("ParseCons = %v, want %v", got, want)
	}
}

func TestParseWchc(t *testing.T) {
	out := "0x100009311fa0000\n\t/t/a/x-0000000000\n\t/t/a/x-0000000001\n\n0x2\n\t/zookeeper/config\n"
	got := ParseWchc(out)
	if !slices.Equal(got[0x100009311fa0000], []string{"/t/a/x-0000000000", "/t/a/x-0000000001"}) || len(got[2]) != 1 || len(got) != 2 {
		t.Errorf("ParseWchc = %v", got)
	}
}

func TestParseWchp(t *testing.T) {
	out := "/t/a/x-0000000000\n\t0x100009311fa0000\n\t0x2\n/zookeeper/config\n\t0x2\n\tgarbage\n"
	got := ParseWchp(out)
	if !slices.Equal(got["/t/a/x-0000000000"], []int64{0x100009311fa0000, 2}) || !slices.Equal(got["/zookeeper/config"], []int64{2}) || len(got) != 2 {
		t.Errorf("ParseWchp = %v", got)
	}
}

func TestParseSrvr(t *testing.T) {
	tests := map[string]Srvr{
		"Zookeeper version: 3.8.4-9316c2a7a97e1666d8f4593f34dd6fc36ecc436c, built on 2024-02-12 22:16 UTC\nLatency min/avg/max: 0/0.0/0\nZxid: 0x5000001a3\nMode: follower\nNode count: 5\n": {"3.8.4", "follower", 0x5000001a3},
		"Zookeeper version: 3.4.13-2d71af4dbe22557fda74f9a9b4309b15a7487f03, built on 06/29/2018\nZxid: 0x0\nMode: leader\n":                                                                 {"3.4.13", "leader", 0},
		"Zxid: 0xffffffffffffffff\nMode: standalone\n":                {"", "standalone", -1}, // past a signed long: none
		"Zxid: 0x1fffffffe\r\nMode: standalone\r\n":                   {"", "standalone", 0x1fffffffe},
		"Zxid: 0x10000000000000000\nMode: standalone\n":               {"", "standalone", -1}, // too long: none
		"Zxid: 12\nMode: standalone\n":                                {"", "standalone", -1},
		"Mode: standalone\n":                                          {"", "standalone", -1},
		"This ZooKeeper instance is not currently serving requests\n": {"", NotServing, -1},
		"": {Zxid: -1},
	}
	for in, want := range tests {
		if got := ParseSrvr(in); got != want {
			t.Errorf("ParseSrvr(%q) = %+v, want %+v", in, got, want)
		}
	}
}

func TestParseMntr(t *testing.T) {
	out := "zk_version\t3.8.4-9316c2a7a97e1666d8f4593f34dd6fc36ecc436c, built on 2024-02-12 22:16 UTC\nzk_server_state\tleader\nzk_packets_received\t42\nno tab here\n"
	got := ParseMntr(out)
	if got["zk_server_state"] != "leader" || got["zk_packets_received"] != "42" || len(got) != 3 {
		t.Errorf("ParseMntr = %v", got)
	}
	if v := ShortVersion(got["zk_version"]); v != "3.8.4" {
		t.Errorf("ShortVersion(%q) = %q", got["zk_version"], v)
	}
}
