package zkview

import (
	"testing"
	"unsafe"
)

// TestPathWatchSize holds a pathWatch to 96 bytes and a rootPath to 96: a
// root keeps one of each for each of up to a million paths below it (the
// next size class is 112).
func TestPathWatchSize(t *testing.T) {
	for _, c := range []struct {
		name string
		size uintptr
	}{
		{"pathWatch", unsafe.Sizeof(pathWatch{})},
		{"rootPath", unsafe.Sizeof(rootPath{})},
	} {
		if c.size > 96 {
			t.Errorf("a %s takes %d bytes, want <= 96", c.name, c.size)
		}
	}
}
