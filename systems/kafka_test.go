package systems

import (
	"slices"
	"testing"
)

// TestKafkaController builds the layouts of layouts_test.go
// (ZkData.scala:57-172, KafkaZkClient.scala:103-160) and their
// look-alikes.
func TestKafkaController(t *testing.T) {
	tests := []struct {
		name     string
		specs    []spec
		path     string
		want     []string // roles; nil: not recognised
		label    string
		findings []string
	}{
		{name: "chroot, controller registered", specs: kafkaLayout("/kafka1", []int{1, 2, 3}, 2, 1),
			path: "/kafka1/controller", want: []string{"broker 2:holder"}, label: "kafka controller"},
		{name: "root chroot", specs: kafkaLayout("", []int{5}, 5, 0),
			path: "/controller", want: []string{"broker 5:holder"}, label: "kafka controller"},
		{name: "controller's broker gone", specs: kafkaLayout("/k", []int{1, 2}, 3, 0),
			path: "/k/controller", want: []string{"broker 3:holder"}, label: "kafka controller",
			findings: []string{"leader-mismatch: broker 3 / registered brokers 1,2"}},
		{name: "no broker registered", specs: kafkaLayout("/k", nil, 1, 0),
			path: "/k/controller", want: []string{"broker 1:holder"}, label: "kafka controller"},
		{name: "kraft controller in a migration is not a broker",
			specs: append(kafkaLayout("/k", []int{1}, -1, 0),
				ephemeral("/k/controller", 0, kafkaControllerJSON(3000, 5))),
			path: "/k/controller", want: []string{"kraft controller 3000:holder"}, label: "kafka controller (kraft)"},
		{name: "persistent controller is not Kafka's",
			specs: append(kafkaLayout("/k", []int{1}, -1, 0), persistent("/k/controller", kafkaControllerJSON(1, -1))),
			path:  "/k/controller"},
		{name: "no brokerid", specs: []spec{persistent("/k/controller_epoch", []byte("1")),
			ephemeral("/k/controller", 0, []byte(`{"version":1,"leader":"x"}`))}, path: "/k/controller"},
		{name: "brokerid but nothing beside it",
			specs: []spec{ephemeral("/app/controller", 0, kafkaControllerJSON(1, -1))}, path: "/app/controller"},
		{name: "not JSON", specs: []spec{persistent("/k/controller_epoch", []byte("1")),
			ephemeral("/k/controller", 0, []byte("broker-1"))}, path: "/k/controller"},
		{name: "another name", specs: kafkaLayout("/k", []int{1}, 1, 0), path: "/k/controller_epoch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree := mem(tt.specs...)
			if tt.name == "no broker registered" {
				tree.Put("/k/brokers/ids", NodeInfo{})
				tt.findings = []string{"leader-mismatch: broker 1 / no broker registered"}
			}
			rec, ok := Recognize(tree, tt.path)
			if tt.want == nil {
				if ok {
					t.Fatalf("recognised as %s %q", rec.System, rec.Label)
				}
				return
			}
			if !ok || rec.System != Kafka || rec.Type != TypeElection || rec.Label != tt.label {
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

// TestKafkaFindingKey: the key stays while the disagreement lasts and
// changes with either side, so the caller's 10 s clock restarts.
func TestKafkaFindingKey(t *testing.T) {
	key := func(ids []int, controller int) string {
		rec := recognizeOne(t, mem(kafkaLayout("/k", ids, controller, 0)...), "/k/controller")
		if len(rec.Findings) != 1 {
			t.Fatalf("findings %q", findings(rec))
		}
		return rec.Findings[0].Key
	}
	a, b := key([]int{1, 2}, 3), key([]int{1, 2}, 3)
	if a != b {
		t.Errorf("same disagreement, keys %q and %q", a, b)
	}
	if c := key([]int{1, 2}, 4); c == a {
		t.Errorf("another controller, same key %q", c)
	}
	if c := key([]int{1}, 3); c == a {
		t.Errorf("other registrations, same key %q", c)
	}
}
