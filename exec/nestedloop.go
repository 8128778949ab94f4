package exec

import (
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// nestedLoopOp joins by testing On for every (left, right) pair. The
// right input is read once into a spill-aware row buffer and replayed for
// each left row, so it is never re-executed.
type nestedLoopOp struct {
	rs          *runState
	env         *eval.Env
	node        *planner.Join
	left, right Operator
	lw, rw      int
	t           ticker

	opened  bool
	inner   *rowBuffer
	lrow    []types.Datum
	it      *bufferIter
	matched bool
	out     []types.Datum
}

var _ Operator = (*nestedLoopOp)(nil)

func newNestedLoop(rs *runState, env *eval.Env, n *planner.Join, left, right Operator, lw, rw int) *nestedLoopOp {
	return &nestedLoopOp{rs: rs, env: env, node: n, left: left, right: right, lw: lw, rw: rw,
		t: ticker{rs: rs}, out: make([]types.Datum, lw+rw)}
}

func (j *nestedLoopOp) Next() ([]types.Datum, error) {
	if !j.opened {
		j.opened = true
		j.inner = newRowBuffer(j.rs, j.rs.workMem)
		for {
			row, err := j.right.Next()
			if err != nil {
				return nil, err
			}
			if row == nil {
				break
			}
			if err := j.t.tick(); err != nil {
				return nil, err
			}
			if err := j.inner.add(row); err != nil {
				return nil, err
			}
		}
	}
	typ := j.node.Type
	for {
		if j.lrow == nil {
			row, err := j.left.Next()
			if row == nil || err != nil {
				return nil, err
			}
			j.lrow, j.matched, j.it = row, false, j.inner.iter()
			copy(j.out, row)
		}
		for {
			r, err := j.it.next()
			if err != nil {
				return nil, err
			}
			if r == nil {
				break
			}
			if err := j.t.tick(); err != nil {
				return nil, err
			}
			copy(j.out[j.lw:], r)
			ok, err := passes(j.env, j.node.On, j.out)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			j.matched = true
			switch typ {
			case planner.InnerJoin, planner.LeftJoin:
				return j.out, nil
			}
			break // Semi and Anti need only the first match
		}
		matched := j.matched
		j.lrow = nil
		switch {
		case typ == planner.SemiJoin && matched, typ == planner.AntiJoin && !matched:
			return j.out[:j.lw], nil
		case typ == planner.LeftJoin && !matched:
			clear(j.out[j.lw:])
			return j.out, nil
		}
	}
}

func (j *nestedLoopOp) Close() error {
	err := closeAll(j.left, j.right)
	if j.inner != nil {
		if cerr := j.inner.close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	return err
}
