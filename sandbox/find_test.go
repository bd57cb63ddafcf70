package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// touch creates a file (and its directories) with the given mode.
func touch(t *testing.T, path string, mode os.FileMode) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("x"), mode); err != nil {
		t.Fatal(err)
	}
	return path
}

func fakeEnv(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestFind(t *testing.T) {
	root := t.TempDir()
	p := func(parts ...string) string { return filepath.Join(append([]string{root}, parts...)...) }
	sep := string(os.PathListSeparator)

	// Java in two places, one of them not executable.
	touch(t, p("jdk", "bin", "java"), 0o755)
	touch(t, p("pathbin", "java"), 0o755)
	touch(t, p("noexec", "java"), 0o644)
	// Debian: the server jar, its versioned link, the SLF4J binding, and
	// jars whose versioned names must not be taken for the server's.
	touch(t, p("deb", "zookeeper.jar"), 0o644)
	touch(t, p("deb", "zookeeper-jute-3.8.0.jar"), 0o644)
	touch(t, p("deb", "zookeeper-3.8.0.jar"), 0o644)
	touch(t, p("deb", "slf4j-simple.jar"), 0o644)
	touch(t, p("debnolog", "zookeeper.jar"), 0o644)
	// An Apache binary release.
	touch(t, p("zkhome", "lib", "zookeeper-3.9.2.jar"), 0o644)
	touch(t, p("zkhome", "lib", "zookeeper-jute-3.9.2.jar"), 0o644)
	touch(t, p("zkhome", "conf", "logback.xml"), 0o644)
	// A directory of jars that are not ZooKeeper.
	touch(t, p("notzk", "lib", "guava.jar"), 0o644)
	// Homebrew's libexec.
	touch(t, p("brew", "libexec", "lib", "zookeeper-3.9.1.jar"), 0o644)
	// A release reached through a zkServer.sh symlink on $PATH.
	touch(t, p("rel", "bin", "zkServer.sh"), 0o755)
	touch(t, p("rel", "lib", "zookeeper-3.7.1.jar"), 0o644)
	if err := os.MkdirAll(p("links"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(p("rel", "bin", "zkServer.sh"), p("links", "zkServer.sh")); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name        string
		env         map[string]string
		debianDir   string
		brewDirs    []string
		wantErr     error
		wantJava    string
		wantCP      string
		wantVersion string
	}{
		{
			name:    "nothing at all",
			env:     map[string]string{},
			wantErr: ErrNoJava,
		},
		{
			name:      "java not executable",
			env:       map[string]string{"PATH": p("noexec")},
			debianDir: p("deb"),
			wantErr:   ErrNoJava,
		},
		{
			name:    "java but no ZooKeeper",
			env:     map[string]string{"JAVA_HOME": p("jdk"), "PATH": p("pathbin")},
			wantErr: ErrNoZooKeeper,
		},
		{
			name:    "ZOOKEEPER_HOME without a ZooKeeper jar",
			env:     map[string]string{"PATH": p("pathbin"), "ZOOKEEPER_HOME": p("notzk")},
			wantErr: ErrNoZooKeeper,
		},
		{
			name:        "Debian with the SLF4J binding",
			env:         map[string]string{"PATH": p("noexec") + sep + p("pathbin")},
			debianDir:   p("deb"),
			wantJava:    p("pathbin", "java"),
			wantCP:      p("deb", "zookeeper.jar") + sep + p("deb", "slf4j-simple.jar"),
			wantVersion: "3.8.0",
		},
		{
			name:      "Debian without the SLF4J binding",
			env:       map[string]string{"JAVA_HOME": p("jdk")},
			debianDir: p("debnolog"),
			wantJava:  p("jdk", "bin", "java"),
			wantCP:    p("debnolog", "zookeeper.jar"),
		},
		{
			name:        "JAVA_HOME wins over PATH, ZOOKEEPER_HOME over Debian",
			env:         map[string]string{"JAVA_HOME": p("jdk"), "PATH": p("pathbin"), "ZOOKEEPER_HOME": p("zkhome")},
			debianDir:   p("deb"),
			wantJava:    p("jdk", "bin", "java"),
			wantCP:      p("zkhome", "conf") + sep + p("zkhome", "lib", "zookeeper-3.9.2.jar") + sep + p("zkhome", "lib", "zookeeper-jute-3.9.2.jar"),
			wantVersion: "3.9.2",
		},
		{
			name:        "stale JAVA_HOME and ZOOKEEPER_HOME fall back",
			env:         map[string]string{"JAVA_HOME": p("nojdk"), "PATH": p("pathbin"), "ZOOKEEPER_HOME": p("nozk")},
			debianDir:   p("deb"),
			wantJava:    p("pathbin", "java"),
			wantCP:      p("deb", "zookeeper.jar") + sep + p("deb", "slf4j-simple.jar"),
			wantVersion: "3.8.0",
		},
		{
			name:        "Homebrew",
			env:         map[string]string{"PATH": p("pathbin")},
			debianDir:   p("nodeb"),
			brewDirs:    []string{p("nobrew"), p("brew", "libexec")},
			wantJava:    p("pathbin", "java"),
			wantCP:      p("brew", "libexec", "lib", "zookeeper-3.9.1.jar"),
			wantVersion: "3.9.1",
		},
		{
			name:        "zkServer.sh on PATH through a symlink",
			env:         map[string]string{"PATH": p("pathbin") + sep + p("links")},
			debianDir:   p("nodeb"),
			wantJava:    p("pathbin", "java"),
			wantCP:      p("rel", "lib", "zookeeper-3.7.1.jar"),
			wantVersion: "3.7.1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := finder{getenv: fakeEnv(tt.env), debianDir: tt.debianDir, brewDirs: tt.brewDirs}
			got, err := f.find()
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("find() error = %v, want %v", err, tt.wantErr)
				}
				for _, hint := range []string{"make deps", "apt-get install zookeeper default-jre-headless"} {
					if !strings.Contains(err.Error(), hint) {
						t.Errorf("error %q does not say %q", err, hint)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("find() error = %v", err)
			}
			if got.Java != tt.wantJava || got.ClassPath != tt.wantCP || got.Version != tt.wantVersion {
				t.Errorf("find() = %+v\nwant Java %s\n     ClassPath %s\n     Version %q", got, tt.wantJava, tt.wantCP, tt.wantVersion)
			}
		})
	}
}

// TestFindHere checks this machine: tests of the whole project need it.
func TestFindHere(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Java and ZooKeeper (make test runs it; -short does not)")
	}
	inst, err := Find()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("java %s, ZooKeeper %q, class path %s", inst.Java, inst.Version, inst.ClassPath)
}
