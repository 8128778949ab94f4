package exec

import (
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// valuesOp produces the literal rows of a Values node, evaluating each
// row's expressions when it is reached.
type valuesOp struct {
	env  *eval.Env
	node *planner.Values
	i    int
	out  []types.Datum
}

var _ Operator = (*valuesOp)(nil)

func (v *valuesOp) Next() ([]types.Datum, error) {
	if v.i >= len(v.node.Rows) {
		if v.node.Pos != nil {
			*v.node.Pos = -1
		}
		return nil, nil
	}
	if v.node.Pos != nil {
		*v.node.Pos = v.i
	}
	exprs := v.node.Rows[v.i]
	v.i++
	if v.out == nil {
		// Non-nil even for a zero-width row: nil means the end.
		v.out = make([]types.Datum, 0, len(exprs))
	}
	v.out = v.out[:0]
	for _, e := range exprs {
		if c, ok := e.(*planner.Const); ok {
			// COPY's rows are all constants: no call into Eval per field.
			v.out = append(v.out, c.Value)
			continue
		}
		d, err := eval.Eval(v.env, e, nil)
		if err != nil {
			return nil, err
		}
		v.out = append(v.out, d)
	}
	return v.out, nil
}

func (v *valuesOp) Close() error { return nil }

// modifiedRowsOp produces the rows a data-modifying WITH query returned
// (planner.ModifiedRows), which the session ran before the statement.
type modifiedRowsOp struct{ sliceSource }

func (o *modifiedRowsOp) Next() ([]types.Datum, error) { return o.next() }
func (o *modifiedRowsOp) Close() error                 { return nil }
