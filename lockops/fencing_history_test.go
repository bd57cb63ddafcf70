package lockops

// Histories for the linearizability checker (porcupine): what the clients
// of a lock did, with a monotonic clock of this process, and the models
// they are checked against. fencing_nemesis_test.go records them under
// faults.
//
// Three models:
//   - mutexModel: acquire and release of one lock; at most one holder at
//     any linearization point. A hold ends with its Release, or with a
//     loss, recorded when the holder learned it (its Done closed): the
//     lock core's own view, which the lock must keep exclusive.
//   - counterModel: increments of a shared register (read v, write v+1)
//     done under the lock, unfenced: linearizable only if no two holders'
//     increments interleave, which the lock alone cannot promise to a
//     holder that was paused between its read and its write.
//   - fencedModel: the same increments through a resource that refuses a
//     token lower than the highest it has seen (on reads and writes): an
//     accepted increment carries a token no lower than any accepted
//     before it; a refused one changes nothing.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// history is a recording of operations, its times nanoseconds since
// origin on this process's monotonic clock.
type history struct {
	origin time.Time
	wall   bool // timed by the wall clock (newWallHistory, history_peers_test.go)
	mu     sync.Mutex
	ops    []porcupine.Operation
}

func newHistory() *history { return &history{origin: time.Now()} }

func (h *history) now() int64 {
	if h.wall {
		return h.at(time.Now())
	}
	return int64(time.Since(h.origin))
}

func (h *history) add(client int, in, out any, call, ret int64) {
	h.mu.Lock()
	h.ops = append(h.ops, porcupine.Operation{ClientId: client, Input: in, Output: out, Call: call, Return: ret})
	h.mu.Unlock()
}

func (h *history) operations() []porcupine.Operation {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]porcupine.Operation(nil), h.ops...)
}

// mutexIn is an acquire or a release (a loss included) by client.
type mutexIn struct {
	client  int
	acquire bool
}

// mutexModel's state is the holding client plus one, 0 when free.
var mutexModel = porcupine.Model{
	Init: func() any { return 0 },
	Step: func(state, input, _ any) (bool, any) {
		holder, in := state.(int), input.(mutexIn)
		if in.acquire {
			return holder == 0, in.client + 1
		}
		return holder == in.client+1, 0
	},
	DescribeOperation: func(input, _ any) string {
		in := input.(mutexIn)
		if in.acquire {
			return fmt.Sprintf("acquire by %d", in.client)
		}
		return fmt.Sprintf("release by %d", in.client)
	},
	DescribeState: func(state any) string {
		if state.(int) == 0 {
			return "free"
		}
		return fmt.Sprintf("held by %d", state.(int)-1)
	},
}

// incIn is one increment: read the register, write it plus one, with the
// holder's fencing token.
type incIn struct {
	client int
	token  int64
}

// incOut is what the increment saw: the value read, and whether both its
// read and its write were accepted.
type incOut struct {
	read int64
	ok   bool
}

func describeInc(input, output any) string {
	in, out := input.(incIn), output.(incOut)
	if !out.ok {
		return fmt.Sprintf("inc by %d (token %d): refused", in.client, in.token)
	}
	return fmt.Sprintf("inc by %d (token %d): %d -> %d", in.client, in.token, out.read, out.read+1)
}

// counterModel: increments are atomic; the register is their count.
var counterModel = porcupine.Model{
	Init: func() any { return int64(0) },
	Step: func(state, input, output any) (bool, any) {
		v, out := state.(int64), output.(incOut)
		if !out.ok {
			return true, v
		}
		return out.read == v, v + 1
	},
	DescribeOperation: describeInc,
	DescribeState:     func(state any) string { return fmt.Sprint(state) },
}

// fencedState is the register and the highest token it accepted.
type fencedState struct{ value, max int64 }

// fencedModel: an increment is accepted only with a token no lower than
// every accepted one, and then reads the register's value; a refused one
// had a lower token than one already accepted.
var fencedModel = porcupine.Model{
	Init: func() any { return fencedState{} },
	Step: func(state, input, output any) (bool, any) {
		s, in, out := state.(fencedState), input.(incIn), output.(incOut)
		if !out.ok {
			return in.token < s.max, s
		}
		return in.token >= s.max && out.read == s.value, fencedState{value: s.value + 1, max: in.token}
	},
	DescribeOperation: describeInc,
	DescribeState: func(state any) string {
		s := state.(fencedState)
		return fmt.Sprintf("%d (highest token %d)", s.value, s.max)
	},
}

// register is the shared resource: an integer, with the highest token it
// has seen. fenced: it refuses a read or write with a lower token;
// unfenced: it takes anything. Every increment is recorded into h, from
// the arrival of its read to the answer to its write.
type register struct {
	fenced bool
	h      *history

	mu    sync.Mutex
	value int64
	max   int64
}

