package exec

import (
	"errors"

	"github.com/kvsql/kvsql/catalog"
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
// index.Update, between the row's BEFORE and AFTER UPDATE triggers.
//
// A key of a DEFERRABLE unique or primary key constraint is checked when
// the statement ends, as PostgreSQL does (a constraint that is not
// deferrable is checked as each row is written, there and here). A new
// row whose deferrable key another row still holds is put aside, not
// failed: that row may be one the statement moves later (UPDATE t SET
// id = id + 1 reads id 1 before id 2). Once the input is done the rows
// put aside leave their old keys and go in (retryAside); a key still
// taken then fails the statement with 23505. Without memory for the rows
// put aside, the conflict fails at once.
type updateOp struct {
	dmlBase
	node   *planner.Update
	newRow []types.Datum
	set    []int     // the ordinals SET assigns, for UPDATE OF triggers
	mover  *insertOp // routes the rows moved to another partition (see moveRow)
	kbuf   []byte    // index.UpdateBuf's keys and value, kept across rows and reruns

	aside    []asideRow // rows whose new key was taken, to write at the end
	asideMem memAccount
	asideOut bool // the rows put aside have left their old keys
}

// asideRow is a row update put aside by a key conflict: the row read
// (in, with the joined columns) and its old and new values.
type asideRow struct{ in, old, new []types.Datum }

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
	o := &updateOp{node: n, set: set, dmlBase: dmlBase{event: "update", rs: rs, env: env, table: n.Table, input: in,
		returning: n.Returning, returnOID: n.ReturningOID, oid: int64(n.Table.ID), joined: true, t: ticker{rs: rs}, collect: mustCollect(rs, n.Table)},
		asideMem: rs.heldAccount()}
	o.retry = o.retryAside
	return o, nil
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
			if !deferrableConflict(o.table, err) {
				return nil, err
			}
			return nil, o.putAside(in, old, err)
		}
	}
	return o.written(old)
}

// written finishes the update of old to o.newRow once it is written:
// after the write, as PostgreSQL's triggers, so that in a table that
// references itself a cascade finds the row as it is now.
func (o *updateOp) written(old []types.Datum) ([]types.Datum, error) {
	if err := releaseReferences(o.fkEnv(), o.node.Referenced, old, o.newRow); err != nil {
		return nil, err
	}
	return o.newRow, o.fire("after", "update", old, o.newRow, o.set)
}

// putAside keeps the update of old to o.newRow, which conflicted (err),
// to write once the input is done; err fails the statement when there
// is no memory for it.
func (o *updateOp) putAside(in, old []types.Datum, err error) error {
	sz := rowSize(in) + rowSize(old) + rowSize(o.newRow)
	if !o.asideMem.fits(sz) || o.asideMem.grow(sz) != nil {
		return err
	}
	o.aside = append(o.aside, asideRow{in: clone(in), old: clone(old), new: clone(o.newRow)})
	return nil
}

// retryAside writes the next row put aside and returns it with the
// input row it came from; nil when none is left. Before the first, every
// row put aside leaves its old key, so rows trading keys (SET v = 50 -
// v over 20 and 30) or shifting them (SET k = k + 1) all go in; a new
// key still held by a row the statement did not move fails with 23505.
func (o *updateOp) retryAside() (in, written []types.Datum, err error) {
	if len(o.aside) == 0 {
		return nil, nil, nil
	}
	if !o.asideOut {
		o.asideOut = true
		for _, a := range o.aside {
			if err := index.Delete(o.rs.ctx.RW, o.table, a.old); err != nil {
				return nil, nil, err
			}
		}
	}
	a := o.aside[0]
	o.aside = o.aside[1:]
	if err := index.Insert(o.rs.ctx.RW, o.table, a.new); err != nil {
		return nil, nil, err
	}
	o.newRow = append(o.newRow[:0], a.new...)
	w, err := o.written(a.old)
	return a.in, w, err
}

// deferrableConflict reports whether err is a 23505 of one of t's
// DEFERRABLE unique or primary key constraints.
func deferrableConflict(t *catalog.Table, err error) bool {
	var pe *pgerror.Error
	if !errors.As(err, &pe) || pe.Code != pgerror.UniqueViolation {
		return false
	}
	if pe.Constraint == t.PrimaryKeyName {
		return t.PrimaryKeyDeferrable
	}
	for _, idx := range t.Indexes {
		if idx.Name == pe.Constraint {
			return idx.Deferrable
		}
	}
	return false
}

func clone(row []types.Datum) []types.Datum { return append([]types.Datum(nil), row...) }
