package exec

import (
	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/index"
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
	node *planner.Insert
	row  []types.Datum
	ins  *index.Inserter
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
	return &insertOp{node: n, dmlBase: dmlBase{rs: rs, env: env, table: n.Table, input: in,
		returning: n.Returning, t: ticker{rs: rs},
		// A trigger's statements may write what the input reads.
		collect: readsTable(n.Input, n.Table) || len(n.Table.Triggers) > 0}}, nil
}

func (o *insertOp) Next() ([]types.Datum, error) { return o.run(o.insert) }

// insert writes one row and returns it as stored, or nil if it was
// skipped.
func (o *insertOp) insert(in []types.Datum) ([]types.Datum, error) {
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
	if err := o.fire("before", "insert", nil, o.row, nil); err != nil {
		return nil, err
	}
	if o.node.Conflict == planner.ConflictReplace {
		if err := deleteConflicts(o.rs, t, o.row); err != nil {
			return nil, err
		}
	}
	if o.ins == nil {
		o.ins = index.NewInserter(o.rs.ctx.RW, t)
	}
	err := o.ins.Insert(o.row)
	if err != nil {
		if o.node.Conflict == planner.ConflictIgnore && pgerror.HasCode(err, pgerror.UniqueViolation) {
			return nil, nil
		}
		return nil, err
	}
	return o.row, o.fire("after", "insert", nil, o.row, nil)
}

// deleteConflicts deletes the rows of t that share row's primary key or
// the non-NULL values of one of its unique indexes.
func deleteConflicts(rs *runState, t *catalog.Table, row []types.Datum) error {
	rw := rs.ctx.RW
	var victims [][]types.Datum
	if !t.HiddenRowID {
		pk := make([]types.Datum, len(t.PrimaryKey))
		for i, o := range t.PrimaryKey {
			pk[i] = row[o]
		}
		old := make([]types.Datum, len(t.Columns))
		found, err := index.Get(rw, t, pk, old)
		if err != nil {
			return err
		}
		if found {
			victims = append(victims, old)
		}
	}
	for _, idx := range t.Indexes {
		if !idx.Unique {
			continue
		}
		vals := make([]types.Datum, len(idx.Columns))
		for i, o := range idx.Columns {
			vals[i] = row[o]
		}
		if hasNull(vals) {
			continue
		}
		it, err := index.ScanIndex(rw, t, idx, index.Span{Lo: vals, Hi: vals}, false)
		if err != nil {
			return err
		}
		var pks [][]types.Datum
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
			return err
		}
		for _, pk := range pks {
			old := make([]types.Datum, len(t.Columns))
			found, err := index.Get(rw, t, pk, old)
			if err != nil {
				return err
			}
			if found {
				victims = append(victims, old)
			}
		}
	}
	for _, v := range victims {
		// A row may conflict on several keys; deleting it twice is
		// harmless (kv deletes of absent keys are no-ops).
		if err := index.Delete(rw, t, v); err != nil {
			return err
		}
	}
	return nil
}
