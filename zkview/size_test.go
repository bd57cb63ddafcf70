package zkview

import (
	"testing"
	"unsafe"
)

// TestPathWatchSize holds a pathWatch to 72 bytes, a rootPath to 56 and
// a rootedPath, the two in one allocation, to 128: a root keeps one for
// each of up to a million paths below it (the next size class is 144;
// at ad11d8e they took 96 + 96 bytes in two allocations).
func TestPathWatchSize(t *testing.T) {
	for _, c := range []struct {
		name      string
		size, max uintptr
	}{
		{"pathWatch", unsafe.Sizeof(pathWatch{}), 72},
		{"rootPath", unsafe.Sizeof(rootPath{}), 56},
		{"rootedPath", unsafe.Sizeof(rootedPath{}), 128},
	} {
		if c.size > c.max {
			t.Errorf("a %s takes %d bytes, want <= %d", c.name, c.size, c.max)
		}
	}
}
