package memberview

import (
	"errors"
	"testing"
)

func TestParseAdminPorts(t *testing.T) {
	members := []string{"zk1:2181", "zk2:2181", "10.0.0.3:2181"}
	tests := []struct {
		in    string
		want  []string // Addr per member
		off   bool
		isErr bool
	}{
		{"", []string{"zk1:8080", "zk2:8080", "10.0.0.3:8080"}, false, false},
		{"0", []string{"", "", ""}, true, false},
		{"9090", []string{"zk1:9090", "zk2:9090", "10.0.0.3:9090"}, false, false},
		{"8081, 8082,8083", []string{"zk1:8081", "zk2:8082", "10.0.0.3:8083"}, false, false},
		{"8081,8082", nil, false, true},
		{"8081,0,8083", nil, false, true},
		{"http", nil, false, true},
		{"70000", nil, false, true},
		{"-1", nil, false, true},
	}
	for _, tt := range tests {
		p, err := ParseAdminPorts(tt.in, len(members))
		if tt.isErr {
			if !errors.Is(err, ErrAdminPort) {
				t.Errorf("ParseAdminPorts(%q) = %v, want ErrAdminPort", tt.in, err)
			}
			continue
		}
		if err != nil || p.Off() != tt.off {
			t.Errorf("ParseAdminPorts(%q) = %v, %v (off %v)", tt.in, p, err, p.Off())
			continue
		}
		for i, m := range members {
			if got := p.Addr(i, m); got != tt.want[i] {
				t.Errorf("ParseAdminPorts(%q).Addr(%d) = %q, want %q", tt.in, i, got, tt.want[i])
			}
		}
	}
	if p, _ := ParseAdminPorts("", 1); !p.Default() || p.String() != "8080" {
		t.Errorf("the default: %v (Default %v)", p, p.Default())
	}
	if p, _ := ParseAdminPorts("1,2", 2); p.Default() || p.String() != "1,2" {
		t.Errorf("String = %q", p.String())
	}
}
