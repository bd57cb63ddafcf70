package zkview

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Real lock clients for the tests: Kazoo 2.8 (Debian's, for
// /usr/bin/python3) and Curator 5.4 (Debian's jars), each a process
// running testdata/peers with one or more sessions, driven by lines on
// stdin. They are small on purpose: the tests need "take this lock in
// this session" and "let it go", nothing else.

const peerHint = "zkview tests need Kazoo for /usr/bin/python3 (apt-get install python3-kazoo) and Curator " +
	"(apt-get install libcurator-recipes-java default-jdk-headless)"

const curatorJars = "/usr/share/java/curator-client.jar:/usr/share/java/curator-framework.jar:" +
	"/usr/share/java/curator-recipes.jar:/usr/share/java/guava.jar:/usr/share/java/slf4j-api.jar:" +
	"/usr/share/java/zookeeper.jar"

var curatorBuild struct {
	once sync.Once
	dir  string
	err  error
}

// curatorClasses compiles CuratorPeer once per test binary.
func curatorClasses(t testing.TB) string {
	t.Helper()
	curatorBuild.once.Do(func() {
		dir, err := os.MkdirTemp("", "zkview-curator-")
		if err != nil {
			curatorBuild.err = err
			return
		}
		out, err := exec.Command("javac", "-d", dir, "-cp", curatorJars, filepath.Join("testdata", "peers", "CuratorPeer.java")).CombinedOutput()
		if err != nil {
			curatorBuild.err = fmt.Errorf("javac: %v: %s", err, out)
		}
		curatorBuild.dir = dir
	})
	if curatorBuild.err != nil {
		t.Fatalf("%s: %v", peerHint, curatorBuild.err)
	}
	return curatorBuild.dir
}

type peerProc struct {
	t        testing.TB
	kind     string
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	sessions []int64

	mu   sync.Mutex
	seen map[string]bool // "acquired ID", "released ID", "error ID ..."
	cond chan struct{}   // closed and replaced at every line
}

// startPeers starts a "curator" or "kazoo" process with n sessions.
func startPeers(t testing.TB, kind string, servers []string, n int) *peerProc {
	t.Helper()
	hosts := strings.Join(servers, ",")
	var cmd *exec.Cmd
	switch kind {
	case "kazoo":
		cmd = exec.Command("/usr/bin/python3", filepath.Join("testdata", "peers", "kazoo_peer.py"), hosts, "4", strconv.Itoa(n))
	case "curator":
		dir := curatorClasses(t)
		cmd = exec.Command("java", "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-cp", dir+":"+curatorJars, "CuratorPeer", hosts, "4000", strconv.Itoa(n))
	default:
		t.Fatalf("unknown peer %q", kind)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", peerHint, err)
	}
	p := &peerProc{t: t, kind: kind, cmd: cmd, stdin: stdin, seen: map[string]bool{}, cond: make(chan struct{})}
	t.Cleanup(p.stop)
	sessions := make(chan int64, n)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) == 3 && f[0] == "session" {
				id, err := strconv.ParseUint(strings.TrimPrefix(f[2], "0x"), 16, 64)
				if err == nil {
					sessions <- int64(id)
				}
				continue
			}
			p.mu.Lock()
			p.seen[sc.Text()] = true
			if len(f) >= 2 && f[0] == "error" {
				p.seen["error "+f[1]] = true
			}
			close(p.cond)
			p.cond = make(chan struct{})
			p.mu.Unlock()
		}
	}()
	timeout := time.After(40 * time.Second)
	for range n {
		select {
		case id := <-sessions:
			p.sessions = append(p.sessions, id)
		case <-timeout:
			t.Fatalf("%s peer: no session after 40s (%s)", kind, peerHint)
		}
	}
	return p
}

func (p *peerProc) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		p.t.Fatalf("%s peer: %v", p.kind, err)
	}
}

// acquire asks session client to take the lock at path; it returns at
// once (the lock may wait).
func (p *peerProc) acquire(client int, id, path, kind string) {
	p.send(fmt.Sprintf("acquire %d %s %s %s", client, id, path, kind))
}

// wait waits until the peer printed line.
func (p *peerProc) wait(line string, timeout time.Duration) {
	p.t.Helper()
	deadline := time.After(timeout)
	for {
		p.mu.Lock()
		ok, ch := p.seen[line], p.cond
		failed := p.seen["error "+strings.Fields(line)[1]]
		p.mu.Unlock()
		if ok {
			return
		}
		if failed {
			p.t.Fatalf("%s peer failed before %q", p.kind, line)
		}
		select {
		case <-ch:
		case <-deadline:
			p.t.Fatalf("%s peer: no %q after %v", p.kind, line, timeout)
		}
	}
}

func (p *peerProc) acquired(id string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.seen["acquired "+id]
}

// release lets lock id go and waits until it has.
func (p *peerProc) release(id string) {
	p.t.Helper()
	p.send("release " + id)
	p.wait("released "+id, 20*time.Second)
}

func (p *peerProc) stop() {
	_, _ = io.WriteString(p.stdin, "quit\n")
	p.stdin.Close()
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	select {
	case <-done:
	case <-ctx.Done():
		_ = p.cmd.Process.Kill()
		<-done
	}
}
