package systems

import (
	"context"
	"errors"
	"fmt"
	"path"

	"github.com/zklock/zklock/third_party/zk"
)

// ErrTooLarge is returned by ReadTree when the subtree has more nodes
// than its limit allows.
var ErrTooLarge = errors.New("systems: tree larger than the limit")

// ReadTree reads the subtree at root from conn into a MemTree, breadth
// first, one Get and one Children per node, at most limit nodes (then
// ErrTooLarge with what was read). A node deleted while it is read is
// left out, as a later listing would. ctx is checked between requests:
// the go-zookeeper client takes none, so a request under way finishes
// first (it is bounded by the session timeout).
func ReadTree(ctx context.Context, conn *zk.Conn, root string, limit int) (*MemTree, error) {
	m := NewMemTree()
	queue := []string{path.Clean(root)}
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return m, fmt.Errorf("read %s: %w", root, err)
		}
		if m.Len() > limit {
			return m, fmt.Errorf("read %s: %w (%d nodes)", root, ErrTooLarge, limit)
		}
		p := queue[0]
		queue = queue[1:]
		data, st, err := conn.Get(p)
		if errors.Is(err, zk.ErrNoNode) {
			continue
		}
		if err != nil {
			return m, fmt.Errorf("read %s: get %s: %w", root, p, err)
		}
		m.Put(p, NodeInfo{Data: data, EphemeralOwner: st.EphemeralOwner, Czxid: st.Czxid, Ctime: st.Ctime})
		if st.NumChildren == 0 {
			continue
		}
		kids, _, err := conn.Children(p)
		if errors.Is(err, zk.ErrNoNode) {
			m.Delete(p)
			continue
		}
		if err != nil {
			return m, fmt.Errorf("read %s: children of %s: %w", root, p, err)
		}
		for _, k := range kids {
			queue = append(queue, path.Join(p, k))
		}
	}
	return m, nil
}
