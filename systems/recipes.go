package systems

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"net"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// The library recipes that are no system's: what Curator 5.4 and Kazoo
// 2.8 build besides their locks, so that nothing the two libraries build
// is unknown. Each layout below was observed on the wire (stock
// /usr/share/java curator-*.jar and /usr/bin/python3's kazoo against a
// 3.8.0 server: names, modes, data as a dump of the tree showed them) and
// read in the libraries' sources (kazoo/recipe/*.py as installed;
// Curator's recipes by name):
//
//   - Curator LeaderSelector: an InterProcessMutex whose nodes
//     (_c_<uuid>-lock-<seq>, ephemeral) hold the selector's id
//     (getLockNodeBytes); a plain InterProcessMutex's nodes hold the
//     client's default data, its local IP address ("127.0.0.1"), and
//     zklock's own Curator-style lock "user@host pid N". Two nodes or
//     more that all hold an id that is neither are an election (one node
//     is too little: a client's own default data looks the same).
//   - Curator DistributedDoubleBarrier: ephemeral <UUID.randomUUID()>
//     children (36 characters), data the client's address; a persistent
//     "ready" child once memberQty entered (memberQty is not stored).
//   - Kazoo DoubleBarrier: ephemeral uuid4().hex children (32 hex), data
//     the identifier ("fqdn-pid" by default), and "ready" (ensure_path);
//     the parent is ensure_path's, data empty (a Kazoo Semaphore's parent,
//     whose leases are named alike, always holds max_leases).
//   - Kazoo Party: ephemeral <32 hex>__party__, data the identifier.
//     ShallowParty: ephemeral <32 hex>-<identifier>, data the identifier.
//   - Curator GroupMember (a PersistentNode, EPHEMERAL, unprotected):
//     ephemeral <thisId> children, data the payload; a protected
//     PersistentNode's name is _c_<uuid>-<name>. Names alone say nothing
//     here, so a group needs two members or more (one lone ephemeral
//     child stays the plain ephemeral lock it always was).
//   - Curator DistributedQueue: persistent queue-<seq> children whose data
//     is ItemSerializer's (version 0x00010001, then 0x01 <len> <bytes>
//     per item, 0x02); the parent holds the client's address.
//   - Kazoo Queue: persistent entry-<priority %03d>-<seq>. LockingQueue:
//     "entries" (those) and "taken" (ephemeral entry-<pri>-<seq> of the
//     entry a consumer took, data its 32-hex id).
//   - Kazoo NonBlockingLease: a persistent lease_holder child, JSON
//     {"version": 1, "holder": <identifier>, "end": "%Y-%m-%dT%H:%M:%S"}
//     (utcnow()+duration), beside the transient Kazoo lock nodes of the
//     next acquire.
//   - Curator SharedCount: a persistent node of 4 bytes (big-endian int);
//     Kazoo Counter: repr(value) ("5", "1.5"), or 4 bytes with
//     support_curator. Only where the caller names the path (Named): a
//     number in a node is the evidence, and it is weak (Kafka's
//     controller_epoch holds one; an idle Kazoo Semaphore's parent holds
//     max_leases, told apart by its <path>-__lock__ sibling).
//   - Curator DistributedBarrier and Kazoo Barrier are one node (the
//     client's address, or empty) whose waiters only set an exists
//     watch: their layout says nothing a cache's watch on a leaf does
//     not, so they are read only where the context's `barriers:` names
//     them (barrier.go).
//   - Kazoo Election is a Kazoo Lock holding the identifier: a Lock with
//     an identifier looks the same, so only the context's `elections:`
//     names it.

// The types of the library recipes that are no lock (TypeQueue, shared
// with ClickHouse's DDL queue, is in tree.go).
const (
	TypeBarrier    Type = "barrier"
	TypeMembership Type = "membership"
	TypeCounter    Type = "counter"
	TypeLease      Type = "lease"
)

// recipeRecognisers read the layouts whose names or data grammar are
// evidence enough to be found anywhere under a root.
var recipeRecognisers = []recogniser{
	curatorSelector,
	doubleBarrier,
	party,
	curatorQueue,
	kazooQueue,
	kazooLease,
	curatorGroup,
}

// RecognizeRecipe reads path p of t as a library recipe that is no
// system's (a Curator LeaderSelector, a barrier, a queue, a group, a
// lease); Named also reads counters, whose evidence is weak. The
// Recognition has no System; false when no recipe's layout explains p.
func RecognizeRecipe(t Tree, p string) (Recognition, bool) { return firstOf(recipeRecognisers, t, p) }

// Named is RecognizeRecipe for a path the user named: counters too.
func Named(t Tree, p string) (Recognition, bool) {
	if rec, ok := RecognizeRecipe(t, p); ok {
		return rec, true
	}
	return counter(t, p)
}

