// Semaphores: how a semaphore parent's nodes are read, and the pure
// function that composes its Queue (semwatch.go keeps its parts watched).
//
// Curator InterProcessSemaphoreV2 (and InterProcessSemaphoreMutex, V2
// with one lease) at path P:
//
//	P/leases/_c_<uuid>-lease-<seq>   one per lease; every one that exists
//	                                 holds, except the one the admitted
//	                                 contender created beyond the limit
//	P/locks/_c_<uuid>-lock-<seq>     a Curator mutex admitting one
//	                                 contender at a time to the leases
//
// The contender holding P/locks creates its lease, lists P/leases and,
// when they exceed its maxLeases, waits with both on a children watch of
// P/leases (which `wchc` does not list). The limit lives in the clients
// only: it is known when the config states it, deduced while a lease
// waits (the limit is then the other leases), unknown otherwise.
//
// Kazoo Semaphore at path P:
//
//	P/<32 hex>                       one per lease: ephemeral, no sequence,
//	                                 the identifier as data
//	P's data                         max_leases as text
//	P-__lock__/<32 hex>__lock__<seq> a Kazoo lock: its holder waits for a
//	                                 lease on a children watch of P, the
//	                                 others wait in line for the lock
//
// A lease is told from a lock node by the recipe's grammar, never by a
// ten-digit tail alone: about 1% of Kazoo's hex names end in ten digits.
//
// The composed Queue lists the holders (lease nodes, kind "lease") first,
// then the waiters in the order they will be served: a Curator lease
// created beyond the limit, then the admission lock's nodes in sequence
// order, its holder first (waiting for a lease, on a children watch: its
// Watches is the watched path, with a leading "/", and its link stays
// inferred). Nodes that do not live directly under P carry their parent
// in Node.Parent.

package queue

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// SemKind is which semaphore recipe a parent holds.
type SemKind int

const (
	SemNone SemKind = iota
	SemCurator
	SemKazoo
)

func (k SemKind) recipe() ordering.Recipe {
	if k == SemKazoo {
		return ordering.RecipeKazoo
	}
	return ordering.RecipeCurator
}

// The recipes' own names (Curator's LEASE_PARENT, LOCK_PARENT and
// LEASE_BASE_NAME; Kazoo's lock_path).
const (
	curatorLeasesDir = "leases"
	curatorLocksDir  = "locks"
	curatorLeaseMark = "lease-"
	KazooLockSuffix  = "-__lock__"
)

// SemaphorePart says whether a child named k may be part of a
// semaphore's layout as SemaphoreKind reads it: Curator's leases or locks
// directory, or a Kazoo lease (32 hex digits).
func SemaphorePart(k string) bool {
	return k == curatorLeasesDir || k == curatorLocksDir || ordering.IsHex32(k)
}

// SemaphoreKind says which semaphore recipe a parent's children show:
// Curator's when they are "leases" (and "locks") and nothing else, Kazoo's
// when every child is a 32-hex lease name; semNone otherwise (an empty
// parent tells no recipe).
func SemaphoreKind(kids []string) SemKind {
	if len(kids) == 0 {
		return SemNone
	}
	curator, kazoo, leases := true, true, false
	for _, k := range kids {
		switch {
		case k == curatorLeasesDir:
			leases, kazoo = true, false
		case k == curatorLocksDir:
			kazoo = false
		case ordering.IsHex32(k):
			curator = false
		default:
			return SemNone
		}
	}
	switch {
	case curator && leases:
		return SemCurator
	case kazoo:
		return SemKazoo
	}
	return SemNone
}

// CuratorLease reads a Curator lease node's name, "_c_<uuid>-lease-<seq>"
// (Curator always protects it) or an unprotected "lease-<seq>", and
// returns its sequence.
func CuratorLease(name string) (int32, bool) {
	n, ok := ordering.ParseName(name)
	if !ok {
		return 0, false
	}
	width := 10 // %010d of the sequence; eleven characters below -999999999
	if n.Seq <= -1000000000 {
		width = 11
	}
	prefix := name[:len(name)-width]
	if prefix == curatorLeaseMark ||
		strings.HasPrefix(prefix, "_c_") && strings.HasSuffix(prefix, "-"+curatorLeaseMark) {
		return n.Seq, true
	}
	return 0, false
}

