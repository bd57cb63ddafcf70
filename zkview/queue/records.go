package queue

import (
	"iter"
	"maps"
)

// fewRecords is how many records Records keeps in a slice before it takes
// a map: a root's lock parents hold one or two nodes, for which a map
// costs about 250 bytes (a 100,000-parent root: 25 MB) and a slice 24.
const fewRecords = 8

// Records is a lock parent's node records by name: a short slice while
// there are few (searched in full: at most fewRecords), a map beyond. The
// zero value is empty.
type Records struct {
	few  []namedRecord
	many map[string]*Record
}

type namedRecord struct {
	name string
	rec  *Record
}

// recordsFor is an empty set sized for n records.
func recordsFor(n int) Records {
	if n > fewRecords {
		return Records{many: make(map[string]*Record, n)}
	}
	if n > 0 {
		return Records{few: make([]namedRecord, 0, n)}
	}
	return Records{}
}

// Get is the record of name, and whether there is one.
func (rs *Records) Get(name string) (*Record, bool) {
	if rs.many != nil {
		r, ok := rs.many[name]
		return r, ok
	}
	for i := range rs.few {
		if rs.few[i].name == name {
			return rs.few[i].rec, true
		}
	}
	return nil, false
}

// Of is the record of name, nil when there is none.
func (rs *Records) Of(name string) *Record {
	r, _ := rs.Get(name)
	return r
}

// Set makes r the record of name.
func (rs *Records) Set(name string, r *Record) {
	if rs.many != nil {
		rs.many[name] = r
		return
	}
	for i := range rs.few {
		if rs.few[i].name == name {
			rs.few[i].rec = r
			return
		}
	}
	if len(rs.few) < fewRecords {
		rs.few = append(rs.few, namedRecord{name, r})
		return
	}
	rs.many = make(map[string]*Record, 2*fewRecords)
	for _, e := range rs.few {
		rs.many[e.name] = e.rec
	}
	rs.many[name], rs.few = r, nil
}

// Delete forgets the record of name.
func (rs *Records) Delete(name string) {
	if rs.many != nil {
		delete(rs.many, name)
		return
	}
	for i := range rs.few {
		if rs.few[i].name == name {
			last := len(rs.few) - 1
			rs.few[i] = rs.few[last]
			rs.few[last] = namedRecord{} // let the record go
			rs.few = rs.few[:last]
			return
		}
	}
}

// Len is the number of records.
func (rs *Records) Len() int {
	if rs.many != nil {
		return len(rs.many)
	}
	return len(rs.few)
}

// All yields each name and its record, in no set order.
func (rs *Records) All() iter.Seq2[string, *Record] {
	if rs.many != nil {
		return maps.All(rs.many)
	}
	return func(yield func(string, *Record) bool) {
		for _, e := range rs.few {
			if !yield(e.name, e.rec) {
				return
			}
		}
	}
}
