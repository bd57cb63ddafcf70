package cmd

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/timeline"
)

// TestRecordKilledReplays: a recorder of a churned queue, killed with
// SIGKILL while the queue churns, leaves a file that replays up to the
// cut: replay --json prints the change stream (every line of the watch
// schema) and the snapshots, and says on stderr, in one line, that the
// recording ends early.
func TestRecordKilledReplays(t *testing.T) {
	p := testPath(t)
	c := testConn(t)
	mkdirs(t, c, p, nil)
	file := filepath.Join(t.TempDir(), "incident.zkrec")
	r := startBinary(t, nil, serversFlag(t), "record", "-f", file, p)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	churned := make(chan struct{})
	servers := testCluster(t).Servers()
	go func() {
		defer close(churned)
		s1, s2 := connectNoT(servers), connectNoT(servers)
		if s1 == nil || s2 == nil {
			return
		}
		defer s1.Close()
		defer s2.Close()
		for i := 0; ctx.Err() == nil; i++ {
			s := s1
			if i%2 == 1 {
				s = s2
			}
			l := lockops.NewLock(s, p, lockops.WithNote(fmt.Sprintf("churn-%d", i)))
			if l.Acquire(ctx) != nil {
				return
			}
			time.Sleep(20 * time.Millisecond)
			_ = l.Release(context.Background())
		}
	}()
	eventually(t, 20*time.Second, "the recording to grow", func() bool {
		st, err := os.Stat(file)
		return err == nil && st.Size() > 4000
	})
	if err := r.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	r.wait(t, 10*time.Second)
	killedAt := time.Now()
	cancel()
	<-churned

	out, errOut, code := runBinary(t, nil, "replay", "--json", "--snapshots", file)
	if code != 0 {
		t.Fatalf("replay: code %d, stderr %q", code, errOut)
	}
	if lines := strings.Split(strings.TrimSpace(errOut), "\n"); len(lines) != 1 || !strings.Contains(errOut, "replaying the") {
		t.Errorf("replay of a killed recording: stderr %q, want one line saying so", errOut)
	}
	var acquired, released, snaps int
	var last time.Time
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var probe struct {
			Event string `json:"event"`
		}
		if err := json.Unmarshal([]byte(line), &probe); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if probe.Event == "snapshot" {
			var s jsonSnapshotLine
			if err := json.Unmarshal([]byte(line), &s); err != nil || len(s.Paths) != 1 || s.Paths[0].Path != p {
				t.Fatalf("snapshot line %q: %v", line, err)
			}
			at, _ := time.Parse(time.RFC3339Nano, s.Time)
			if at.Before(last) || at.After(killedAt) {
				t.Errorf("snapshot at %v: after %v or after the kill %v", at, last, killedAt)
			}
			last = at
			snaps++
			continue
		}
		cs := watchLines(t, line)
		switch cs[0].Event {
		case "acquired":
			acquired++
		case "released":
			released++
		}
		if cs[0].Path != p || !strings.Contains(cs[0].Data, "churn-") && cs[0].Node != "" {
			t.Errorf("change %+v", cs[0])
		}
	}
	if snaps < 3 || acquired < 2 || released < 1 {
		t.Errorf("replayed %d snapshots, %d acquired, %d released\n%s", snaps, acquired, released, out)
	}
	t.Logf("%d snapshots, %d acquired, %d released", snaps, acquired, released)

	// The recording is not overwritten by the next one, named by -f or
	// by the deprecated -o, which still works for one release, saying so
	// on a line of its own.
	_, errOut, code = runBinary(t, nil, serversFlag(t), "record", "-f", file, p)
	assertOneLineFailure(t, errOut, code, "exists")
	_, errOut, code = runBinary(t, nil, serversFlag(t), "record", "-o", file, p)
	deprecated, rest, _ := strings.Cut(errOut, "\n")
	if !strings.Contains(deprecated, "zklock: record: -o FILE is deprecated") {
		t.Errorf("record -o FILE: no deprecation line first: %q", errOut)
	}
	assertOneLineFailure(t, rest, code, "exists")
}

// connectNoT connects from a goroutine of a test (nil on failure).
func connectNoT(servers []string) *lockops.Session {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := lockops.Connect(ctx, servers)
	if err != nil {
		return nil
	}
	return s
}

// TestReplayRefuses: a file that is not a recording, or of an unknown
// format version, is refused with one clear line.
func TestReplayRefuses(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte("not a recording\n"), 0o644)
	_, errOut, code := runBinary(t, nil, "replay", "--json", text)
	assertOneLineFailure(t, errOut, code, "not a zklock recording")

	// A header of format version 99, as a future build would write it.
	payload := []byte(`{"k":"header","h":{"version":99,"started":"2026-11-23T03:12:00Z","zklock":"v9.0.0"},"at":"2026-11-23T03:12:00Z"}` + "\n")
	var raw bytes.Buffer
	raw.WriteString("zklock-recording\n")
	raw.Write(binary.AppendUvarint(nil, uint64(len(payload))))
	raw.Write(binary.BigEndian.AppendUint32(nil, crc32.Checksum(payload, crc32.MakeTable(crc32.Castagnoli))))
	raw.Write(payload)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(raw.Bytes())
	zw.Close()
	future := filepath.Join(dir, "future.zkrec")
	os.WriteFile(future, gz.Bytes(), 0o644)
	_, errOut, code = runBinary(t, nil, "replay", future)
	assertOneLineFailure(t, errOut, code, "format version 99, written by zklock v9.0.0; this zklock reads version 1")

	_, errOut, code = runBinary(t, nil, "replay", filepath.Join(dir, "missing.zkrec"))
	assertOneLineFailure(t, errOut, code, "no such file")
	_ = timeline.RecordingVersion
}
