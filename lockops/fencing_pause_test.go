package lockops

// The pause nemesis: a `zklock run` holder (zklock and its command, one
// process group) is stopped with SIGSTOP between its read of the register
// and its write, for longer than its session; the lock passes to lockops
// clients that increment the register; then SIGCONT, and the stale
// holder writes. Unfenced, that write is a lost update: the checker must
// find the history not linearizable. Fenced (the command hands the
// resource ZKLOCK_FENCING_TOKEN), the resource refuses it and the
// history is linearizable.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/zklock/zklock/sandbox"
)

// pauseSessionTimeout is the paused holder's session: short, so that the
// pause outlasts it in a couple of seconds.
const pauseSessionTimeout = 2 * time.Second

// pausedHolderScript is the command run under `zklock run`: it reads the
// register through bash's /dev/tcp, says so in $READ, waits for $GO
// (the test stops the process group meanwhile), writes the value plus
// one, and puts the answer in $DONE. It ignores SIGTERM, as a command in
// the middle of its write would finish it: zklock run, back from the
// pause, finds its lock lost and asks the command to stop.
const pausedHolderScript = `trap '' TERM
exec 3<>/dev/tcp/127.0.0.1/$PORT
echo "R $ZKLOCK_FENCING_TOKEN" >&3; read -r ok v <&3
echo "$ok $v" > "$READ"
while [ ! -e "$GO" ]; do sleep 0.02; done
echo "W $((v+1))" >&3; read -r w <&3
echo "$w" > "$DONE.tmp"; mv "$DONE.tmp" "$DONE"`

// serveRegister serves reg on a loopback port, one increment per
// connection: "R <token>" answered "ok <value>" or "refused", then
// "W <value>" answered "ok" or "refused". Connections are clients 100 and
// up.
func serveRegister(t *testing.T, reg *register) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for client := 100; ; client++ {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go serveIncrement(conn, reg, client)
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}

func serveIncrement(conn net.Conn, reg *register, client int) {
	defer conn.Close()
	in := bufio.NewScanner(conn)
	if !in.Scan() {
		return
	}
	token, err := strconv.ParseInt(strings.TrimPrefix(in.Text(), "R "), 10, 64)
	if err != nil {
		fmt.Fprintln(conn, "refused")
		return
	}
	op := reg.read(client, token)
	if op.out.ok {
		fmt.Fprintln(conn, "ok", op.out.read)
	} else {
		fmt.Fprintln(conn, "refused")
	}
	if !in.Scan() {
		return
	}
	// The command writes what it read plus one; the register computes the
	// same from the read it recorded.
	if reg.write(op) {
		fmt.Fprintln(conn, "ok")
	} else {
		fmt.Fprintln(conn, "refused")
	}
}

// pauseOutcome is one pause run: the register's check, and what the
// paused holder's late write was told.
type pauseOutcome struct {
	res       checkResult
	lateWrite string
}

