package exec

import (
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// updateOp rewrites the rows its input produces, one at a time as
// PostgreSQL does when the statement reads a view of the transaction
// taken at its start (Ctx.Read); otherwise it collects the target rows
// first (see mustCollect), so an updated row is never seen again by the
// scan that found it (the Halloween problem). Each SET expression is evaluated over the
// old row; the new row is coerced to the column types and written with
// index.Update (23505 if it collides with another row), between the
// row's BEFORE and AFTER UPDATE triggers.
type updateOp struct {
	dmlBase
	node   *planner.Update
	newRow []types.Datum
	set    []int     // the ordinals SET assigns, for UPDATE OF triggers
	mover  *insertOp // routes the rows moved to another partition (see moveRow)
	kbuf   []byte    // index.UpdateBuf's keys and value, kept across rows and reruns
}

var _ DMLOperator = (*updateOp)(nil)

func newUpdate(rs *runState, env *eval.Env, n *planner.Update) (Operator, error) {
	if n.Table == nil {
		return nil, pgerror.New(pgerror.Internal, "exec: update without a table")
	}
	for _, a := range n.Set {
		if a.Col < 0 || a.Col >= len(n.Table.Columns) {
			return nil, pgerror.Newf(pgerror.Internal, "exec: update of column %d of %q", a.Col, n.Table.Name)
		}
	}
	in, err := rs.build(env, n.Input)
	if err != nil {
		return nil, err
	}
	set := make([]int, len(n.Set))
	for i, a := range n.Set {
		set[i] = a.Col
	}
	return &updateOp{node: n, set: set, dmlBase: dmlBase{event: "update", rs: rs, env: env, table: n.Table, input: in,
		returning: n.Returning, returnOID: n.ReturningOID, oid: int64(n.Table.ID), joined: true, t: ticker{rs: rs}, collect: mustCollect(rs, n.Table)}}, nil
}

func (o *updateOp) Next() ([]types.Datum, error) { return o.run(o.update) }

func (o *updateOp) update(in []types.Datum) ([]types.Datum, error) {
	if len(in) < len(o.table.Columns) {
		return nil, pgerror.Newf(pgerror.Internal, "exec: update input of %d columns for %q", len(in), o.table.Name)
	}
	o.oid = int64(o.table.ID) // moveRow's is the new partition's
	old, dup := o.targetRow(in)
	if dup {
		return nil, nil
	}
	if err := o.lockRow(old); err != nil {
		return nil, err
	}
	o.newRow = append(o.newRow[:0], old...)
	for _, a := range o.node.Set {
		d, err := eval.Eval(o.env, a.Expr, in)
		if err != nil {
			return nil, err
		}
		o.newRow[a.Col] = d
	}
	if err := coerceRow(o.rs, o.table, o.newRow, false, true); err != nil {
		return nil, err
	}
	if skip, err := o.fireBefore("update", old, o.newRow, o.set); skip || err != nil {
		return nil, err
	}
	if err := computeGenerated(o.env, o.node.Generated, o.newRow); err != nil {
		return nil, err
	}
	if err := checkRow(o.env, o.table, o.node.Checks, o.newRow); err != nil {
		return nil, err
	}
	if err := checkBounds(o.env, o.table, o.node.Bounds, o.newRow); err != nil {
		if o.node.Move == nil {
			return nil, err
		}
		return o.moveRow(old)
	}
	if err := checkReferences(o.fkEnv(), o.node.FKs, o.newRow, old); err != nil {
		return nil, err
	}
	if err := CheckRowSize(o.newRow, o.rs.ctx.MaxValueSize); err != nil {
		return nil, err
	}
	if o.table.Foreign != nil {
		if err := o.rs.foreignWrite(o.table, old, o.newRow); err != nil {
			return nil, err
		}
	} else {
		var err error
		if o.kbuf, err = index.UpdateBuf(o.rs.ctx.RW, o.table, old, o.newRow, o.kbuf); err != nil {
			return nil, err
		}
	}
	// After the write, as PostgreSQL's triggers: in a table that
	// references itself, a cascade then finds the row as it is now.
	if err := releaseReferences(o.fkEnv(), o.node.Referenced, old, o.newRow); err != nil {
		return nil, err
	}
	return o.newRow, o.fire("after", "update", old, o.newRow, o.set)
}
