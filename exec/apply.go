package exec

import (
	"slices"

	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// applyOp is a LATERAL join: for each left row it builds and runs the
// right plan with that row as the innermost enclosing row, and joins the
// left row with each row it produces (and, for a LEFT join, with NULLs
// when none passes On).
type applyOp struct {
	rs     *runState
	env    *eval.Env
	n      *planner.Join
	left   Operator
	lw, rw int

	cur     []types.Datum // the left row the right side runs for
	right   Operator      // nil between left rows
	matched bool
	t       ticker
}

var _ Operator = (*applyOp)(nil)

func (a *applyOp) Next() ([]types.Datum, error) {
	for {
		if a.right == nil {
			l, err := a.left.Next()
			if l == nil || err != nil {
				return nil, err
			}
			a.cur = copyRow(l)
			sub := *a.env
			sub.Outer = append(slices.Clip(a.env.Outer), a.cur)
			if a.right, err = a.rs.build(&sub, a.n.Right); err != nil {
				return nil, err
			}
			a.matched = false
		}
		if a.t.rs == nil {
			a.t = ticker{rs: a.rs}
		}
		if err := a.t.tick(); err != nil {
			return nil, err
		}
		r, err := a.right.Next()
		if err != nil {
			return nil, err
		}
		if r == nil {
			err := a.right.Close()
			a.right = nil
			if err != nil {
				return nil, err
			}
			if a.n.Type == planner.LeftJoin && !a.matched {
				out := make([]types.Datum, a.lw+a.rw)
				copy(out, a.cur)
				return out, nil
			}
			continue
		}
		out := make([]types.Datum, 0, a.lw+a.rw)
		out = append(append(out, a.cur...), r...)
		ok, err := passes(a.env, a.n.On, out)
		if err != nil {
			return nil, err
		}
		if ok {
			a.matched = true
			return out, nil
		}
	}
}

func (a *applyOp) Close() error {
	var err error
	if a.right != nil {
		err = a.right.Close()
		a.right = nil
	}
	if lerr := a.left.Close(); err == nil {
		err = lerr
	}
	return err
}
