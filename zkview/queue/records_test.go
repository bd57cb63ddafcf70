package queue

import (
	"fmt"
	"maps"
	"testing"
)

// TestRecords checks Records against a map through adds, replacements and
// deletes that cross fewRecords both ways.
func TestRecords(t *testing.T) {
	for _, n := range []int{0, 1, 2, fewRecords, fewRecords + 1, 3 * fewRecords} {
		rs, want := recordsFor(n/2), map[string]*Record{}
		for i := range n {
			name := fmt.Sprintf("lock-%010d", i%(n/2+1))
			r := &Record{Version: int32(i)}
			rs.Set(name, r)
			want[name] = r
			if i%3 == 2 {
				gone := fmt.Sprintf("lock-%010d", i/3)
				rs.Delete(gone)
				delete(want, gone)
			}
		}
		if rs.Len() != len(want) {
			t.Errorf("n=%d: Len %d, want %d", n, rs.Len(), len(want))
		}
		if got := maps.Collect(rs.All()); !maps.Equal(got, want) {
			t.Errorf("n=%d: All %v, want %v", n, got, want)
		}
		for name, r := range want {
			if got, ok := rs.Get(name); !ok || got != r {
				t.Errorf("n=%d: Get(%s) = %p %v, want %p", n, name, got, ok, r)
			}
		}
		if r, ok := rs.Get("lock-9999999999"); ok || r != nil || rs.Of("lock-9999999999") != nil {
			t.Errorf("n=%d: a name never set has a record", n)
		}
	}
}
