package zkview

import (
	"testing"
	"unsafe"
)

// TestPathWatchSize holds a pathWatch to 64 bytes, a rootPath to 56 and
// a rootedPath, the two in one allocation, to 120 (size class 128): a
// root keeps one for each of up to a million paths below it (the next
// size class is 144; at ad11d8e they took 96 + 96 bytes in two
// allocations). A pathWatch holds no pointer to its Watcher: the
// Watcher is handed down to what needs it.
func TestPathWatchSize(t *testing.T) {
	for _, c := range []struct {
		name      string
		size, max uintptr
	}{
		{"pathWatch", unsafe.Sizeof(pathWatch{}), 64},
		{"rootPath", unsafe.Sizeof(rootPath{}), 56},
		{"rootedPath", unsafe.Sizeof(rootedPath{}), 120},
	} {
		if c.size > c.max {
			t.Errorf("a %s takes %d bytes, want <= %d", c.name, c.size, c.max)
		}
	}
}
