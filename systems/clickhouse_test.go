package systems

import (
	"slices"
	"testing"
)

// TestClickHouseElection builds LeaderElection.h's three eras
// (checkNoOldLeaders: persistent_multiple_leaders, suffix).
func TestClickHouseElection(t *testing.T) {
	const p = "/clickhouse/tables/01/hits/leader_election"
	tests := []struct {
		name  string
		specs []spec
		want  []string
		multi bool
	}{
		{"persistent multi-leader marker (21.12+)", []spec{persistent(p+"/leader_election-0", []byte(chAllLeads))},
			[]string{"all:holder"}, true},
		{"20.6-21.12: every replica leads", []spec{
			ephSeq(p+"/leader_election-", 0, []byte("replica1"+chSuffix)),
			ephSeq(p+"/leader_election-", 1, []byte("replica2"+chSuffix))},
			[]string{"replica1:holder", "replica2:holder"}, true},
		{"marker beside old nodes", []spec{
			ephSeq(p+"/leader_election-", 0, []byte("replica1"+chSuffix)),
			persistent(p+"/leader_election-0", []byte(chAllLeads))},
			[]string{"all:holder", "replica1:holder"}, true},
		{"before 20.6: the smallest leads", []spec{
			ephSeq(p+"/leader_election-", 0, []byte("replica1")),
			ephSeq(p+"/leader_election-", 1, []byte("replica2"))},
			[]string{"replica1:holder", "replica2:waiting"}, false},
		{"look-alike names", []spec{ephSeq(p+"/election-", 0, []byte("x"))}, nil, false},
		{"persistent without the marker's data", []spec{persistent(p+"/leader_election-0", []byte("all"))}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, ok := Recognize(mem(tt.specs...), p)
			if tt.want == nil {
				if ok {
					t.Fatalf("recognised as %s %q", rec.System, rec.Label)
				}
				return
			}
			if !ok || rec.System != ClickHouse || rec.Label != "clickhouse hits" || rec.MultiLeader != tt.multi {
				t.Fatalf("got %v %+v", ok, rec)
			}
			if got := roles(rec); !slices.Equal(got, tt.want) {
				t.Errorf("roles %q, want %q", got, tt.want)
			}
		})
	}
}
