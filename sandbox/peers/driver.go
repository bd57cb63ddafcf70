package peers

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

//go:embed drivers/CuratorPeer.java
var curatorSource []byte

//go:embed drivers/kazoo_peer.py
var kazooSource string

// installHint ends every "not installed" error: the one command that fixes it.
const installHint = "run `make deps` (Debian/Ubuntu: apt-get install libcurator-recipes-java python3-kazoo default-jdk-headless)"

// debianJava is where Debian's libcurator-recipes-java, libzookeeper-java,
// libguava-java and libslf4j-java put their jars.
const debianJava = "/usr/share/java"

// python is Debian's interpreter: python3-kazoo installs for it only, and a
// python3 found first on $PATH (pyenv, a virtualenv) usually lacks Kazoo.
const python = "/usr/bin/python3"

// curatorJars are what the driver compiles against. zookeeper.jar's manifest
// names its own dependencies (jute, netty), so they need not be listed.
func curatorJars() []string {
	var jars []string
	for _, j := range []string{"curator-client", "curator-framework", "curator-recipes", "guava", "slf4j-api", "zookeeper"} {
		jars = append(jars, filepath.Join(debianJava, j+".jar"))
	}
	return jars
}

// curatorRuntimeJars adds a logging binding: without one SLF4J prints a
// warning at every start, with slf4j-simple the client's warnings (about
// lost connections, which fault tests cause on purpose) reach the stderr
// tail that a failing test prints.
func curatorRuntimeJars() []string {
	jars := curatorJars()
	if simple := filepath.Join(debianJava, "slf4j-simple.jar"); isFile(simple) {
		jars = append(jars, simple)
	}
	return jars
}

// Available says whether kind's client library and runtime are installed.
// The error wraps ErrUnavailable and names what to install.
func Available(kind Kind) error {
	switch kind {
	case Curator:
		_, err := curatorTools()
		return err
	case Kazoo:
		return kazooCheck()
	}
	return fmt.Errorf("%w: unknown client kind %q", ErrBadArgument, kind)
}

// jdk is a java and the javac of the same installation.
type jdk struct{ java, javac string }

func curatorTools() (jdk, error) {
	for _, j := range curatorJars() {
		if !isFile(j) {
			return jdk{}, fmt.Errorf("%w: Curator needs %s (missing): %s", ErrUnavailable, j, installHint)
		}
	}
	var t jdk
	if home := os.Getenv("JAVA_HOME"); home != "" {
		t = jdk{filepath.Join(home, "bin", "java"), filepath.Join(home, "bin", "javac")}
		if isFile(t.java) && isFile(t.javac) {
			return t, nil
		}
	}
	javac, err := exec.LookPath("javac")
	if err != nil {
		return jdk{}, fmt.Errorf("%w: Curator's driver is compiled at first use and no javac is on $PATH: %s", ErrUnavailable, installHint)
	}
	// Run the java of the JDK whose javac compiled the classes (Debian's
	// /usr/bin/javac is a chain of symlinks into /usr/lib/jvm).
	if real, err := filepath.EvalSymlinks(javac); err == nil {
		if java := filepath.Join(filepath.Dir(real), "java"); isFile(java) {
			return jdk{java, javac}, nil
		}
	}
	java, err := exec.LookPath("java")
	if err != nil {
		return jdk{}, fmt.Errorf("%w: no java on $PATH: %s", ErrUnavailable, installHint)
	}
	return jdk{java, javac}, nil
}

// kazooCheck imports Kazoo once per process: a missing module is the usual
// failure, and only running the interpreter tells.
var kazooCheck = sync.OnceValue(func() error {
	if !isFile(python) {
		return fmt.Errorf("%w: Kazoo needs %s (missing): %s", ErrUnavailable, python, installHint)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, python, "-c", "import kazoo.client, kazoo.recipe.lock").CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w: %s cannot import kazoo (%v: %s): %s", ErrUnavailable, python, err, strings.TrimSpace(string(out)), installHint)
	}
	return nil
})

// compileMu makes the test binaries' goroutines compile once; other
// processes are kept apart by the build-then-rename in curatorClasses.
var compileMu sync.Mutex

