package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// installHint is appended to every "not found" error so that the person
// reading a failed test knows the one command that fixes it.
const installHint = "install it with `make deps` (Debian/Ubuntu: apt-get install zookeeper default-jre-headless)"

var (
	// ErrNoJava means no Java runtime was found.
	ErrNoJava = errors.New("sandbox: no Java runtime found")
	// ErrNoZooKeeper means no ZooKeeper server jar was found.
	ErrNoZooKeeper = errors.New("sandbox: no ZooKeeper installation found")
	// ErrOff means ZKLOCK_SANDBOX=off forbids starting servers: `make
	// test-short` sets it, so that a test needing ZooKeeper that forgot
	// sandboxtest.Need fails at once instead of starting a JVM.
	ErrOff = errors.New("sandbox: off (ZKLOCK_SANDBOX=off, as make test-short sets): a test that needs ZooKeeper calls sandboxtest.Need first")
)

// Install is a Java runtime and a ZooKeeper class path that can run
// org.apache.zookeeper.server.quorum.QuorumPeerMain.
type Install struct {
	Java      string // path of the java executable
	ClassPath string // joined with the OS list separator
	Version   string // ZooKeeper version from a jar name; best effort, may be empty
}

// Find locates Java and ZooKeeper on this machine.
//
// ZooKeeper, first found wins: $ZOOKEEPER_HOME (lib/*.jar, *.jar and conf),
// Debian's /usr/share/java/zookeeper.jar (with slf4j-simple.jar when present:
// without an SLF4J binding the server logs nothing at all), Homebrew's
// libexec under /opt/homebrew or /usr/local, then the lib directory beside
// zkServer.sh found on $PATH. Java: $JAVA_HOME/bin/java, then java on $PATH.
// The errors wrap ErrNoJava or ErrNoZooKeeper, list where Find looked, and
// say what to install.
func Find() (Install, error) {
	if os.Getenv("ZKLOCK_SANDBOX") == "off" {
		return Install{}, ErrOff
	}
	return defaultFinder().find()
}

// finder holds everything Find reads from the machine, so that tests can run
// it against a fake environment.
type finder struct {
	getenv    func(string) string
	debianDir string   // holds zookeeper.jar and slf4j-simple.jar on Debian
	brewDirs  []string // Homebrew libexec directories
}

func defaultFinder() finder {
	return finder{
		getenv:    os.Getenv,
		debianDir: "/usr/share/java",
		brewDirs: []string{
			"/opt/homebrew/opt/zookeeper/libexec", // Apple silicon
			"/usr/local/opt/zookeeper/libexec",    // Intel macOS, Linuxbrew-like layouts
		},
	}
}

func (f finder) find() (Install, error) {
	java, err := f.findJava()
	if err != nil {
		return Install{}, err
	}
	cp, version, err := f.findZooKeeper()
	if err != nil {
		return Install{}, err
	}
	return Install{Java: java, ClassPath: cp, Version: version}, nil
}

func (f finder) findJava() (string, error) {
	var looked []string
	if home := f.getenv("JAVA_HOME"); home != "" {
		p := filepath.Join(home, "bin", "java")
		if isExecutable(p) {
			return p, nil
		}
		looked = append(looked, p)
	}
	if p, ok := lookPathIn("java", f.getenv("PATH")); ok {
		return p, nil
	}
	looked = append(looked, "java on $PATH")
	return "", fmt.Errorf("%w (looked at %s): %s", ErrNoJava, strings.Join(looked, ", "), installHint)
}

func (f finder) findZooKeeper() (classPath, version string, err error) {
	var looked []string
	if home := f.getenv("ZOOKEEPER_HOME"); home != "" {
		if cp, v, ok := homeLayout(home); ok {
			return cp, v, nil
		}
		looked = append(looked, "$ZOOKEEPER_HOME="+home)
	}
	if f.debianDir != "" {
		jar := filepath.Join(f.debianDir, "zookeeper.jar")
		if isFile(jar) {
			// The Debian jar's manifest Class-Path names its dependencies in
			// the same directory; only the logging binding must be added.
			parts := []string{jar}
			if simple := filepath.Join(f.debianDir, "slf4j-simple.jar"); isFile(simple) {
				parts = append(parts, simple)
			}
			return strings.Join(parts, string(os.PathListSeparator)), versionIn([]string{f.debianDir}), nil
		}
		looked = append(looked, jar)
	}
	for _, dir := range f.brewDirs {
		if cp, v, ok := homeLayout(dir); ok {
			return cp, v, nil
		}
		looked = append(looked, dir)
	}
	if script, ok := lookPathIn("zkServer.sh", f.getenv("PATH")); ok {
		// zkServer.sh is often a symlink into the real installation
		// (Homebrew, /usr/local/bin): its lib directory is beside the target.
		if real, err := filepath.EvalSymlinks(script); err == nil {
			script = real
		}
		if cp, v, ok := homeLayout(filepath.Dir(filepath.Dir(script))); ok {
			return cp, v, nil
		}
		looked = append(looked, "lib beside "+script)
	} else {
		looked = append(looked, "zkServer.sh on $PATH")
	}
	return "", "", fmt.Errorf("%w (looked at %s): %s", ErrNoZooKeeper, strings.Join(looked, ", "), installHint)
}

// homeLayout reads an Apache binary release layout: jars in lib/ (3.5+) or at
// the top (3.4), log configuration in conf/. It requires a zookeeper*.jar so
// that an unrelated directory full of jars is not mistaken for ZooKeeper.
func homeLayout(home string) (classPath, version string, ok bool) {
	var jars []string
	for _, pattern := range []string{filepath.Join(home, "lib", "*.jar"), filepath.Join(home, "*.jar")} {
		m, _ := filepath.Glob(pattern) // the only error is a bad pattern
		jars = append(jars, m...)
	}
	sort.Strings(jars)
	found := false
	for _, j := range jars {
		if strings.HasPrefix(filepath.Base(j), "zookeeper") {
			found = true
			break
		}
	}
	if !found {
		return "", "", false
	}
	parts := jars
	if conf := filepath.Join(home, "conf"); isDir(conf) {
		parts = append([]string{conf}, jars...)
	}
	return strings.Join(parts, string(os.PathListSeparator)), versionIn([]string{filepath.Join(home, "lib"), home}), true
}

// serverJarVersion matches the server jar's versioned name only, not
// zookeeper-jute-3.8.0.jar or zookeeper-recipes-lock-3.8.0.jar.
var serverJarVersion = regexp.MustCompile(`^zookeeper-([0-9]+\.[0-9]+\.[0-9]+[^/]*)\.jar$`)

func versionIn(dirs []string) string {
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if m := serverJarVersion.FindStringSubmatch(e.Name()); m != nil {
				return m[1]
			}
		}
	}
	return ""
}

// lookPathIn is exec.LookPath against a given $PATH value, so that Find can
// be tested without touching the process environment.
func lookPathIn(name, pathEnv string) (string, bool) {
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if isExecutable(p) {
			return p, true
		}
	}
	return "", false
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
