package lockops

import (
	"testing"
	"unsafe"
)

// TestEntrySize holds an ordering's Entry to 80 bytes: a watched root
// keeps one for each lock node of up to a million parents (the next size
// class is 96).
func TestEntrySize(t *testing.T) {
	if n := unsafe.Sizeof(Entry{}); n > 80 {
		t.Errorf("an Entry takes %d bytes, want <= 80", n)
	}
}
