package config

// Changing the config file from the command line (`zklock config
// use-context`, `set-context`) and showing it (`config view`). The file
// is edited as a YAML tree, not decoded and encoded again, so that the
// operator's comments, order and layout survive; the result must decode
// as a File before it is written, and it is written atomically.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"
)

// ErrNoContext is returned for a context name the file does not have.
var ErrNoContext = errors.New("config: no such context")

// ErrBadContextName is returned for a name that cannot be a context's:
// empty, or with spaces or control characters.
var ErrBadContextName = errors.New("config: bad context name")

// Doc is a config file as a YAML tree, being edited.
type Doc struct {
	doc  *yaml.Node // the document
	root *yaml.Node // its top mapping
}

// ReadDoc reads the config file at path as a tree; a missing or empty
// file is an empty one. It is checked as LoadPath checks it.
func ReadDoc(path string) (*Doc, error) {
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("config file: %w", err)
	}
	if len(bytes.TrimSpace(b)) > 0 {
		if _, err := LoadPath(path); err != nil {
			return nil, err
		}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("config file %s: %s", path, oneLineErr(err))
	}
	if doc.Kind == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("config file %s: not a mapping of current_context and contexts", path)
	}
	return &Doc{doc: &doc, root: doc.Content[0]}, nil
}

// File is the tree decoded as LoadPath would.
func (d *Doc) File() (*File, error) {
	b, err := d.bytes()
	if err != nil {
		return nil, err
	}
	return decodeFile(b)
}

// HasContext reports whether the file has a context of that name.
func (d *Doc) HasContext(name string) bool {
	return lookup(lookup(d.root, "contexts"), name) != nil
}

// SetCurrentContext sets current_context to a context the file has.
func (d *Doc) SetCurrentContext(name string) error {
	if !d.HasContext(name) {
		return fmt.Errorf("%w: %q", ErrNoContext, name)
	}
	setKey(d.root, "current_context", scalar(name))
	return nil
}

// SetContextValue sets the key at keyPath (a key of the context, or of a
// block in it: ["tls", "ca"]) of the named context, making the context
// and the block when missing; a nil v removes the key, and the block
// when it is left empty. It reports whether the context was made.
func (d *Doc) SetContextValue(name string, keyPath []string, v any) (created bool, err error) {
	if err := ValidContextName(name); err != nil {
		return false, err
	}
	contexts := lookup(d.root, "contexts")
	if contexts == nil || contexts.Kind != yaml.MappingNode {
		contexts = &yaml.Node{Kind: yaml.MappingNode}
		setKey(d.root, "contexts", contexts)
	}
	m := lookup(contexts, name)
	if m == nil || m.Kind != yaml.MappingNode {
		created = m == nil
		m = &yaml.Node{Kind: yaml.MappingNode}
		setKey(contexts, name, m)
	}
	ctxMap := m
	for _, k := range keyPath[:len(keyPath)-1] {
		next := lookup(m, k)
		if next == nil || next.Kind != yaml.MappingNode {
			if v == nil {
				return created, nil
			}
			next = &yaml.Node{Kind: yaml.MappingNode}
			setKey(m, k, next)
		}
		m = next
	}
	key := keyPath[len(keyPath)-1]
	if v == nil {
		deleteKey(m, key)
		if len(keyPath) == 2 && len(m.Content) == 0 {
			// A block left empty goes: an empty tls: block would still
			// turn TLS on.
			deleteKey(ctxMap, keyPath[0])
		}
		return created, nil
	}
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return created, fmt.Errorf("config: %s: %w", strings.Join(keyPath, "."), err)
	}
	if old := lookup(m, key); n.Kind == yaml.MappingNode && len(n.Content) == 0 && old != nil && old.Kind == yaml.MappingNode {
		return created, nil // an empty block asked where one is: it stays as it is
	}
	if n.Kind == yaml.SequenceNode || n.Kind == yaml.MappingNode {
		n.Style = yaml.FlowStyle // servers: [zk1:2181, zk2:2181], as the README writes them
	}
	setKey(m, key, &n)
	return created, nil
}

// Write checks that the tree decodes as a valid config file and writes
// it to path atomically (a temporary file in the same directory, synced,
// then renamed over it), mode 0600, making the directory (0700) when
// missing. A reader sees the old file or the new one, never a part.
func (d *Doc) Write(path string) error {
	b, err := d.bytes()
	if err != nil {
		return err
	}
	f, err := decodeFile(b)
	if err == nil {
		err = f.check(path)
	}
	if err != nil {
		return fmt.Errorf("config: the edit would make a bad file: %w", err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".config-*.yaml")
	if err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename: already gone
	if err := writeSynced(tmp, b); err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	return nil
}

// writeSynced writes b to f (os.CreateTemp's mode is 0600 already),
// syncs and closes it.
func writeSynced(f *os.File, b []byte) error {
	_, err := f.Write(b)
	if err == nil {
		err = f.Chmod(0o600)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Redacted is the tree as text for `config view`, every value under a
// key that names a password replaced by "REDACTED". The file holds paths,
// not secrets (a store password is refused when read), but one written
// there anyway is not printed.
func (d *Doc) Redacted() (string, error) {
	redact(d.root)
	b, err := d.bytes()
	return string(b), err
}

func redact(n *yaml.Node) {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if strings.Contains(strings.ToLower(n.Content[i].Value), "password") && n.Content[i+1].Kind == yaml.ScalarNode {
				n.Content[i+1] = scalar("REDACTED")
				continue
			}
			redact(n.Content[i+1])
		}
		return
	}
	for _, c := range n.Content {
		redact(c)
	}
}

func (d *Doc) bytes() ([]byte, error) {
	if len(d.root.Content) == 0 && d.root.HeadComment == "" && d.doc.HeadComment == "" && d.doc.FootComment == "" {
		return nil, nil
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(d.doc); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return b.Bytes(), nil
}

// ValidContextName refuses a name that could not be typed back as an
// argument: empty, or holding spaces or control characters.
func ValidContextName(name string) error {
	if name == "" {
		return fmt.Errorf("%w: empty", ErrBadContextName)
	}
	for _, r := range name {
		if unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return fmt.Errorf("%w: %q holds a space or a control character", ErrBadContextName, name)
		}
	}
	return nil
}

// lookup is the value of key in mapping m, nil when absent (or m nil).
func lookup(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// setKey sets key in mapping m to v, in place when present (its comments
// kept), else appended.
func setKey(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			v.LineComment = m.Content[i+1].LineComment
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, scalar(key), v)
}

// deleteKey removes key from mapping m.
func deleteKey(m *yaml.Node, key string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			return
		}
	}
}

func scalar(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

func oneLineErr(err error) string { return strings.ReplaceAll(err.Error(), "\n", " ") }
