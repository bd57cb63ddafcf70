package config

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDocEdit: set-context's and use-context's edits keep the
// operator's comments and other keys, decode as the reader reads them,
// are written mode 0600 with no temporary file left, and a bad edit
// leaves the file as it was.
func TestDocEdit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "zklock", "config.yaml") // the directory is made
	doc, err := ReadDoc(path)
	if err != nil {
		t.Fatalf("a missing file: %v", err)
	}
	if created, err := doc.SetContextValue("prod", []string{"servers"}, []string{"zk1:2181", "zk2:2181"}); err != nil || !created {
		t.Fatalf("created %v, %v", created, err)
	}
	if err := doc.Write(path); err != nil {
		t.Fatal(err)
	}
	// The operator adds a comment and a context by hand.
	b, _ := os.ReadFile(path)
	hand := "# team ensembles\n" + string(b) + "  staging: # the small one\n    servers: [zk8:2181] # moved in May\n"
	if err := os.WriteFile(path, []byte(hand), 0o644); err != nil {
		t.Fatal(err)
	}

	doc, err = ReadDoc(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []struct {
		key []string
		v   any
	}{
		{[]string{"chroot"}, "/app"},
		{[]string{"read_only"}, true},
		{[]string{"roots"}, []string{"/locks"}},
		{[]string{"tls", "ca"}, "/etc/ca.pem"},
		{[]string{"tls", "key_store_password_typo"}, nil}, // removing what is not there
	} {
		if _, err := doc.SetContextValue("prod", e.key, e.v); err != nil {
			t.Fatalf("%v: %v", e.key, err)
		}
	}
	if err := doc.SetCurrentContext("nope"); !errors.Is(err, ErrNoContext) {
		t.Errorf("an unknown context: %v", err)
	}
	if err := doc.SetCurrentContext("staging"); err != nil {
		t.Fatal(err)
	}
	if _, err := doc.SetContextValue("staging", []string{"servers"}, []string{"zk9:2181"}); err != nil {
		t.Fatal(err)
	}
	if err := doc.Write(path); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(path)
	for _, want := range []string{"# team ensembles", "# the small one", "# moved in May"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("comment %q lost:\n%s", want, b)
		}
	}
	f, err := LoadPath(path)
	if err != nil {
		t.Fatal(err)
	}
	prod := f.Contexts["prod"]
	if f.CurrentContext != "staging" || !slices.Equal(prod.Servers, []string{"zk1:2181", "zk2:2181"}) || prod.Chroot != "/app" ||
		!prod.ReadOnly || !slices.Equal(prod.Roots, []string{"/locks"}) || prod.TLS == nil || prod.TLS.CA != "/etc/ca.pem" ||
		!slices.Equal(f.Contexts["staging"].Servers, []string{"zk9:2181"}) {
		t.Errorf("read back: %+v", f)
	}
	assertMode600(t, path)

	// Removing the last key of a block removes the block (an empty tls:
	// would still turn TLS on); a bad edit is refused, the file kept.
	if _, err := doc.SetContextValue("prod", []string{"tls", "ca"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := doc.SetContextValue("prod", []string{"roots"}, []string{"relative"}); err != nil {
		t.Fatal(err)
	}
	if err := doc.Write(path); err == nil || !strings.Contains(err.Error(), "must start with /") {
		t.Errorf("a relative root written: %v", err)
	}
	if b2, _ := os.ReadFile(path); string(b2) != string(b) {
		t.Errorf("a refused edit changed the file")
	}
	if _, err := doc.SetContextValue("prod", []string{"roots"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := doc.Write(path); err != nil {
		t.Fatal(err)
	}
	if f, _ = LoadPath(path); f.Contexts["prod"].TLS != nil || f.Contexts["prod"].Roots != nil {
		t.Errorf("tls or roots left: %+v", f.Contexts["prod"])
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("left in the directory: %v", entries)
	}
	if _, err := doc.SetContextValue("a b", []string{"chroot"}, "/x"); !errors.Is(err, ErrBadContextName) {
		t.Errorf("a name with a space: %v", err)
	}
}

// TestDocRedacted: config view's text never holds a password written in
// the file, and does hold the paths.
func TestDocRedacted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	const file = `contexts:
  prod:
    servers: [zk1:2181]
    auth_file: ~/.config/zklock/prod.auth
    tls:
      zookeeper.ssl.keyStore.location: /etc/zk/me.pem
      zookeeper.ssl.keyStore.password: hunter2
`
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	doc, err := ReadDoc(path)
	if err != nil {
		t.Fatal(err)
	}
	text, err := doc.Redacted()
	if err != nil || strings.Contains(text, "hunter2") || !strings.Contains(text, "REDACTED") || !strings.Contains(text, "prod.auth") {
		t.Errorf("%v:\n%s", err, text)
	}
}

func assertMode600(t *testing.T, path string) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("%s: mode %v, want 0600", path, st.Mode().Perm())
	}
}
