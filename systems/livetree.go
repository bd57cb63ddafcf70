package systems

import (
	"context"
	"errors"
	"path"
	"slices"
	"sync"

	"github.com/zklock/zklock/third_party/zk"
)

// Reader is the two reads a live tree needs, on the paths the caller
// names: a ctx-bound adapter over a lockops.Session (which applies the
// chroot) has them, and so does a *zk.Conn without a chroot.
type Reader interface {
	Get(p string) ([]byte, *zk.Stat, error)
	Children(p string) ([]string, *zk.Stat, error)
}

// prefetchInFlight bounds the Gets a listing sends at once: go-zookeeper
// pipelines concurrent calls, and the gain stops past ~8-64 (FACTS.md).
const prefetchInFlight = 16

// prefetchMax: a listing with more children than this is not prefetched
// (a huge lock queue); its nodes are read one by one if a recogniser asks.
const prefetchMax = 1000

// LiveTree is a Tree read from a server on demand, at most budget
// requests: a listing Gets all its children at once (pipelined), so a
// walk costs about one request per node, and a recogniser peeking at a
// sibling that does not exist costs none. Once the budget is spent, or a
// read fails for any reason but NoNode (NoAuth, a lost link, ctx), the
// tree answers "not known" and Complete turns false: a caller must then
// not trust a finding built on a node that was not read (a missing
// leader record may only be unread).
type LiveTree struct {
	ctx context.Context
	r   Reader

	mu       sync.Mutex
	budget   int
	nodes    map[string]liveNode
	kids     map[string][]string
	readKids map[string]int32 // parent -> how many of its children were read
	missing  map[string]bool
	complete bool
}

type liveNode struct {
	info     NodeInfo
	children int32
}

// NewLiveTree returns a tree reading through r, at most budget requests,
// each bounded by ctx as far as the client allows.
func NewLiveTree(ctx context.Context, r Reader, budget int) *LiveTree {
	return &LiveTree{ctx: ctx, r: r, budget: budget, complete: true,
		nodes: map[string]liveNode{}, kids: map[string][]string{}, readKids: map[string]int32{}, missing: map[string]bool{}}
}

// Complete says whether every read asked for was answered (or the node
// did not exist).
func (t *LiveTree) Complete() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.complete
}

// take spends one request of the budget; false (and the tree incomplete)
// when none is left or ctx is done.
func (t *LiveTree) take() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.spentLocked() {
		return false
	}
	t.budget--
	return true
}

// exhausted says whether t can read nothing more: its budget spent or
// its ctx done. The caller skips a read on true, so the tree is then
// incomplete, as take makes it.
func (t *LiveTree) exhausted() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.spentLocked()
}

// spentLocked is exhausted with t.mu held.
func (t *LiveTree) spentLocked() bool {
	if t.budget <= 0 || t.ctx.Err() != nil {
		t.complete = false
		return true
	}
	return false
}

// holds says whether t read p already: listed it, or read its node.
func (t *LiveTree) holds(p string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, listed := t.kids[p]
	_, known := t.nodes[p]
	return listed || known
}

// readNoneOf says whether t can read nothing more and read none of p's
// children: asking about each of them is then sure to find nothing.
func (t *LiveTree) readNoneOf(p string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.readKids[p] == 0 && t.spentLocked()
}

// failed records a read's error: NoNode is an answer, anything else
// leaves the node unknown.
func (t *LiveTree) failed(p string, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if errors.Is(err, zk.ErrNoNode) {
		t.missing[p] = true
		return
	}
	t.complete = false
}

// Children implements Tree.
func (t *LiveTree) Children(p string) ([]string, bool) {
	p = path.Clean(p)
	t.mu.Lock()
	kids, listed := t.kids[p]
	n, known := t.nodes[p]
	gone := t.missing[p]
	t.mu.Unlock()
	switch {
	case listed:
		return kids, true
	case gone:
		return nil, false
	case known && n.children == 0:
		return nil, true
	case !t.take():
		return nil, false
	}
	kids, _, err := t.r.Children(p)
	if err != nil {
		t.failed(p, err)
		return nil, false
	}
	kids = slices.Clone(kids)
	slices.Sort(kids)
	t.mu.Lock()
	t.kids[p] = kids
	t.mu.Unlock()
	if len(kids) <= prefetchMax {
		t.prefetch(p, kids)
	}
	return kids, true
}

// prefetch Gets p's children, prefetchInFlight at a time.
func (t *LiveTree) prefetch(p string, kids []string) {
	sem := make(chan struct{}, prefetchInFlight)
	var wg sync.WaitGroup
	for _, k := range kids {
		full := path.Join(p, k)
		if !t.take() {
			return
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			t.get(full)
		}()
	}
	wg.Wait()
}

// get reads node p into the cache.
func (t *LiveTree) get(p string) {
	data, st, err := t.r.Get(p)
	if err != nil {
		t.failed(p, err)
		return
	}
	if len(data) > DataLimit {
		data = data[:DataLimit]
	}
	t.mu.Lock()
	if _, again := t.nodes[p]; !again {
		t.readKids[path.Dir(p)]++
	}
	t.nodes[p] = liveNode{info: NodeInfo{Data: data, EphemeralOwner: st.EphemeralOwner, Czxid: st.Czxid, Ctime: st.Ctime},
		children: st.NumChildren}
	t.mu.Unlock()
}

// Node implements Tree. It lists the parent first (once), which reads
// every sibling with it: a recogniser asks about a node's neighbours. The
// listing is kept sorted, so asking about each of a wide parent's
// children is a binary search each, not a scan of them all.
func (t *LiveTree) Node(p string) (NodeInfo, bool) {
	p = path.Clean(p)
	if p != "/" {
		kids, ok := t.Children(path.Dir(p))
		if _, found := slices.BinarySearch(kids, path.Base(p)); !ok || !found {
			return NodeInfo{}, false
		}
	}
	t.mu.Lock()
	n, known := t.nodes[p]
	gone := t.missing[p]
	t.mu.Unlock()
	switch {
	case known:
		return n.info, true
	case gone || !t.take():
		return NodeInfo{}, false
	}
	t.get(p)
	t.mu.Lock()
	n, known = t.nodes[p]
	t.mu.Unlock()
	return n.info, known
}
