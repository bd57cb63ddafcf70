package audit

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zklock/zklock/config"
)

// TestAuditChrootAndTLS: every record says the chroot its paths are
// relative to, and that the session was over TLS.
func TestAuditChrootAndTLS(t *testing.T) {
	p := filepath.Join(t.TempDir(), "audit.log")
	a, err := Open(&config.Settings{AuditLog: p, Servers: []string{"zk1:2281"}, Chroot: "/app", TLS: &config.TLS{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Write(Record{Action: "take", Phase: PhaseBefore, Path: "/locks/x"}); err != nil {
		t.Fatal(err)
	}
	a.Close()
	b, _ := os.ReadFile(p)
	for _, want := range []string{`"chroot":"/app"`, `"tls":true`, `"path":"/locks/x"`, `"servers":"zk1:2281/app"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("audit line %s lacks %s", b, want)
		}
	}
}

// TestDo: the two lines of an action, the outcome from fn's error unless
// fn set one, and fn not run when the "before" line cannot be written.
func TestDo(t *testing.T) {
	boom := errors.New("boom\nsecond line")
	tests := []struct {
		name              string
		fn                func(*Record) error
		wantOutcome       string
		wantError         string
		wantNode, wantErr string
	}{
		{"ok", func(*Record) error { return nil }, OutcomeOK, "", "", ""},
		{"error", func(*Record) error { return boom }, OutcomeError, "boom second line", "", "boom\nsecond line"},
		{"fn fills the record", func(r *Record) error { r.Node = "n-1"; return nil }, OutcomeOK, "", "n-1", ""},
		{"fn's outcome kept", func(r *Record) error { r.Outcome = "lost"; return boom }, "lost", "", "", "boom\nsecond line"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "audit.log")
			a, err := Open(&config.Settings{AuditLog: p})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			err = a.Do(Record{Action: "take", Path: "/l"}, tc.fn)
			if got := errText(err); got != tc.wantErr {
				t.Errorf("Do: %q, want %q", got, tc.wantErr)
			}
			recs := readRecords(t, p)
			if len(recs) != 2 || recs[0].Phase != PhaseBefore || recs[1].Phase != PhaseAfter {
				t.Fatalf("records %+v, want before and after", recs)
			}
			if recs[0].Outcome != "" || recs[0].Node != "" {
				t.Errorf("before line %+v says what only the after line knows", recs[0])
			}
			if a := recs[1]; a.Outcome != tc.wantOutcome || a.Error != tc.wantError || a.Node != tc.wantNode {
				t.Errorf("after line %+v, want outcome %q error %q node %q", a, tc.wantOutcome, tc.wantError, tc.wantNode)
			}
		})
	}
}

// TestDoNotDone: a log that cannot be written stops the action.
func TestDoNotDone(t *testing.T) {
	a, err := Open(&config.Settings{AuditLog: filepath.Join(t.TempDir(), "audit.log")})
	if err != nil {
		t.Fatal(err)
	}
	a.Close() // every write fails now
	ran := false
	err = a.Do(Record{Action: "revoke", Path: "/l"}, func(*Record) error { ran = true; return nil })
	if ran || !errors.Is(err, ErrNotDone) || !errors.Is(err, ErrLog) || !strings.HasPrefix(err.Error(), "revoke not done: audit log ") {
		t.Errorf("Do on a closed log: ran %v, err %v", ran, err)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func readRecords(t *testing.T, p string) []Record {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var recs []Record
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		recs = append(recs, r)
	}
	return recs
}
