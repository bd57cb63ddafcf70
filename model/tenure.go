package model

import (
	"time"

	"github.com/zklock/zklock/lockops/ordering"
)

// Bound says how much is known of when a node took its role.
type Bound int

const (
	// BoundExact: the Watcher saw the role begin (a handoff it watched,
	// a waiter's creation), or the node was created holding.
	BoundExact Bound = iota
	// BoundEarliest: the role began at or after Start (a holder found
	// holding: it cannot have held before it was created), so the
	// duration is an upper bound ("held ≤ 2s").
	BoundEarliest
	// BoundLatest: the role began at or before Start (the first time the
	// monitor saw it, the creation time unknown), so the duration is a
	// lower bound.
	BoundLatest
)

// String is the bound as `ls --json` writes it.
func (b Bound) String() string {
	switch b {
	case BoundExact:
		return "exact"
	case BoundEarliest:
		return "earliest"
	default:
		return "latest"
	}
}

// MarshalText writes the bound by name (a recording stores it so).
func (b Bound) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// UnmarshalText reads a bound by name; an unknown name reads as
// BoundLatest, the weakest claim.
func (b *Bound) UnmarshalText(t []byte) error {
	switch string(t) {
	case "exact":
		*b = BoundExact
	case "earliest":
		*b = BoundEarliest
	default:
		*b = BoundLatest
	}
	return nil
}

// HeldWord is how `watch --json` names the bound of a hold's duration
// ("held_bound"): exact; at-most (the hold is measured from the node's
// creation, as `ls` dates a holder found holding: "earliest"); at-least
// (measured from when it was first seen, its creation unknown).
func (b Bound) HeldWord() string {
	switch b {
	case BoundEarliest:
		return "at-most"
	case BoundLatest:
		return "at-least"
	}
	return "exact"
}

// Tenure is what is known of when a node took its current role: Start
// and how to read it. A holder found already holding is bounded by its
// creation: a lower bound from the first listing ("held ≥ 150µs") would
// say nothing about a hold of minutes.
func (n Node) Tenure() (start time.Time, b Bound) {
	switch {
	case n.SinceExact:
		return n.Since(), BoundExact
	case n.Role == ordering.RoleHolder && !n.Ctime().IsZero():
		return n.Ctime(), BoundEarliest
	default:
		return n.Since(), BoundLatest
	}
}

// TenureText is the duration of the role at now with its bound: "2.0s",
// "≤2.0s" or "≥2.0s"; "" when unknown.
func (n Node) TenureText(now time.Time) string {
	start, b := n.Tenure()
	if start.IsZero() {
		return ""
	}
	return b.Mark() + GapText(now.Sub(start))
}

// Mark is how a duration from a start of bound b reads: "≤" (an upper
// bound), "≥" (a lower one), "" when exact.
func (b Bound) Mark() string {
	switch b {
	case BoundEarliest:
		return "≤"
	case BoundLatest:
		return "≥"
	}
	return ""
}