// incOp is an increment under way.
type incOp struct {
	in   incIn
	call int64
	out  incOut
}

// read begins an increment.
func (r *register) read(client int, token int64) *incOp {
	r.mu.Lock()
	defer r.mu.Unlock()
	op := &incOp{in: incIn{client, token}, call: r.h.now()}
	if r.fenced && token < r.max {
		return op
	}
	r.max = max(r.max, token)
	op.out = incOut{read: r.value, ok: true}
	return op
}

// write ends an increment, writing read+1 unless the read or the write is
// refused; it records the increment and says whether it was accepted.
func (r *register) write(op *incOp) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if op.out.ok && r.fenced && op.in.token < r.max {
		op.out.ok = false
	}
	if op.out.ok {
		r.max = max(r.max, op.in.token)
		r.value = op.out.read + 1
	}
	r.h.add(op.in.client, op.in, op.out, op.call, r.h.now())
	return op.out.ok
}

// checkResult is one history's check.
type checkResult struct {
	ops  int
	ok   bool
	html string // the visualisation, for a history that is not linearizable
}

// checkHistory checks ops against model. A history that is not
// linearizable gets porcupine's HTML visualisation, written under
// $ZKLOCK_HISTORY_DIR (default: the system's temporary directory) and
// named in the test's output; one the checker cannot decide in time fails
// the test.
func checkHistory(t *testing.T, name string, model porcupine.Model, ops []porcupine.Operation) checkResult {
	t.Helper()
	res, info := porcupine.CheckOperationsVerbose(model, ops, time.Minute)
	r := checkResult{ops: len(ops), ok: res == porcupine.Ok}
	switch res {
	case porcupine.Unknown:
		t.Fatalf("%s: the checker could not decide %d operations within a minute", name, len(ops))
	case porcupine.Illegal:
		dir := os.Getenv("ZKLOCK_HISTORY_DIR")
		if dir == "" {
			dir = os.TempDir()
		}
		base := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name() + "-" + name)
		r.html = filepath.Join(dir, fmt.Sprintf("%s-%d.html", base, time.Now().UnixNano()))
		if err := porcupine.VisualizePath(model, info, r.html); err != nil {
			t.Errorf("%s: write the visualisation: %v", name, err)
		}
	}
	return r
}

// TestHistoryModels: the models accept what they must and refuse what
// they must, on histories written by hand, so that a check that passes
// under faults passes because the history was good.
func TestHistoryModels(t *testing.T) {
	op := func(client int, in, out any, call, ret int64) porcupine.Operation {
		return porcupine.Operation{ClientId: client, Input: in, Output: out, Call: call, Return: ret}
	}
	acq := func(c int, call, ret int64) porcupine.Operation { return op(c, mutexIn{c, true}, nil, call, ret) }
	rel := func(c int, call, ret int64) porcupine.Operation { return op(c, mutexIn{c, false}, nil, call, ret) }
	inc := func(c int, tok, read int64, ok bool, call, ret int64) porcupine.Operation {
		return op(c, incIn{c, tok}, incOut{read, ok}, call, ret)
	}
	// A holder paused between its read and its write: it read 0, another
	// holder incremented 0 -> 1 meanwhile, then the first wrote 1.
	lostUpdate := []porcupine.Operation{inc(0, 5, 0, true, 0, 100), inc(1, 9, 0, true, 10, 20)}
	// The same with fencing: the late write is refused.
	fencedLate := []porcupine.Operation{inc(0, 5, 0, false, 0, 100), inc(1, 9, 0, true, 10, 20)}
	cases := []struct {
		name  string
		model porcupine.Model
		ops   []porcupine.Operation
		want  bool
	}{
		{"handover", mutexModel, []porcupine.Operation{acq(0, 0, 1), rel(0, 2, 3), acq(1, 1, 4), rel(1, 5, 6)}, true},
		{"two holders", mutexModel, []porcupine.Operation{acq(0, 0, 1), acq(1, 2, 3), rel(0, 4, 5), rel(1, 6, 7)}, false},
		{"sequential incs", counterModel, []porcupine.Operation{inc(0, 5, 0, true, 0, 1), inc(1, 9, 1, true, 2, 3)}, true},
		{"lost update", counterModel, lostUpdate, false},
		{"lost update, fenced model", fencedModel, lostUpdate, false},
		{"late write refused", fencedModel, fencedLate, true},
		{"lower token accepted", fencedModel, []porcupine.Operation{inc(1, 9, 0, true, 0, 1), inc(0, 5, 1, true, 2, 3)}, false},
		{"refusal without a higher token", fencedModel, []porcupine.Operation{inc(0, 5, 0, false, 0, 1)}, false},
	}
	for _, c := range cases {
		if got := porcupine.CheckOperations(c.model, c.ops); got != c.want {
			t.Errorf("%s: linearizable %v, want %v", c.name, got, c.want)
		}
	}
}
