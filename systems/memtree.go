package systems

import (
	"path"
	"slices"
	"strings"
)

// MemTree is a Tree held in memory, built by hand or, in tests, filled
// from a server. Its zero value is not usable; NewMemTree
// makes one holding the root.
type MemTree struct {
	nodes map[string]NodeInfo
	kids  map[string][]string
}

// NewMemTree returns a tree holding only "/".
func NewMemTree() *MemTree {
	return &MemTree{nodes: map[string]NodeInfo{"/": {}}, kids: map[string][]string{}}
}

// Put sets node p, making any missing parent as an empty persistent node,
// as a recipe's ensurePath does.
func (m *MemTree) Put(p string, n NodeInfo) {
	p = path.Clean(p)
	if len(n.Data) > DataLimit {
		n.Data = n.Data[:DataLimit]
	}
	if p != "/" {
		parent := path.Dir(p)
		if _, ok := m.nodes[parent]; !ok {
			m.Put(parent, NodeInfo{})
		}
		name := path.Base(p)
		if !slices.Contains(m.kids[parent], name) {
			m.kids[parent] = append(m.kids[parent], name)
			slices.Sort(m.kids[parent])
		}
	}
	m.nodes[p] = n
}

// Delete removes node p and everything below it.
func (m *MemTree) Delete(p string) {
	p = path.Clean(p)
	for q := range m.nodes {
		if q == p || strings.HasPrefix(q, p+"/") {
			delete(m.nodes, q)
			delete(m.kids, q)
		}
	}
	parent := path.Dir(p)
	m.kids[parent] = slices.DeleteFunc(m.kids[parent], func(k string) bool { return k == path.Base(p) })
}

// Children implements Tree.
func (m *MemTree) Children(p string) ([]string, bool) {
	p = path.Clean(p)
	if _, ok := m.nodes[p]; !ok {
		return nil, false
	}
	return m.kids[p], true
}

// Node implements Tree.
func (m *MemTree) Node(p string) (NodeInfo, bool) {
	n, ok := m.nodes[path.Clean(p)]
	return n, ok
}

// Len returns the number of nodes held, the root included.
func (m *MemTree) Len() int { return len(m.nodes) }