// ScanRecipes is Scan for the library recipes (RecognizeRecipe).
func ScanRecipes(t Tree, root string) []Recognition { return scan(t, root, RecognizeRecipe) }

// curatorSelector reads p as a Curator LeaderSelector: two children or
// more, every one a protected Curator mutex node, ephemeral, holding an id
// that is no address; the lowest sequence leads. One node says too little:
// a mutex whose client set its own default data looks the same.
func curatorSelector(t Tree, p string) (Recognition, bool) {
	ps, fit := fittingChildren(t, p, curatorMutexNode)
	if !fit || len(ps) < 2 {
		return Recognition{}, false
	}
	for i := range ps {
		n, ok := ordering.ParseName(ps[i].Name)
		if !ok || n.Recipe != ordering.RecipeCurator || n.Kind != ordering.KindMutex || n.Latch ||
			!strings.HasPrefix(ps[i].Name, "_c_") || ps[i].Session == 0 {
			return Recognition{}, false
		}
		data, _ := t.Node(ps[i].Path)
		id := string(data.Data)
		if id == "" || !utf8.ValidString(id) || net.ParseIP(id) != nil || zklockOwner.MatchString(id) {
			return Recognition{}, false
		}
		ps[i].Seq, ps[i].HasSeq, ps[i].Identity = int64(n.Seq), true, clean(id)
	}
	slices.SortStableFunc(ps, func(a, b Participant) int {
		if a.Seq == b.Seq {
			return 0
		}
		if ordering.SeqLess(int32(a.Seq), int32(b.Seq)) {
			return -1
		}
		return 1
	})
	ps[0].Role = ordering.RoleHolder
	return Recognition{Path: p, Type: TypeElection, Library: ordering.RecipeCurator, Participants: ps}, true
}

// zklockOwner is the data zklock's own lock writes in Curator's style
// (lockops.DefaultData, "user@host pid N"): a mutex, not a selector.
var zklockOwner = regexp.MustCompile(`^\S+@\S+ pid \d+`)

// readyNode is a double barrier's mark that every participant entered.
const readyNode = "ready"

// canonicalUUID matches Java's UUID.toString().
var canonicalUUID = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// doubleBarrier reads p as a Curator or Kazoo double barrier.
func doubleBarrier(t Tree, p string) (Recognition, bool) {
	kids, _ := t.Children(p)
	ready := false
	var ps []Participant
	lib := ordering.Recipe(0)
	for _, k := range kids {
		n, ok := t.Node(path.Join(p, k))
		if !ok {
			return Recognition{}, false
		}
		var l ordering.Recipe
		switch {
		case k == readyNode && !n.Ephemeral():
			ready = true
			continue
		case canonicalUUID.MatchString(k) && n.Ephemeral():
			l = ordering.RecipeCurator
		case ordering.IsHex32(k) && n.Ephemeral():
			l = ordering.RecipeKazoo
		default:
			return Recognition{}, false
		}
		if lib != 0 && lib != l {
			return Recognition{}, false
		}
		lib = l
		pt := participant(path.Join(p, k), n)
		pt.Part, pt.Identity = model.PartEntered, clean(string(n.Data))
		ps = append(ps, pt)
	}
	if len(ps) == 0 {
		return Recognition{}, false
	}
	if lib == ordering.RecipeKazoo {
		if parent, ok := t.Node(p); !ok || len(parent.Data) > 0 {
			return Recognition{}, false // a Kazoo Semaphore's leases
		}
	}
	for i := range ps {
		if ready {
			ps[i].Role = ordering.RoleHolder // through the barrier
		}
	}
	sortByCtime(ps)
	return Recognition{Path: p, Type: TypeBarrier, Library: lib, Participants: ps,
		Facts: &model.RecipeFacts{Ready: &ready, Entered: len(ps)}}, true
}

// partyMark is Kazoo Party's _NODE_NAME.
const partyMark = "__party__"

// party reads p as a Kazoo Party or ShallowParty: every child ephemeral,
// named <32 hex>__party__ or <32 hex>-<identifier>.
func party(t Tree, p string) (Recognition, bool) {
	ps, fit := fittingChildren(t, p, func(c Participant) bool { return c.Session != 0 && len(c.Name) > 33 && ordering.IsHex32(c.Name[:32]) })
	if !fit || len(ps) == 0 {
		return Recognition{}, false
	}
	for i := range ps {
		name := ps[i].Name
		if ps[i].Session == 0 || len(name) <= 33 || !ordering.IsHex32(name[:32]) {
			return Recognition{}, false
		}
		if _, lock := ordering.ParseName(name); lock {
			return Recognition{}, false
		}
		switch {
		case name[32:] == partyMark:
			data, _ := t.Node(ps[i].Path)
			ps[i].Identity = clean(string(data.Data))
		case name[32] == '-':
			ps[i].Identity = clean(name[33:]) // ShallowParty's member is its name's tail
		default:
			return Recognition{}, false
		}
		ps[i].Part, ps[i].Role = model.PartMember, ordering.RoleHolder
	}
	sortByCtime(ps)
	return Recognition{Path: p, Type: TypeMembership, Library: ordering.RecipeKazoo, Participants: ps}, true
}

