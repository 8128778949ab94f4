package exec

import (
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// fallback hands the join to the row hash join: the build rows stored so
// far (row k of b among them, not yet charged) are replayed ahead of the
// rest of the build input, and the row join's output is turned back into
// batches.
func (j *vecHashJoin) fallback(b *batch, _ []int) error {
	_ = b // its rows are in the store already
	build := &concatOp{inputs: []Operator{&storeRows{j: j, row: make([]types.Datum, len(j.store))},
		&vecToRows{input: j.buildSide(), row: make([]types.Datum, len(j.store))}}}
	var left, right Operator
	if j.buildLeft {
		left, right = build, &vecToRows{input: j.right, row: make([]types.Datum, j.rw)}
	} else {
		left, right = &vecToRows{input: j.left, row: make([]types.Datum, j.lw)}, build
	}
	j.rows = newHashJoin(j.rs, j.env, j.node, left, right, j.lw, j.rw)
	j.convert = newRowsToBatch(j.rows, j.node.Cols)
	return nil
}

// storeRows replays the build rows of a vecHashJoin's column stores as
// Datum rows, in the order they were read.
type storeRows struct {
	j   *vecHashJoin
	i   int
	row []types.Datum
}

func (s *storeRows) Next() ([]types.Datum, error) {
	st := s.j.store
	if len(st) == 0 || s.i >= s.j.keys.len() {
		return nil, nil
	}
	e := s.i
	s.i++
	for c := range st {
		cs := &st[c]
		switch {
		case !cs.on || cs.null[e]:
			s.row[c] = types.Null
		case cs.class == classInts:
			s.row[c] = types.Datum{Kind: cs.kind, I: cs.i[e]}
		case cs.class == classFloats:
			s.row[c] = types.NewFloat(cs.f[e])
		default:
			s.row[c] = types.Datum{Kind: cs.kind, S: string(cs.b[e])}
		}
	}
	return s.row, nil
}

func (s *storeRows) Close() error {
	s.j.mem.reset()
	return nil
}

// rowsToBatch packs the rows of an Operator into batches: the way back
// into a batch subtree after a row operator took over.
type rowsToBatch struct {
	op  Operator
	out batch
}

func newRowsToBatch(op Operator, cols []planner.Column) *rowsToBatch {
	r := &rowsToBatch{op: op}
	r.out.cols = make([]*vec, len(cols))
	for i, c := range cols {
		if _, ok := vecClassOf(c.T); ok {
			r.out.cols[i] = newVec(c.T)
		}
	}
	return r
}

// next returns the next batch, nil at the end.
func (r *rowsToBatch) next() (*batch, error) {
	b := &r.out
	b.n, b.sel = 0, nil
	for _, v := range b.cols {
		if v != nil {
			v.arena = v.arena[:0]
			v.clearNulls(batchSize)
		}
	}
	for b.n < batchSize {
		row, err := r.op.Next()
		if err != nil {
			return nil, err
		}
		if row == nil {
			break
		}
		for c, v := range b.cols {
			if v != nil {
				v.set(b.n, row[c])
			}
		}
		b.n++
	}
	if b.n == 0 {
		return nil, nil
	}
	return b, nil
}
