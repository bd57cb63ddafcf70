package ordering

import (
	"testing"
	"unsafe"
)

// TestEntrySize holds an ordering's Entry to 64 bytes: a watched root
// keeps one for each lock node of up to a million parents (the next size
// class is 80).
func TestEntrySize(t *testing.T) {
	if n := unsafe.Sizeof(Entry{}); n > 64 {
		t.Errorf("an Entry takes %d bytes, want <= 64", n)
	}
}