// curatorGroup reads p as a Curator GroupMember group: two ephemeral
// children or more, none named by a lock or another recipe's grammar;
// the member is the name (less a protected PersistentNode's _c_<uuid>-).
func curatorGroup(t Tree, p string) (Recognition, bool) {
	ps, fit := fittingChildren(t, p, func(c Participant) bool { return c.Session != 0 })
	if !fit || len(ps) < 2 {
		return Recognition{}, false
	}
	for i := range ps {
		name := ps[i].Name
		if _, lock := ordering.ParseName(name); lock || ps[i].Session == 0 || ordering.IsHex32(name) ||
			canonicalUUID.MatchString(name) || name == readyNode {
			return Recognition{}, false
		}
		id := name
		if len(name) > 40 && strings.HasPrefix(name, "_c_") && canonicalUUID.MatchString(name[3:39]) && name[39] == '-' {
			id = name[40:]
		}
		ps[i].Identity, ps[i].Part, ps[i].Role = clean(id), model.PartMember, ordering.RoleHolder
	}
	sortByCtime(ps)
	return Recognition{Path: p, Type: TypeMembership, Library: ordering.RecipeCurator, Participants: ps}, true
}

// curatorItemVersion starts every item Curator's ItemSerializer writes.
var curatorItemVersion = []byte{0x00, 0x01, 0x00, 0x01}

var curatorQueueName = regexp.MustCompile(`^queue-(-?\d{10})$`)

// curatorQueue reads p as a Curator DistributedQueue: persistent
// queue-<seq> children holding ItemSerializer's bytes.
func curatorQueue(t Tree, p string) (Recognition, bool) {
	ps, fit := fittingChildren(t, p, func(c Participant) bool { return c.Session == 0 && curatorQueueName.MatchString(c.Name) })
	if !fit || len(ps) == 0 {
		return Recognition{}, false
	}
	for i := range ps {
		m := curatorQueueName.FindStringSubmatch(ps[i].Name)
		data, _ := t.Node(ps[i].Path)
		if m == nil || ps[i].Session != 0 || !bytes.HasPrefix(data.Data, curatorItemVersion) {
			return Recognition{}, false
		}
		ps[i].Seq, _ = strconv.ParseInt(m[1], 10, 64)
		ps[i].HasSeq, ps[i].Part = true, model.PartItem
	}
	sortBySeq(ps)
	return queueRecognition(p, ordering.RecipeCurator, ps), true
}

var kazooEntryName = regexp.MustCompile(`^entry-(\d{3})-(-?\d{10})$`)

// kazooEntries reads dir's children as Kazoo queue entries, in the order
// Kazoo takes them (by name: priority, then sequence); false when one is
// not an entry (persistent entry-<pri>-<seq>).
func kazooEntries(t Tree, dir string) ([]Participant, bool) {
	ps, fit := fittingChildren(t, dir, func(c Participant) bool { return c.Session == 0 && kazooEntryName.MatchString(c.Name) })
	if !fit {
		return nil, false
	}
	for i := range ps {
		m := kazooEntryName.FindStringSubmatch(ps[i].Name)
		if m == nil || ps[i].Session != 0 {
			return nil, false
		}
		ps[i].Seq, _ = strconv.ParseInt(m[2], 10, 64)
		ps[i].HasSeq, ps[i].Part = true, model.PartItem
	}
	return ps, true // childNodes sorts by name
}

// kazooQueue reads p as a Kazoo Queue (entries under p) or LockingQueue
// (entries/ and taken/).
func kazooQueue(t Tree, p string) (Recognition, bool) {
	kids, _ := t.Children(p)
	if len(kids) == 0 {
		return Recognition{}, false
	}
	if !slices.Equal(kids, []string{"entries", "taken"}) {
		// Children listed and none read as an entry (each gone before
		// its read: a busy lock's nodes) say nothing of a Kazoo queue.
		ps, ok := kazooEntries(t, p)
		if !ok || len(ps) == 0 {
			return Recognition{}, false
		}
		return queueRecognition(p, ordering.RecipeKazoo, ps), true
	}
	entries, taken := path.Join(p, "entries"), path.Join(p, "taken")
	ps, ok := kazooEntries(t, entries)
	if !ok {
		return Recognition{}, false
	}
	for _, tk := range childNodes(t, taken) {
		i := slices.IndexFunc(ps, func(e Participant) bool { return e.Name == tk.Name })
		if i < 0 || tk.Session == 0 {
			continue // an entry consumed a moment ago
		}
		data, _ := t.Node(tk.Path)
		ps[i].Part, ps[i].Role, ps[i].Session = model.PartTaken, ordering.RoleHolder, tk.Session
		ps[i].Identity = clean(string(data.Data))
	}
	rec := queueRecognition(p, ordering.RecipeKazoo, ps)
	rec.Parts = []string{entries, taken}
	return rec, true
}