// SemaphoreDirs are where a semaphore's leases and its admission lock
// live: P/leases and P/locks (Curator), P and P-__lock__ (Kazoo).
func SemaphoreDirs(p string, k SemKind) (leaseDir, lockDir string) {
	if k == SemKazoo {
		return p, p + KazooLockSuffix
	}
	return model.ChildPath(p, curatorLeasesDir), model.ChildPath(p, curatorLocksDir)
}

// SemaphoreAux are the paths watched beside P for a semaphore of kind k
// whose children are kids: Curator's leases and locks (those present),
// Kazoo's lock sibling.
func SemaphoreAux(p string, k SemKind, kids []string) []string {
	leaseDir, lockDir := SemaphoreDirs(p, k)
	switch k {
	case SemCurator:
		var aux []string
		if slices.Contains(kids, curatorLeasesDir) {
			aux = append(aux, leaseDir)
		}
		if slices.Contains(kids, curatorLocksDir) {
			aux = append(aux, lockDir)
		}
		return aux
	case SemKazoo:
		return []string{lockDir}
	}
	return nil
}

// parseLimit reads Kazoo's max_leases from the parent's data.
func parseLimit(data []byte) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

// SemParts is what composeSemaphore reads: one semaphore's parts as the
// model holds them.
type SemParts struct {
	Path   string
	Kind   SemKind
	Leases []model.Node // every lease node, any order, with owner, data, Ctime, Since
	// NotLeases are children of the lease dir that no lease grammar reads.
	NotLeases []string
	// Lock is the admission lock's queue as buildQueue built it.
	Lock model.Queue
	// Limit is the limit the config states, 0 when it does not.
	Limit int
	// ParentData is Kazoo's parent data (max_leases); nil when unread.
	ParentData []byte
}

// SemResult is a composed semaphore.
type SemResult struct {
	Nodes       []model.Node
	Other       []string
	Warnings    []model.Warning
	Limit       int
	LimitSource string
	// Pending is the Curator lease created beyond the limit, "" when none.
	Pending string
}

// ComposeSemaphore composes a semaphore's Queue fields from its parts:
// holders first, then waiters in the order they will be served (see the
// file comment), the limit and where it comes from, and the warnings: the
// admission lock's own (missing-watch, herd, deadlock...) and over-limit
// when more leases hold than a known limit allows.
func ComposeSemaphore(in SemParts) SemResult {
	// Nodes is never nil, as buildQueue's: a snapshot's empty queue reads
	// back from a recording as the same empty list.
	res := SemResult{Nodes: []model.Node{}}
	leaseDir, lockDir := SemaphoreDirs(in.Path, in.Kind)
	leases := sortedLeases(in.Kind, in.Leases)
	admitted := admittedIn(in.Lock) // the admission lock's holder: next to take a lease
	res.Limit, res.LimitSource = statedLimit(in)
	pending := pendingLease(in.Kind, leases, admitted, &res)
	holders := res.addLeases(in, leaseDir, leases, pending)
	res.addLockNodes(in, lockDir, admitted)
	res.addWarnings(in, holders)
	for _, o := range in.NotLeases {
		res.Other = append(res.Other, model.Under(in.Path, leaseDir, o))
	}
	for _, o := range in.Lock.Other() {
		res.Other = append(res.Other, model.Under(in.Path, lockDir, o))
	}
	return res
}

// sortedLeases is a copy of leases in the order they were taken:
// Curator's by sequence, Kazoo's by creation time.
func sortedLeases(kind SemKind, in []model.Node) []model.Node {
	leases := slices.Clone(in)
	if kind == SemCurator {
		slices.SortStableFunc(leases, func(a, b model.Node) int {
			switch {
			case a.Seq == b.Seq:
				return strings.Compare(a.Name, b.Name)
			case ordering.SeqLess(a.Seq, b.Seq):
				return -1
			}
			return 1
		})
	} else {
		slices.SortStableFunc(leases, func(a, b model.Node) int {
			if c := a.Ctime().Compare(b.Ctime()); c != 0 {
				return c
			}
			return strings.Compare(a.Name, b.Name)
		})
	}
	return leases
}

