package model

import (
	"encoding/json"
	"testing"
	"time"
)

func TestHealth(t *testing.T) {
	at := time.Date(2026, 12, 1, 22, 47, 0, 0, time.UTC)
	tests := []struct {
		name     string
		h        Health
		tooLong  bool
		text     string
		jsonText string
	}{
		{"no member tells", Health{At: at}, false, "", `{}`},
		{"healthy", Health{Member: "zk1:2181", Heard: at.Add(-2 * time.Second), Timeout: 30 * time.Second,
			Expires: at.Add(28500 * time.Millisecond), At: at}, false, "",
			`{"member":"zk1:2181","silent_s":2,"timeout_s":30,"expires_in_s":28.5}`},
		{"silent past half its timeout", Health{Member: "zk2:2181", Heard: at.Add(-14300 * time.Millisecond), Timeout: 20 * time.Second,
			Expires: at.Add(15200 * time.Millisecond), At: at}, true, "silent 14s · expires ≤16s",
			`{"member":"zk2:2181","silent_s":14.3,"timeout_s":20,"expires_in_s":15.2}`},
		{"exactly half is not yet", Health{Member: "m", Heard: at.Add(-15 * time.Second), Timeout: 30 * time.Second, At: at}, false, "",
			`{"member":"m","silent_s":15,"timeout_s":30}`},
		{"due: expires 0", Health{Member: "m", Heard: at.Add(-31 * time.Second), Timeout: 30 * time.Second, Expires: at.Add(-time.Second), At: at},
			true, "silent 31s · expires ≤0s", `{"member":"m","silent_s":31,"timeout_s":30,"expires_in_s":0}`},
		{"a member with no clock tie", Health{Member: "m\x1b", Timeout: 30 * time.Second, At: at}, false, "",
			`{"member":"m\\x1b","timeout_s":30}`},
	}
	for _, tt := range tests {
		if got := tt.h.SilentTooLong(at); got != tt.tooLong {
			t.Errorf("%s: SilentTooLong = %v", tt.name, got)
		}
		if got := tt.h.Text(at); got != tt.text {
			t.Errorf("%s: Text = %q, want %q", tt.name, got, tt.text)
		}
		b, _ := json.Marshal(tt.h.JSON())
		if string(b) != tt.jsonText {
			t.Errorf("%s: JSON = %s, want %s", tt.name, b, tt.jsonText)
		}
		var n Node
		n.SetHealth(tt.h)
		if n.Health() != tt.h {
			t.Errorf("%s: Node.Health = %+v after SetHealth", tt.name, n.Health())
		}
	}
	var n Node
	n.SetHealth(Health{Member: "m"})
	n.SetHealth(Health{})
	if n.rare != nil {
		t.Errorf("clearing Health left rare fields %+v", n.rare)
	}
}