// queueRecognition is a queue of items ps at p, with its depth and its
// oldest item's ctime.
func queueRecognition(p string, lib ordering.Recipe, ps []Participant) Recognition {
	depth := len(ps)
	f := &model.RecipeFacts{Depth: &depth}
	for _, pt := range ps {
		if c := time.UnixMilli(pt.Ctime); pt.Ctime != 0 && (f.Oldest.IsZero() || c.Before(f.Oldest)) {
			f.Oldest = c
		}
	}
	return Recognition{Path: p, Type: TypeQueue, Library: lib, Participants: ps, Facts: f}
}

// leaseHolder is Kazoo NonBlockingLease's record node.
const leaseHolder = "lease_holder"

// kazooLeaseEnd is the lease's "end", datetime.strftime's
// "%Y-%m-%dT%H:%M:%S" of a utcnow() time.
const kazooLeaseEnd = "2006-01-02T15:04:05"

// kazooLease reads p as a Kazoo NonBlockingLease: a persistent
// lease_holder child with the lease's JSON, beside Kazoo lock nodes.
func kazooLease(t Tree, p string) (Recognition, bool) {
	kids, _ := t.Children(p)
	if !slices.Contains(kids, leaseHolder) {
		return Recognition{}, false
	}
	for _, k := range kids {
		if n, ok := ordering.ParseName(k); k != leaseHolder && (!ok || n.Recipe != ordering.RecipeKazoo) {
			return Recognition{}, false
		}
	}
	full := path.Join(p, leaseHolder)
	n, ok := t.Node(full)
	if !ok || n.Ephemeral() {
		return Recognition{}, false
	}
	var rec struct {
		Version json.Number `json:"version"`
		Holder  *string     `json:"holder"`
		End     string      `json:"end"`
	}
	if json.Unmarshal(n.Data, &rec) != nil || rec.Version == "" || rec.Holder == nil {
		return Recognition{}, false
	}
	end, err := time.Parse(kazooLeaseEnd, rec.End)
	if err != nil {
		return Recognition{}, false
	}
	h := participant(full, n)
	h.Role, h.Part, h.Identity = ordering.RoleHolder, model.PartLease, clean(*rec.Holder)
	return Recognition{Path: p, Type: TypeLease, Library: ordering.RecipeKazoo, Participants: []Participant{h},
		Facts: &model.RecipeFacts{Holder: h.Identity, Expires: end}}, true
}

// counter reads p as a Curator SharedCount or a Kazoo Counter: a
// persistent node with no child holding 4 bytes (a big-endian int) or a
// number's text, and no Kazoo lock sibling <p>-__lock__ (an idle Kazoo
// Semaphore's parent holds max_leases).
func counter(t Tree, p string) (Recognition, bool) {
	n, ok := t.Node(p)
	if kids, listed := t.Children(p); !ok || !listed || len(kids) > 0 || n.Ephemeral() || p == "/" {
		return Recognition{}, false
	}
	if _, sem := t.Node(p + "-__lock__"); sem {
		return Recognition{}, false
	}
	var v float64
	lib := ordering.RecipeKazoo
	if f, err := strconv.ParseFloat(string(n.Data), 64); err == nil && len(n.Data) > 0 && n.Data[0] != '+' && !bytes.ContainsAny(n.Data, " _xXeEpPnNiI") {
		v = f
	} else if len(n.Data) == 4 {
		v, lib = float64(int32(binary.BigEndian.Uint32(n.Data))), ordering.RecipeCurator
	} else {
		return Recognition{}, false
	}
	return Recognition{Path: p, Type: TypeCounter, Library: lib, Facts: &model.RecipeFacts{Value: &v}}, true
}

// sortByCtime orders participants by creation, then name: the order they
// joined in.
func sortByCtime(ps []Participant) {
	slices.SortStableFunc(ps, func(a, b Participant) int {
		return cmp.Or(cmp.Compare(a.Ctime, b.Ctime), strings.Compare(a.Name, b.Name))
	})
}
