package systems

import (
	"slices"
	"testing"
)

// TestHadoopElector builds ActiveStandbyElector's layout
// (ActiveStandbyElector.java: createLockNodeAsync, writeBreadCrumbNode;
// HAZKInfo.proto) through a failover.
func TestHadoopElector(t *testing.T) {
	nn1 := hadoopNN("ns1", "nn1", "nn1.example", 8020, 8019)
	nn2 := hadoopNN("ns1", "nn2", "nn2.example", 8020, 8019)
	const dir = "/hadoop-ha/ns1"
	tests := []struct {
		name     string
		specs    []spec
		want     []string
		label    string
		findings []string
		unknown  bool
	}{
		{name: "active and fenced", specs: []spec{ephemeral(dir+"/ActiveStandbyElectorLock", 0, nn1), persistent(dir+"/ActiveBreadCrumb", nn1)},
			want: []string{"nn1 nn1.example:8020:holder"}, label: "hdfs ns1"},
		{name: "new active not yet fenced: breadcrumb lags", specs: []spec{persistent(dir+"/ActiveBreadCrumb", nn1), ephemeral(dir+"/ActiveStandbyElectorLock", 1, nn2)},
			want: []string{"nn2 nn2.example:8020:holder"}, label: "hdfs ns1",
			findings: []string{"leader-mismatch: nn1 nn1.example:8020 / nn2 nn2.example:8020"}},
		{name: "first active before its breadcrumb", specs: []spec{ephemeral(dir+"/ActiveStandbyElectorLock", 0, nn1)},
			want: []string{"nn1 nn1.example:8020:holder"}, label: "hdfs ns1",
			findings: []string{"leader-mismatch:  / nn1 nn1.example:8020"}},
		{name: "no active: the breadcrumb waits to be fenced", specs: []spec{persistent(dir+"/ActiveBreadCrumb", nn1)},
			label: "hdfs ns1"},
		{name: "yarn", specs: []spec{ephemeral("/yarn-leader-election/c1/ActiveStandbyElectorLock", 0, hadoopRM("c1", "rm1")),
			persistent("/yarn-leader-election/c1/ActiveBreadCrumb", hadoopRM("c1", "rm1"))},
			want: []string{"rm1:holder"}, label: "yarn c1"},
		{name: "persistent lock", specs: []spec{persistent(dir+"/ActiveStandbyElectorLock", nn1)}, unknown: true},
		{name: "not protobuf", specs: []spec{ephemeral(dir+"/ActiveStandbyElectorLock", 0, []byte("nn1.example:8020"))}, unknown: true},
		{name: "ephemeral breadcrumb", specs: []spec{ephemeral(dir+"/ActiveBreadCrumb", 0, nn1)}, unknown: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := dir
			if tt.label == "yarn c1" {
				p = "/yarn-leader-election/c1"
			}
			rec, ok := Recognize(mem(tt.specs...), p)
			if tt.unknown {
				if ok {
					t.Fatalf("recognised as %s %q", rec.System, rec.Label)
				}
				return
			}
			if !ok || rec.System != HadoopHA || rec.Label != tt.label {
				t.Fatalf("got %v %+v", ok, rec)
			}
			if got := roles(rec); !slices.Equal(got, tt.want) {
				t.Errorf("roles %q, want %q", got, tt.want)
			}
			if got := findings(rec); !slices.Equal(got, tt.findings) {
				t.Errorf("findings %q, want %q", got, tt.findings)
			}
		})
	}
}
