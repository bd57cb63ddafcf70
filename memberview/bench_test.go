package memberview_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/memberview"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/sandboxtest"
	"github.com/zklock/zklock/third_party/zk"
)

// rawSession is a session opened by hand that sets data watches and then
// stays quiet: thousands of them cost the benchmark no goroutines.
func rawSession(b *testing.B, addr string, paths []string) net.Conn {
	b.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	req := make([]byte, 4+4+8+4+8+4+16+1)
	binary.BigEndian.PutUint32(req[0:], uint32(len(req)-4))
	binary.BigEndian.PutUint32(req[16:], 120_000) // silent: outlive a slow setup of 10,000
	binary.BigEndian.PutUint32(req[28:], 16)
	if _, err := conn.Write(req); err != nil {
		b.Fatal(err)
	}
	if err := readFrame(conn); err != nil {
		b.Fatal(err)
	}
	for i, p := range paths { // getData with watch: xid, type 4, path, watch
		f := make([]byte, 4+4+4+4+len(p)+1)
		binary.BigEndian.PutUint32(f[0:], uint32(len(f)-4))
		binary.BigEndian.PutUint32(f[4:], uint32(i+1))
		binary.BigEndian.PutUint32(f[8:], 4)
		binary.BigEndian.PutUint32(f[12:], uint32(len(p)))
		copy(f[16:], p)
		f[len(f)-1] = 1
		if _, err := conn.Write(f); err != nil {
			b.Fatal(err)
		}
		if err := readFrame(conn); err != nil {
			b.Fatal(err)
		}
	}
	return conn
}

func readFrame(conn net.Conn) error {
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var n [4]byte
	if _, err := io.ReadFull(conn, n[:]); err != nil {
		return err
	}
	_, err := io.CopyN(io.Discard, conn, int64(binary.BigEndian.Uint32(n[:])))
	return err
}

// cpuMillis is a process's user+system CPU time (Linux /proc), 0 elsewhere.
func cpuMillis(pid int) int64 {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return (ut + st) * 10 // USER_HZ is 100 on Linux
}

// BenchmarkPoll compares one poll through the AdminServer with one
// through the four-letter words, on one member holding ZKLOCK_BENCH_SESSIONS
// sessions (default 1,000) of 10 data watches each: bytes read, the
// member's CPU, our time.
func BenchmarkPoll(b *testing.B) {
	sessions := 1000
	if n, err := strconv.Atoi(os.Getenv("ZKLOCK_BENCH_SESSIONS")); err == nil && n > 0 {
		sessions = n
	}
	c := sandboxtest.Start(b, sandbox.Options{AdminServer: &sandbox.AdminOptions{}, MaxSessionTimeout: 180 * time.Second})
	m := c.Members()[0]
	own := sandboxtest.Connect(b, c.Servers(), 30*time.Second)
	var paths []string
	for i := range 100 {
		p, err := own.Create(fmt.Sprintf("/w%03d", i), nil, 0, zk.WorldACL(zk.PermAll))
		if err != nil {
			b.Fatal(err)
		}
		paths = append(paths, p)
	}
	for i := range sessions {
		conn := rawSession(b, m.Addr(), paths[i%90:i%90+10])
		b.Cleanup(func() { conn.Close() })
	}
	_, adminPort, _ := net.SplitHostPort(m.AdminAddr())
	for _, src := range []struct{ name, port string }{{"admin", adminPort}, {"4lw", "0"}} {
		b.Run(src.name, func(b *testing.B) {
			ports, _ := memberview.ParseAdminPorts(src.port, 1)
			p := memberview.New(memberview.Config{Members: c.Servers(), AdminPorts: ports,
				Own: func(ctx context.Context) (int64, time.Time, time.Time, error) {
					before := time.Now()
					_, _, err := own.Exists("/")
					return own.SessionID(), before, time.Now(), err
				}})
			defer p.Close()
			var bytes int64
			cpu0 := cpuMillis(m.PID())
			b.ResetTimer()
			for b.Loop() {
				v := p.Poll(b.Context())
				if len(v.Sessions) < sessions || v.Members[0].Source == "" {
					b.Fatalf("poll saw %d sessions through %q (refused %v)", len(v.Sessions), v.Members[0].Source, v.Members[0].Refused)
				}
				bytes += v.Members[0].Bytes
			}
			b.ReportMetric(float64(bytes)/float64(b.N), "bytes/poll")
			b.ReportMetric(float64(cpuMillis(m.PID())-cpu0)/float64(b.N), "server-cpu-ms/poll")
		})
	}
}
