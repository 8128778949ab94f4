package kv

import (
	"bytes"
	"sort"
)

// KeySpan is the key range [Start, End). A nil Start is the beginning of
// the keyspace and a nil End its end. The span of the single key k is
// [k, k+"\x00"), since k+"\x00" is the smallest key greater than k.
type KeySpan struct {
	Start, End []byte
}

// pointSpan returns the span holding exactly key, in one allocation.
func pointSpan(key []byte) KeySpan {
	b := make([]byte, len(key)+1)
	copy(b, key)
	return KeySpan{Start: b[:len(key):len(key)], End: b}
}

// Contains reports whether key lies in the span.
func (s KeySpan) Contains(key []byte) bool {
	return (s.Start == nil || bytes.Compare(key, s.Start) >= 0) &&
		(s.End == nil || bytes.Compare(key, s.End) < 0)
}

// spanList is a sorted list of disjoint, non-adjacent, non-empty spans
// with non-nil bounds: the ranges a Txn has deleted. A spanList is never
// modified in place (add returns a new one), so iterators and undo
// records can keep an old one.
type spanList []KeySpan

// add returns the list with [start, end) added, merging the spans it
// overlaps or touches. REQUIRES: start < end.
func (l spanList) add(start, end []byte) spanList {
	// First span whose end reaches start; last span whose start is <= end.
	i := sort.Search(len(l), func(j int) bool { return bytes.Compare(l[j].End, start) >= 0 })
	k := sort.Search(len(l), func(j int) bool { return bytes.Compare(l[j].Start, end) > 0 })
	merged := KeySpan{Start: start, End: end}
	if i < k {
		if bytes.Compare(l[i].Start, merged.Start) < 0 {
			merged.Start = l[i].Start
		}
		if bytes.Compare(l[k-1].End, merged.End) > 0 {
			merged.End = l[k-1].End
		}
	}
	out := make(spanList, 0, len(l)-(k-i)+1)
	out = append(out, l[:i]...)
	out = append(out, merged)
	return append(out, l[k:]...)
}

// overlaps reports whether some span of the list shares a key with s
// (nil bounds of s: unbounded).
func (l spanList) overlaps(s KeySpan) bool {
	i := sort.Search(len(l), func(j int) bool { return bytes.Compare(l[j].End, s.Start) > 0 })
	return i < len(l) && (s.End == nil || bytes.Compare(l[i].Start, s.End) < 0)
}

// covers reports whether some span of the list holds key.
func (l spanList) covers(key []byte) bool {
	i := sort.Search(len(l), func(j int) bool { return bytes.Compare(l[j].End, key) > 0 })
	return i < len(l) && bytes.Compare(l[i].Start, key) <= 0
}
