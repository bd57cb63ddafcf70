package zkview

import (
	"iter"
	"maps"
	"slices"
)

// fewChildren is how many children a childSet keeps in a sorted slice
// before it takes a map: a root's lock parents hold none or a holder,
// for which a map would cost a few hundred bytes each.
const fewChildren = 8

// childSet is a path's children as its watch's events leave them: a
// short sorted slice while there are few, a map beyond. The zero value is
// empty.
type childSet struct {
	few  []string
	many map[string]struct{} // no value: a bool would take 8 bytes a slot (100,000 of a root's)
}

// reset makes the set hold names (a listing), which it does not keep.
func (s *childSet) reset(names []string) {
	s.few, s.many = nil, nil
	if len(names) > fewChildren {
		s.many = make(map[string]struct{}, len(names))
		for _, k := range names {
			s.many[k] = struct{}{}
		}
		return
	}
	if len(names) > 0 {
		s.few = slices.Clone(names)
		slices.Sort(s.few)
		s.few = slices.Compact(s.few)
	}
}

func (s *childSet) has(k string) bool {
	if s.many != nil {
		_, ok := s.many[k]
		return ok
	}
	_, ok := slices.BinarySearch(s.few, k)
	return ok
}

func (s *childSet) add(k string) {
	if s.many != nil {
		s.many[k] = struct{}{}
		return
	}
	i, ok := slices.BinarySearch(s.few, k)
	if ok {
		return
	}
	if len(s.few) < fewChildren {
		s.few = slices.Insert(s.few, i, k)
		return
	}
	s.many = make(map[string]struct{}, 2*fewChildren)
	for _, n := range s.few {
		s.many[n] = struct{}{}
	}
	s.many[k], s.few = struct{}{}, nil
}

func (s *childSet) del(k string) {
	if s.many != nil {
		delete(s.many, k)
		return
	}
	if i, ok := slices.BinarySearch(s.few, k); ok {
		s.few = slices.Delete(s.few, i, i+1)
	}
}

// rekey makes the set hold k, a child it holds already, as the string
// k: an equal string whose bytes are kept elsewhere, so that the set's
// copy may go. (A map takes the key of an assignment to a string key it
// holds.)
func (s *childSet) rekey(k string) {
	if s.many != nil {
		if _, ok := s.many[k]; ok {
			s.many[k] = struct{}{}
		}
		return
	}
	if i, ok := slices.BinarySearch(s.few, k); ok {
		s.few[i] = k
	}
}

// all yields the children, in no set order.
func (s *childSet) all() iter.Seq[string] {
	if s.many != nil {
		return maps.Keys(s.many)
	}
	return slices.Values(s.few)
}

// names is the children in a new slice.
func (s *childSet) names() []string { return slices.Collect(s.all()) }
