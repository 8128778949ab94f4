package exec

import (
	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// insertOp writes each input row (full-width) into the table: values are
// coerced to the column types, sequences filled, then an index.Inserter
// (one per statement) writes the master record and index entries (it
// checks NOT NULL and uniqueness; a failed row writes nothing). A duplicate key is 23505, or skips the row
// (ConflictIgnore), or first deletes every row it conflicts with on the
// primary key or a unique index (ConflictReplace). Each row's BEFORE
// INSERT triggers run before it is written, its AFTER INSERT triggers
// after.
type insertOp struct {
	dmlBase
	node    *planner.Insert
	row     []types.Datum
	newRow  []types.Datum // ON CONFLICT DO UPDATE's new version of a row
	ins     *index.Inserter
	touched map[string]bool      // master keys written (ON CONFLICT DO UPDATE)
	leaves  map[uint64]*insertOp // a partitioned table's: the partitions written, by ID
}

var _ DMLOperator = (*insertOp)(nil)

func newInsert(rs *runState, env *eval.Env, n *planner.Insert) (Operator, error) {
	if n.Table == nil {
		return nil, pgerror.New(pgerror.Internal, "exec: insert without a table")
	}
	in, err := rs.build(env, n.Input)
	if err != nil {
		return nil, err
	}
	return &insertOp{node: n, dmlBase: dmlBase{event: "insert", rs: rs, env: env, table: n.Table, input: in,
		returning: n.Returning, returnOID: n.ReturningOID, oid: int64(n.Table.ID), t: ticker{rs: rs}, collect: insertCollects(n)}}, nil
}

// insertCollects reports whether an INSERT must collect its input before
// writing: when the input reads the table, or the table has triggers
// (a trigger's statements may write what the input reads).
func insertCollects(n *planner.Insert) bool {
	return readsTable(n.Input, n.Table) || len(n.Table.Triggers) > 0
}

func (o *insertOp) Next() ([]types.Datum, error) { return o.run(o.insert) }

// insert writes one row and returns it as stored, or nil if it was
// skipped.
func (o *insertOp) insert(in []types.Datum) ([]types.Datum, error) {
	if o.node.Route != nil {
		return o.routedInsert(in)
	}
	t := o.table
	o.row = append(o.row[:0], in...)
	// INSERT OR REPLACE and REPLACE INTO are SQLite's statements and
	// store strings whole, as SQLite does, whatever a VARCHAR(n) or
	// CHAR(n) says (docs/conformance.md); every other INSERT checks the
	// length as PostgreSQL does (22001).
	widths := o.node.Conflict != planner.ConflictReplace
	if err := coerceRow(o.rs, t, o.row, true, widths); err != nil {
		return nil, err
	}
	// BEFORE triggers see the row before generated columns and checks,
	// and may change or skip it, as in PostgreSQL.
	if skip, err := o.fireBefore("insert", nil, o.row, nil); skip || err != nil {
		return nil, err
	}
	if err := computeGenerated(o.env, o.node.Generated, o.row); err != nil {
		return nil, err
	}
	if err := checkRow(o.env, t, o.node.Checks, o.row); err != nil {
		return nil, err
	}
	if err := checkBounds(o.env, t, o.node.Bounds, o.row); err != nil {
		return nil, err
	}
	if o.node.Conflict == planner.ConflictReplace {
		if err := deleteConflicts(o.rs, t, o.row); err != nil {
			return nil, err
		}
	}
	if o.node.Arbiter != nil {
		if written, handled, err := o.onConflict(o.row); handled || err != nil {
			return written, err
		}
	}
	// Foreign keys are checked for the row written, as PostgreSQL's
	// referential triggers do (not for a proposed row ON CONFLICT
	// updates instead).
	if err := checkReferences(o.fkEnv(), o.node.FKs, o.row, nil); err != nil {
		return nil, err
	}
	if err := CheckRowSize(o.row, o.rs.ctx.MaxValueSize); err != nil {
		return nil, err
	}
	if o.ins == nil && t.Foreign == nil {
		o.ins = index.NewInserter(o.rs.ctx.RW, t)
	}
	var err error
	if t.Foreign != nil {
		err = o.rs.foreignWrite(t, nil, o.row)
	} else {
		err = o.ins.Insert(o.row)
	}
	if err != nil {
		if o.node.Conflict == planner.ConflictIgnore && o.node.Arbiter == nil && pgerror.HasCode(err, pgerror.UniqueViolation) {
			return nil, nil
		}
		return nil, err
	}
	o.touch(o.row)
	return o.row, o.fire("after", "insert", nil, o.row, nil)
}

// deleteConflicts deletes the rows of t that share row's primary key or
// the non-NULL values of one of its unique indexes.
func deleteConflicts(rs *runState, t *catalog.Table, row []types.Datum) error {
	var victims [][]types.Datum
	keys := []*catalog.Index{nil}
	for _, idx := range t.Indexes {
		if idx.Unique {
			keys = append(keys, idx)
		}
	}
	for _, idx := range keys {
		rows, err := conflicts(rs.ctx.RW, t, idx, row)
		if err != nil {
			return err
		}
		victims = append(victims, rows...)
	}
	for _, v := range victims {
		// A row may conflict on several keys; deleting it twice is
		// harmless (kv deletes of absent keys are no-ops).
		if err := index.Delete(rs.ctx.RW, t, v); err != nil {
			return err
		}
	}
	return nil
}

// conflicts returns the rows of t that share row's primary key (idx nil)
// or its non-NULL values of the unique index idx (NULLs too, under NULLS
// NOT DISTINCT).
func conflicts(rw kv.ReadWriter, t *catalog.Table, idx *catalog.Index, row []types.Datum) ([][]types.Datum, error) {
	var pks [][]types.Datum
	if idx == nil {
		if t.HiddenRowID {
			return nil, nil
		}
		pk := make([]types.Datum, len(t.PrimaryKey))
		for i, o := range t.PrimaryKey {
			pk[i] = row[o]
		}
		pks = append(pks, pk)
	} else {
		vals := make([]types.Datum, len(idx.Columns))
		for i, o := range idx.Columns {
			vals[i] = row[o]
		}
		if hasNull(vals) && !idx.NullsNotDistinct {
			return nil, nil
		}
		it, err := index.ScanIndex(rw, t, idx, index.Span{Lo: vals, Hi: vals}, false)
		if err != nil {
			return nil, err
		}
		for it.Next() {
			e := it.Row()
			pk := make([]types.Datum, len(t.PrimaryKey))
			for i, o := range t.PrimaryKey {
				pk[i] = e[o]
			}
			pks = append(pks, pk)
		}
		err = it.Err()
		if cerr := it.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
	}
	return getRows(rw, t, pks, nil)
}

// getRows appends to out the rows of t with the primary keys pks (those
// that exist).
func getRows(rw kv.Reader, t *catalog.Table, pks, out [][]types.Datum) ([][]types.Datum, error) {
	for _, pk := range pks {
		row := make([]types.Datum, len(t.Columns))
		found, err := index.Get(rw, t, pk, row)
		if err != nil {
			return nil, err
		}
		if found {
			out = append(out, row)
		}
	}
	return out, nil
}

// onConflict handles a proposed row that conflicts on the arbiter key of
// ON CONFLICT: DO NOTHING skips it; DO UPDATE applies SET (over the
// existing row and the proposed one) to the existing row unless WHERE
// rejects it. A row this statement inserted or updated already may not
// be updated again (21000, as in PostgreSQL). handled is false when there
// is no conflict and the row is to be inserted.
func (o *insertOp) onConflict(row []types.Datum) (written []types.Datum, handled bool, err error) {
	t := o.table
	rows, err := conflicts(o.rs.ctx.RW, t, o.node.Arbiter.Index, row)
	if err != nil || len(rows) == 0 {
		return nil, false, err
	}
	old := rows[0]
	if o.node.Conflict == planner.ConflictIgnore {
		return nil, true, nil
	}
	o.key = index.MasterKeyOfRow(o.key[:0], t, old)
	if o.touched[string(o.key)] {
		e := pgerror.New(pgerror.CardinalityViolation, "ON CONFLICT DO UPDATE command cannot affect row a second time")
		e.Hint = "Ensure that no rows proposed for insertion within the same command have duplicate constrained values."
		return nil, true, e
	}
	if err := o.lockRow(old); err != nil {
		return nil, true, err
	}
	both := append(append(make([]types.Datum, 0, 2*len(old)), old...), row...)
	ok, err := passes(o.env, o.node.UpdateWhere, both)
	if err != nil || !ok {
		return nil, true, err
	}
	o.newRow = append(o.newRow[:0], old...)
	for _, a := range o.node.Set {
		d, err := eval.Eval(o.env, a.Expr, both)
		if err != nil {
			return nil, true, err
		}
		o.newRow[a.Col] = d
	}
	if err := coerceRow(o.rs, t, o.newRow, false, true); err != nil {
		return nil, true, err
	}
	if err := computeGenerated(o.env, o.node.Generated, o.newRow); err != nil {
		return nil, true, err
	}
	if err := checkRow(o.env, t, o.node.Checks, o.newRow); err != nil {
		return nil, true, err
	}
	if err := checkReferences(o.fkEnv(), o.node.FKs, o.newRow, old); err != nil {
		return nil, true, err
	}
	if skip, err := o.fireBefore("update", old, o.newRow, nil); skip || err != nil {
		return nil, true, err
	}
	if err := CheckRowSize(o.newRow, o.rs.ctx.MaxValueSize); err != nil {
		return nil, true, err
	}
	if err := index.Update(o.rs.ctx.RW, t, old, o.newRow); err != nil {
		return nil, true, err
	}
	// After the write, as in UPDATE (updateOp.update).
	if err := releaseReferences(o.fkEnv(), o.node.Referenced, old, o.newRow); err != nil {
		return nil, true, err
	}
	o.touch(o.newRow)
	return o.newRow, true, o.fire("after", "update", old, o.newRow, nil)
}

// touch remembers a row the statement wrote (ON CONFLICT DO UPDATE only).
func (o *insertOp) touch(row []types.Datum) {
	if o.node.Conflict != planner.ConflictUpdate {
		return
	}
	if o.touched == nil {
		o.touched = map[string]bool{}
	}
	o.key = index.MasterKeyOfRow(o.key[:0], o.table, row)
	o.touched[string(o.key)] = true
}
