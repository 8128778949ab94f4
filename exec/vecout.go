package exec

import (
	"unsafe"

	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// vecToRows is the Operator at the top of a batch subtree: it hands the
// rows of its input's batches one by one to the row operators above.
//
// Each row's text and bytes values are copied into fresh strings, since
// an operator above may keep a row's Datums past the next call. A client
// that encodes each row before asking for the next lends the rows
// instead (LendRows): the strings then alias the batch's bytes, which
// stay put until the next batch is read, and only the columns the
// projection above picks are produced.
type vecToRows struct {
	input vecOp
	b     *batch
	i     int // next live row of b
	row   []types.Datum
	done  bool
	// lend: strings alias the batch (LendRows); pick, when not nil, is
	// the batch column of each output column.
	lend bool
	pick []int
}

var _ Operator = (*vecToRows)(nil)

func (r *vecToRows) Next() ([]types.Datum, error) {
	for !r.done {
		if r.b != nil && r.i < r.b.live() {
			k := r.i
			if r.b.sel != nil {
				k = r.b.sel[r.i]
			}
			r.i++
			if r.lend {
				r.lendRow(k)
				return r.row, nil
			}
			for c, v := range r.b.cols {
				if v == nil {
					r.row[c] = types.Null
				} else {
					r.row[c] = v.datum(k)
				}
			}
			return r.row, nil
		}
		b, err := r.input.NextBatch()
		if err != nil {
			return nil, err
		}
		r.b, r.i, r.done = b, 0, b == nil
	}
	return nil, nil
}

// lendRow fills r.row with row k of the batch, the picked columns only,
// without copying bytes.
func (r *vecToRows) lendRow(k int) {
	for o := range r.row {
		c := o
		if r.pick != nil {
			c = r.pick[o]
		}
		v := r.b.cols[c]
		if v == nil || v.isNull(k) {
			r.row[o] = types.Null
			continue
		}
		switch v.class {
		case classInts:
			r.row[o] = types.Datum{Kind: v.kind, I: v.i[k]}
		case classFloats:
			r.row[o] = types.NewFloat(v.f[k])
		default:
			r.row[o] = types.Datum{Kind: v.kind, S: unsafe.String(unsafe.SliceData(v.b[k]), len(v.b[k]))}
		}
	}
}

func (r *vecToRows) Close() error { return r.input.Close() }

// LendRows returns the operator to read op's rows through when the
// caller encodes each row before asking for the next and keeps nothing
// of it (the wire server streaming a query: backend.RowLender). When op
// is a batch subtree's vecToRows, under at most a projection of plain
// columns, the rows then alias the batches' bytes instead of copying
// every text value, and the projection is folded into the conversion;
// otherwise op itself is returned. Rows read through the result are
// valid only until the next call to Next.
func LendRows(op Operator) Operator {
	var pick []int
	in := op
	if p, ok := op.(*projectOp); ok {
		pick = make([]int, 0, len(p.exprs)) // not nil: zero columns too
		for _, e := range p.exprs {
			c, ok := e.(*planner.ColRef)
			if !ok || c.Outer != 0 {
				return op
			}
			pick = append(pick, c.Index)
		}
		in = p.input
	}
	v, ok := in.(*vecToRows)
	if !ok || v.b != nil || v.done {
		return op // not a batch subtree, or already read from
	}
	for _, c := range pick {
		if c < 0 || c >= len(v.row) {
			return op
		}
	}
	v.lend = true
	if pick != nil {
		v.pick, v.row = pick, make([]types.Datum, len(pick))
	}
	return v
}
