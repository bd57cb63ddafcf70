// The library recipes that are no lock: Curator's and Kazoo's barriers,
// queues, groups, counters and leases (package systems reads their
// layouts, zkview annotates the queues with them). Their nodes are no
// holders and waiters of a lock: each has a Part (a member, an item...),
// and the path states Facts beyond its nodes (a counter's value, a
// lease's end, a queue's depth).

package model

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// recipeTypeWords are the recipe types' words in `ls --json`'s "type".
var recipeTypeWords = map[QueueType]string{
	TypeBarrier:    "barrier",
	TypeQueue:      "queue",
	TypeMembership: "membership",
	TypeCounter:    "counter",
	TypeLease:      "lease",
}

// Waits says whether a queue of type t has nodes that wait behind others
// (a lock, a semaphore, an election): the recipes that are no lock have
// none, however their nodes are named.
func (t QueueType) Waits() bool {
	_, recipe := recipeTypeWords[t]
	return !recipe
}

// A node's Part in a library recipe that is no lock, as `ls --json`
// says it in "role".
const (
	PartEntered = "entered" // a double barrier's participant
	PartMember  = "member"  // a group's or party's member
	PartItem    = "item"    // a queue's item, not taken
	PartTaken   = "taken"   // a locking queue's item a consumer took
	PartLease   = "lease"   // a lease's holder record
	// A single barrier's own node, and a session the servers show
	// waiting on it (a data watch on the node): it owns no node.
	PartBarrier = "barrier"
	PartWaiter  = "waiter"
)

// RecipeFacts is what a library recipe that is no lock states at its
// path beyond its nodes. Each field is the zero value when the recipe
// does not state it.
type RecipeFacts struct {
	// Ready: a double barrier's ready node exists (every participant
	// needed has entered: they pass). Entered counts its participants.
	// Neither library stores how many are needed.
	Ready   *bool `json:",omitzero"`
	Entered int   `json:",omitzero"`
	// Set: a single barrier's node exists (its waiters block); false, it
	// is open. Waiters counts the sessions the servers show waiting on
	// it; nil when they do not tell (no server view).
	Set     *bool `json:",omitzero"`
	Waiters *int  `json:",omitzero"`
	// Value is a counter's value.
	Value *float64 `json:",omitzero"`
	// Holder and Expires: a lease's holder (as it named itself) and the
	// end of its lease (past it, the lease is free to take).
	Holder  string    `json:",omitzero"`
	Expires time.Time `json:",omitzero"`
	// Depth is a queue's items (taken ones included); Oldest the
	// creation time of its oldest.
	Depth  *int      `json:",omitzero"`
	Oldest time.Time `json:",omitzero"`
}

// JSONFacts is RecipeFacts in `ls --json`, per path (all absent for a
// lock): "ready" and "entered" (a double barrier), "set" and "waiters"
// (a single barrier), "value" (a counter),
// "holder" and "expires" (a lease), "depth" and "oldest" (a queue).
type JSONFacts struct {
	Ready   *bool    `json:"ready,omitempty"`
	Entered int      `json:"entered,omitempty"`
	Set     *bool    `json:"set,omitempty"`
	Waiters *int     `json:"waiters,omitempty"`
	Value   *float64 `json:"value,omitempty"`
	Holder  string   `json:"holder,omitempty"`
	Expires string   `json:"expires,omitempty"`
	Depth   *int     `json:"depth,omitempty"`
	Oldest  string   `json:"oldest,omitempty"`
}

// factsJSON is f in `ls --json`; the zero value for nil.
func factsJSON(f *RecipeFacts) JSONFacts {
	if f == nil {
		return JSONFacts{}
	}
	j := JSONFacts{Ready: f.Ready, Entered: f.Entered, Set: f.Set, Waiters: f.Waiters, Value: f.Value, Holder: SanitizeString(f.Holder, 0), Depth: f.Depth}
	if !f.Expires.IsZero() {
		j.Expires = f.Expires.UTC().Format(RFC3339Milli)
	}
	if !f.Oldest.IsZero() {
		j.Oldest = f.Oldest.UTC().Format(RFC3339Milli)
	}
	return j
}

// RecipeSummary is how the console and `ls` head a recipe that is no
// lock: its type word and what it states ("queue, 3 items, 1 taken",
// "barrier, 2 entered, not ready", "barrier, set, 2 waiters", "barrier,
// open", "counter, value 42"); "" for any
// other type. Raw server text (a lease's holder) is sanitized here.
func RecipeSummary(q *Queue) string {
	word, ok := recipeTypeWords[q.Type]
	if !ok {
		return ""
	}
	parts := []string{word}
	count := func(part, one string) {
		n := 0
		for _, nd := range q.Nodes.All() {
			if nd.Part() == part {
				n++
			}
		}
		if n > 0 || part == PartItem || part == PartMember {
			parts = append(parts, fmt.Sprintf("%d %s", n, plural(n, one)))
		}
	}
	f := q.Facts()
	if f == nil {
		f = &RecipeFacts{}
	}
	switch q.Type {
	case TypeBarrier:
		if f.Set != nil {
			parts = append(parts, singleBarrier(f)...)
			break
		}
		parts = append(parts, fmt.Sprintf("%d entered", f.Entered))
		if f.Ready != nil && *f.Ready {
			parts = append(parts, "ready")
		} else if f.Ready != nil {
			parts = append(parts, "not ready")
		}
	case TypeQueue:
		count(PartItem, "item")
		count(PartTaken, "taken")
	case TypeMembership:
		count(PartMember, "member")
	case TypeCounter:
		if f.Value != nil {
			parts = append(parts, "value "+strconv.FormatFloat(*f.Value, 'g', -1, 64))
		}
	case TypeLease:
		if f.Holder != "" {
			parts = append(parts, "held by "+SanitizeString(f.Holder, 40)+" until "+f.Expires.UTC().Format("2006-01-02 15:04:05Z"))
		}
	}
	return strings.Join(parts, ", ")
}

// singleBarrier is what a single barrier states: "open", or "set" and
// its waiters ("waiters unknown" without the server view).
func singleBarrier(f *RecipeFacts) []string {
	switch {
	case !*f.Set:
		return []string{"open"}
	case f.Waiters == nil:
		return []string{"set", "waiters unknown (no server view)"}
	}
	return []string{"set", fmt.Sprintf("%d %s", *f.Waiters, plural(*f.Waiters, "waiter"))}
}

// plural is one, or one+"s" for any n but 1 ("taken" stays).
func plural(n int, one string) string {
	if n == 1 || strings.HasSuffix(one, "en") {
		return one
	}
	return one + "s"
}
