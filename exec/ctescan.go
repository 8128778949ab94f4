package exec

import (
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// cteBuffer holds the rows of a WITH query evaluated once per execution
// (planner.CTEScan): the first reference to be read runs the query to its
// end into a row buffer (spilling past work_mem), and every reference, and
// every re-open of one (a nested loop's rescan, a subquery run per outer
// row), iterates the same rows. The buffer lives as long as the
// execution: the stmtOp at the root of the tree closes it, with its spill
// file (unlinked when made), after the tree (operator.go).
type cteBuffer struct {
	buf *rowBuffer
}

// cteScanOp reads a shared WITH query's stored rows.
type cteScanOp struct {
	rs   *runState
	env  *eval.Env
	node *planner.CTEScan
	it   *bufferIter
}

func newCTEScan(rs *runState, env *eval.Env, n *planner.CTEScan) *cteScanOp {
	rs.holdsBuffers = true
	return &cteScanOp{rs: rs, env: env, node: n}
}

func (o *cteScanOp) Next() ([]types.Datum, error) {
	if o.it == nil {
		c, err := o.rs.cteRows(o.env, o.node)
		if err != nil {
			return nil, err
		}
		o.it = c.buf.iter()
	}
	return o.it.next()
}

func (o *cteScanOp) Close() error { return nil }

// cteRows returns the stored rows of n's WITH query, running the query
// the first time.
func (rs *runState) cteRows(env *eval.Env, n *planner.CTEScan) (*cteBuffer, error) {
	if c := rs.ctes[n.ID]; c != nil {
		return c, nil
	}
	op, err := rs.build(env, n.Query)
	if err != nil {
		return nil, err
	}
	buf := newRowBuffer(rs, rs.workMem)
	t := ticker{rs: rs}
	for {
		row, err := op.Next()
		if err != nil {
			_ = op.Close()
			_ = buf.close()
			return nil, err
		}
		if row == nil {
			break
		}
		if err := t.tick(); err != nil {
			_ = op.Close()
			_ = buf.close()
			return nil, err
		}
		if err := buf.add(row); err != nil {
			_ = op.Close()
			_ = buf.close()
			return nil, err
		}
	}
	if err := op.Close(); err != nil {
		_ = buf.close()
		return nil, err
	}
	c := &cteBuffer{buf: buf}
	if rs.ctes == nil {
		rs.ctes = make(map[int]*cteBuffer)
	}
	rs.ctes[n.ID] = c
	return c, nil
}
