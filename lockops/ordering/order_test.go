package ordering

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Fixed guids, so that names sort the same in every run.
const (
	uuidA = "0f8fad5b-d9cb-469f-a165-70867728950e"
	uuidB = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
	uuidC = "16fd2706-8baf-433b-82eb-8c7fada847da"
	hexA  = "9f1c3a5e7b2d4f6081a3c5e7f9b1d3f5"
	hexB  = "0a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d"
	hexC  = "e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b9"
)

func seqText(s int32) string               { return fmt.Sprintf("%010d", s) }
func curMutex(uuid string, s int32) string { return "_c_" + uuid + "-lock-" + seqText(s) }
func curRead(uuid string, s int32) string  { return "_c_" + uuid + "-__READ__" + seqText(s) }
func curWrite(uuid string, s int32) string { return "_c_" + uuid + "-__WRIT__" + seqText(s) }
func gozkMutex(hex string, s int32) string { return "_c_" + hex + "-lock-" + seqText(s) }
func kzLock(hex string, s int32) string    { return hex + "__lock__" + seqText(s) }
func kzRead(hex string, s int32) string    { return hex + "__rlock__" + seqText(s) }
func curLatch(uuid string, s int32) string { return "_c_" + uuid + "-latch-" + seqText(s) }

func TestParseName(t *testing.T) {
	tests := []struct {
		name string
		want ParsedName
		ok   bool
		guid string // GUID
	}{
		{curMutex(uuidA, 7), ParsedName{Seq: 7, Kind: KindMutex, Recipe: RecipeCurator, guid: true}, true, uuidA},
		{gozkMutex(hexA, 7), ParsedName{Seq: 7, Kind: KindMutex, Recipe: RecipeGoZK, guid: true}, true, hexA},
		{curRead(uuidA, 7), ParsedName{Seq: 7, Kind: KindRead, Recipe: RecipeCurator, guid: true}, true, uuidA},
		{curWrite(uuidA, 7), ParsedName{Seq: 7, Kind: KindWrite, Recipe: RecipeCurator, guid: true}, true, uuidA},
		{"__WRIT__0000000007", ParsedName{Seq: 7, Kind: KindWrite, Recipe: RecipeCurator}, true, ""},
		{kzLock(hexA, 7), ParsedName{Seq: 7, Kind: KindMutex, Recipe: RecipeKazoo, guid: true}, true, hexA},
		{kzRead(hexA, 7), ParsedName{Seq: 7, Kind: KindRead, Recipe: RecipeKazoo, guid: true}, true, hexA},
		{"someone__lock__0000000007", ParsedName{Seq: 7, Kind: KindMutex, Recipe: RecipeKazoo}, true, ""},
		{"lock-0000000007", ParsedName{Seq: 7, Kind: KindMutex, Recipe: RecipePlain}, true, ""},
		{"x-job-42-0000000007", ParsedName{Seq: 7, Kind: KindMutex, Recipe: RecipePlain}, true, ""},
		{"0000000007", ParsedName{Seq: 7, Kind: KindMutex, Recipe: RecipePlain}, true, ""},
		{"_c_NOTAGUID-lock-0000000007", ParsedName{Seq: 7, Kind: KindMutex, Recipe: RecipePlain}, true, ""},
		{curLatch(uuidA, 7), ParsedName{Seq: 7, Kind: KindMutex, Recipe: RecipeCurator, guid: true, Latch: true}, true, uuidA},
		{curLatch(uuidA, -1000000000), ParsedName{Seq: -1000000000, Kind: KindMutex, Recipe: RecipeCurator, guid: true, Latch: true}, true, uuidA},
		// LeaderLatch always protects its name: the rest is plain.
		{"latch-0000000007", ParsedName{Seq: 7, Kind: KindMutex, Recipe: RecipePlain}, true, ""},
		{"_c_" + hexA + "-latch-0000000007", ParsedName{Seq: 7, Kind: KindMutex, Recipe: RecipePlain}, true, ""},
		{"_c_" + uuidA + "-latch0000000007", ParsedName{}, false, ""}, // no "-" before the sequence
		{"lock-2147483647", ParsedName{Seq: 2147483647, Kind: KindMutex, Recipe: RecipePlain}, true, ""},
		// Negative, after the wrap: ten characters down to -999999999,
		// eleven from -1000000000.
		{curMutex(uuidA, -1), ParsedName{Seq: -1, Kind: KindMutex, Recipe: RecipeCurator, guid: true}, true, uuidA},
		{"lock--000000001", ParsedName{Seq: -1, Kind: KindMutex, Recipe: RecipePlain}, true, ""},
		{"lock--2147483648", ParsedName{Seq: -2147483648, Kind: KindMutex, Recipe: RecipePlain}, true, ""},
		{kzLock(hexA, -1000000000), ParsedName{Seq: -1000000000, Kind: KindMutex, Recipe: RecipeKazoo, guid: true}, true, hexA},
		{kzRead(hexA, -5), ParsedName{Seq: -5, Kind: KindRead, Recipe: RecipeKazoo, guid: true}, true, hexA},
		// "lock-" then 1000000000, not "lock" then -1000000000.
		{"lock-1000000000", ParsedName{Seq: 1000000000, Kind: KindMutex, Recipe: RecipePlain}, true, ""},
		{"-1000000000", ParsedName{Seq: -1000000000, Kind: KindMutex, Recipe: RecipePlain}, true, ""},
		{"-0000000007", ParsedName{Seq: 7, Kind: KindMutex, Recipe: RecipePlain}, true, ""},

		{"leases", ParsedName{}, false, ""},
		{"locks", ParsedName{}, false, ""},
		{"", ParsedName{}, false, ""},
		{"-", ParsedName{}, false, ""},
		{"lock-", ParsedName{}, false, ""},
		{"lock-000000007", ParsedName{}, false, ""},   // nine digits
		{"lock-00000000007", ParsedName{}, false, ""}, // eleven digits
		{"lock-12345678901", ParsedName{}, false, ""},
		{"lock-2147483648", ParsedName{}, false, ""}, // not an int32
		{"lock--2147483649", ParsedName{}, false, ""},
		{"lock--000000000", ParsedName{}, false, ""}, // %010d never writes -0
		{"lock--0999999999", ParsedName{Seq: 999999999, Kind: KindMutex, Recipe: RecipePlain}, true, ""}, // prefix "lock--"
		{"lock-+000000007", ParsedName{}, false, ""},
		{"lock-000000000a", ParsedName{}, false, ""},
		{"lock-abcdefghij", ParsedName{}, false, ""},
		{"lock-٠١٢٣٤٥٦٧٨٩", ParsedName{}, false, ""}, // Arabic-Indic digits
		{"lock-０００００００００７", ParsedName{}, false, ""},
		{"locké0000000007", ParsedName{}, false, ""},
		{"x0000000007", ParsedName{}, false, ""}, // no "-" before the sequence
		{hexA + "__lock_0000000007", ParsedName{}, false, ""},
		{"-000000007", ParsedName{Seq: -7, Kind: KindMutex, Recipe: RecipePlain}, true, ""},
	}
	for _, tt := range tests {
		got, ok := ParseName(tt.name)
		tt.want.Name = tt.name
		if ok != tt.ok || got != tt.want {
			t.Errorf("ParseName(%q) = %+v, %v; want %+v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
		if g := got.GUID(); g != tt.guid {
			t.Errorf("ParseName(%q).GUID() = %q, want %q", tt.name, g, tt.guid)
		}
	}
}

// TestIsHex32: the 32-hex names (Kazoo's guids and lease names,
// go-zookeeper's guids) and the near misses around them.
func TestIsHex32(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want bool
	}{
		{"0123456789abcdef0123456789abcdef", true},
		{"abcdefabcdefabcdefabcd0123456789", true},
		{"0123456789abcdef0123456789abcde", false},   // 31
		{"0123456789abcdef0123456789abcdef0", false}, // 33
		{"0123456789ABCDEF0123456789abcdef", false},  // upper case
		{"0123456789abcdeg0123456789abcdef", false},
		{"0123456789abcdef0123456789abcde/", false},
		{"0123456789abcdef0123456789abcde:", false}, // the byte after '9'
		{"0123456789abcdef0123456789abcde`", false}, // the byte before 'a'
		{"", false},
	} {
		if got := IsHex32(tt.s); got != tt.want {
			t.Errorf("IsHex32(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

func TestSeqLess(t *testing.T) {
	tests := []struct {
		a, b int32
		want bool
	}{
		{1, 2, true},
		{2, 1, false},
		{5, 5, false},
		{-5, -4, true},
		{2147483647, -2147483648, true}, // the wrap
		{-2147483648, 2147483647, false},
		{2147483646, -2147483647, true},
		{0, 1<<31 - 1, true},
		{-1, 0, true},
		{0, -2147483648, false}, // exactly 2^31 apart: neither is before
		{-2147483648, 0, false},
	}
	for _, tt := range tests {
		if got := SeqLess(tt.a, tt.b); got != tt.want {
			t.Errorf("SeqLess(%d, %d) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// row is one expected Entry: role and belief as "H" (holder) or "W".
type row struct {
	name          string
	kind          Kind
	role, belief  string
	watches, pred string
}

func roleLetter(r Role) string {
	if r == RoleHolder {
		return "H"
	}
	return "W"
}

func checkRows(t *testing.T, q Ordering, want []row) {
	t.Helper()
	var got []row
	for _, e := range q.Entries {
		got = append(got, row{e.Name, e.Kind, roleLetter(e.Role), roleLetter(e.Believes), e.Watches, e.Predecessor})
	}
	if !slices.Equal(got, want) {
		t.Errorf("entries:\n%s\nwant:\n%s", fmtRows(got), fmtRows(want))
	}
}

func fmtRows(rs []row) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "  %-50q %-6s role %s believes %s watches %q pred %q\n", r.name, r.kind, r.role, r.belief, r.watches, r.pred)
	}
	return b.String()
}

// orderCase is one listing of a parent's children and what Order must
// make of it.
type orderCase struct {
	name     string
	children []string
	want     []row
	other    []string
	split    []string
	mixed    []RecipeGroup
}

func TestOrder(t *testing.T) {
	for _, group := range []struct {
		name  string
		cases []orderCase
	}{
		{"mutex", mutexOrderCases()},
		{"read-write", readWriteOrderCases()},
		{"kazoo", kazooOrderCases()},
		{"split", splitOrderCases()},
		{"latch", latchOrderCases()},
	} {
		t.Run(group.name, func(t *testing.T) {
			for _, tt := range group.cases {
				t.Run(tt.name, func(t *testing.T) { checkOrder(t, tt) })
			}
		})
	}
}

// checkOrder checks Order's queue of tt.children: entries, other
// children, split holders, mixed recipes, and DetectStyle's verdict.
func checkOrder(t *testing.T, tt orderCase) {
	q := Order(tt.children)
	checkRows(t, q, tt.want)
	if !slices.Equal(q.Other, tt.other) {
		t.Errorf("Other = %q, want %q", q.Other, tt.other)
	}
	if got := q.SplitHolders(); !slices.Equal(got, tt.split) {
		t.Errorf("SplitHolders = %q, want %q", got, tt.split)
	}
	if got := q.MixedRecipes(); !reflect.DeepEqual(got, tt.mixed) {
		t.Errorf("MixedRecipes = %q, want %q", got, tt.mixed)
	}
	_, err := DetectStyle(q)
	if (err != nil) != (tt.mixed != nil) || err != nil && !errors.Is(err, ErrMixedRecipes) {
		t.Errorf("DetectStyle: %v, mixed %v", err, tt.mixed != nil)
	}
}

// mutexOrderCases are mutexes of Curator, go-zookeeper and the plain
// recipe: recipes that see each other.
func mutexOrderCases() []orderCase {
	c1, c2, c3 := curMutex(uuidA, 5), curMutex(uuidB, 6), curMutex(uuidC, 7)
	g1, g2, g3 := gozkMutex(hexA, 3), gozkMutex(hexB, 4), gozkMutex(hexC, 9)
	M := KindMutex
	return []orderCase{
		{
			name:     "empty parent",
			children: nil,
		},
		{
			name:     "only children that are not lock nodes",
			children: []string{"locks", "leases", "lock-", "config"},
			other:    []string{"config", "leases", "lock-", "locks"},
		},
		{
			name:     "curator mutex, listed out of order, with Curator's leases and locks",
			children: []string{c3, "leases", c1, "locks", c2},
			want: []row{
				{c1, M, "H", "H", "", ""},
				{c2, M, "W", "W", c1, c1},
				{c3, M, "W", "W", c2, c2},
			},
			other: []string{"leases", "locks"},
		},
		{
			// Curator sorts every child by the text after "lock-": a
			// persistent "0" sorts before "0000000005", and the holder
			// by sequence waits on it forever.
			name:     "curator watching a persistent child that sorts first",
			children: []string{c1, "0"},
			want:     []row{{c1, M, "H", "W", "0", ""}},
			other:    []string{"0"},
		},
		{
			name:     "go-zookeeper mutex",
			children: []string{g3, g1, g2},
			want: []row{
				{g1, M, "H", "H", "", ""},
				{g2, M, "W", "W", g1, g1},
				{g3, M, "W", "W", g2, g2},
			},
		},
		{
			// parseSeq fails on "leases", so zk.Lock returns an error
			// for every node: none holds, none waits.
			name:     "go-zookeeper fails on a child it cannot parse",
			children: []string{g1, g2, "leases"},
			want: []row{
				{g1, M, "H", "W", "", ""},
				{g2, M, "W", "W", "", g1},
			},
			other: []string{"leases"},
		},
		{
			name:     "curator, go-zookeeper and plain lock- nodes see each other",
			children: []string{c1, g1, "lock-0000000004", c2},
			want: []row{
				{g1, M, "H", "H", "", ""},
				{"lock-0000000004", M, "W", "W", g1, g1},
				{c1, M, "W", "W", "lock-0000000004", "lock-0000000004"},
				{c2, M, "W", "W", c1, c1},
			},
		},
		{
			// -1 was created just before 1 (the counter wrapped to 0).
			name:     "plain, across zero",
			children: []string{"x-b-0000000002", "x-a-0000000001", "x-c--000000001"},
			want: []row{
				{"x-c--000000001", M, "H", "H", "", ""},
				{"x-a-0000000001", M, "W", "W", "x-c--000000001", "x-c--000000001"},
				{"x-b-0000000002", M, "W", "W", "x-a-0000000001", "x-a-0000000001"},
			},
			mixed: nil,
		},
	}
}

// readWriteOrderCases are Curator's read/write lock: readers hold
// together until a writer.
func readWriteOrderCases() []orderCase {
	w1, r1, r2, w2, r3 := curWrite(uuidA, 1), curRead(uuidB, 2), curRead(uuidC, 3), curWrite(uuidB, 4), curRead(uuidA, 5)
	R, W := KindRead, KindWrite
	return []orderCase{
		{
			// Curator's readers all watch the first write node (its
			// design); by sequence, r3's predecessor is w2.
			name:     "curator read/write",
			children: []string{r3, w2, r2, r1, w1},
			want: []row{
				{w1, W, "H", "H", "", ""},
				{r1, R, "W", "W", w1, w1},
				{r2, R, "W", "W", w1, w1},
				{w2, W, "W", "W", r2, r2},
				{r3, R, "W", "W", w1, w2},
			},
		},
		{
			name:     "several readers hold at once",
			children: []string{curRead(uuidA, 1), curRead(uuidB, 2), curWrite(uuidC, 3), curRead(uuidC, 4)},
			want: []row{
				{curRead(uuidA, 1), R, "H", "H", "", ""},
				{curRead(uuidB, 2), R, "H", "H", "", ""},
				{curWrite(uuidC, 3), W, "W", "W", curRead(uuidB, 2), curRead(uuidB, 2)},
				{curRead(uuidC, 4), R, "W", "W", curWrite(uuidC, 3), curWrite(uuidC, 3)},
			},
		},
	}
}

// kazooOrderCases are Kazoo's Lock, WriteLock and ReadLock, with Kazoo
// 2.8's reader rule and its sequence regex.
func kazooOrderCases() []orderCase {
	k1, k2, k3 := kzLock(hexA, 1), kzLock(hexB, 2), kzLock(hexC, 3)
	kw1, kr1, kw2 := kzLock(hexA, 1), kzRead(hexB, 2), kzLock(hexC, 3)
	M, R, W := KindMutex, KindRead, KindWrite
	return []orderCase{
		{
			name:     "kazoo mutex",
			children: []string{k2, k3, k1},
			want: []row{
				{k1, M, "H", "H", "", ""},
				{k2, M, "W", "W", k1, k1},
				{k3, M, "W", "W", k2, k2},
			},
		},
		{
			// Kazoo 2.8: the reader is not its own contender, so it
			// waits for the last __lock__ node of all, queued after it.
			name:     "kazoo 2.8 reader watches a later writer",
			children: []string{kw2, kr1, kw1},
			want: []row{
				{kw1, W, "H", "H", "", ""},
				{kr1, R, "W", "W", kw2, kw1},
				{kw2, W, "W", "W", kr1, kr1},
			},
		},
		{
			// Once kw1 goes: by sequence kr1 holds, but it waits on kw2,
			// which waits on kr1. The deadlock PRODUCT.md describes.
			name:     "kazoo 2.8 deadlock after the first writer goes",
			children: []string{kr1, kw2},
			want: []row{
				{kr1, R, "H", "W", kw2, ""},
				{kw2, W, "W", "W", kr1, kr1},
			},
		},
		{
			name:     "kazoo readers before any writer hold",
			children: []string{kzRead(hexA, 1), kzRead(hexB, 2)},
			want: []row{
				{kzRead(hexA, 1), R, "H", "H", "", ""},
				{kzRead(hexB, 2), R, "H", "H", "", ""},
			},
		},
		{
			// Kazoo's \d{10} does not match "-000000002": after the wrap,
			// until -1000000000, Kazoo cannot see its own nodes.
			name:     "kazoo after the wrap sees none of its nodes",
			children: []string{kzLock(hexA, -2), kzLock(hexB, -1)},
			want: []row{
				{kzLock(hexA, -2), M, "H", "H", "", ""},
				{kzLock(hexB, -1), M, "W", "H", "", kzLock(hexA, -2)},
			},
			split: []string{kzLock(hexA, -2), kzLock(hexB, -1)},
		},
		{
			// Python's $ also matches before a final newline.
			name:     "kazoo counts a junk name ending in a newline",
			children: []string{kzLock(hexA, 5), "junk__lock__0000000001\n"},
			want:     []row{{kzLock(hexA, 5), M, "H", "W", "junk__lock__0000000001\n", ""}},
			other:    []string{"junk__lock__0000000001\n"},
		},
	}
}

// splitOrderCases are recipes that cannot see each other on one parent:
// split-holders and mixed-recipes.
func splitOrderCases() []orderCase {
	c1, c2 := curMutex(uuidA, 5), curMutex(uuidB, 6)
	M, R, W := KindMutex, KindRead, KindWrite
	return []orderCase{
		{
			// Curator sorts the Kazoo name on its random hex, after every
			// Curator node; Kazoo sees only its own: both hold.
			name:     "curator and kazoo split",
			children: []string{kzLock(hexA, 6), c1},
			want: []row{
				{c1, M, "H", "H", "", ""},
				{kzLock(hexA, 6), M, "W", "H", "", c1},
			},
			split: []string{c1, kzLock(hexA, 6)},
			mixed: []RecipeGroup{{FamilyCuratorMutex, []string{c1}}, {FamilyKazoo, []string{kzLock(hexA, 6)}}},
		},
		{
			name:     "kazoo first, then curator: split the other way round",
			children: []string{kzLock(hexA, 4), c1, c2},
			want: []row{
				{kzLock(hexA, 4), M, "H", "H", "", ""},
				{c1, M, "W", "H", "", kzLock(hexA, 4)},
				{c2, M, "W", "W", c1, c1},
			},
			split: []string{kzLock(hexA, 4), c1},
			mixed: []RecipeGroup{{FamilyCuratorMutex, []string{c1, c2}}, {FamilyKazoo, []string{kzLock(hexA, 4)}}},
		},
		{
			// Each sorts the other's names whole, after its own digits.
			name:     "curator mutex and curator read/write split",
			children: []string{curWrite(uuidA, 1), c1},
			want: []row{
				{curWrite(uuidA, 1), W, "H", "H", "", ""},
				{c1, M, "W", "H", "", curWrite(uuidA, 1)},
			},
			split: []string{curWrite(uuidA, 1), c1},
			mixed: []RecipeGroup{{FamilyCuratorMutex, []string{c1}}, {FamilyCuratorRW, []string{curWrite(uuidA, 1)}}},
		},
		{
			name:     "mixed while only one holds",
			children: []string{"x-a-0000000007", c2, c1},
			want: []row{
				{c1, M, "H", "H", "", ""},
				{c2, M, "W", "W", c1, c1},
				{"x-a-0000000007", M, "W", "W", c2, c2},
			},
			mixed: []RecipeGroup{{FamilyCuratorMutex, []string{c1, c2}}, {FamilyPlain, []string{"x-a-0000000007"}}},
		},
		{
			// Curator sorts "x-a-..." after its digits and takes the lock
			// the plain node holds.
			name:     "plain x- node and curator",
			children: []string{"x-a-0000000004", c1},
			want: []row{
				{"x-a-0000000004", M, "H", "H", "", ""},
				{c1, M, "W", "H", "", "x-a-0000000004"},
			},
			split: []string{"x-a-0000000004", c1},
			mixed: []RecipeGroup{{FamilyCuratorMutex, []string{c1}}, {FamilyPlain, []string{"x-a-0000000004"}}},
		},
		{
			name:     "every family at once",
			children: []string{c1, curRead(uuidB, 2), kzRead(hexA, 3), "x-0000000004", gozkMutex(hexB, 6)},
			want: []row{
				{curRead(uuidB, 2), R, "H", "H", "", ""},
				{kzRead(hexA, 3), R, "H", "H", "", ""},
				{"x-0000000004", M, "W", "W", kzRead(hexA, 3), kzRead(hexA, 3)},
				{c1, M, "W", "H", "", "x-0000000004"},     // sorts its digits before every other name
				{gozkMutex(hexB, 6), M, "W", "W", "", c1}, // fails on "x-0000000004"
			},
			mixed: []RecipeGroup{
				{FamilyCuratorMutex, []string{c1, gozkMutex(hexB, 6)}},
				{FamilyCuratorRW, []string{curRead(uuidB, 2)}},
				{FamilyKazoo, []string{kzRead(hexA, 3)}},
				{FamilyPlain, []string{"x-0000000004"}},
			},
		},
	}
}

// latchOrderCases are Curator's LeaderLatch elections, alone and beside
// other nodes.
func latchOrderCases() []orderCase {
	c2 := curMutex(uuidB, 6)
	M := KindMutex
	return []orderCase{
		{
			// LeaderLatch: the lowest sequence leads, each follower
			// watches the participant before it.
			name:     "curator leader latch, listed out of order",
			children: []string{curLatch(uuidC, 7), curLatch(uuidA, 5), curLatch(uuidB, 6)},
			want: []row{
				{curLatch(uuidA, 5), M, "H", "H", "", ""},
				{curLatch(uuidB, 6), M, "W", "W", curLatch(uuidA, 5), curLatch(uuidA, 5)},
				{curLatch(uuidC, 7), M, "W", "W", curLatch(uuidB, 6), curLatch(uuidB, 6)},
			},
		},
		{
			// LeaderLatch sorts every child by the text after "latch-":
			// "0" before "0000000005", as the mutex does with "lock-".
			name:     "curator latch watching a persistent child that sorts first",
			children: []string{curLatch(uuidA, 5), "0"},
			want:     []row{{curLatch(uuidA, 5), M, "H", "W", "0", ""}},
			other:    []string{"0"},
		},
		{
			// A plain "latch-" node is sorted by its digits: the latch
			// sees it, and it is of the latch's family.
			name:     "curator latch and a plain latch- node see each other",
			children: []string{curLatch(uuidA, 5), "latch-0000000004", curLatch(uuidB, 6)},
			want: []row{
				{"latch-0000000004", M, "H", "H", "", ""},
				{curLatch(uuidA, 5), M, "W", "W", "latch-0000000004", "latch-0000000004"},
				{curLatch(uuidB, 6), M, "W", "W", curLatch(uuidA, 5), curLatch(uuidA, 5)},
			},
		},
		{
			// A lock node on a latch parent: each recipe sorts the other's
			// names whole, after its own digits, so both lead.
			name:     "curator latch and curator mutex split",
			children: []string{c2, curLatch(uuidA, 7)},
			want: []row{
				{c2, M, "H", "H", "", ""},
				{curLatch(uuidA, 7), M, "W", "H", "", c2},
			},
			split: []string{c2, curLatch(uuidA, 7)},
			mixed: []RecipeGroup{{FamilyCuratorMutex, []string{c2}}, {FamilyCuratorLatch, []string{curLatch(uuidA, 7)}}},
		},
	}
}

// The counter wraps from 2147483647 to -2147483648; creation order is
// 2147483646, 2147483647, -2147483648, -2147483647.
func TestOrderAcrossTheWrap(t *testing.T) {
	seqs := []int32{2147483646, 2147483647, -2147483648, -2147483647}
	var names []string
	for _, s := range seqs {
		names = append(names, "lock-"+seqText(s))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 24 {
		shuffled := slices.Clone(names)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		q := Order(shuffled)
		var got []int32
		for _, e := range q.Entries {
			got = append(got, e.Seq)
		}
		if !slices.Equal(got, seqs) {
			t.Fatalf("Order(%q): sequences %d, want %d", shuffled, got, seqs)
		}
		for i := 1; i < len(got); i++ {
			if !SeqLess(got[i-1], got[i]) {
				t.Errorf("SeqLess(%d, %d) false", got[i-1], got[i])
			}
		}
		if h := q.Holders(); len(h) != 1 || h[0].Seq != 2147483646 {
			t.Errorf("holders %v, want the node 2147483646", h)
		}
	}
}

// A naive parser orders -2147483648 before 2147483646. go-zookeeper's
// zk.Lock does: the node created after the wrap believes it holds while
// the node created before it, which took the lock when it was alone,
// still holds. Two holders. Curator's string sort is just as wrong.
func TestNaiveParsingAtTheWrap(t *testing.T) {
	old, young := gozkMutex(hexA, 2147483646), gozkMutex(hexB, -2147483648)

	alone := Order([]string{old})
	if e := alone.Entries[0]; e.Believes != RoleHolder || e.Role != RoleHolder {
		t.Fatalf("alone: %+v, want holder", e)
	}
	q := Order([]string{old, young})
	checkRows(t, q, []row{
		{old, KindMutex, "H", "W", "", ""}, // asked again, zk.Lock fails: no non-negative predecessor
		{young, KindMutex, "W", "H", "", old},
	})
	// What the go-zookeeper client did: old took the lock when alone and
	// keeps it; young believes it holds now. Ours grants only old.
	holding := []string{old, young}
	if h := q.Holders(); len(h) != 1 || h[0].Name != old {
		t.Errorf("Role holders %v, want only %s", h, old)
	}
	t.Logf("go-zookeeper holders at once: %q; ours: %q", holding, q.Holders()[0].Name)

	// Naive signed order picks the wrong head.
	naive := []int32{2147483646, -2147483648}
	slices.Sort(naive)
	if naive[0] != -2147483648 {
		t.Fatal("naive signed sort should put -2147483648 first")
	}
	if q.Entries[0].Seq != 2147483646 {
		t.Errorf("Order's head %d, want 2147483646", q.Entries[0].Seq)
	}

	// Curator compares the digits as text: "-2147483647" < "-2147483648"
	// < "2147483646", so the newest node believes it holds.
	seqs := []int32{2147483646, 2147483647, -2147483648, -2147483647}
	uuids := []string{uuidA, uuidB, uuidC, "6ba7b810-9dad-41d1-80b4-00c04fd430c8"}
	var cur []string
	for i, s := range seqs {
		cur = append(cur, curMutex(uuids[i], s))
	}
	cq := Order(cur)
	var believers []string
	for _, e := range cq.Entries {
		if e.Believes == RoleHolder {
			believers = append(believers, e.Name)
		}
	}
	if !slices.Equal(believers, []string{cur[3]}) || cq.Holders()[0].Name != cur[0] {
		t.Errorf("curator at the wrap: believers %q, holder %q; want believer %q, holder %q", believers, cq.Holders()[0].Name, cur[3], cur[0])
	}
}

func TestOrderIgnoresListingOrderAndRepeats(t *testing.T) {
	children := []string{
		curMutex(uuidA, 9), kzLock(hexA, 3), kzRead(hexB, 4), curRead(uuidB, 5), "leases",
		"lock-0000000003", "x-y-0000000003", gozkMutex(hexC, 1), "0", "lock-0000000003",
	}
	want := Order(children)
	rng := rand.New(rand.NewPCG(3, 4))
	for range 50 {
		c := slices.Clone(children)
		rng.Shuffle(len(c), func(i, j int) { c[i], c[j] = c[j], c[i] })
		if got := Order(c); !reflect.DeepEqual(got, want) {
			t.Fatalf("Order(%q) differs from Order(%q)", c, children)
		}
	}
	if n := len(want.Entries) + len(want.Other); n != len(children)-1 {
		t.Errorf("%d children out, want %d (one repeated)", n, len(children)-1)
	}
	// Equal sequences (garbage) are ordered by name.
	if want.Index("lock-0000000003") > want.Index("x-y-0000000003") {
		t.Error("equal sequences not in name order")
	}
}

func TestQueueAccessors(t *testing.T) {
	q := Order([]string{curRead(uuidA, 1), curRead(uuidB, 2), curWrite(uuidC, 3), kzLock(hexA, 4), "leases"})
	if got := q.Index(curWrite(uuidC, 3)); got != 2 {
		t.Errorf("Index = %d, want 2", got)
	}
	if got := q.Index("leases"); got != -1 {
		t.Errorf("Index(other) = %d, want -1", got)
	}
	if got := len(q.Holders()); got != 2 {
		t.Errorf("%d holders, want 2 readers", got)
	}
	if got := q.Recipes(); !slices.Equal(got, []Recipe{RecipeCurator, RecipeKazoo}) {
		t.Errorf("Recipes = %v", got)
	}
	var empty Ordering
	if empty.Holders() != nil || empty.Recipes() != nil || empty.SplitHolders() != nil || empty.MixedRecipes() != nil || empty.Index("x") != -1 {
		t.Error("empty queue accessors not empty")
	}
}

func TestPredecessorWithout(t *testing.T) {
	w1, r2, r3, w4, r5 := curWrite(uuidA, 1), curRead(uuidB, 2), curRead(uuidC, 3), curWrite(uuidA, 4), curRead(uuidB, 5)
	q := Order([]string{r5, w4, r3, r2, w1, "leases"})
	for _, tc := range []struct {
		own  string
		gone []string
		want string
	}{
		{w4, nil, r3},
		{w4, []string{r3}, r2},
		{w4, []string{r3, r2}, w1},
		{w4, []string{r3, r2, w1}, ""},
		{r5, nil, w4},
		{r5, []string{w4}, w1}, // a reader waits on the nearest writer
		{r5, []string{w4, w1}, ""},
		{r3, []string{w1}, ""},
		{w4, []string{r5}, r3}, // nodes after own change nothing
		{"leases", nil, ""},
		{"absent", nil, ""},
	} {
		if got := q.PredecessorWithout(tc.own, tc.gone...); got != tc.want {
			t.Errorf("PredecessorWithout(%s, %v) = %q, want %q", tc.own, tc.gone, got, tc.want)
		}
	}

	// Against ordering again, on random queues of every kind and recipe:
	// consecutive sequences (some across the wrap), and sequences anywhere
	// on the circle (where deleting a node can move the order's start).
	rng := rand.New(rand.NewPCG(7, 8))
	makers := []func(string, int32) string{
		func(h string, s int32) string { return curMutex(uuidA[:len(uuidA)-8]+h[:8], s) },
		func(h string, s int32) string { return curRead(uuidA[:len(uuidA)-8]+h[:8], s) },
		func(h string, s int32) string { return curWrite(uuidA[:len(uuidA)-8]+h[:8], s) },
		func(h string, s int32) string { return gozkMutex(h, s) },
		func(h string, s int32) string { return curLatch(uuidA[:len(uuidA)-8]+h[:8], s) },
		kzLock, kzRead,
		func(_ string, s int32) string { return "lock-" + seqText(s) },
	}
	for k := range 600 {
		spread := k%2 == 1
		base := int32(rng.Uint32())
		n := 1 + rng.IntN(12)
		var children []string
		for i := range n {
			h := fmt.Sprintf("%032x", rng.Uint64())
			seq := base + int32(i)
			if spread {
				seq = int32(rng.Uint32())
			}
			children = append(children, makers[rng.IntN(len(makers))](h, seq))
		}
		checkPredecessorWithout(t, Order(children), children)
	}
}

func TestDetectStyle(t *testing.T) {
	tests := []struct {
		name     string
		children []string
		want     Style
		mixed    bool
	}{
		{"empty", nil, StyleCurator, false},
		{"only other", []string{"leases"}, StyleCurator, false},
		{"curator", []string{curMutex(uuidA, 1)}, StyleCurator, false},
		{"gozk and plain", []string{gozkMutex(hexA, 1), "lock-0000000002"}, StyleCurator, false},
		{"curator read/write", []string{curRead(uuidA, 1), curWrite(uuidB, 2)}, StyleCurator, false},
		{"plain x-", []string{"x-a-0000000001"}, StyleCurator, false},
		{"kazoo", []string{kzLock(hexA, 1), kzRead(hexB, 2)}, StyleKazoo, false},
		{"mixed", []string{kzLock(hexA, 1), curMutex(uuidA, 2)}, StyleCurator, true},
		{"curator latch", []string{curLatch(uuidA, 1), curLatch(uuidB, 2)}, StyleCurator, false},
		{"latch and lock", []string{curLatch(uuidA, 1), curMutex(uuidB, 2)}, StyleCurator, true},
	}
	for _, tt := range tests {
		got, err := DetectStyle(Order(tt.children))
		if got != tt.want || (err != nil) != tt.mixed || err != nil && !errors.Is(err, ErrMixedRecipes) {
			t.Errorf("%s: DetectStyle = %v, %v; want %v, mixed %v", tt.name, got, err, tt.want, tt.mixed)
		}
	}
}

func TestDetectStyleMessage(t *testing.T) {
	var children []string
	for i := range 10 {
		children = append(children, curMutex(uuidA[:35]+fmt.Sprint(i), int32(i)))
	}
	children = append(children, kzLock(hexA, 20))
	_, err := DetectStyle(Order(children))
	if !errors.Is(err, ErrMixedRecipes) {
		t.Fatalf("DetectStyle: %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"curator-mutex (10): " + children[0], "and 7 more", "kazoo (1): " + kzLock(hexA, 20)} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
}

func TestParseStyle(t *testing.T) {
	for _, s := range []Style{StyleCurator, StyleKazoo} {
		if got, err := ParseStyle(s.String()); err != nil || got != s {
			t.Errorf("ParseStyle(%q) = %v, %v", s.String(), got, err)
		}
	}
	if _, err := ParseStyle("zookeeper"); !errors.Is(err, ErrUnknownStyle) {
		t.Errorf("ParseStyle(zookeeper): %v", err)
	}
}

// Java compares UTF-16 code units: U+FFFF sorts after U+10000 in Go's
// UTF-8 byte order but before it in Java (the surrogate 0xD800 is lower).
// Checked against Curator 5.4.0: the node watches "0\uffff".
func TestCuratorComparesLikeJava(t *testing.T) {
	if javaCompare("\uffff", "\U00010000") <= 0 || strings.Compare("\uffff", "\U00010000") >= 0 {
		t.Fatal("javaCompare does not order as UTF-16")
	}
	if javaCompare("a", "ab") >= 0 || javaCompare("b", "a") <= 0 || javaCompare("é", "é") != 0 {
		t.Fatal("javaCompare basics")
	}
	c := curMutex(uuidA, 1000000018)
	q := Order([]string{c, "0\uffff", "0\U00010000"})
	if e := q.Entries[0]; e.Watches != "0\uffff" {
		t.Errorf("curator node watches %q, want %q", e.Watches, "0\uffff")
	}
}

func TestFamily(t *testing.T) {
	tests := map[string]string{
		curMutex(uuidA, 1):   FamilyCuratorMutex,
		gozkMutex(hexA, 1):   FamilyCuratorMutex,
		"lock-0000000001":    FamilyCuratorMutex,
		"x-lock-0000000001":  FamilyCuratorMutex,
		"0000000001":         FamilyCuratorMutex,
		"lock--1000000000":   FamilyCuratorMutex,
		curRead(uuidA, 1):    FamilyCuratorRW,
		curWrite(uuidA, 1):   FamilyCuratorRW,
		kzLock(hexA, 1):      FamilyKazoo,
		kzRead(hexA, 1):      FamilyKazoo,
		"x-a-0000000001":     FamilyPlain,
		"-0000000001":        FamilyPlain,
		"member--1000000000": FamilyPlain,
		curLatch(uuidA, 1):   FamilyCuratorLatch,
		"latch-0000000001":   FamilyCuratorLatch,
		"x-latch-0000000001": FamilyCuratorLatch,
		"latch-x-0000000001": FamilyPlain,
	}
	for name, want := range tests {
		n, ok := ParseName(name)
		if got := n.Family(); !ok || got != want {
			t.Errorf("Family(%q) = %q (parsed %v), want %q", name, got, ok, want)
		}
	}
	if got := (ParsedName{Name: "leases"}).Family(); got != "" {
		t.Errorf("Family of a non-lock child = %q", got)
	}
}

// benchChildren is a 10,000-node queue: mostly Curator mutex nodes, as a
// busy lock has, plus the parent's other children.
func benchChildren(mixed bool) []string {
	rng := rand.New(rand.NewPCG(5, 6))
	children := []string{"leases", "locks"}
	for i := range 10000 {
		b := make([]byte, 16)
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		h := fmt.Sprintf("%x", b)
		uuid := h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
		seq := int32(2147480000 + i) // crosses the wrap
		switch {
		case mixed && i%4 == 1:
			children = append(children, kzLock(h, seq))
		case mixed && i%4 == 2:
			children = append(children, kzRead(h, seq))
		case mixed && i%4 == 3:
			children = append(children, curRead(uuid, seq))
		default:
			children = append(children, curMutex(uuid, seq))
		}
	}
	rng.Shuffle(len(children), func(i, j int) { children[i], children[j] = children[j], children[i] })
	return children
}

func BenchmarkOrder(b *testing.B) {
	for _, mixed := range []bool{false, true} {
		children := benchChildren(mixed)
		b.Run(fmt.Sprintf("10000/mixed=%v", mixed), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				q := Order(children)
				if len(q.Entries) != 10000 {
					b.Fatal(len(q.Entries))
				}
			}
		})
	}
}
