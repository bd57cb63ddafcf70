package cmd

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/spf13/cobra"
	"github.com/zklock/zklock/third_party/zk"
)

// countingListener is a server that accepts connections and never
// answers: a command that dials it hangs until its connect timeout.
// accepted says how many connections it took.
func countingListener(t *testing.T) (addr string, accepted func() int64) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	done := make(chan struct{})
	t.Cleanup(func() { l.Close(); <-done })
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			defer c.Close()
		}
	}()
	return l.Addr().String(), n.Load
}

// helpText is what `zklock ARGS... --help` prints, run in process.
func helpText(t *testing.T, args ...string) string {
	t.Helper()
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(append(args, "--help"))
	if err := root.Execute(); err != nil {
		t.Fatalf("%v --help: %v", args, err)
	}
	return out.String()
}

// TestExitCodesTable: README's exit codes section and `zklock --help`
// show the one table of exitcodes.go, and its codes are the constants.
func TestExitCodesTable(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "### Exit codes\n") || !strings.Contains(string(readme), exitCodesMarkdown()) {
		t.Errorf("README's Exit codes section is not exitCodesMarkdown(); paste this:\n%s", exitCodesMarkdown())
	}
	help := helpText(t)
	if !strings.Contains(help, "Exit codes:\n"+exitCodesText()) {
		t.Errorf("zklock --help lacks the exit codes table:\n%s", help)
	}
	var codes []string
	for _, r := range exitCodes {
		codes = append(codes, r.code)
	}
	for _, c := range []int{exitOK, exitFailure, exitCheck, exitCheckUnknown, exitUsage, exitLost, exitNotAcquired, exitSignal} {
		if !slices.Contains(codes, strconv.Itoa(c)) {
			t.Errorf("exit code %d is not in the table", c)
		}
	}
	// run's own codes must not read as a --check verdict.
	for _, c := range []int{exitLost, exitNotAcquired} {
		if c == exitCheck || c == exitCheckUnknown || c == exitUsage || c == exitFailure {
			t.Errorf("run's code %d is taken", c)
		}
	}
}

// TestCheckCodesInHelp: every warning code the model defines is either
// failed on by `ls --check` or only shown (a new code must be placed),
// and `ls --help` names every one that fails it, in the text and the
// flag's line.
func TestCheckCodesInHelp(t *testing.T) {
	codes := warnCodes(t)
	if len(codes) < 8 {
		t.Fatalf("found only %v in model", codes)
	}
	for name, code := range codes {
		fails, shown := slices.Contains(checkFailing, code), slices.Contains(checkShown, code)
		if fails == shown {
			t.Errorf("model.%s (%q): in checkFailing %v, in checkShown %v: want exactly one", name, code, fails, shown)
		}
		if fails != failsCheck(code) {
			t.Errorf("failsCheck(%q) = %v", code, failsCheck(code))
		}
	}
	help := helpText(t, "ls")
	flagLine := ""
	for _, l := range strings.Split(help, "\n") {
		if strings.Contains(l, "--check") && strings.Contains(l, "exit 2") {
			flagLine = l
		}
	}
	long := strings.Join(strings.Fields(help), " ")
	for _, code := range checkFailing {
		if !strings.Contains(long, code) || !strings.Contains(flagLine, code) {
			t.Errorf("ls --help does not name %q in the text and on the --check line %q", code, flagLine)
		}
	}
}

// warnCodes reads zkview's Warn* constants from its source: name -> code.
func warnCodes(t *testing.T) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join("..", "model", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(af, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok {
				return true
			}
			for i, id := range vs.Names {
				if !strings.HasPrefix(id.Name, "Warn") || i >= len(vs.Values) {
					continue
				}
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					codes[id.Name], _ = strconv.Unquote(lit.Value)
				}
			}
			return true
		})
	}
	return codes
}

// TestHelpNamesEnvironment: `zklock --help` names every ZKLOCK_*
// variable the config package reads, and not the ZK_* aliases.
func TestHelpNamesEnvironment(t *testing.T) {
	help := helpText(t)
	var names []string
	files, _ := filepath.Glob(filepath.Join("..", "config", "*.go"))
	re := regexp.MustCompile(`os\.Getenv\("(ZKLOCK_[A-Z_]+)"\)`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			names = append(names, m[1])
		}
	}
	for _, want := range []string{"ZKLOCK_SERVERS", "ZKLOCK_AUTH"} {
		if !slices.Contains(names, want) {
			t.Errorf("config reads no %s", want)
		}
	}
	for _, n := range names {
		if !strings.Contains(help, n) {
			t.Errorf("zklock --help does not name %s", n)
		}
	}
	for _, alias := range []string{"ZK_SERVERS", "ZK_AUTH"} {
		if strings.Contains(help, alias) {
			t.Errorf("zklock --help names the alias %s", alias)
		}
	}
}