// admittedIn is the admission lock's holder, nil when none.
func admittedIn(lock model.Queue) *model.Node {
	for _, n := range lock.Nodes.All() {
		if n.Role == ordering.RoleHolder {
			return n
		}
	}
	return nil
}

// statedLimit is the limit the config or Kazoo's parent data states, and
// where it comes from; 0 when neither does.
func statedLimit(in SemParts) (int, string) {
	switch {
	case in.Limit > 0:
		return in.Limit, model.LimitFromConfig
	case in.Kind == SemKazoo:
		if n, ok := parseLimit(in.ParentData); ok {
			return n, model.LimitFromData
		}
	}
	return 0, ""
}

// pendingLease is the index in leases of Curator's admitted contender's
// lease beyond the limit, which waits with it, -1 when none: its newest
// lease (it creates one per acquire, while holding the lock, so no other
// lease can be newer). With no known limit, such a lease deduces one.
func pendingLease(kind SemKind, leases []model.Node, admitted *model.Node, res *SemResult) int {
	pending := -1
	if kind != SemCurator || admitted == nil || admitted.Session == 0 {
		return pending
	}
	for i := range leases {
		if leases[i].Session == admitted.Session {
			pending = i
		}
	}
	switch {
	case pending < 0:
	case res.Limit > 0 && len(leases) <= res.Limit:
		pending = -1 // within the limit: it holds, and lets the lock go
	case res.Limit == 0 && len(leases) < 2:
		pending = -1 // a first lease is within any limit
	case res.Limit == 0:
		res.Limit, res.LimitSource = len(leases)-1, model.LimitDeduced
	}
	return pending
}

// parentOf is the Parent of a node in dir: "" for the semaphore's path.
func (in SemParts) parentOf(dir string) string {
	if dir == in.Path {
		return ""
	}
	return dir
}

// waitLease makes n a waiter for a lease: it waits on a children watch
// of the lease dir.
func waitLease(n *model.Node, leaseDir string) {
	n.Role, n.Believes, n.Link, n.Herd = ordering.RoleWaiting, ordering.RoleWaiting, model.LinkInferred, false
	n.SetWatchesPredecessor(leaseDir, "")
}

// addLeases adds the leases, holding, then the pending one (index
// pending, -1 when none), waiting; it returns the holders' names.
func (res *SemResult) addLeases(in SemParts, leaseDir string, leases []model.Node, pending int) []string {
	var holders []string
	for i, l := range leases {
		if i == pending {
			continue
		}
		n := l
		n.Lease, n.Kind, n.Recipe = true, ordering.KindOther, in.Kind.recipe()
		n.SetParent(in.parentOf(leaseDir))
		n.Role, n.Believes, n.Link, n.Herd = ordering.RoleHolder, ordering.RoleHolder, model.LinkNone, false
		n.SetWatchesPredecessor("", "")
		res.Nodes = append(res.Nodes, n)
		holders = append(holders, n.Name)
	}
	if pending >= 0 {
		n := leases[pending]
		n.Lease, n.Kind, n.Recipe = true, ordering.KindOther, in.Kind.recipe()
		n.SetParent(in.parentOf(leaseDir))
		waitLease(&n, leaseDir)
		if !n.Ctime().IsZero() {
			n.SinceExact = true
			n.SetSince(n.Ctime())
		}
		res.Nodes = append(res.Nodes, n)
		res.Pending = n.Name
	}
	return holders
}

// addLockNodes adds the admission lock's contenders, each waiting for a
// lease; the admitted one waits on the lease dir.
func (res *SemResult) addLockNodes(in SemParts, lockDir string, admitted *model.Node) {
	leaseDir, _ := SemaphoreDirs(in.Path, in.Kind)
	for _, l := range in.Lock.Nodes.All() {
		n := *l // a copy: the lock's nodes are published as they are
		n.SetParent(in.parentOf(lockDir))
		if admitted != nil && n.Name == admitted.Name {
			waitLease(&n, leaseDir)
		}
		// Every contender in the lock waits for a lease, since it joined.
		n.Role = ordering.RoleWaiting
		if !n.Ctime().IsZero() {
			n.SinceExact = true
			n.SetSince(n.Ctime())
		}
		res.Nodes = append(res.Nodes, n)
	}
}

