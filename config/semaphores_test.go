package config

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSemaphoreLimits: a context states semaphore limits by path
// (`semaphores: {PATH: N}`), decoded strictly and checked, and Resolve
// hands them on.
func TestSemaphoreLimits(t *testing.T) {
	write := func(body string) {
		t.Helper()
		p := filepath.Join(t.TempDir(), "config.yaml")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		t.Setenv("ZKLOCK_CONFIG", p)
	}
	write("contexts:\n  prod:\n    servers: [zk1:2181]\n    semaphores:\n      /jobs/slots: 3\n      /jobs/gpu: 1\n")
	f, _, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"/jobs/slots": 3, "/jobs/gpu": 1}
	if got := f.Contexts["prod"].Semaphores; !maps.Equal(got, want) {
		t.Errorf("semaphores %v, want %v", got, want)
	}
	s, err := (&Flags{Context: "prod", SessionTimeout: time.Second, ConnectTimeout: time.Second}).Resolve(func(string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(s.Semaphores, want) {
		t.Errorf("settings %v, want %v", s.Semaphores, want)
	}
	for _, tt := range []struct{ body, err string }{
		{"contexts:\n  prod:\n    semaphores:\n      /jobs/slots: 0\n", "limit 0"},
		{"contexts:\n  prod:\n    semaphores:\n      jobs/slots: 2\n", "semaphore"},
		{"contexts:\n  prod:\n    semaphores:\n      /jobs/slots: many\n", "cannot unmarshal"},
		{"contexts:\n  prod:\n    semaphores:\n      /jobs/slots: {limit: 2}\n", "cannot unmarshal"},
		{"contexts:\n  prod:\n    semaphore:\n      /jobs/slots: 2\n", "not found"},
	} {
		write(tt.body)
		if _, _, err := Load(); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%q: error %v, want one saying %q", tt.body, err, tt.err)
		}
	}
}
