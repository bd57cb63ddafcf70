package zk

// zklock patch: a real standalone ZooKeeper for this package's tests. The
// copy is a module of its own and cannot import zklock/sandbox, so this is a
// small stand-alone version of it: one server, started on first use, shared
// by the tests (each works under its own path), killed by TestMain.

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	// installHint says what a machine without ZooKeeper or Java lacks.
	installHint = "apt-get install zookeeper default-jre-headless"
	// debianJars is where Debian's zookeeper package puts its jars.
	debianJars = "/usr/share/java"
	// serverStartTimeout bounds the JVM's start; a standalone server answers
	// in 1-2 s on a 2-core machine, so this only trips on a broken install.
	serverStartTimeout = 60 * time.Second
	// eventTimeout bounds every wait for a watch event.
	eventTimeout = 15 * time.Second
)

type testZK struct {
	addr    string
	dir     string
	logPath string
	cmd     *exec.Cmd
	exited  chan struct{} // closed when the process has been waited for
	release chan struct{} // lets the thread that started it go
}

var shared struct {
	once sync.Once
	srv  *testZK
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.srv != nil {
		shared.srv.stop()
	}
	os.Exit(code)
}

// testServer returns the address of the shared server, starting it on first
// use. It fails the test, never skips it, when ZooKeeper cannot start.
func testServer(t *testing.T) string {
	t.Helper()
	if testing.Short() { // as sandboxtest.Need, which this package cannot import
		t.Skip("needs a real ZooKeeper (make test runs it; -short does not)")
	}
	shared.once.Do(func() { shared.srv, shared.err = startTestZK() })
	if shared.err != nil {
		t.Fatalf("ZooKeeper test server: %v", shared.err)
	}
	return shared.srv.addr
}

func startTestZK() (*testZK, error) {
	java, err := exec.LookPath("java")
	if err != nil {
		return nil, fmt.Errorf("no java on $PATH (%v); run: %s", err, installHint)
	}
	jar := filepath.Join(debianJars, "zookeeper.jar")
	if _, err := os.Stat(jar); err != nil {
		return nil, fmt.Errorf("no ZooKeeper server jar (%v); run: %s", err, installHint)
	}
	classPath := jar
	// Without an SLF4J binding the server logs nothing at all.
	if simple := filepath.Join(debianJars, "slf4j-simple.jar"); fileExists(simple) {
		classPath += string(os.PathListSeparator) + simple
	}

	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "zk-persistent-watch-test-")
	if err != nil {
		return nil, err
	}
	cfg := strings.Join([]string{
		"tickTime=2000",
		"dataDir=" + filepath.Join(dir, "data"),
		fmt.Sprintf("clientPort=%d", port),
		"clientPortAddress=127.0.0.1",
		"admin.enableServer=false",
		"4lw.commands.whitelist=*",
	}, "\n") + "\n"
	cfgPath := filepath.Join(dir, "zoo.cfg")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	logPath := filepath.Join(dir, "server.log")
	logf, err := os.Create(logPath)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}

	cmd := exec.Command(java,
		"-Xms16m", "-Xmx256m",
		"-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData",
		"-Dzookeeper.admin.enableServer=false",
		"-cp", classPath,
		"org.apache.zookeeper.server.quorum.QuorumPeerMain", cfgPath)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = serverProcAttr()
	s := &testZK{
		addr:    fmt.Sprintf("127.0.0.1:%d", port),
		dir:     dir,
		logPath: logPath,
		cmd:     cmd,
		exited:  make(chan struct{}),
		release: make(chan struct{}),
	}

	// On Linux the server is killed when the thread that started it exits
	// (Pdeathsig), so that a test binary killed without cleanup leaves no
	// JVM behind. That thread must then live as long as the server.
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		err := cmd.Start()
		started <- err
		if err == nil {
			<-s.release
		}
	}()
	if err := <-started; err != nil {
		logf.Close()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start %s: %v; run: %s", java, err, installHint)
	}
	go func() {
		cmd.Wait()
		logf.Close()
		close(s.exited)
	}()

	if err := s.waitServing(); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

// waitServing waits until the server answers ruok with imok and srvr with
// its mode; it stops early when the process exits.
func (s *testZK) waitServing() error {
	deadline := time.Now().Add(serverStartTimeout)
	var last error
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			return fmt.Errorf("server exited at start: %v\n%s", s.cmd.ProcessState, s.logTail())
		default:
		}
		reply, err := fourLetter(s.addr, "ruok")
		if err == nil && reply == "imok" {
			reply, err = fourLetter(s.addr, "srvr")
			if err == nil && strings.Contains(reply, "Mode: ") {
				return nil
			}
		}
		last = fmt.Errorf("%q, %v", reply, err)
		select {
		case <-s.exited:
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("server on %s not serving after %v (last probe: %v)\n%s", s.addr, serverStartTimeout, last, s.logTail())
}

func (s *testZK) stop() {
	if s.cmd.Process != nil {
		s.cmd.Process.Kill()
		<-s.exited
	}
	close(s.release)
	os.RemoveAll(s.dir)
}

func (s *testZK) logTail() string {
	b, _ := os.ReadFile(s.logPath)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > 30 {
		lines = lines[len(lines)-30:]
	}
	return "--- last lines of " + s.logPath + " ---\n" + strings.Join(lines, "\n")
}

// fourLetter sends a four-letter word and returns the whole reply.
func fourLetter(addr, word string) (string, error) {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(conn, word); err != nil {
		return "", err
	}
	b, err := io.ReadAll(conn)
	return string(b), err
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// linkDialer dials the server and can sever every link it made (closing the
// client's end: the server sees the connection drop, the session lives on)
// and refuse new ones while the link is down.
type linkDialer struct {
	mu    sync.Mutex
	conns []net.Conn
	down  bool
}

func (d *linkDialer) dial(network, address string, timeout time.Duration) (net.Conn, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.down {
		return nil, errors.New("test: link down")
	}
	conn, err := net.DialTimeout(network, address, timeout)
	if err == nil {
		d.conns = append(d.conns, conn)
	}
	return conn, err
}

// sever closes every link and, with stayDown, refuses new ones until up.
func (d *linkDialer) sever(stayDown bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.down = stayDown
	for _, c := range d.conns {
		c.Close()
	}
	d.conns = nil
}

func (d *linkDialer) up() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.down = false
}
