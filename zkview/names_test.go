package zkview

import "testing"

func TestNodeRef(t *testing.T) {
	for _, tt := range []struct{ name, want string }{
		{"_c_6a3f0a1e-2b4c-4d5e-8f90-1a2b3c4d5e6f-lock-0000000007", "#7"},
		{"0123456789abcdef0123456789abcdef__rlock__0000000042", "#42"},
		{"lock--000000001", "#-1"},
		// A Kazoo semaphore lease: random hex that happens to end in ten
		// digits is not a sequence.
		{"abcdef01234567890123456789012345", "abcdef01234567890123456789012345"},
		{"leases", "leases"},
		{"bad\x1b[2Jname", `bad\x1b[2Jname`},
	} {
		if got := NodeRef(tt.name, 0); got != tt.want {
			t.Errorf("NodeRef(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
	if got := SessionHex(0x100009311fa0000); got != "0x100009311fa0000" {
		t.Errorf("SessionHex = %q", got)
	}
	if SessionHex(0) != "" {
		t.Error("SessionHex(0) is not empty")
	}
}
