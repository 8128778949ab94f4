package exec

import (
	"hash/maphash"

	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// newSetOp builds UNION [ALL], INTERSECT [ALL] and EXCEPT [ALL].
//
// UNION ALL concatenates; UNION is a (spilling) distinct over that.
// INTERSECT and EXCEPT count each distinct row's occurrences on both
// sides and produce, for ALL, min(l, r) resp. max(l-r, 0) copies, and
// without ALL one copy when l > 0 && r > 0 resp. l > 0 && r == 0.
func newSetOp(rs *runState, env *eval.Env, n *planner.SetOp) (Operator, error) {
	left, err := rs.build(env, n.Left)
	if err != nil {
		return nil, err
	}
	right, err := rs.build(env, n.Right)
	if err != nil {
		_ = left.Close()
		return nil, err
	}
	if n.Op == planner.Union {
		cat := &concatOp{inputs: []Operator{left, right}}
		if n.All {
			return cat, nil
		}
		return newDistinct(rs, cat), nil
	}
	s := &countSetOp{rs: rs, node: n, left: left, right: right, t: ticker{rs: rs},
		seed: maphash.MakeSeed(), index: make(map[uint64][]int32), mem: rs.heldAccount()}
	s.h.SetSeed(s.seed)
	return s, nil
}

// concatOp produces all rows of its inputs in turn.
type concatOp struct {
	inputs []Operator
	i      int
}

var _ Operator = (*concatOp)(nil)

func (c *concatOp) Next() ([]types.Datum, error) {
	for c.i < len(c.inputs) {
		row, err := c.inputs[c.i].Next()
		if row != nil || err != nil {
			return row, err
		}
		c.i++
	}
	return nil, nil
}

func (c *concatOp) Close() error { return closeAll(c.inputs...) }

// setEntry is one distinct row with its occurrence counts per side.
type setEntry struct {
	row  []types.Datum
	l, r int64
}

// countSetOp runs INTERSECT and EXCEPT by counting occurrences in memory
// (see the Caveats in doc.go: it does not spill).
type countSetOp struct {
	rs          *runState
	node        *planner.SetOp
	left, right Operator
	t           ticker

	seed    maphash.Seed
	h       maphash.Hash
	mem     memAccount // the rows counted (INTERSECT/EXCEPT do not spill)
	index   map[uint64][]int32
	entries []setEntry
	opened  bool
	pos     int
	copies  int64 // copies of entries[pos] still to produce
}

var _ Operator = (*countSetOp)(nil)

func (s *countSetOp) Next() ([]types.Datum, error) {
	if !s.opened {
		s.opened = true
		if err := s.count(s.left, true); err != nil {
			return nil, err
		}
		if err := s.count(s.right, false); err != nil {
			return nil, err
		}
		s.pos = -1
	}
	for s.copies == 0 {
		s.pos++
		if s.pos >= len(s.entries) {
			s.entries = nil
			return nil, nil
		}
		e := &s.entries[s.pos]
		switch {
		case s.node.Op == planner.Intersect && s.node.All:
			s.copies = min(e.l, e.r)
		case s.node.Op == planner.Intersect:
			s.copies = b2i(e.l > 0 && e.r > 0)
		case s.node.All: // EXCEPT ALL
			s.copies = max(e.l-e.r, 0)
		default:
			s.copies = b2i(e.l > 0 && e.r == 0)
		}
	}
	s.copies--
	return s.entries[s.pos].row, nil
}

// count tallies the rows of in. Right-side rows absent from the left are
// not kept: they can never be produced.
func (s *countSetOp) count(in Operator, isLeft bool) error {
	for {
		row, err := in.Next()
		if row == nil || err != nil {
			return err
		}
		if err := s.t.tick(); err != nil {
			return err
		}
		s.h.Reset()
		for _, d := range row {
			eval.Hash(&s.h, d)
		}
		hash := s.h.Sum64()
		var e *setEntry
		for _, i := range s.index[hash] {
			if rowsIdentical(s.entries[i].row, row) {
				e = &s.entries[i]
				break
			}
		}
		if e == nil {
			if !isLeft {
				continue
			}
			if err := s.mem.grow(rowSize(row) + 40); err != nil {
				return err
			}
			s.index[hash] = append(s.index[hash], int32(len(s.entries)))
			s.entries = append(s.entries, setEntry{row: copyRow(row)})
			e = &s.entries[len(s.entries)-1]
		}
		if isLeft {
			e.l++
		} else {
			e.r++
		}
	}
}

func (s *countSetOp) Close() error {
	s.entries, s.index = nil, nil
	s.mem.reset()
	return closeAll(s.left, s.right)
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
