package cmd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/model"
)

// recipeDriverHint ends every "cannot run the drivers" failure.
const recipeDriverHint = "run `make deps` (Debian: apt-get install libcurator-recipes-java python3-kazoo default-jdk-headless)"

// startRecipeDriver runs cmd until it prints "ready" (within a minute),
// and stops it when the test ends by closing its stdin.
func startRecipeDriver(t *testing.T, name string, cmd *exec.Cmd) {
	t.Helper()
	d := startDriver(t, name, cmd)
	d.expect(t, "ready")
	go func() {
		for range d.lines { // what it says after, read so that it never blocks
		}
	}()
}

// recipeDriver is a recipe driver process (a JVM running Curator, a
// Python running Kazoo): its stdin to send it a line, its stdout's lines
// as they come.
type recipeDriver struct {
	name  string
	stdin io.WriteCloser
	lines chan string
}

// startDriver starts cmd, reads its stdout into lines, and stops
// it when the test ends by closing its stdin.
func startDriver(t *testing.T, name string, cmd *exec.Cmd) *recipeDriver {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v: %s", name, err, recipeDriverHint)
	}
	d := &recipeDriver{name: name, stdin: stdin, lines: make(chan string, 16)}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
		if t.Failed() {
			t.Logf("%s stderr:\n%s", name, stderr.String())
		}
	})
	go func() {
		defer close(d.lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			d.lines <- sc.Text()
		}
	}()
	return d
}

// send writes one line to the driver.
func (d *recipeDriver) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(d.stdin, line+"\n"); err != nil {
		t.Fatalf("%s: %v", d.name, err)
	}
}

// expect waits for the driver's next line starting with prefix (within a
// minute: a JVM starts slowly on a loaded machine) and returns it.
func (d *recipeDriver) expect(t *testing.T, prefix string) string {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		select {
		case l, ok := <-d.lines:
			if !ok {
				t.Fatalf("%s exited before %q: %s", d.name, prefix, recipeDriverHint)
			}
			if strings.HasPrefix(l, prefix) {
				return l
			}
		case <-deadline:
			t.Fatalf("%s: no %q within a minute", d.name, prefix)
		}
	}
}

// javaDriver compiles testdata/recipes/<class>.java against Debian's
// Curator jars and returns the command running it with args.
func javaDriver(t *testing.T, ctx context.Context, class string, args ...string) *exec.Cmd {
	t.Helper()
	var jars []string
	for _, j := range []string{"curator-client", "curator-framework", "curator-recipes", "guava", "slf4j-api", "zookeeper"} {
		jar := filepath.Join("/usr/share/java", j+".jar")
		if _, err := os.Stat(jar); err != nil {
			t.Fatalf("Curator needs %s: %s", jar, recipeDriverHint)
		}
		jars = append(jars, jar)
	}
	dir := t.TempDir()
	cp := strings.Join(jars, ":")
	src, err := filepath.Abs(filepath.Join("testdata", "recipes", class+".java"))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.CommandContext(ctx, "javac", "-cp", cp, "-d", dir, src).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v: %s\n%s", err, recipeDriverHint, out)
	}
	return exec.CommandContext(ctx, "java", append([]string{"-cp", cp + ":" + dir, class}, args...)...)
}

