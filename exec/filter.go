package exec

import (
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// filterOp passes the input rows for which pred is true (not false, not
// NULL).
type filterOp struct {
	env   *eval.Env
	input Operator
	pred  planner.Expr
}

var _ Operator = (*filterOp)(nil)

func (f *filterOp) Next() ([]types.Datum, error) {
	for {
		row, err := f.input.Next()
		if row == nil || err != nil {
			return nil, err
		}
		ok, err := eval.EvalBool(f.env, f.pred, row)
		if err != nil {
			return nil, err
		}
		if ok {
			return row, nil
		}
	}
}

func (f *filterOp) Close() error { return f.input.Close() }

// gateOp judges a predicate that reads no input column once, before the
// first input row is asked for: when it fails, the input is never read
// (PostgreSQL's One-Time Filter).
type gateOp struct {
	env    *eval.Env
	input  Operator
	pred   planner.Expr
	judged bool
	closed bool // the predicate failed: no rows
}

var _ Operator = (*gateOp)(nil)

func (g *gateOp) Next() ([]types.Datum, error) {
	if !g.judged {
		g.judged = true
		ok, err := eval.EvalBool(g.env, g.pred, nil)
		if err != nil {
			return nil, err
		}
		g.closed = !ok
	}
	if g.closed {
		return nil, nil
	}
	return g.input.Next()
}

func (g *gateOp) Close() error { return g.input.Close() }

// passes evaluates an optional predicate: a nil pred passes every row.
func passes(env *eval.Env, pred planner.Expr, row []types.Datum) (bool, error) {
	if pred == nil {
		return true, nil
	}
	return eval.EvalBool(env, pred, row)
}