// addWarnings adds over-limit when more leases hold than the limit
// allows, and the admission lock's own warnings but stale.
func (res *SemResult) addWarnings(in SemParts, holders []string) {
	if res.Limit > 0 && len(holders) > res.Limit {
		res.Warnings = append(res.Warnings, model.Warning{Code: model.WarnOverLimit, Nodes: holders,
			Message: fmt.Sprintf("%d leases held at once, limit %d (%s): %s", len(holders), res.Limit,
				limitWords(res.LimitSource), listNames(holders, ", ", 3))})
	}
	for _, w := range in.Lock.Warnings() {
		if w.Code != model.WarnStale {
			res.Warnings = append(res.Warnings, w)
		}
	}
}

// limitWords says where a limit comes from, for a message.
func limitWords(src string) string {
	switch src {
	case model.LimitFromConfig:
		return "stated in the config"
	case model.LimitFromData:
		return "max_leases in the parent's data"
	case model.LimitDeduced:
		return "deduced from a waiting lease"
	}
	return "unknown"
}

// SemaphoreChanges tells what changed between two builds of a semaphore,
// in the order it happened: leases returned, then leases taken and
// leases that wait, each with the holders as they were right after it
// (a return then a take read "2/3", then "3/3", not "3/3" twice). old is
// nil for the first build.
func SemaphoreChanges(old *model.Queue, cur model.Queue, at time.Time) []model.Change {
	if cur.State != model.PathPresent {
		return nil
	}
	holders, waiting := cur.LeaseCounts()
	base := model.Change{At: at, Path: cur.Path, Type: model.TypeSemaphore, Holders: holders, Limit: cur.Limit(), Waiting: waiting}
	if old == nil || old.Type != model.TypeSemaphore || old.State != model.PathPresent {
		c := base
		c.Kind, c.Count = model.ChangeListed, cur.Nodes.Len()
		if c.Count > 0 {
			c.Node.Recipe = cur.Nodes.At(0).Recipe
		}
		return []model.Change{c}
	}
	was := map[string]*model.Node{}
	for _, n := range old.Nodes.All() {
		if n.Lease {
			was[n.Name] = n
		}
	}
	now := map[string]bool{}
	for _, n := range cur.Nodes.All() {
		if n.Lease {
			now[n.Name] = true
		}
	}
	// The leases returned first: a return is what lets a waiting lease
	// hold, or the next contender in. Each change carries the holders
	// counted from old's, step by step.
	held, _ := old.LeaseCounts()
	var cs []model.Change
	for _, n := range old.Nodes.All() {
		if n.Lease && !now[n.Name] {
			c := base
			c.Kind, c.Node = model.ChangeGaveUp, *n
			if n.Role == ordering.RoleHolder {
				c.Kind = model.ChangeReleased
				held--
			}
			c.Holders = held
			cs = append(cs, c)
		}
	}
	for _, n := range cur.Nodes.All() {
		if !n.Lease {
			continue
		}
		prev, existed := was[n.Name]
		c := base
		c.Node = *n
		switch {
		case n.Role == ordering.RoleHolder && (!existed || prev.Role != ordering.RoleHolder):
			held++
			c.Kind, c.Holders = model.ChangeAcquired, held
			cs = append(cs, c)
		case n.Role == ordering.RoleWaiting && !existed:
			c.Kind, c.Holders = model.ChangeJoined, held
			cs = append(cs, c)
		case n.Role == ordering.RoleWaiting && prev.Role == ordering.RoleHolder:
			// Seen holding by one listing, waiting once the other showed
			// it beyond the limit (Curator's admitted contender's lease,
			// pendingLease): told as waiting, one holder fewer.
			held--
			c.Kind, c.Holders = model.ChangeJoined, held
			cs = append(cs, c)
		}
	}
	return cs
}