// TestLsLibraryRecipes: Curator's and Kazoo's recipes that are no lock,
// built by the stock libraries (one JVM and one interpreter for all),
// read by `ls --json` under a root (and at named paths, for the
// counters): each has its type, its parts and its facts; the look-alikes
// (a plain Curator mutex, a Kazoo Lock with an identifier, a node holding
// text) stay what they were.
func TestLsLibraryRecipes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	servers := testCluster(t).ConnectString()
	base := testPath(t)
	c := testConn(t)
	mkdirs(t, c, base+"/curator", nil)
	mkdirs(t, c, base+"/kazoo", nil)
	if _, err := c.Create(base+"/text", []byte("hello"), 0, openACL); err != nil {
		t.Fatal(err)
	}
	startRecipeDriver(t, "Curator driver", javaDriver(t, ctx, "RecipesDriver", servers, base+"/curator"))
	startRecipeDriver(t, "Kazoo driver", exec.CommandContext(ctx, "/usr/bin/python3", "testdata/recipes/recipes_kazoo.py", servers, base+"/kazoo"))

	got := lsSystemsJSON(t, "--root", base, base+"/curator/count", base+"/kazoo/counter", base+"/text")
	want := map[string]string{
		"/curator/selector": "election sel-a:holder sel-b:waiting",
		"/curator/mutex":    "mutex :holder",
		"/curator/dbarrier": "barrier entered entered ready=false entered=2",
		"/curator/dqueue":   "queue item item item depth=3",
		"/curator/group":    "membership member-a:member member-b:member",
		"/curator/count":    "counter value=42",
		"/kazoo/party":      "membership party-a:member party-b:member",
		"/kazoo/shallow":    "membership party-a:member party-b:member",
		"/kazoo/dbarrier":   "barrier db-a:entered db-b:entered ready=false entered=2",
		"/kazoo/counter":    "counter value=5",
		"/kazoo/lqueue":     "queue taken item item depth=3",
		"/kazoo/lease":      "lease lease-holder-1:lease holder=lease-holder-1",
		"/kazoo/lock":       "mutex :holder",
		"/text":             "unknown",
	}
	for rel, w := range want {
		p, ok := got[base+rel]
		if !ok {
			t.Errorf("%s: not in ls --json", rel)
			continue
		}
		if s := recipeSummary(p); s != w {
			t.Errorf("%s: %q, want %q", rel, s, w)
		}
		if len(p.Warnings) > 0 {
			t.Errorf("%s: warnings %+v", rel, p.Warnings)
		}
	}
	// A LockingQueue's entries/ and taken/ are its own, not two plain
	// locks' queues; the oldest item is dated.
	for _, rel := range []string{"/kazoo/lqueue/entries", "/kazoo/lqueue/taken"} {
		if _, ok := got[base+rel]; ok {
			t.Errorf("%s shown as a queue of its own", rel)
		}
	}
	if q := got[base+"/kazoo/lqueue"]; q.Oldest == "" || q.Queue[0].Session == "0x0" {
		t.Errorf("lqueue: oldest %q, taken item's session %q", q.Oldest, q.Queue[0].Session)
	}
	if l := got[base+"/kazoo/lease"]; !strings.HasSuffix(l.Expires, "Z") {
		t.Errorf("lease expires %q", l.Expires)
	}
}

// recipeSummary is a path of ls --json as the table compares it: type,
// each node as identity:role (the role alone when it has no identity,
// or for items), then the facts.
func recipeSummary(p model.JSONPath) string {
	parts := []string{p.Type}
	for _, n := range p.Queue {
		switch {
		case n.Identity == "" && (n.Role == "holder" || n.Role == "waiting"):
			parts = append(parts, ":"+n.Role)
		case n.Identity == "" || n.Role == model.PartItem || n.Role == model.PartTaken || n.Identity == n.Data && n.Role == model.PartEntered && strings.Count(n.Data, ".") == 3:
			parts = append(parts, n.Role)
		default:
			parts = append(parts, n.Identity+":"+n.Role)
		}
	}
	if p.Type == "barrier" || p.Type == "membership" {
		slices.Sort(parts[1:]) // joined at the same millisecond: no order to check
	}
	if p.Ready != nil {
		parts = append(parts, fmt.Sprintf("ready=%v", *p.Ready))
	}
	if p.Entered > 0 {
		parts = append(parts, fmt.Sprintf("entered=%d", p.Entered))
	}
	if p.Value != nil {
		parts = append(parts, fmt.Sprintf("value=%v", *p.Value))
	}
	if p.Holder != "" {
		parts = append(parts, "holder="+p.Holder)
	}
	if p.Depth != nil {
		parts = append(parts, fmt.Sprintf("depth=%d", *p.Depth))
	}
	return strings.Join(slices.Clip(parts), " ")
}