// curatorClasses returns the directory holding the compiled driver,
// compiling it if this source was never compiled on this machine.
func curatorClasses(ctx context.Context, t jdk) (string, error) {
	compileMu.Lock()
	defer compileMu.Unlock()
	jars := strings.Join(curatorJars(), string(os.PathListSeparator))
	h := sha256.New()
	h.Write(curatorSource)
	h.Write([]byte{0})
	h.Write([]byte(jars))
	sum := hex.EncodeToString(h.Sum(nil))[:16]
	root, err := cacheRoot()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, sum)
	if isFile(filepath.Join(dir, "CuratorPeer.class")) {
		return dir, nil
	}
	// Build beside the final directory (same file system, so the rename is
	// atomic) and publish with one rename: a concurrent test binary either
	// sees no directory or a complete one. Whoever renames second finds the
	// directory taken and uses the winner's identical classes.
	src, err := os.MkdirTemp(root, ".src-")
	if err != nil {
		return "", fmt.Errorf("peers: compile Curator driver: %w", err)
	}
	defer os.RemoveAll(src)
	build, err := os.MkdirTemp(root, ".build-")
	if err != nil {
		return "", fmt.Errorf("peers: compile Curator driver: %w", err)
	}
	defer os.RemoveAll(build) // gone after a successful rename: a no-op then
	file := filepath.Join(src, "CuratorPeer.java")
	if err := os.WriteFile(file, curatorSource, 0o644); err != nil {
		return "", fmt.Errorf("peers: compile Curator driver: %w", err)
	}
	out, err := exec.CommandContext(ctx, t.javac, "-nowarn", "-encoding", "UTF-8", "-cp", jars, "-d", build, file).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("peers: compile Curator driver with %s: %w\n%s", t.javac, err, out)
	}
	if err := os.Chmod(build, 0o755); err != nil {
		return "", fmt.Errorf("peers: compile Curator driver: %w", err)
	}
	if err := os.Rename(build, dir); err != nil {
		if isFile(filepath.Join(dir, "CuratorPeer.class")) {
			return dir, nil
		}
		return "", fmt.Errorf("peers: compile Curator driver: %w", err)
	}
	return dir, nil
}

// cacheRoot is os.UserCacheDir()/zklock/peers, or a directory under the
// temporary directory when there is no user cache (no $HOME, as in some CI
// sandboxes).
func cacheRoot() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	root := filepath.Join(base, "zklock", "peers")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", fmt.Errorf("peers: driver cache: %w", err)
	}
	return root, nil
}

// defaultJVMOptions start the driver quickly on a small, shared machine:
// class data sharing for the JDK's classes, the serial collector (one
// thread; the driver's heap is small) unless extra chooses another (the JVM
// refuses two), and a bounded heap.
func defaultJVMOptions(extra []string) []string {
	opts := []string{"-Xshare:auto", "-Xmx256m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"}
	for _, o := range extra {
		if strings.HasPrefix(o, "-XX:+Use") && strings.HasSuffix(o, "GC") {
			return opts
		}
	}
	return append(opts, "-XX:+UseSerialGC")
}

// command builds the driver's command line.
func command(ctx context.Context, kind Kind, cfg Options) (*exec.Cmd, error) {
	hosts := strings.Join(cfg.Servers, ",")
	if cfg.ClientServers != nil {
		var each []string
		for _, l := range cfg.ClientServers {
			each = append(each, strings.Join(l, ","))
		}
		hosts = strings.Join(each, "|")
	}
	args := []string{
		hosts,
		strconv.FormatInt(cfg.SessionTimeout.Milliseconds(), 10),
		strconv.Itoa(cfg.Sessions),
		strconv.FormatInt(cfg.ConnectTimeout.Milliseconds(), 10),
	}
	switch kind {
	case Curator:
		t, err := curatorTools()
		if err != nil {
			return nil, err
		}
		classes, err := curatorClasses(ctx, t)
		if err != nil {
			return nil, err
		}
		cp := strings.Join(append(append([]string{classes}, curatorRuntimeJars()...), curatorTLSJars(cfg.TLS)...), string(os.PathListSeparator))
		argv := append(defaultJVMOptions(cfg.JVMOptions), cfg.JVMOptions...)
		argv = append(argv, curatorTLSOptions(cfg.TLS)...)
		argv = append(argv, curatorSASLOptions(cfg.SASL)...)
		argv = append(argv, "-cp", cp, "CuratorPeer")
		return exec.Command(t.java, append(argv, args...)...), nil
	case Kazoo:
		if err := kazooCheck(); err != nil {
			return nil, err
		}
		if cfg.SASL != nil {
			if err := kazooSASLCheck(); err != nil {
				return nil, err
			}
			if cfg.SASL.Mechanism == mechGSSAPI {
				if err := kazooGSSAPICheck(); err != nil {
					return nil, err
				}
			}
		}
		// -c: the source goes on the command line, so no file is written;
		// -u: unbuffered, although the driver flushes every line anyway.
		cmd := exec.Command(python, append([]string{"-u", "-c", kazooSource}, args...)...)
		cmd.Env = kazooSASLEnv(kazooTLSEnv(cfg.TLS), cfg.SASL) // nil: the parent's environment
		return cmd, nil
	}
	return nil, fmt.Errorf("%w: unknown client kind %q", ErrBadArgument, kind)
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// withTail adds a driver's last stderr lines to err.
func withTail(err error, tail string) error {
	if tail == "" {
		return err
	}
	return fmt.Errorf("%w\ndriver stderr:\n%s", err, tail)
}
