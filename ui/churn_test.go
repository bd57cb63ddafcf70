package ui

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/zkview/queue"
)

// churn is lock parents as zkview keeps them: a queue.Model each, fed
// listings as clients join and leave, built with queue.Build, their
// changes collected through the model's hooks. The class checks run on
// what the product writes, not on hand-made queues and texts.
type churn struct {
	rng     *rand.Rand
	now     time.Time
	paths   []string
	models  map[string]*queue.Tracker
	kids    map[string][]string
	seq     map[string]int32
	session int64 // the last session handed out
	changes []model.Change
	hooks   *queue.Hooks
	mine    int64 // the operator's session: step never deletes its nodes
}

func newChurn(seed uint64, paths ...string) *churn {
	c := &churn{
		rng: rand.New(rand.NewPCG(seed, 41)), now: t0, paths: paths,
		models: map[string]*queue.Tracker{}, kids: map[string][]string{}, seq: map[string]int32{},
		session: 0x10000a3f2c0000, mine: 0x10000a3f2c0099,
	}
	c.hooks = &queue.Hooks{Emit: func(ch model.Change) { c.changes = append(c.changes, ch) }}
	for _, p := range paths {
		c.models[p] = queue.New(p, p, c.hooks)
		c.list(p, nil)
	}
	return c
}

// join queues a node of recipe ("curator" or "kazoo") under p for
// session (0: a new one) and lists p; it returns the node's name.
func (c *churn) join(p, recipe string, session int64) string {
	if session == 0 {
		c.session++
		session = c.session
	}
	seq := c.seq[p]
	c.seq[p]++
	name := curatorName(fmt.Sprintf("%08x-5d4e-4f60-8a7b-%012x", c.rng.Uint32(), session), seq)
	if recipe == "kazoo" {
		name = kazooName(fmt.Sprintf("%016x%016x", c.rng.Uint64(), uint64(session)), "lock", seq)
	}
	c.kids[p] = append(c.kids[p], name)
	rec := &queue.Record{Fetched: true, Session: session, CtimeMs: c.now.UnixMilli(), MtimeMs: c.now.UnixMilli(),
		Czxid: int64(c.seq[p]) + 1000*int64(len(p)), DataLen: int32(len(recipe) + 7)}
	rec.SetData([]byte(recipe + "-client"))
	c.list(p, []queue.Fetched{{Name: name, Rec: rec}})
	return name
}

// leave deletes node name under p (its client let go or its session
// ended) and lists p.
func (c *churn) leave(p, name string) {
	c.kids[p] = slices.DeleteFunc(c.kids[p], func(k string) bool { return k == name })
	c.list(p, nil)
}

func (c *churn) list(p string, got []queue.Fetched) {
	c.models[p].Apply(slices.Clone(c.kids[p]), got, c.now, c.now, c.now)
}

// step moves the clock by d and changes one random parent: mostly the
// holder lets go or a client joins, sometimes a waiter leaves.
func (c *churn) step(d time.Duration) {
	c.now = c.now.Add(d)
	p := c.paths[c.rng.IntN(len(c.paths))]
	kids := c.kids[p]
	switch r := c.rng.IntN(10); {
	case len(kids) == 0 || r < 5 && len(kids) < 8:
		c.join(p, "curator", 0)
	case r < 8:
		c.leaveOther(p, kids[0])
	default:
		c.leaveOther(p, kids[c.rng.IntN(len(kids))])
	}
}

// leaveOther deletes name unless it is the operator's node.
func (c *churn) leaveOther(p, name string) {
	if r, ok := c.models[p].Nodes.Get(name); ok && r.Session == c.mine {
		return
	}
	c.leave(p, name)
}

// update is the snapshot of every parent now, with the changes since
// the last one: what the Watcher publishes.
func (c *churn) update() model.Update {
	qs := make([]model.Queue, 0, len(c.paths))
	for _, p := range c.paths {
		qs = append(qs, queue.Build(c.models[p], nil, false, time.Time{}))
	}
	slices.SortFunc(qs, func(a, b model.Queue) int { return cmpString(a.Path, b.Path) })
	snap := &model.Snapshot{
		At: c.now,
		Conn: model.Conn{State: model.StateConnected, Since: t0.Add(-time.Hour), SessionID: c.mine,
			Server: "zk1.prod:2181", Ensemble: []string{"zk1.prod:2181", "zk2.prod:2181"}},
		Queues: model.QueuesOf(qs...),
	}
	u := model.Update{Snapshot: snap, Changes: c.changes}
	c.changes = nil
	return u
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
