package doctor

import (
	"strings"
	"testing"
)

// TestZxidLine: doctor's zxid line splits the zxid and warns past
// 90% of the counter, not before.
func TestZxidLine(t *testing.T) {
	tests := []struct {
		z    int64
		want string
		warn bool
	}{
		{0x5000001a3, "0x5000001a3: epoch 5, counter 419, 0.0% of the way to its rollover", false},
		{0x2_e0000000, "0x2e0000000: epoch 2, counter 3758096384, 87.5% of the way to its rollover", false},
		{0x2_fff00000, "0x2fff00000: epoch 2, counter 4293918720, 100.0% of the way to its rollover (WARNING: past 90%", true},
	}
	for _, tt := range tests {
		line := zxidOf(tt.z).line()
		if !strings.HasPrefix(line, tt.want) || strings.Contains(line, "WARNING") != tt.warn {
			t.Errorf("zxid %#x: %q, want %q (warning %v)", tt.z, line, tt.want, tt.warn)
		}
	}
	if zxidOf(-1) != nil {
		t.Error("no zxid from srvr: want none shown")
	}
}