// TestLogFlagsOnEveryCommand: --log-file is taken by every command;
// --verbose by every command that does not draw the console.
func TestLogFlagsOnEveryCommand(t *testing.T) {
	root := newRootCmd()
	var walk func(c *cobra.Command)
	n := 0
	walk = func(c *cobra.Command) {
		n++
		if c.Flag("log-file") == nil {
			t.Errorf("%s: no --log-file", c.CommandPath())
		}
		console := commandFlags[c.Name()]&flagsTheme != 0
		if connects := commandFlags[c.Name()]&flagsVerbose != 0; connects && (c.Flag("verbose") == nil || console) {
			t.Errorf("%s: --verbose missing", c.CommandPath())
		}
		if console && c.Flag("verbose") != nil {
			t.Errorf("%s draws the console and takes --verbose", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for _, name := range []string{"ls", "sessions", "run", "release", "revoke", "doctor", "watch", "export", "record"} {
		if commandFlags[name]&flagsVerbose == 0 {
			t.Errorf("%s takes no --verbose", name)
		}
	}
	if n < 20 {
		t.Errorf("walked %d commands", n)
	}
}

// TestUsageErrorTable: one row, at least, per misuse the exit codes
// table names (usageMisuses), each refused with exit 64 and its own one
// line, over every command, before dialing the server named (one that
// would hold the command until its 10-minute connect timeout).
func TestUsageErrorTable(t *testing.T) {
	addr, accepted := countingListener(t)
	dir := t.TempDir()
	file := func(name string) string { return filepath.Join(dir, name) }
	const (
		unknown  = "an unknown command or flag"
		notTaken = "a flag the command does not take"
		badValue = "a flag value of the wrong type (`--timeout soon`)"
		badO     = "an unknown `-o` format"
		argCount = "too many or too few arguments"
		exclude  = "flags that exclude each other, or a flag that needs another"
		noDash   = "`run` without `--` before CMD"
	)
	cases := []struct {
		misuse string
		args   []string
		want   string
	}{
		{unknown, []string{"--no-such-flag", "/x"}, "unknown flag: --no-such-flag"},
		{unknown, []string{"sesions"}, `unknown command "sesions"`},
		{unknown, []string{"sesions"}, "did you mean sessions"},
		{unknown, []string{"ls", "--jsn", "/x"}, "unknown flag: --jsn"},
		{unknown, []string{"release", "--force", "--yes", "--bogus", "/x/lock-0000000001"}, "unknown flag: --bogus"},
		{unknown, []string{"export", "--bogus", "/x"}, "unknown flag: --bogus"},
		{unknown, []string{"demo", "--bogus"}, "unknown flag: --bogus"},
		{unknown, []string{"config", "bogus"}, `unknown command "bogus" for "zklock config"`},
		{unknown, []string{"completion", "tcsh"}, `unknown command "tcsh"`},
		{notTaken, []string{"revoke", "--theme", "dark", "/x/lock-0000000001"}, "unknown flag: --theme (a flag of the console"},
		{notTaken, []string{"ls", "--no-wait", "/x"}, "unknown flag: --no-wait (a flag of sessions)"},
		{badValue, []string{"--session-timeout", "soon", "/x"}, `invalid argument "soon" for "--session-timeout"`},
		{badValue, []string{"run", "--timeout", "soon", "/x", "--", "true"}, `invalid argument "soon" for "--timeout"`},
		{badValue, []string{"config", "set-context", "a", "--read-only=maybe"}, `invalid argument "maybe"`},
		{badO, []string{"ls", "-o", "yaml", "/x"}, `-o "yaml"`},
		{badO, []string{"ls", "--check", "-o", "yaml", "/x"}, `-o "yaml"`},
		{badO, []string{"doctor", "-o", "yaml"}, `-o "yaml"`},
		{badO, []string{"watch", "-o", "yaml", "/x"}, `-o "yaml"`},
		{badO, []string{"why", "-o", "yaml", "/x"}, `-o "yaml"`},
		{argCount, []string{"--read-only"}, "nothing to watch"},
		{argCount, []string{"ls"}, "nothing to watch"},
		{argCount, []string{"ls", "--check", "--root"}, `flag needs an argument: --root`},
		{argCount, []string{"replay"}, "accepts 1 arg(s), received 0"},
		{argCount, []string{"version", "extra"}, `unknown command "extra"`},
		{argCount, []string{"config", "use-context"}, "accepts 1 arg(s), received 0"},
		{argCount, []string{"config", "set-context", "a", "b"}, "accepts 1 arg(s), received 2"},
		{argCount, []string{"why"}, "accepts 1 arg(s), received 0"},
		{argCount, []string{"why", "/x", "/y"}, "accepts 1 arg(s), received 2"},
		{exclude, []string{"sessions", "--check", "--no-wait", "/x"}, "drop --no-wait"},
		{exclude, []string{"sessions", "--json", "-o", "text", "/x"}, "give one"},
		{exclude, []string{"record", "/x"}, "give -f FILE"},
		{exclude, []string{"record", "-f", file("a"), "-o", file("b"), "/x"}, "give -f"},
		{noDash, []string{"run", "/x"}, "run: put -- between the lock path and the command"},
		{noDash, []string{"run", "/demo/locks/reports", "sh", "-c", "true"}, "run: put -- between the lock path and the command; without it CMD's flags are read as zklock's (unknown shorthand flag: 'c' in -c)"},
		{noDash, []string{"run", "--timeout", "1s", "/x", "ls", "--all"}, "run: put -- between the lock path and the command; without it CMD's flags are read as zklock's (unknown flag: --all)"},
		{noDash, []string{"run", "/x", "--"}, "run: no command after --"},
		{noDash, []string{"run", "/x", "/y", "--", "true"}, "run: one lock path before --"},
	}
	rows := map[string]int{}
	for _, tc := range cases {
		if !slices.Contains(usageMisuses, tc.misuse) {
			t.Errorf("%v: misuse %q is not in the exit codes table", tc.args, tc.misuse)
		}
		rows[tc.misuse]++
		_, errOut, code := runBinary(t, nil, append([]string{"--servers", addr, "--connect-timeout", "10m"}, tc.args...)...)
		assertOneLineFailure(t, errOut, code, tc.want)
		if code != exitUsage {
			t.Errorf("%s: %v: exit %d, want %d", tc.misuse, tc.args, code, exitUsage)
		}
	}
	for _, m := range usageMisuses {
		if rows[m] == 0 {
			t.Errorf("the exit codes table names %q, and no row here tries it", m)
		}
	}
	if n := accepted(); n != 0 {
		t.Errorf("%d connections before refusing", n)
	}
	for _, f := range []string{"a", "b"} {
		if _, err := os.Stat(file(f)); err == nil {
			t.Errorf("record refused, yet made %s", f)
		}
	}
}

// TestCheckExitCodes: `ls --check` and `sessions --check` exit 0 on a
// healthy ensemble, 2 on a failing condition, 3 when they cannot tell
// (unreachable, NoAuth on a path) and 64 on a usage error; without
// --check an unreachable ensemble is 1.
func TestCheckExitCodes(t *testing.T) {
	c := testConn(t)
	healthy := testPath(t)
	holdLock(t, testSession(t), healthy)
	split := testPath(t)
	mkdirs(t, c, split, nil)
	createNode(t, c, split, curatorPrefix, "java")
	createNode(t, c, split, kazooPrefix, "python")
	secret := testPath(t)
	if err := c.AddAuth("digest", []byte("alice:s3cret")); err != nil {
		t.Fatal(err)
	}
	mkdirs(t, c, secret, zk.DigestACL(zk.PermAll, "alice", "s3cret"))
	dead := "--servers=" + closedPort(t)
	srv := serversFlag(t)
	for _, tc := range []struct {
		what string
		args []string
		code int
	}{
		{"ls healthy", []string{srv, "ls", "--check", healthy}, exitOK},
		{"ls split-holders", []string{srv, "ls", "--check", healthy, split}, exitCheck},
		{"ls unreachable", []string{dead, "--connect-timeout", "5s", "ls", "--check", healthy}, exitCheckUnknown},
		{"ls NoAuth", []string{srv, "ls", "--check", healthy, secret}, exitCheckUnknown},
		{"ls unreachable without --check", []string{dead, "--connect-timeout", "5s", "ls", healthy}, exitFailure},
		{"ls usage", []string{dead, "ls", "--check", "-o", "yaml", healthy}, exitUsage},
		{"sessions healthy", []string{srv, "sessions", "--check", healthy, split}, exitOK},
		{"sessions unreachable", []string{dead, "--connect-timeout", "5s", "sessions", "--check", healthy}, exitCheckUnknown},
		{"sessions NoAuth", []string{srv, "sessions", "--check", healthy, secret}, exitCheckUnknown},
		{"sessions unknown context", []string{"--context", "nowhere", "sessions", "--check", healthy}, exitCheckUnknown},
		{"why healthy", []string{srv, "why", healthy}, exitOK},
		{"why split-holders", []string{srv, "why", split}, exitCheck},
		{"why unreachable", []string{dead, "--connect-timeout", "5s", "why", healthy}, exitCheckUnknown},
		{"why NoAuth", []string{srv, "why", secret}, exitCheckUnknown},
	} {
		out, errOut, code := runBinary(t, nil, tc.args...)
		if code != tc.code {
			t.Errorf("%s: exit %d, want %d; stderr %q\n%s", tc.what, code, tc.code, errOut, out)
		}
	}
	// sessions --check's failing condition, a cross-lock deadlock, is
	// TestSessionsDeadlock's (exitCheck); its 2 and ls's are one constant.
}

// exitCodesMarkdown is the table as README shows it.
func exitCodesMarkdown() string {
	var b strings.Builder
	b.WriteString("| code | meaning |\n| --- | --- |\n")
	for _, r := range exitCodes {
		fmt.Fprintf(&b, "| %s | %s |\n", r.code, r.meaning)
	}
	return b.String()
}
