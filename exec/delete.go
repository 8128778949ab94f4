package exec

import (
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// deleteOp removes the rows its input produces (full-width rows of the
// table) with their index entries, after releasing the rows that
// reference them (foreign keys: refuse, cascade or set null). Like
// updateOp it reads a statement-start view, or collects its input first.
// Each row's BEFORE and AFTER DELETE triggers run around its deletion.
type deleteOp struct {
	dmlBase
	node *planner.Delete
}

var _ DMLOperator = (*deleteOp)(nil)

func newDelete(rs *runState, env *eval.Env, n *planner.Delete) (Operator, error) {
	if n.Table == nil {
		return nil, pgerror.New(pgerror.Internal, "exec: delete without a table")
	}
	in, err := rs.build(env, n.Input)
	if err != nil {
		return nil, err
	}
	return &deleteOp{node: n, dmlBase: dmlBase{event: "delete", rs: rs, env: env, table: n.Table, input: in,
		returning: n.Returning, returnOID: n.ReturningOID, oid: int64(n.Table.ID), joined: true, t: ticker{rs: rs}, collect: mustCollect(rs, n.Table)}}, nil
}

func (o *deleteOp) Next() ([]types.Datum, error) {
	return o.run(func(in []types.Datum) ([]types.Datum, error) {
		row, dup := o.targetRow(in)
		if dup {
			return nil, nil
		}
		if err := o.lockRow(row); err != nil {
			return nil, err
		}
		if skip, err := o.fireBefore("delete", row, nil, nil); skip || err != nil {
			return nil, err
		}
		if err := releaseReferences(o.fkEnv(), o.node.Referenced, row, nil); err != nil {
			return nil, err
		}
		if o.table.Foreign != nil {
			if err := o.rs.foreignWrite(o.table, row, nil); err != nil {
				return nil, err
			}
		} else if err := index.Delete(o.rs.ctx.RW, o.table, row); err != nil {
			return nil, err
		}
		return row, o.fire("after", "delete", row, nil, nil)
	})
}
