package queue

import (
	"iter"
	"maps"
)

// fewRecords is how many records Records keeps before it takes a map: a
// root's lock parents hold one or two nodes, for which a map costs about
// 250 bytes (a 100,000-parent root: 25 MB).
const fewRecords = 8

// Records is a lock parent's node records by name: the first in place
// (a root's lock parents hold one node: no allocation for it), the next
// few in a slice (searched in full: at most fewRecords in all), a map
// beyond. The zero value is empty. A Records is not copied: it is
// replaced whole or changed in place.
type Records struct {
	first namedRecord // name "": none (a lock node's name is never empty)
	more  *moreRecords
}

// moreRecords is what a Records holds beyond its first record: the few
// after it, or (many not nil) all of them, first left empty.
type moreRecords struct {
	few  []namedRecord
	many map[string]*Record
}

type namedRecord struct {
	name string
	rec  *Record
}

// recordsFor is an empty set sized for n records.
func recordsFor(n int) Records {
	switch {
	case n > fewRecords:
		return Records{more: &moreRecords{many: make(map[string]*Record, n)}}
	case n > 1:
		return Records{more: &moreRecords{few: make([]namedRecord, 0, n-1)}}
	}
	return Records{}
}

// mapped: the records are in the map.
func (rs *Records) mapped() bool { return rs.more != nil && rs.more.many != nil }

// Get is the record of name, and whether there is one.
func (rs *Records) Get(name string) (*Record, bool) {
	if rs.mapped() {
		r, ok := rs.more.many[name]
		return r, ok
	}
	if rs.first.name != "" && rs.first.name == name {
		return rs.first.rec, true
	}
	if rs.more != nil {
		for i := range rs.more.few {
			if rs.more.few[i].name == name {
				return rs.more.few[i].rec, true
			}
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
	if rs.mapped() {
		rs.more.many[name] = r
		return
	}
	if rs.first.name == "" || rs.first.name == name {
		rs.first = namedRecord{name, r}
		return
	}
	if rs.more == nil {
		rs.more = &moreRecords{}
	}
	m := rs.more
	for i := range m.few {
		if m.few[i].name == name {
			m.few[i].rec = r
			return
		}
	}
	if 1+len(m.few) < fewRecords {
		m.few = append(m.few, namedRecord{name, r})
		return
	}
	m.many = make(map[string]*Record, 2*fewRecords)
	m.many[rs.first.name] = rs.first.rec
	for _, e := range m.few {
		m.many[e.name] = e.rec
	}
	m.many[name], m.few, rs.first = r, nil, namedRecord{}
}

// Delete forgets the record of name.
func (rs *Records) Delete(name string) {
	if rs.mapped() {
		delete(rs.more.many, name)
		return
	}
	var few []namedRecord
	if rs.more != nil {
		few = rs.more.few
	}
	last := len(few) - 1
	if rs.first.name != "" && rs.first.name == name {
		rs.first = namedRecord{}
		if last >= 0 { // the last of the few takes its place
			rs.first = few[last]
			few[last] = namedRecord{} // let the record go
			rs.more.few = few[:last]
		}
		return
	}
	for i := range few {
		if few[i].name == name {
			few[i] = few[last]
			few[last] = namedRecord{}
			rs.more.few = few[:last]
			return
		}
	}
}

// Len is the number of records.
func (rs *Records) Len() int {
	if rs.mapped() {
		return len(rs.more.many)
	}
	n := 0
	if rs.first.name != "" {
		n = 1
	}
	if rs.more != nil {
		n += len(rs.more.few)
	}
	return n
}

// All yields each name and its record, in no set order.
func (rs *Records) All() iter.Seq2[string, *Record] {
	if rs.mapped() {
		return maps.All(rs.more.many)
	}
	return func(yield func(string, *Record) bool) {
		if rs.first.name != "" && !yield(rs.first.name, rs.first.rec) {
			return
		}
		if rs.more == nil {
			return
		}
		for _, e := range rs.more.few {
			if !yield(e.name, e.rec) {
				return
			}
		}
	}
}

// only is the name of the one record, "" when there is not exactly one
// (mapped records keep none in place once others left).
func (rs *Records) only() string {
	switch {
	case rs.Len() != 1:
		return ""
	case rs.first.name != "":
		return rs.first.name
	case !rs.mapped():
		return rs.more.few[0].name
	}
	for name := range rs.more.many {
		return name
	}
	return ""
}
