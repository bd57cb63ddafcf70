package cmd

// Tests of what deploy/ ships beside the binary: the alert rules (with
// Prometheus' own promtool), their runbooks, and the systemd unit (with
// systemd-analyze).

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

const (
	rulesDir  = "../deploy/prometheus"
	rulesFile = "zklock-alerts.yml"
	rulesTest = "zklock-alerts.test.yml"
	runbooks  = "../docs/runbooks.md"
	runbookAt = "https://github.com/zklock/zklock/blob/main/docs/runbooks.md#"
	unitFile  = "../deploy/systemd/zklock-export.service"
)

// lookTool finds a tool the test needs, or fails with how to install it.
func lookTool(t *testing.T, name, install string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is not installed: %s", name, install)
	}
	return p
}

// runTool runs a tool in dir and fails with its output unless it exits 0
// and prints nothing on stderr (systemd-analyze only warns of a key it
// does not know).
func runTool(t *testing.T, dir string, argv ...string) string {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("%s: %v\n%s%s", strings.Join(argv, " "), err, out, stderr.String())
	}
	return string(out)
}

const promtoolInstall = "`make deps` installs it (Debian/Ubuntu: apt-get install --no-install-recommends prometheus, " +
	"which brings promtool; elsewhere: promtool from a Prometheus release, https://prometheus.io/download/, on PATH)"

// TestAlertRulesPromtool: Prometheus' own checker accepts the rules, and
// their unit tests (zklock-alerts.test.yml) pass: each alert fires on
// the series that should fire it, after its `for:`, and not on a near
// miss.
func TestAlertRulesPromtool(t *testing.T) {
	if testing.Short() {
		t.Skip("runs promtool (make test installs and runs it; -short does not)")
	}
	promtool := lookTool(t, "promtool", promtoolInstall)
	runTool(t, rulesDir, promtool, "check", "rules", rulesFile)
	runTool(t, rulesDir, promtool, "test", "rules", rulesTest)
}

type alertRule struct {
	Alert       string            `yaml:"alert"`
	Expr        string            `yaml:"expr"`
	For         string            `yaml:"for"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

func readAlertRules(t *testing.T) []alertRule {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(rulesDir, rulesFile))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Groups []struct {
			Rules []alertRule `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	var rules []alertRule
	for _, g := range file.Groups {
		rules = append(rules, g.Rules...)
	}
	return rules
}

// TestAlertRulesConventions: every rule waits (`for:`), is critical or
// warning, has a summary and a runbook_url to its own section of
// docs/runbooks.md, and a unit test; an exporter-down rule exists.
func TestAlertRulesConventions(t *testing.T) {
	rules := readAlertRules(t)
	book, err := os.ReadFile(runbooks)
	if err != nil {
		t.Fatal(err)
	}
	tests, err := os.ReadFile(filepath.Join(rulesDir, rulesTest))
	if err != nil {
		t.Fatal(err)
	}
	sections := regexp.MustCompile(`(?m)^## (\S+)$`).FindAllStringSubmatch(string(book), -1)
	var headings []string
	for _, s := range sections {
		headings = append(headings, s[1])
	}
	down := false
	for _, r := range rules {
		if r.For == "" {
			t.Errorf("%s: no for: (a single evaluation pages)", r.Alert)
		}
		if sev := r.Labels["severity"]; sev != "critical" && sev != "warning" {
			t.Errorf("%s: severity %q, want critical or warning", r.Alert, sev)
		}
		if r.Annotations["summary"] == "" {
			t.Errorf("%s: no summary", r.Alert)
		}
		if want := runbookAt + strings.ToLower(r.Alert); r.Annotations["runbook_url"] != want {
			t.Errorf("%s: runbook_url %q, want %q", r.Alert, r.Annotations["runbook_url"], want)
		}
		if !slices.Contains(headings, r.Alert) {
			t.Errorf("%s: no section \"## %s\" in docs/runbooks.md", r.Alert, r.Alert)
		}
		if !strings.Contains(string(tests), "alertname: "+r.Alert+"\n") {
			t.Errorf("%s: no unit test in %s", r.Alert, rulesTest)
		}
		down = down || strings.Contains(r.Expr, `up{job="zklock"} == 0`)
	}
	if !down {
		t.Errorf("no rule fires when the exporter is down (up{job=\"zklock\"} == 0)")
	}
	for _, h := range headings {
		if !slices.ContainsFunc(rules, func(r alertRule) bool { return r.Alert == h }) {
			t.Errorf("docs/runbooks.md has a section %s for no alert", h)
		}
	}
}

// TestSystemdUnit: the export unit passes systemd-analyze verify (with
// ExecStart on the binary under test, which must exist), is hardened
// (DynamicUser and the sandboxing options: systemd's own exposure score
// at most 2.0, "OK"), and runs `zklock export` with flags the command
// takes.
func TestSystemdUnit(t *testing.T) {
	sa := lookTool(t, "systemd-analyze", "it comes with systemd (Debian/Ubuntu: apt-get install systemd)")
	raw, err := os.ReadFile(unitFile)
	if err != nil {
		t.Fatal(err)
	}
	unit := string(raw)
	for _, want := range []string{"DynamicUser=yes", "ProtectSystem=strict", "ProtectHome=yes", "NoNewPrivileges=yes", "CapabilityBoundingSet=\n"} {
		if !strings.Contains(unit, want) {
			t.Errorf("unit lacks %q", want)
		}
	}
	exec := regexp.MustCompile(`(?m)^ExecStart=/usr/bin/zklock (.*)$`).FindStringSubmatch(unit)
	if exec == nil {
		t.Fatalf("no ExecStart=/usr/bin/zklock ... in %s", unitFile)
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	copyPath := filepath.Join(dir, filepath.Base(unitFile))
	if err := os.WriteFile(copyPath, []byte(strings.ReplaceAll(unit, "/usr/bin/zklock", bin)), 0o644); err != nil {
		t.Fatal(err)
	}
	runTool(t, dir, sa, "verify", copyPath)
	runTool(t, dir, sa, "security", "--offline=true", "--threshold=20", copyPath)

	// The flags it passes are export's: --help with them parses.
	args := strings.Fields(strings.ReplaceAll(exec[1], "$ZKLOCK_EXPORT_ARGS", ""))
	if out, errOut, code := runBinary(t, nil, append(args, "--help")...); code != 0 || !strings.Contains(out, "zklock export") {
		t.Errorf("zklock %v --help: code %d, stderr %q", args, code, errOut)
	}
}
