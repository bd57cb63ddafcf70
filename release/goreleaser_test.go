package release

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// goreleaser is the release tool at the version the Makefile runs
// (GORELEASER there), through `go run` so that nothing is installed and
// its dependencies never enter zklock's go.mod.
const goreleaser = "github.com/goreleaser/goreleaser/v2@v2.15.1"

// TestGoreleaserLinuxAMD64 runs the release build of .goreleaser.yaml
// for linux/amd64 alone (a snapshot: nothing published) and checks what a
// user gets: the binary says the version goreleaser stamped and this
// commit; the .deb installs the binary, the licences, a man page per
// command and the bash, zsh and fish completions; the archive holds the
// same beside the binary. The Homebrew cask, which this build cannot make
// (it needs the darwin archives), must name every man page.
func TestGoreleaserLinuxAMD64(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the release with goreleaser and go install (make test runs it; -short does not)")
	}
	root := moduleRoot(t)
	if _, err := exec.LookPath("dpkg-deb"); err != nil {
		t.Fatal("dpkg-deb not found: it reads the .deb (apt-get install dpkg)")
	}
	dist := t.TempDir()
	config, cfg := linuxOnlyConfig(t, root, dist)
	cmd := exec.Command("go", "run", goreleaser, "release", "--snapshot", "--clean", "--config", config)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), remoteEnv(t, root)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("goreleaser release --snapshot (linux/amd64): %v\n%s", err, out)
	}

	var meta struct{ Version, Commit string }
	readJSON(t, filepath.Join(dist, "metadata.json"), &meta)
	var v struct{ Version, Commit, Built, OS, Arch string }
	bin := filepath.Join(dist, "zklock_linux_amd64_v1", "zklock")
	raw, err := exec.Command(bin, "version", "-o", "json").Output()
	if err != nil || json.Unmarshal(raw, &v) != nil {
		t.Fatalf("%s version -o json: %v\n%s", bin, err, raw)
	}
	if v.Version != "v"+meta.Version || v.Commit != meta.Commit || meta.Commit == "" || v.Built == "" || v.OS != "linux" || v.Arch != "amd64" {
		t.Errorf("version -o json = %+v; goreleaser stamped version v%s, commit %s", v, meta.Version, meta.Commit)
	}

	pages := manPages(t, root)
	want := []string{"./usr/bin/zklock",
		"./usr/share/doc/zklock/LICENSE", "./usr/share/doc/zklock/NOTICE",
		"./usr/share/doc/zklock/LICENSE.go-zookeeper", "./usr/share/doc/zklock/THIRD_PARTY_LICENSES",
		"./usr/share/bash-completion/completions/zklock",
		"./usr/share/zsh/vendor-completions/_zklock",
		"./usr/share/fish/vendor_completions.d/zklock.fish"}
	for _, p := range pages {
		want = append(want, "./usr/share/man/man1/"+p)
	}
	deb := onlyFile(t, dist, "zklock_*_amd64.deb")
	out, err := exec.Command("dpkg-deb", "-c", deb).Output()
	if err != nil {
		t.Fatalf("dpkg-deb -c %s: %v", deb, err)
	}
	assertHolds(t, deb, debFiles(string(out)), want)

	want = []string{"zklock", "LICENSE", "NOTICE", "LICENSE.go-zookeeper", "THIRD_PARTY_LICENSES", "README.md", "CHANGELOG.md",
		"completions/zklock.bash", "completions/zklock.zsh", "completions/zklock.fish"}
	for _, p := range pages {
		want = append(want, "man/"+p)
	}
	archive := onlyFile(t, dist, "zklock_*_linux_amd64.tar.gz")
	assertHolds(t, archive, tarFiles(t, archive), want)

	var cask []string
	for _, c := range cfg["homebrew_casks"].([]any) {
		for _, m := range c.(map[string]any)["manpages"].([]any) {
			cask = append(cask, strings.TrimPrefix(m.(string), "man/"))
		}
	}
	slices.Sort(cask)
	if !slices.Equal(cask, pages) {
		t.Errorf(".goreleaser.yaml homebrew_casks manpages:\n%v\nthe pages zklock writes:\n%v", cask, pages)
	}
}

// linuxOnlyConfig writes .goreleaser.yaml cut down to linux/amd64 and a
// .deb into dist, and returns its path and the whole original config.
// Everything else (hooks, flags, ldflags, contents) is the release's own.
func linuxOnlyConfig(t *testing.T, root, dist string) (string, map[string]any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var orig, cfg map[string]any
	if err := yaml.Unmarshal(data, &orig); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	for _, b := range cfg["builds"].([]any) {
		b.(map[string]any)["goos"] = []string{"linux"}
		b.(map[string]any)["goarch"] = []string{"amd64"}
	}
	for _, n := range cfg["nfpms"].([]any) {
		n.(map[string]any)["formats"] = []string{"deb"}
	}
	delete(cfg, "homebrew_casks")
	cfg["dist"] = dist
	out, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "goreleaser-linux-amd64.yaml")
	writeFile(t, path, out)
	return path, orig
}

// remoteEnv gives git the project's remote for a checkout without one:
// goreleaser asks git for the remote's URL first and, when that fails in a
// snapshot, stamps "none" for the commit too. Configuration by environment
// (git 2.31+) leaves the checkout as it is.
func remoteEnv(t *testing.T, root string) []string {
	t.Helper()
	cmd := exec.Command("git", "remote")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git remote in %s: %v", root, err)
	}
	if len(strings.TrimSpace(string(out))) > 0 {
		return nil
	}
	return []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=remote.origin.url", "GIT_CONFIG_VALUE_0=https://" + modulePath + ".git"}
}

// onlyFile is the one file in dir whose name matches pattern.
func onlyFile(t *testing.T, dir, pattern string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, pattern))
	if len(m) != 1 {
		entries, _ := os.ReadDir(dir)
		t.Fatalf("%s: %d files match %s, want 1 (%v)", dir, len(m), pattern, entries)
	}
	return m[0]
}

// manPages is the man pages the release build made (build/man), one per
// command.
func manPages(t *testing.T, root string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, "build", "man"))
	if err != nil {
		t.Fatal(err)
	}
	var pages []string
	for _, e := range entries {
		pages = append(pages, e.Name())
	}
	if !slices.Contains(pages, "zklock.1.gz") || !slices.Contains(pages, "zklock-ls.1.gz") {
		t.Fatalf("build/man holds %v: want zklock.1.gz and a page per command", pages)
	}
	return pages
}

// debFiles is the paths in `dpkg-deb -c` output (its last column).
func debFiles(listing string) []string {
	var files []string
	for _, line := range strings.Split(strings.TrimSpace(listing), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			files = append(files, f[len(f)-1])
		}
	}
	return files
}

// tarFiles is the names in a .tar.gz.
func tarFiles(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	r := tar.NewReader(z)
	var names []string
	for {
		h, err := r.Next()
		if errors.Is(err, io.EOF) {
			return names
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		names = append(names, h.Name)
	}
}

func assertHolds(t *testing.T, name string, have, want []string) {
	t.Helper()
	for _, w := range want {
		if !slices.Contains(have, w) {
			t.Errorf("%s lacks %s; it holds:\n%s", filepath.Base(name), w, strings.Join(have, "\n"))
			return
		}
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
