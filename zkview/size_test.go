package zkview

import (
	"testing"
	"unsafe"
)

// TestPathWatchSize holds a pathWatch to 64 bytes, a rootPath to 48 and
// a rootedPath, the two in one allocation, to 112 (a size class): a
// root keeps one for each of up to a million paths below it (the next
// size class is 128; at ad11d8e they took 96 + 96 bytes in two
// allocations). Neither holds a pointer to its Watcher, nor a
// recursiveWatch to its path: they are handed down to what needs them.
func TestPathWatchSize(t *testing.T) {
	for _, c := range []struct {
		name      string
		size, max uintptr
	}{
		{"pathWatch", unsafe.Sizeof(pathWatch{}), 64},
		{"rootPath", unsafe.Sizeof(rootPath{}), 48},
		{"rootedPath", unsafe.Sizeof(rootedPath{}), 112},
	} {
		if c.size > c.max {
			t.Errorf("a %s takes %d bytes, want <= %d", c.name, c.size, c.max)
		}
	}
}
