package layouts

import (
	"slices"
	"testing"

	"github.com/zklock/zklock/systems"
)

// TestKeepFullAfterLive: a full read merged into the live following
// keeps, for each recognition, the view of the read that started last:
// a live read that began after the full read wins (its recognition, or
// its absence), one that began before loses.
func TestKeepFullAfterLive(t *testing.T) {
	rec := func(p, label string) sysRec {
		return sysRec{rec: systems.Recognition{Path: p, System: systems.Kafka, Label: label, Record: p + "/leader"}}
	}
	labels := func(recs []sysRec) []string {
		var out []string
		for _, sr := range recs {
			out = append(out, sr.rec.Path+"="+sr.rec.Label)
		}
		slices.Sort(out)
		return out
	}
	tests := []struct {
		name       string
		live       map[string]uint64 // live keys' tickets
		current    []sysRec          // the state before the full read is kept
		full       []sysRec
		fullTicket uint64
		want       []string
		keys       []string
	}{
		{name: "full read started after the live one", live: map[string]uint64{"/a": 2},
			current: []sysRec{rec("/a", "live")}, full: []sysRec{rec("/a", "full")}, fullTicket: 3,
			want: []string{"/a=full"}, keys: []string{"/a"}},
		{name: "live read started after the full one", live: map[string]uint64{"/a": 4},
			current: []sysRec{rec("/a", "live")}, full: []sysRec{rec("/a", "full"), rec("/b", "full")}, fullTicket: 3,
			want: []string{"/a=live", "/b=full"}, keys: []string{"/a", "/b"}},
		{name: "taken out by a later live read", live: map[string]uint64{"/a": 4},
			full: []sysRec{rec("/a", "full")}, fullTicket: 3,
			want: nil, keys: []string{"/a"}},
		{name: "gone from a later full read", live: map[string]uint64{"/a": 2},
			current: []sysRec{rec("/a", "live")}, fullTicket: 3,
			want: nil, keys: nil},
		{name: "a library recipe is not followed", full: []sysRec{{rec: systems.Recognition{Path: "/q"}}}, fullTicket: 1,
			want: []string{"/q="}, keys: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := newSysLive()
			for k, tk := range tc.live {
				l.keys[k] = &liveKey{ticket: tk}
			}
			st := systemsState{recs: tc.current}
			got := l.keepFullLocked(tc.full, tc.fullTicket, &st)
			if g := labels(got); !slices.Equal(g, tc.want) {
				t.Errorf("kept %v, want %v", g, tc.want)
			}
			var keys []string
			for k := range l.keys {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			if !slices.Equal(keys, tc.keys) {
				t.Errorf("following %v, want %v", keys, tc.keys)
			}
		})
	}
}
