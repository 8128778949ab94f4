package exec

import (
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// Codes PostgreSQL raises for bad LIMIT and OFFSET values.
const (
	codeInvalidRowCountInLimit  pgerror.Code = "2201W"
	codeInvalidRowCountInOffset pgerror.Code = "2201X"
)

// limitOp skips Offset rows, then passes at most Count. Both are
// evaluated when the first row is asked for; it stops reading its input
// once Count rows have passed.
type limitOp struct {
	env    *eval.Env
	input  Operator
	node   *planner.Limit
	opened bool
	count  int64 // -1: unlimited
	offset int64
	// last holds the TiesOn key values of the count-th row (WITH TIES):
	// once count rows have passed, rows equal to it on them still pass.
	last []types.Datum
	ties bool // past the count-th row, passing ties
}

var _ Operator = (*limitOp)(nil)

func (l *limitOp) Next() ([]types.Datum, error) {
	if !l.opened {
		l.opened = true
		var err error
		if l.count, l.offset, err = limitValues(l.env, l.node.Count, l.node.Offset); err != nil {
			return nil, err
		}
	}
	if l.ties {
		row, err := l.input.Next()
		if row == nil || err != nil {
			return nil, err
		}
		for i, k := range l.node.TiesOn {
			d, err := eval.Eval(l.env, k.Expr, row)
			if err != nil {
				return nil, err
			}
			if !eval.Equal(d, l.last[i]) {
				l.ties, l.count = false, 0
				return nil, nil
			}
		}
		return row, nil
	}
	if l.count == 0 {
		return nil, nil
	}
	for l.offset > 0 {
		row, err := l.input.Next()
		if row == nil || err != nil {
			return nil, err
		}
		l.offset--
	}
	row, err := l.input.Next()
	if row == nil || err != nil {
		return nil, err
	}
	if l.count > 0 {
		l.count--
		if l.count == 0 && len(l.node.TiesOn) > 0 {
			l.last = make([]types.Datum, len(l.node.TiesOn))
			for i, k := range l.node.TiesOn {
				if l.last[i], err = eval.Eval(l.env, k.Expr, row); err != nil {
					return nil, err
				}
			}
			l.ties = true
		}
	}
	return row, nil
}

func (l *limitOp) Close() error { return l.input.Close() }

// limitValues evaluates LIMIT and OFFSET expressions: a nil or NULL count
// is unlimited (-1), a nil or NULL offset is 0; negative values are errors
// as in PostgreSQL.
func limitValues(env *eval.Env, countE, offsetE planner.Expr) (count, offset int64, err error) {
	count = -1
	if countE != nil {
		d, err := evalInt(env, countE)
		if err != nil {
			return 0, 0, err
		}
		if !d.IsNull() {
			if d.I < 0 {
				return 0, 0, pgerror.New(codeInvalidRowCountInLimit, "LIMIT must not be negative")
			}
			count = d.I
		}
	}
	if offsetE != nil {
		d, err := evalInt(env, offsetE)
		if err != nil {
			return 0, 0, err
		}
		if !d.IsNull() {
			if d.I < 0 {
				return 0, 0, pgerror.New(codeInvalidRowCountInOffset, "OFFSET must not be negative")
			}
			offset = d.I
		}
	}
	return count, offset, nil
}

// evalInt evaluates a row-independent expression as an INT8 (or NULL).
func evalInt(env *eval.Env, e planner.Expr) (types.Datum, error) {
	d, err := eval.Eval(env, e, nil)
	if err != nil || d.IsNull() || d.Kind == types.KindInt {
		return d, err
	}
	return eval.Cast(d, types.T{Family: types.Int8})
}
