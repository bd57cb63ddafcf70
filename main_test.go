package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocMapsEveryFile holds each package's doc.go to its promise: a map of
// the package's files. Every product file of a package that has a doc.go is
// named in that doc.go (by its file name), and every name of the form
// "x.go" the doc names exists, so the map drifts neither way. Test files
// are not mapped; third_party keeps its upstream layout.
func TestDocMapsEveryFile(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "third_party", "testdata", ".git", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() != "doc.go" {
			return nil
		}
		checkDocMap(t, filepath.Dir(path))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// checkDocMap compares dir's doc.go comment with dir's product files.
func checkDocMap(t *testing.T, dir string) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, "doc.go"), nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	doc := ""
	for _, c := range f.Comments {
		doc += c.Text() + "\n"
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		have[n] = true
		if n != "doc.go" && !mentions(doc, n) && !globbed(doc, n) {
			t.Errorf("%s/doc.go does not name %s: say in its map what the file holds", dir, n)
		}
	}
	for _, w := range strings.FieldsFunc(doc, func(r rune) bool {
		return !(r == '.' || r == '_' || r == '/' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		w = strings.TrimRight(w, ".")
		if !strings.HasSuffix(w, ".go") || w == ".go" || strings.Contains(w, "/") || strings.HasSuffix(w, "_test.go") {
			continue
		}
		if strings.Contains(w, "*") {
			continue // a pattern (procattr_*.go): globbed checks it names files
		}
		if !have[w] {
			t.Errorf("%s/doc.go names %s, which is not a file of the package", dir, w)
		}
	}
}

// mentions reports whether doc names the file n as a word (not as the tail
// of a longer name: "lock.go" is not named by "unlock.go").
func mentions(doc, n string) bool {
	for i := 0; ; {
		j := strings.Index(doc[i:], n)
		if j < 0 {
			return false
		}
		at := i + j
		before := byte(' ')
		if at > 0 {
			before = doc[at-1]
		}
		if !(before == '_' || before >= 'a' && before <= 'z' || before >= 'A' && before <= 'Z' || before >= '0' && before <= '9') {
			return true
		}
		i = at + len(n)
	}
}

// globbed reports whether a pattern the doc names (procattr_*.go) matches n.
func globbed(doc, n string) bool {
	for _, w := range strings.Fields(doc) {
		w = strings.Trim(w, ".,:;()")
		if ok, _ := filepath.Match(w, n); ok && strings.Contains(w, "*") {
			return true
		}
	}
	return false
}
