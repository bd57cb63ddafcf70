package lockops

import (
	"errors"
	"testing"
)

func TestValidPath(t *testing.T) {
	good := []string{"/", "/locks", "/locks/job-1", "/a b/ü", "/zookeeper"}
	bad := []string{"", "locks", "/locks/", "/a//b", "/a/./b", "/a/..", "/a\x00b", "/a\x1bb", "/a\u0085"}
	for _, p := range good {
		if err := ValidPath(p); err != nil {
			t.Errorf("ValidPath(%q) = %v, want nil", p, err)
		}
	}
	for _, p := range bad {
		if err := ValidPath(p); !errors.Is(err, ErrBadPath) {
			t.Errorf("ValidPath(%q) = %v, want ErrBadPath", p, err)
		}
	}
}
