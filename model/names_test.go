package model

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

func TestConfirmToken(t *testing.T) {
	for _, tt := range []struct {
		name, what, token string
		yes, no           []string
	}{
		{"_c_3f2a1b9c-5d4e-4f60-8a7b-1c2d3e4f5a6b-lock-0000000041", "sequence number", "41", []string{"41", " 0000000041 "}, []string{"42", "", "41x"}},
		{"lock--000000001", "sequence number", "-1", []string{"-1"}, []string{"1"}},
		// A Kazoo lease: 32 hex, no sequence, though it ends in digits.
		{"0123456789abcdef0123456789123456", "last 4 characters of its name", "3456", []string{"3456"}, []string{"123456", "0"}},
	} {
		what, token := ConfirmToken(tt.name)
		if what != tt.what || token != tt.token {
			t.Errorf("ConfirmToken(%q) = %q %q, want %q %q", tt.name, what, token, tt.what, tt.token)
		}
		for _, y := range tt.yes {
			if !Confirms(tt.name, y) {
				t.Errorf("Confirms(%q, %q) = false", tt.name, y)
			}
		}
		for _, n := range tt.no {
			if Confirms(tt.name, n) {
				t.Errorf("Confirms(%q, %q) = true", tt.name, n)
			}
		}
	}
}
