package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestLsSemaphoreContext: a context states a semaphore's limit
// (`semaphores:`); `ls --json` shows it as the limit from the config, and
// more leases held than it fail `ls --check` with over-limit named on
// stderr. The leases are made by hand, named as Curator's
// InterProcessSemaphoreV2 names them.
func TestLsSemaphoreContext(t *testing.T) {
	c := testConn(t)
	p := testPath(t)
	mkdirs(t, c, p+"/leases", nil)
	mkdirs(t, c, p+"/locks", nil)
	for i := range 2 {
		createNode(t, c, p+"/leases", fmt.Sprintf("_c_0f6e4c9a-1d2b-4c3d-8e9f-0a1b2c3d4e5%d-lease-", i), "10.0.0.7")
	}
	var cfg bytes.Buffer
	fmt.Fprintf(&cfg, "contexts:\n  prod:\n    servers: [%s]\n    semaphores:\n      %s: 1\n", testCluster(t).ConnectString(), p)
	env := []string{"ZKLOCK_CONFIG=" + writeFile(t, "config.yaml", cfg.String())}

	out, errOut, code := runBinary(t, env, "--context", "prod", "ls", "--json", "--check", p)
	if code != 2 || !strings.Contains(errOut, "over-limit") {
		t.Fatalf("over its stated limit: code %d, stderr %q\n%s", code, errOut, out)
	}
	var v []struct {
		Type   string `json:"type"`
		Limit  int    `json:"limit"`
		Source string `json:"limit_source"`
		Queue  []struct {
			Kind, Role, Parent string
		} `json:"queue"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || len(v) != 1 {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if v[0].Type != "semaphore" || v[0].Limit != 1 || v[0].Source != "config" || len(v[0].Queue) != 2 {
		t.Fatalf("ls --json: %+v", v[0])
	}
	for _, n := range v[0].Queue {
		if n.Kind != "lease" || n.Role != "holder" || n.Parent != p+"/leases" {
			t.Errorf("lease %+v", n)
		}
	}
	// Without the context the limit is unknown: nothing to flag.
	if out, errOut, code := runBinary(t, nil, serversFlag(t), "ls", "--check", p); code != 0 ||
		!strings.Contains(out, "semaphore, holders 2 (limit unknown), 0 waiting") {
		t.Fatalf("without a stated limit: code %d, stderr %q\n%s", code, errOut, out)
	}
}
