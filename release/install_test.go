package release

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// modulePath is zklock's module path, where it is published.
const modulePath = "github.com/zklock/zklock"

// TestGoInstall serves this checkout from a file:// module proxy as
// v0.1.0 and installs it as a user would, `go install
// github.com/zklock/zklock@v0.1.0`, with the machine's proxy behind it for
// the dependencies; the installed binary must say v0.1.0. The same tree
// with a replace directive in its go.mod (how the patched go-zookeeper was
// once wired) must be refused: that is the rule this layout exists for.
func TestGoInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the release with goreleaser and go install (make test runs it; -short does not)")
	}
	root := moduleRoot(t)
	files := checkoutFiles(t, root)
	proxy := t.TempDir()
	goMod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	const version, withReplace = "v0.1.0", "v0.1.1-replace"
	serveModule(t, proxy, version, files, goMod)
	replaced := append(bytes.Clone(goMod), "\nreplace github.com/go-zookeeper/zk => ./third_party/zk\n"...)
	serveModule(t, proxy, withReplace, files, replaced)
	writeFile(t, filepath.Join(proxy, modulePath, "@v", "list"), []byte(version+"\n"+withReplace+"\n"))

	t.Run("installs", func(t *testing.T) {
		gobin, out, err := goInstall(t, proxy, version)
		if err != nil {
			t.Fatalf("go install %s@%s: %v\n%s", modulePath, version, err, out)
		}
		bin := filepath.Join(gobin, "zklock")
		text, err := exec.Command(bin, "version").Output()
		if err != nil || !strings.HasPrefix(string(text), "zklock "+version+"\n") {
			t.Errorf("zklock version: %v\n%s", err, text)
		}
		raw, err := exec.Command(bin, "version", "-o", "json").Output()
		var v struct{ Version, OS, Arch string }
		if err != nil || json.Unmarshal(raw, &v) != nil || v.Version != version || v.OS == "" || v.Arch == "" {
			t.Errorf("zklock version -o json: %v\n%s", err, raw)
		}
	})
	t.Run("refused with a replace directive", func(t *testing.T) {
		_, out, err := goInstall(t, proxy, withReplace)
		if err == nil || !strings.Contains(out, "replace directives") {
			t.Errorf("go install with a replace directive in go.mod: err %v, want the go command's refusal\n%s", err, out)
		}
		t.Logf("refused, as it must be:\n%s", out)
	})
}

// goInstall runs `go install modulePath@version` outside any module, with
// proxy first and then this machine's module cache and configured proxies
// (so that the dependencies come from where `go build` got them), into a
// fresh GOBIN and module cache. It returns GOBIN and the go command's
// output.
func goInstall(t *testing.T, proxy, version string) (gobin, out string, err error) {
	t.Helper()
	gobin = t.TempDir()
	chain := []string{fileURL(proxy), fileURL(filepath.Join(goEnv(t, "GOMODCACHE"), "cache", "download")), goEnv(t, "GOPROXY")}
	cmd := exec.Command("go", "install", modulePath+"@"+version)
	cmd.Dir = t.TempDir() // outside this module: the go command must not see its go.mod
	cmd.Env = append(os.Environ(),
		"GOPROXY="+strings.Join(chain, ","),
		"GOBIN="+gobin,
		"GOMODCACHE="+t.TempDir(), // never the real cache: a stale v0.1.0 there would hide this tree
		// -modcacherw: t.TempDir can remove the fresh cache. -trimpath:
		// packages built from a fresh cache path hit the build cache.
		"GOFLAGS=-mod=mod -modcacherw -trimpath",
		// zklock's module is on no checksum database yet; its
		// dependencies are checked as usual.
		"GONOSUMDB="+modulePath, "GOPRIVATE=", "GONOPROXY=",
		"GOWORK=off", "GOTOOLCHAIN=local",
		// As the release build (.goreleaser.yaml), whose compiled packages
		// this build can then reuse.
		"CGO_ENABLED=0",
	)
	b, err := cmd.CombinedOutput()
	return gobin, string(b), err
}

// serveModule writes version of the module (files, with goMod as its
// go.mod) into the file:// proxy at dir as the go command reads it:
// @v/VERSION.info, .mod and .zip (go.dev/ref/mod#goproxy-protocol).
func serveModule(t *testing.T, dir, version string, files []modzip.File, goMod []byte) {
	t.Helper()
	at := filepath.Join(dir, modulePath, "@v", version)
	info, _ := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, time.Now().UTC().Truncate(time.Second)})
	writeFile(t, at+".info", info)
	writeFile(t, at+".mod", goMod)
	var zipped []modzip.File
	for _, f := range files {
		if f.Path() == "go.mod" {
			f = memFile{path: "go.mod", data: goMod}
		}
		zipped = append(zipped, f)
	}
	z, err := os.Create(at + ".zip")
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	if err := modzip.Create(z, module.Version{Path: modulePath, Version: version}, zipped); err != nil {
		t.Fatalf("module zip: %v", err)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
}

// checkoutFiles is what a commit of this tree would hold: the files git
// tracks or would add (untracked ones not ignored), as the module zip's
// files. A module proxy makes its zip from a commit the same way.
func checkoutFiles(t *testing.T, root string) []modzip.File {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files in %s (the test makes the module zip from the checkout; install git): %v", root, err)
	}
	var files []modzip.File
	for _, rel := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		path := filepath.Join(root, filepath.FromSlash(rel))
		if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the work tree, or a symlink (no zip holds one)
		}
		files = append(files, diskFile{path: rel, file: path})
	}
	return files
}

// diskFile is a file of the checkout for modzip.Create.
type diskFile struct{ path, file string }

func (f diskFile) Path() string                 { return f.path }
func (f diskFile) Lstat() (os.FileInfo, error)  { return os.Lstat(f.file) }
func (f diskFile) Open() (io.ReadCloser, error) { return os.Open(f.file) }

// memFile is a file of the module zip held in memory (a go.mod altered).
type memFile struct {
	path string
	data []byte
}

func (f memFile) Path() string                 { return f.path }
func (f memFile) Lstat() (os.FileInfo, error)  { return memInfo(f), nil }
func (f memFile) Open() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(f.data)), nil }

// memInfo is a memFile's os.FileInfo.
type memInfo memFile

func (i memInfo) Name() string       { return filepath.Base(i.path) }
func (i memInfo) Size() int64        { return int64(len(i.data)) }
func (i memInfo) Mode() fs.FileMode  { return 0o644 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }

// moduleRoot is the checkout's root, the directory of zklock's go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	gomod := goEnv(t, "GOMOD")
	if filepath.Base(gomod) != "go.mod" {
		t.Fatalf("go env GOMOD = %q: run the test inside the zklock checkout", gomod)
	}
	data, err := os.ReadFile(gomod)
	if err != nil || !bytes.HasPrefix(data, []byte("module "+modulePath+"\n")) {
		t.Fatalf("%s is not module %s: %v", gomod, modulePath, err)
	}
	return filepath.Dir(gomod)
}

// goEnv is `go env NAME`, as the go command run by these tests sees it.
func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// fileURL is a file:// GOPROXY entry for dir.
func fileURL(dir string) string {
	return "file://" + filepath.ToSlash(dir)
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(fmt.Errorf("write %s: %w", path, err))
	}
}
