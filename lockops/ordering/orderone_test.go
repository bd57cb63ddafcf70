package ordering

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// oneNames are single children of every shape: each recipe's names at
// the counter's edges, and every name of the FuzzOrder seeds (garbage,
// Unicode digits, wrapped counters, Kazoo's nine-digit names).
func oneNames(t *testing.T) []string {
	t.Helper()
	var names []string
	for _, s := range []int32{0, 5, -1, 2147483647, -2147483648} {
		names = append(names, curMutex(uuidA, s), curRead(uuidA, s), curWrite(uuidA, s), curLatch(uuidA, s),
			gozkMutex(hexA, s), kzLock(hexA, s), kzRead(hexA, s), "lock-"+seqText(s), "member-"+seqText(s))
	}
	names = append(names, "", "leases", "lock-٠٠٠٠٠٠٠٠٠١", hexA+"__lock__-000000001", kzLock(hexA, 3)+"\n",
		"_c_"+uuidA+"-__WRIT__-__READ__0000000001", "_c_"+uuidA+"-__READ__-lock-0000000002")
	seeds, err := filepath.Glob("testdata/fuzz/FuzzOrder/*")
	if err != nil || len(seeds) == 0 {
		t.Fatalf("no FuzzOrder seeds: %v", err)
	}
	for _, f := range seeds {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, arg, _ := strings.Cut(strings.TrimSpace(string(b)), "\nstring(")
		list, err := strconv.Unquote(strings.TrimSuffix(arg, ")"))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		names = append(names, strings.Split(list, "\n")...)
	}
	return names
}

// TestOrderOneAsMany: the ordering of a single child (orderOne, what
// zkview derives a lone lock parent's order with) is the general path's,
// with the replays and without, and a lone lock node watches nothing.
func TestOrderOneAsMany(t *testing.T) {
	for _, name := range oneNames(t) {
		for _, replays := range []bool{true, false} {
			got, want := orderOne(name, replays), orderMany([]string{name}, replays)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%q (replays %v): one %+v, want %+v", name, replays, got, want)
			}
			if got.Shaped() != want.Shaped() {
				t.Errorf("%q (replays %v): shaped %v, want %v", name, replays, got.Shaped(), want.Shaped())
			}
		}
		if q := Order([]string{name}); len(q.Entries) == 1 && q.Entries[0].Watches != "" {
			t.Errorf("%q alone watches %q", name, q.Entries[0].Watches)
		}
	}
}