// pauseRun runs the scenario once on c, the register fenced or not.
func pauseRun(t *testing.T, c *sandbox.Cluster, fenced bool) pauseOutcome {
	bin, err := zklockBinary()
	if err != nil {
		t.Fatal(err)
	}
	ctx := tctx(t, 3*time.Minute)
	check := checkSession(t, c.Servers())
	lock := lockPath(t)
	reg := &register{fenced: fenced, h: newHistory()}
	port := serveRegister(t, reg)
	dir := t.TempDir()
	readF, goF, doneF := filepath.Join(dir, "read"), filepath.Join(dir, "go"), filepath.Join(dir, "done")

	holder := exec.Command(bin, "--servers="+strings.Join(c.Servers(), ","), "--session-timeout", pauseSessionTimeout.String(),
		"run", "--quiet", "--grace", "60s", lock, "--", "bash", "-c", pausedHolderScript)
	holder.Env = append(os.Environ(), "PORT="+strconv.Itoa(port), "READ="+readF, "GO="+goF, "DONE="+doneF)
	holder.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr strings.Builder
	holder.Stderr = &stderr
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var exitErr error
	go func() { exitErr = holder.Wait(); close(exited) }()
	pg := -holder.Process.Pid
	t.Cleanup(func() {
		_ = syscall.Kill(pg, syscall.SIGCONT)
		_ = syscall.Kill(pg, syscall.SIGKILL)
		<-exited
	})
	eventually(t, 60*time.Second, "the zklock run holder's read", func() bool { _, err := os.Stat(readF); return err == nil })
	kids := children(t, check, lock)
	if len(kids) != 1 {
		t.Fatalf("lock %s holds %v, want the zklock run holder's node", lock, kids)
	}

	// Two lockops clients queue behind it and increment when they hold.
	wctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var workers []*historyWorker
	for i := range 2 {
		s, err := Connect(ctx, c.Servers(), WithSessionTimeout(faultTimeout))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		w := &historyWorker{id: i + 1, s: s, l: NewLock(s, lock)}
		workers = append(workers, w)
		wg.Go(func() { w.run(wctx, newHistory(), reg) })
	}
	defer func() { stop(); wg.Wait() }()

	if err := syscall.Kill(pg, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	eventually(t, 60*time.Second, "the paused holder's session to expire and the others to increment", func() bool {
		if ok, _, err := check.conn.Exists(check.Abs(lock) + "/" + kids[0]); err != nil || ok {
			return false
		}
		return workers[0].holds.Load()+workers[1].holds.Load() >= 3
	})
	if err := syscall.Kill(pg, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(goF, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var late string
	eventually(t, 60*time.Second, "the paused holder's late write", func() bool {
		b, err := os.ReadFile(doneF)
		late = strings.TrimSpace(string(b))
		return err == nil
	})
	select {
	case <-exited:
		err := exitErr
		var ee *exec.ExitError
		if err == nil || !errors.As(err, &ee) {
			t.Errorf("zklock run came back from the pause and exited %v: want the lost lock's failure; stderr %q", err, stderr.String())
		}
		t.Logf("zklock run after the pause: %v; %s", err, strings.TrimSpace(stderr.String()))
	case <-time.After(binaryWait):
		t.Fatalf("zklock run did not exit after the pause; stderr %q", stderr.String())
	}
	stop()
	wg.Wait()

	name, model := "unfenced-register", counterModel
	if fenced {
		name, model = "fenced-register", fencedModel
	}
	return pauseOutcome{res: checkHistory(t, name, model, reg.h.operations()), lateWrite: late}
}

// binaryWait bounds the wait for a zklock process that was told to end.
const binaryWait = 90 * time.Second

// TestFencingUnderPause: the checker bites (a paused holder's unfenced
// write is a lost update it finds), and fencing holds (the same pause
// with the token: the late write is refused, the history linearizable).
func TestFencingUnderPause(t *testing.T) {
	c := faultEnsemble(t)
	heal(t, c)
	soak := historyDuration(t)
	begin := time.Now()
	var ops, faults, unfencedCaught, fencedViolations int
	for round := 0; round == 0 || time.Since(begin) < soak; round++ {
		unfenced := pauseRun(t, c, false)
		fenced := pauseRun(t, c, true)
		ops += unfenced.res.ops + fenced.res.ops
		faults += 2
		if !unfenced.res.ok {
			unfencedCaught++
			t.Logf("round %d: unfenced: the late write was told %q; not linearizable, as expected: %s", round, unfenced.lateWrite, unfenced.res.html)
		} else {
			t.Errorf("round %d: unfenced: the late write (told %q) left a linearizable history: the checker or the pause does not bite", round, unfenced.lateWrite)
		}
		if fenced.lateWrite != "refused" {
			t.Errorf("round %d: fenced: the late write was told %q, want refused", round, fenced.lateWrite)
		}
		if !fenced.res.ok {
			fencedViolations++
			t.Errorf("round %d: fenced: not linearizable: see %s", round, fenced.res.html)
		}
	}
	t.Logf("operations checked: %d; faults injected (pauses): %d; violations: unfenced %d (expected, one a pause), fenced %d",
		ops, faults, unfencedCaught, fencedViolations)
}
