// The library recipes that are no lock (package systems' recipes.go) in
// the Watcher's queues: their type, their nodes' parts, and the lock
// warnings that do not apply to them. They come through the systems'
// read (layouts.go), as a system's layout does.

package layouts

import (
	"slices"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/systems"
)

// recipeTypes maps a recipe's systems.Type to its model.QueueType.
var recipeTypes = map[systems.Type]model.QueueType{
	systems.TypeBarrier:    model.TypeBarrier,
	systems.TypeQueue:      model.TypeQueue,
	systems.TypeMembership: model.TypeMembership,
	systems.TypeCounter:    model.TypeCounter,
	systems.TypeLease:      model.TypeLease,
}

// recipeType is the queue type of a recognition of type t; was when t
// names none.
func recipeType(t systems.Type, was model.QueueType) model.QueueType {
	if qt, ok := recipeTypes[t]; ok {
		return qt
	}
	return was
}

// lockWarning: a warning that judges waiters and holders of a lock, moot
// in a recipe where nobody waits behind anybody (a queue's items, a
// group's members: Type.Waits is false).
func lockWarning(code string) bool {
	switch code {
	case model.WarnSplitHolders, model.WarnMissingWatch, model.WarnHerd, model.WarnDeadlock,
		model.WarnSelfWait, model.WarnMixedRecipes:
		return true
	}
	return false
}

// recipePart gives n, a node the listing holds, its part in a recipe
// that is no lock, where it waits on nobody; a taken queue item gets the
// session of the consumer that took it (its own node is persistent).
func recipePart(n *model.Node, p systems.Participant) {
	if p.Part == "" {
		return
	}
	n.SetPart(p.Part)
	if n.Session == 0 && p.Session != 0 {
		n.Session = p.Session
	}
	n.Link, n.Herd = model.LinkNone, false
	n.SetWatchesPredecessor("", "")
}

// recipeParts are the paths a recognised recipe owns below its own (a
// Kazoo LockingQueue's entries/, a plain lock's queue when read alone),
// sorted: their queues are dropped, the recipe's queue shows them.
func recipeParts(st *systemsState) []string {
	var parts []string
	for _, sr := range st.recs {
		if sr.rec.System != "" {
			continue // a system's parts may be watched paths of their own
		}
		parts = append(parts, sr.rec.Parts...)
	}
	slices.Sort(parts)
	return slices.Compact(parts)
}

// sharesParticipant says whether a and b name one node as participant.
func sharesParticipant(a, b systems.Recognition) bool {
	for _, p := range a.Participants {
		if slices.ContainsFunc(b.Participants, func(q systems.Participant) bool { return q.Path == p.Path }) {
			return true
		}
	}
	return false
}
