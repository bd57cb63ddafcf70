package systems

import (
	"encoding/binary"
	"fmt"
	"path"
	"testing"
)

// pbPut appends field n to b: a varint for a uint64, length-delimited
// for a string or []byte. The tests build the systems' bytes with it.
func pbPut(b []byte, n int, v any) []byte {
	switch v := v.(type) {
	case uint64:
		b = binary.AppendUvarint(b, uint64(n)<<3)
		return binary.AppendUvarint(b, v)
	case string:
		return pbPut(b, n, []byte(v))
	case []byte:
		b = binary.AppendUvarint(b, uint64(n)<<3|2)
		b = binary.AppendUvarint(b, uint64(len(v)))
		return append(b, v...)
	}
	panic("pbPut: unsupported type")
}

// spec is one node of a system's layout, as the system's source creates
// it: built once, then put into a MemTree (pure tests) or created on a
// real server (integration tests).
type spec struct {
	// path is the node's path; for a sequential node, the path prefix the
	// server appends the sequence to.
	path  string
	data  []byte
	eph   bool // ephemeral, owned by sessions[owner]
	seq   bool // sequential
	owner int
}

func persistent(p string, data []byte) spec { return spec{path: p, data: data} }
func ephemeral(p string, owner int, data []byte) spec {
	return spec{path: p, data: data, eph: true, owner: owner}
}
func ephSeq(prefix string, owner int, data []byte) spec {
	return spec{path: prefix, data: data, eph: true, seq: true, owner: owner}
}

// fakeSessions are the session ids the pure tests own nodes with: large
// enough to look like a server's, the first above 2^63 once signed.
var fakeSessions = []int64{0x10000a1b2c30001, 0x10000a1b2c30002, 0x10000a1b2c30003, -0x7ffff5e4d3cffffc}

// memBuild puts specs into t as a server would: a sequential node gets
// the parent's next child counter as %010d, shared by every child made
// under that parent (FACTS.md), and czxid grows with every create. It
// returns the paths made, in spec order.
func memBuild(t *MemTree, sessions []int64, specs ...spec) []string {
	var made []string
	for _, s := range specs {
		p := s.path
		if s.seq {
			parent := path.Dir(p)
			p = fmt.Sprintf("%s%010d", p, memCounter(t, parent))
		}
		var owner int64
		if s.eph {
			owner = sessions[s.owner]
		}
		memZxid++
		t.Put(p, NodeInfo{Data: s.data, EphemeralOwner: owner, Czxid: memZxid, Ctime: memZxid})
		made = append(made, p)
	}
	return made
}

var (
	memZxid     int64
	memCounters = map[*MemTree]map[string]int{}
)

// memCounter is parent's child counter (cversion), which only grows.
func memCounter(t *MemTree, parent string) int {
	if memCounters[t] == nil {
		memCounters[t] = map[string]int{}
	}
	c := memCounters[t][parent]
	memCounters[t][parent] = c + 1
	return c
}

// mem builds a fresh MemTree from specs with the fake sessions.
func mem(specs ...spec) *MemTree {
	t := NewMemTree()
	memBuild(t, fakeSessions, specs...)
	return t
}

// recognizeOne recognises p or fails the test.
func recognizeOne(t *testing.T, tree Tree, p string) Recognition {
	t.Helper()
	rec, ok := Recognize(tree, p)
	if !ok {
		t.Fatalf("%s not recognised", p)
	}
	return rec
}

// roles lists each participant as "identity:role" in order, the form the
// tables compare.
func roles(r Recognition) []string {
	var out []string
	for _, p := range r.Participants {
		out = append(out, p.Identity+":"+p.Role.String())
	}
	return out
}

// codes lists the findings' codes with what each side says.
func findings(r Recognition) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.Code+": "+f.RecordSays+" / "+f.ElectionSays)
	}
	return out
}
