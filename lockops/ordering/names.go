// Lock node names: what ParseName reads.
//
// A lock node's name is a prefix and the sequence ZooKeeper appended:
// %010d of the parent's signed 32-bit child-version counter. That is ten
// characters for 0..2147483647 and for -1..-999999999 ("-000000001"),
// and eleven for -1000000000..-2147483648. ParseName accepts only that
// canonical text (so "+000000007", "-000000000", "00000000007" and
// "2147483648" are not sequences: ZooKeeper cannot write them) and then
// reads the prefix:
//
//	_c_<36-char uuid>-lock-       curator  mutex  GUID = the uuid
//	_c_<36-char uuid>-latch-      curator  mutex  Latch: a LeaderLatch
//	                                       participant; GUID = the uuid
//	_c_<32 hex>-lock-             gozk     mutex  GUID = the hex
//	...__READ__ / ...__WRIT__     curator  read / write (GUID when _c_<uuid>-)
//	...__rlock__ / ...__lock__    kazoo    read / mutex, or write when the
//	                                       queue holds any kazoo read node
//	                                       (GUID when the prefix is 32 hex)
//	"" or anything ending in "-"  plain    mutex (lock-, x-foo-, an
//	                                       unprotected Curator lock- or
//	                                       latch-, a bare sequential
//	                                       "0000000007")
//
// A LeaderLatch node is a mutex on the wire (the leader is the lowest
// sequence, each follower watches the node before its own), so its Kind
// is KindMutex and Latch says it takes part in an election; the
// participant id is its data. LeaderLatch always creates with Curator's
// protection, so only the protected name is read as a latch.
//
// Where a name could be read both ways ("lock--1000000000": prefix
// "lock-" and -1000000000, or prefix "lock--" and 1000000000), the
// eleven-character negative reading wins when its prefix is one of the
// above: a recipe's own prefix ("lock-", "__lock__", ...) is always
// followed directly by the sequence. Everything else is Other: shown,
// never queued.

package ordering

import (
	"errors"
	"fmt"
	"strings"
)

// ParsedName is one parsed child name: what its name alone tells (recipe,
// kind, sequence). zkview.ParsedName is the same node as the console shows it,
// with what the servers tell of it (owner, data, watches).
//
// The string comes first and the small fields after it, together, and
// the protection id is read from the name (GUID), not kept: a
// ParsedName takes 24 bytes, and an ordering's Entry 64 (a watched root
// keeps one for each lock node of up to a million parents;
// TestEntrySize).
type ParsedName struct {
	Name string
	// Seq is the signed 32-bit counter ZooKeeper formatted with %010d
	// (negative after the counter wraps).
	Seq    int32
	Kind   Kind // KindOther when not a lock node
	Recipe Recipe
	// Latch: a Curator LeaderLatch participant (_c_<uuid>-latch-<seq>),
	// Recipe curator, Kind mutex; its holder is the election's leader.
	Latch bool
	// guid: the name carries a protection id, where its Recipe puts it
	// (GUID).
	guid bool
}

// GUID is the protection id: Curator's 36-character uuid or
// go-zookeeper's 32 hex digits after "_c_", or Kazoo's 32-hex uuid;
// "" otherwise. It finds a node again after a lost create reply.
func (n ParsedName) GUID() string {
	if !n.guid {
		return ""
	}
	switch n.Recipe {
	case RecipeKazoo: // <32 hex>__lock__
		return n.Name[:32]
	case RecipeGoZK: // _c_<32 hex>-lock-
		return n.Name[len(protectedPrefix) : len(protectedPrefix)+32]
	}
	return n.Name[len(protectedPrefix) : len(protectedPrefix)+36] // _c_<uuid>-
}

// Style is how the lock core names a node it adds to a queue.
type Style int

// ParseStyle reads a --style value.
func ParseStyle(s string) (Style, error) {
	switch s {
	case "curator":
		return StyleCurator, nil
	case "kazoo":
		return StyleKazoo, nil
	}
	return 0, fmt.Errorf("%w %q (want curator or kazoo)", ErrUnknownStyle, s)
}

var (
	// ErrMixedRecipes: the parent holds lock nodes of recipes that cannot
	// see each other, so a new node would be ordered differently by each.
	ErrMixedRecipes = errors.New("lockops: queue mixes lock recipes that cannot see each other")
	// ErrUnknownStyle: a style name other than curator or kazoo.
	ErrUnknownStyle = errors.New("lockops: unknown style")
)

// Family names, as RecipeGroup.Name and ParsedName.Family report them.
const (
	FamilyCuratorMutex = "curator-mutex"
	FamilyCuratorRW    = "curator-rw"
	FamilyCuratorLatch = "curator-latch"
	FamilyKazoo        = "kazoo"
	FamilyPlain        = "plain"
)

// Family is the group of recipes that order this node correctly (see the
// file comment); "" for a child that is not a lock node.
func (n ParsedName) Family() string {
	switch n.Recipe {
	case RecipeCurator:
		switch {
		case n.Kind == KindRead || n.Kind == KindWrite:
			return FamilyCuratorRW
		case n.Latch:
			return FamilyCuratorLatch
		}
		return FamilyCuratorMutex
	case RecipeGoZK:
		return FamilyCuratorMutex
	case RecipeKazoo:
		return FamilyKazoo
	case RecipePlain:
		// Curator's sort key and go-zookeeper's parse both take the text
		// after the last "lock-", else the whole name: when that is the
		// sequence itself, both order the node by its digits.
		// The same holds for LeaderLatch's key, the text after the last
		// "latch-" ("latch-0000000007"); a bare sequence stays with the
		// mutexes (it is both, and a family is one).
		l := seqLen(n.Seq)
		if len(n.Name) < l {
			return FamilyPlain
		}
		switch seq := n.Name[len(n.Name)-l:]; seq {
		case curatorKey(n.Name, curatorMutexMarker):
			return FamilyCuratorMutex
		case curatorKey(n.Name, LatchMarker):
			return FamilyCuratorLatch
		}
		return FamilyPlain
	}
	return ""
}

