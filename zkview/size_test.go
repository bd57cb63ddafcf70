package zkview

import (
	"testing"
	"unsafe"
)

// TestPathWatchSize holds a pathWatch and a rootPath to 80 bytes each and
// a rootedPath, the two in one allocation, to 160: a root keeps one for
// each of up to a million paths below it (the next size class is 176).
func TestPathWatchSize(t *testing.T) {
	for _, c := range []struct {
		name      string
		size, max uintptr
	}{
		{"pathWatch", unsafe.Sizeof(pathWatch{}), 80},
		{"rootPath", unsafe.Sizeof(rootPath{}), 80},
		{"rootedPath", unsafe.Sizeof(rootedPath{}), 160},
	} {
		if c.size > c.max {
			t.Errorf("a %s takes %d bytes, want <= %d", c.name, c.size, c.max)
		}
	}
}
