package queue

import "github.com/zklock/zklock/model"

// namesQ lists q's node names in queue order.
func namesQ(q *model.Queue) []string {
	if q == nil {
		return nil
	}
	out := make([]string, q.Nodes.Len())
	for i, n := range q.Nodes.All() {
		out[i] = n.Name
	}
	return out
}

// hasWarningQ is q's warning of code, or nil.
func hasWarningQ(q *model.Queue, code string) *model.Warning {
	if q == nil {
		return nil
	}
	for i := range q.Warnings {
		if q.Warnings[i].Code == code {
			return &q.Warnings[i]
		}
	}
	return nil
}
