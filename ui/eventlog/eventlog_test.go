package eventlog

import "testing"

func TestEventTextNamesNodesBySequence(t *testing.T) {
	cur := func(seq string) string { return "_c_2c21be4a-33c3-4b55-936d-1b80f70a93cd-lock-" + seq }
	for _, tc := range []struct{ in, want string }{
		{cur("0000000007") + " gone → " + cur("0000000008") + " holds after 3.1ms", "#7 gone → #8 holds after 3.1ms"},
		{cur("0000000014") + " deleted (held 1.4s); wakes " + cur("0000000015"), "#14 deleted (held 1.4s); wakes #15"},
		{"4d88fb6f17385afc903bb1dca3bd7269__lock__0000000025 created (kazoo mutex): waits", "#25 created (kazoo mutex): waits"},
		{"split-holders: (" + cur("0000000004") + "), x", "split-holders: (#4), x"},
		{cur("-2147483648") + ": wrapped", "#-2147483648: wrapped"},
		{"listed /demo/locks/billing: 3 lock nodes, session 0x100011fde1c0001", "listed /demo/locks/billing: 3 lock nodes, session 0x100011fde1c0001"},
		{"leases and locks are other children", "leases and locks are other children"},
		{"3 sessions watch 0000000041", "3 sessions watch 0000000041"},
		{"lock-0000000007 deleted", "#7 deleted"},
	} {
		if got := NodeRefs(tc.in); got != tc.want {
			t.Errorf("nodeRefs(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}
