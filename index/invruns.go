package index

import (
	"bytes"
	"slices"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/types"
)

// InvertedRuns is one search value's inverted list read but not yet
// folded: the ops of each chunk, sorted by primary key. Ranges of primary
// keys of it fold independently (FoldRange), so that goroutines can each
// fold and read a part of a long list: a fold is a merge of the chunks,
// and the parts' merges together cost what one merge of the whole list
// does. Safe for concurrent FoldRange calls.
type InvertedRuns struct {
	vals []types.Datum // the search value
	buf  []byte
	ops  []logOp
	ends []int
}

// ReadInvertedRuns reads the search value of inverted index idx of t
// that sp, a point of every indexed column, holds: its runs, and false
// when sp holds no search value or more than one (an equality that is a
// range of keys): then the caller folds with ReadInvertedList.
func ReadInvertedRuns(r kv.Reader, t *catalog.Table, idx *catalog.Index, sp Span) (*InvertedRuns, bool, error) {
	lo, hi := spanBounds(idx.ID, sp, idx.Desc)
	it, err := r.NewIter(kv.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return nil, false, err
	}
	s := &invIter{it: it, t: t, idx: idx}
	defer s.Close()
	if s.valid = s.step(); !s.valid {
		return nil, false, s.it.Error()
	}
	if err := s.gather(); err != nil {
		return nil, false, err
	}
	if s.valid {
		return nil, false, nil // another search value follows
	}
	sortRuns(s.ops, s.ends, s.buf)
	return &InvertedRuns{vals: s.vals, buf: s.buf, ops: s.ops, ends: s.ends}, true, nil
}

// Ops is the number of ops in the runs: the live keys and the removed
// ones not yet compacted away.
func (r *InvertedRuns) Ops() int { return len(r.ops) }

// Split returns up to n-1 primary keys, ascending, that cut the runs into
// n ranges of about equal numbers of ops (taken at even positions of the
// longest run: a key's chunk is its hash, so every run spreads over the
// keys alike).
func (r *InvertedRuns) Split(n int) [][]byte {
	longest, start := [2]int{}, 0
	for _, end := range r.ends {
		if end-start > longest[1]-longest[0] {
			longest = [2]int{start, end}
		}
		start = end
	}
	run := r.ops[longest[0]:longest[1]]
	if len(run) == 0 {
		return nil // no ops: one part
	}
	var cuts [][]byte
	for j := 1; j < n; j++ {
		o := run[len(run)*j/n]
		pk := r.buf[o.off : o.off+o.n]
		if len(cuts) == 0 || bytes.Compare(cuts[len(cuts)-1], pk) < 0 {
			cuts = append(cuts, pk)
		}
	}
	return cuts
}

// InvertedScratch is a FoldRange caller's reusable buffers.
type InvertedScratch struct {
	ops, live []logOp
	ends      []int
}

// FoldRange folds the ops whose primary key lies in [lo, hi) (nil:
// unbounded) into l, which it empties first.
func (r *InvertedRuns) FoldRange(lo, hi []byte, l *InvertedList, sc *InvertedScratch) {
	at := func(run []logOp, key []byte) int {
		i, _ := slices.BinarySearchFunc(run, key, func(o logOp, k []byte) int {
			return bytes.Compare(r.buf[o.off:o.off+o.n], k)
		})
		return i
	}
	sc.ops, sc.ends = sc.ops[:0], sc.ends[:0]
	start := 0
	for _, end := range r.ends {
		run := r.ops[start:end]
		i, j := 0, len(run)
		if lo != nil {
			i = at(run, lo)
		}
		if hi != nil {
			j = at(run, hi)
		}
		sc.ops = append(sc.ops, run[i:j]...)
		sc.ends = append(sc.ends, len(sc.ops))
		start = end
	}
	sc.live = mergeRuns(sc.ops, sc.ends, r.buf, sc.live)
	*l = InvertedList{buf: l.buf[:0], ends: l.ends[:0], vals: append(l.vals[:0], r.vals), starts: append(l.starts[:0], 0)}
	l.ends = slices.Grow(l.ends, len(sc.live))
	for _, o := range sc.live {
		l.buf = append(l.buf, r.buf[o.off:o.off+o.n]...)
		l.ends = append(l.ends, int32(len(l.buf)))
	}
}
