package zkview

import "testing"

func TestSemaphoreLimitConfig(t *testing.T) {
	base := Options{Paths: []string{"/s"}}
	for _, tt := range []struct {
		limits map[string]int
		ok     bool
	}{
		{nil, true},
		{map[string]int{"/s": 3}, true},
		{map[string]int{"/s": 0}, false},
		{map[string]int{"s": 2}, false},
	} {
		c := base
		c.SemaphoreLimits = tt.limits
		if _, err := c.withDefaults(); (err == nil) != tt.ok {
			t.Errorf("limits %v: err %v", tt.limits, err)
		}
	}
}

func TestElectionsConfig(t *testing.T) {
	if _, err := (Options{Paths: []string{"/a"}, Elections: []string{"svc"}}).withDefaults(); err == nil {
		t.Error("a relative election path was accepted")
	}
	c, err := Options{Paths: []string{"/a"}, Elections: []string{"/svc/leader"}}.withDefaults()
	if err != nil || !c.isElection("/svc/leader") || c.isElection("/svc") {
		t.Errorf("isElection: %v", err)
	}
}
