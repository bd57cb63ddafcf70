package model

import "testing"

func TestGrouped(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{
		{0, "0"}, {7, "7"}, {999, "999"}, {1000, "1,000"}, {41203, "41,203"},
		{98000, "98,000"}, {1000000, "1,000,000"}, {-1234, "-1,234"}, {-12, "-12"},
	} {
		if got := Grouped(tc.n); got != tc.want {
			t.Errorf("Grouped(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestDiscoveryText(t *testing.T) {
	one := Discovery{Root: "/locks", Read: 41203, Found: 98000}
	for _, tc := range []struct {
		ds   []Discovery
		want string
	}{
		{nil, ""},
		{[]Discovery{one}, "discovering /locks: 41,203 of 98,000 read"},
		{[]Discovery{one, {Root: "/b", Read: 1, Found: 2}}, "discovering /locks: 41,203 of 98,000 read (2 roots)"},
		{[]Discovery{{Root: "/x\x1b[31m", Read: 0, Found: 1}}, "discovering /x\\x1b[31m: 0 of 1 read"},
	} {
		if got := DiscoveryText(tc.ds); got != tc.want {
			t.Errorf("DiscoveryText(%v) = %q, want %q", tc.ds, got, tc.want)
		}
	}
}
