package exec

import (
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// projectOp computes exprs over each input row.
type projectOp struct {
	env   *eval.Env
	input Operator
	exprs []planner.Expr
	out   []types.Datum
}

var _ Operator = (*projectOp)(nil)

func (p *projectOp) Next() ([]types.Datum, error) {
	row, err := p.input.Next()
	if row == nil || err != nil {
		return nil, err
	}
	if err := evalInto(p.env, p.exprs, row, p.out); err != nil {
		return nil, err
	}
	return p.out, nil
}

func (p *projectOp) Close() error { return p.input.Close() }

// evalInto evaluates exprs over row into out[i].
func evalInto(env *eval.Env, exprs []planner.Expr, row, out []types.Datum) error {
	for i, e := range exprs {
		d, err := eval.Value(env, e, row)
		if err != nil {
			return err
		}
		out[i] = d
	}
	return nil
}
