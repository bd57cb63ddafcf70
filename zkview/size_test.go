package zkview

import (
	"testing"
	"unsafe"
)

// TestPathWatchSize holds a pathWatch and a rootPath to 72 bytes each and
// a rootedPath, the two in one allocation, to 144: a root keeps one for
// each of up to a million paths below it (the next size class is 160;
// at ad11d8e they took 96 + 96 bytes in two allocations).
func TestPathWatchSize(t *testing.T) {
	for _, c := range []struct {
		name      string
		size, max uintptr
	}{
		{"pathWatch", unsafe.Sizeof(pathWatch{}), 72},
		{"rootPath", unsafe.Sizeof(rootPath{}), 72},
		{"rootedPath", unsafe.Sizeof(rootedPath{}), 144},
	} {
		if c.size > c.max {
			t.Errorf("a %s takes %d bytes, want <= %d", c.name, c.size, c.max)
		}
	}
}