// SeqLess reports whether sequence a was created before b, modulo the
// counter's wrap (RFC 1982 serial number arithmetic): true when b is less
// than 2^31 creates after a. Only meaningful for sequences less than 2^31
// apart, which live nodes always are.
func SeqLess(a, b int32) bool { return int32(uint32(b)-uint32(a)) > 0 }

const (
	curatorMutexMarker = "lock-"
	LatchMarker        = "latch-" // LeaderLatch's LOCK_NAME
	curatorReadMarker  = "__READ__"
	curatorWriteMarker = "__WRIT__"
	kazooMutexMarker   = "__lock__"
	kazooReadMarker    = "__rlock__"
	protectedPrefix    = "_c_"
)

// ParseName reads one child name; false for a child that is not a lock
// node ("leases", "locks", no canonical sequence suffix, a suffix no
// recipe's prefix precedes).
func ParseName(name string) (ParsedName, bool) {
	// The eleven-character reading first: only negative sequences of ten
	// digits have it, and a recipe's prefix is followed directly by them.
	for _, l := range [...]int{11, 10} {
		if len(name) < l {
			continue
		}
		seq, ok := parseSeq(name[len(name)-l:])
		if !ok {
			continue
		}
		if n, ok := parsePrefix(name[:len(name)-l]); ok {
			n.Name, n.Seq = name, seq
			return n, true
		}
	}
	return ParsedName{Name: name}, false
}

// parseSeq accepts exactly what %010d makes of an int32.
func parseSeq(s string) (int32, bool) {
	neg := s != "" && s[0] == '-'
	digits := s
	if neg {
		digits = s[1:]
	}
	switch {
	case len(s) == 10: // 0000000000..2147483647, -000000001..-999999999
	case len(s) == 11 && neg && digits[0] != '0': // -1000000000..-2147483648
	default:
		return 0, false
	}
	var v int64
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	if v > 1<<31-1 || v < -1<<31 || (neg && v == 0) {
		return 0, false
	}
	return int32(v), true
}

// seqLen is the length of %010d of s.
func seqLen(s int32) int {
	if s <= -1000000000 {
		return 11
	}
	return 10
}

// parsePrefix classifies the text before the sequence.
func parsePrefix(p string) (ParsedName, bool) {
	switch {
	case strings.HasSuffix(p, curatorReadMarker), strings.HasSuffix(p, curatorWriteMarker):
		n := ParsedName{Kind: KindRead, Recipe: RecipeCurator}
		if strings.HasSuffix(p, curatorWriteMarker) {
			n.Kind = KindWrite
		}
		// The markers have one length (Curator's LockInternals relies on it).
		g, ok := protectedGUID(p[:len(p)-len(curatorReadMarker)])
		n.guid = ok && isUUID(g)
		return n, true
	case strings.HasSuffix(p, kazooReadMarker):
		return ParsedName{Kind: KindRead, Recipe: RecipeKazoo, guid: IsHex32(p[:len(p)-len(kazooReadMarker)])}, true
	case strings.HasSuffix(p, kazooMutexMarker):
		return ParsedName{Kind: KindMutex, Recipe: RecipeKazoo, guid: IsHex32(p[:len(p)-len(kazooMutexMarker)])}, true
	case p == "" || strings.HasSuffix(p, "-"):
		if strings.HasSuffix(p, "-"+LatchMarker) {
			if g, ok := protectedGUID(p[:len(p)-len(LatchMarker)]); ok && isUUID(g) {
				return ParsedName{Kind: KindMutex, Recipe: RecipeCurator, guid: true, Latch: true}, true
			}
		}
		if strings.HasSuffix(p, "-"+curatorMutexMarker) {
			if g, ok := protectedGUID(p[:len(p)-len(curatorMutexMarker)]); ok {
				switch {
				case isUUID(g):
					return ParsedName{Kind: KindMutex, Recipe: RecipeCurator, guid: true}, true
				case IsHex32(g):
					return ParsedName{Kind: KindMutex, Recipe: RecipeGoZK, guid: true}, true
				}
			}
		}
		return ParsedName{Kind: KindMutex, Recipe: RecipePlain}, true
	}
	return ParsedName{}, false
}

// protectedGUID takes "_c_<guid>-" apart.
func protectedGUID(p string) (string, bool) {
	if len(p) < len(protectedPrefix)+2 || !strings.HasPrefix(p, protectedPrefix) || p[len(p)-1] != '-' {
		return "", false
	}
	return p[len(protectedPrefix) : len(p)-1], true
}

// IsHex32 reports whether s is 32 lower-case hex digits: Python's
// uuid4().hex (a Kazoo lock's guid, a Kazoo semaphore's lease name) and
// go-zookeeper's %x of 16 random bytes. No lock node of any recipe is
// named so: every recipe's sequence follows a marker ("__lock__",
// "lock-"...), which hex digits never spell.
func IsHex32(s string) bool {
	if len(s) != 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isLowerHex(s[i]) {
			return false
		}
	}
	return true
}

// isUUID: Java's UUID.toString, 8-4-4-4-12 lower-case hex.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if s[i] != '-' {
				return false
			}
		} else if !isLowerHex(s[i]) {
			return false
		}
	}
	return true
}

func isLowerHex(c byte) bool { return c-'0' < 10 || c-'a' < 6 } // unsigned: one compare per range
