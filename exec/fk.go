package exec

import (
	"strings"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// Foreign keys are checked for each row the statement writes: a
// referencing row's key must exist in the referenced table (MATCH
// SIMPLE: a NULL in the key skips the check), and a referenced row that
// is deleted or loses its key must not be referenced, unless ON DELETE
// CASCADE or SET NULL says what happens to the referencing rows.
//
// As PostgreSQL's foreign-key triggers, the checks of NO ACTION
// constraints run when the statement ends (Deferred.BeginStatement), not
// as each row is written: a row may reference itself or a row the same
// statement writes later, a SET DEFAULT may point at a key the same
// UPDATE creates, and a key an UPDATE moves away and another row takes
// back is still there. RESTRICT refuses at once, and CASCADE, SET NULL
// and SET DEFAULT act at once. A write outside a statement scope checks
// at once.
//
// The two sides' columns may differ in type where PostgreSQL allows it
// (an integer column referencing a numeric key): a key is cast to the
// other side's types before it is looked up there (toParent, toChild).

func pick(row []types.Datum, cols []int) []types.Datum {
	out := make([]types.Datum, len(cols))
	for i, c := range cols {
		out[i] = row[c]
	}
	return out
}

// keyText renders "Key (a, b)=(1, x)" for an error detail.
func keyText(t *catalog.Table, cols []int, vals []types.Datum) string {
	names := make([]string, len(cols))
	texts := make([]string, len(vals))
	for i, c := range cols {
		names[i] = t.Columns[c].Name
		if vals[i].IsNull() {
			texts[i] = "null"
		} else {
			texts[i] = eval.FormatText(vals[i], t.Columns[c].Type)
		}
	}
	return "Key (" + strings.Join(names, ", ") + ")=(" + strings.Join(texts, ", ") + ")"
}

// fkEnv is what foreign-key checks and actions need: the transaction,
// an evaluation environment (for SET DEFAULT's defaults) and the
// transaction's deferred checks (nil: none are deferred).
type fkEnv struct {
	rw       kv.ReadWriter
	env      *eval.Env
	deferred *Deferred
}

func (o *dmlBase) fkEnv() fkEnv {
	return fkEnv{rw: o.rs.ctx.RW, env: o.env, deferred: o.rs.ctx.Deferred}
}

// checkReferences checks that row's foreign keys exist; with old (an
// UPDATE), keys that did not change are not looked up.
func checkReferences(fe fkEnv, fks []planner.FKRef, row, old []types.Datum) error {
	for i := range fks {
		fk := &fks[i]
		vals := pick(row, fk.ChildCols)
		if old != nil && rowsIdentical(vals, pick(old, fk.ChildCols)) {
			continue
		}
		if err := checkReference(fe, fk, vals); err != nil {
			return err
		}
	}
	return nil
}

// checkReference checks one key of a row being written: all NULL passes;
// partly NULL passes under MATCH SIMPLE and is refused under MATCH FULL;
// a complete key must exist in the referenced table, now or, when the
// constraint is deferred, when the deferred checks run.
func checkReference(fe fkEnv, fk *planner.FKRef, vals []types.Datum) error {
	if n := nullCount(vals); n > 0 {
		if fk.MatchFull && n < len(vals) {
			e := childViolation(fk)
			e.Detail = "MATCH FULL does not allow mixing of null and nonnull key values."
			return e
		}
		return nil
	}
	if fe.deferred.defers(fk.Name, fk.Deferrable, fk.InitiallyDeferred) {
		fe.deferred.add(pendingCheck{fk: *fk, vals: vals, child: true})
		return nil
	}
	if fe.deferred.queue(fk, vals, true) {
		return nil
	}
	found, err := referenced(fe.rw, fk, toParent(fk, vals))
	if err != nil || found {
		return err
	}
	return missingReference(fk, vals)
}

// recheck is a check that waited (for the statement's end, or deferred):
// with child, the referencing key vals must be in the referenced table
// unless no row holds it any more; otherwise the referenced key vals,
// deleted or changed, must be back in its table or referenced no more.
// It looks at the rows as they are now.
func recheck(rw kv.ReadWriter, fk *planner.FKRef, vals []types.Datum, child bool) error {
	pvals, cvals := vals, vals
	if child {
		pvals = toParent(fk, vals)
	} else {
		var ok bool
		if cvals, ok = toChild(fk, vals); !ok {
			return nil // no referencing row can hold it
		}
	}
	found, err := referenced(rw, fk, pvals)
	if err != nil || found {
		return err
	}
	rows, err := referencing(rw, fk, cvals)
	if err != nil || len(rows) == 0 {
		return err
	}
	if child {
		return missingReference(fk, vals)
	}
	return stillReferenced(fk, vals)
}

// toParent casts a referencing key to the referenced columns' types
// where the two differ (an integer referencing a numeric key; PostgreSQL
// allows a foreign key only where the cast is implicit, so it cannot
// fail); vals itself where they agree.
func toParent(fk *planner.FKRef, vals []types.Datum) []types.Datum {
	out, _ := castKey(vals, fk.Child, fk.ChildCols, fk.Parent, fk.ParentCols)
	return out
}

// toChild casts a referenced key to the referencing columns' types; ok
// false when a value has none there (a numeric 1.5 for an integer
// column), so no referencing row can hold it.
func toChild(fk *planner.FKRef, vals []types.Datum) ([]types.Datum, bool) {
	return castKey(vals, fk.Parent, fk.ParentCols, fk.Child, fk.ChildCols)
}

// castKey casts vals, the columns fromCols of from, to the types of the
// columns toCols of to where the families differ.
func castKey(vals []types.Datum, from *catalog.Table, fromCols []int, to *catalog.Table, toCols []int) ([]types.Datum, bool) {
	var out []types.Datum
	for i, v := range vals {
		ft, tt := from.Columns[fromCols[i]].Type, to.Columns[toCols[i]].Type
		if ft.Family == tt.Family || v.IsNull() {
			continue
		}
		if out == nil {
			out = append([]types.Datum(nil), vals...)
		}
		c, err := eval.CastFrom(v, ft, tt)
		if err != nil {
			return vals, false
		}
		if back, err := eval.CastFrom(c, tt, ft); err != nil || !eval.Equal(back, v) {
			return vals, false // 1.5 is no integer
		}
		out[i] = c
	}
	if out == nil {
		return vals, true
	}
	return out, true
}

func nullCount(vals []types.Datum) int {
	n := 0
	for _, v := range vals {
		if v.IsNull() {
			n++
		}
	}
	return n
}

// childViolation is the 23503 of a referencing row, without its detail.
func childViolation(fk *planner.FKRef) *pgerror.Error {
	e := pgerror.Newf(pgerror.ForeignKeyViolation, "insert or update on table %q violates foreign key constraint %q", fk.Child.Name, fk.Name)
	e.Schema, e.Table, e.Constraint = catalog.SchemaName(fk.Child.Schema), fk.Child.Name, fk.Name
	return e
}

// missingReference is the 23503 of a referencing key vals that is not in
// the referenced table.
func missingReference(fk *planner.FKRef, vals []types.Datum) error {
	e := childViolation(fk)
	e.Detail = keyText(fk.Child, fk.ChildCols, vals) + " is not present in table \"" + fk.Parent.Name + "\"."
	return e
}

// stillReferenced is the 23503 of a referenced key vals that rows of the
// referencing table still hold.
func stillReferenced(fk *planner.FKRef, vals []types.Datum) error {
	e := pgerror.Newf(pgerror.ForeignKeyViolation, "update or delete on table %q violates foreign key constraint %q on table %q", fk.Parent.Name, fk.Name, fk.Child.Name)
	e.Detail = keyText(fk.Parent, fk.ParentCols, vals) + " is still referenced from table \"" + fk.Child.Name + "\"."
	e.Schema, e.Table, e.Constraint = catalog.SchemaName(fk.Child.Schema), fk.Child.Name, fk.Name
	return e
}

// referenced reports whether the row a foreign key's values vals
// reference exists: in its table, or, for a partitioned table, in one of
// its partitions.
func referenced(rw kv.ReadWriter, fk *planner.FKRef, vals []types.Datum) (bool, error) {
	if len(fk.Parts) == 0 {
		return lookupKey(rw, fk.Parent, fk.ParentIndex, vals)
	}
	for _, p := range fk.Parts {
		if found, err := lookupKey(rw, p.Table, p.Index, vals); found || err != nil {
			return found, err
		}
	}
	return false, nil
}

// lookupKey reports whether t has a row whose primary key (idx nil) or
// unique index idx holds vals.
func lookupKey(rw kv.ReadWriter, t *catalog.Table, idx *catalog.Index, vals []types.Datum) (bool, error) {
	if idx == nil {
		return index.Get(rw, t, vals, make([]types.Datum, len(t.Columns)))
	}
	return index.GetUnique(rw, t, idx, vals, make([]types.Datum, len(t.Columns)))
}

// referencing returns the rows of fk's child table whose key is vals:
// through an index that starts with the key's columns, else by reading
// the whole table.
func referencing(rw kv.ReadWriter, fk *planner.FKRef, vals []types.Datum) ([][]types.Datum, error) {
	child := fk.Child
	var it index.RowIter
	var err error
	viaIndex := false
	for _, idx := range child.Indexes {
		if idx.Form == catalog.FormInverted || len(idx.Columns) < len(fk.ChildCols) {
			continue
		}
		span := make([]types.Datum, len(fk.ChildCols))
		ok := true
		for i, c := range idx.Columns[:len(fk.ChildCols)] {
			k := indexOf(fk.ChildCols, c)
			if k < 0 {
				ok = false
				break
			}
			span[i] = vals[k]
		}
		if ok {
			it, err = index.ScanIndex(rw, child, idx, index.Span{Lo: span, Hi: span}, false)
			viaIndex = true
			break
		}
	}
	if !viaIndex {
		it, err = index.ScanMaster(rw, child, index.Span{}, false)
	}
	if err != nil {
		return nil, err
	}
	var pks [][]types.Datum
	var rows [][]types.Datum
	for it.Next() {
		r := it.Row()
		if !rowsIdentical(pick(r, fk.ChildCols), vals) {
			continue
		}
		if viaIndex {
			pks = append(pks, pick(r, child.PrimaryKey))
		} else {
			rows = append(rows, copyRow(r))
		}
	}
	err = it.Err()
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return getRows(rw, child, pks, rows)
}

func indexOf(xs []int, x int) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

// releaseReferences handles the rows referencing old, a row of the
// referenced table that is deleted (newRow nil) or updated, by the foreign
// key's ON DELETE or ON UPDATE action: NO ACTION and RESTRICT refuse
// while any reference it (23503; NO ACTION of a deferred constraint
// waits for the deferred checks, RESTRICT never does); CASCADE deletes
// them, or sets their key columns to the new key (and releases what
// references them in turn, as planned); SET NULL empties their key
// columns (ON DELETE: those its column list names), SET DEFAULT gives
// them their defaults, which must then be referenced in turn.
func releaseReferences(fe fkEnv, refs []planner.FKRef, old, newRow []types.Datum) error {
	for i := range refs {
		fk := &refs[i]
		vals := pick(old, fk.ParentCols)
		if hasNull(vals) || newRow != nil && rowsIdentical(vals, pick(newRow, fk.ParentCols)) {
			continue
		}
		action := fk.OnDelete
		if newRow != nil {
			action = fk.OnUpdate
		}
		if action == "" && fe.deferred.defers(fk.Name, fk.Deferrable, fk.InitiallyDeferred) {
			fe.deferred.add(pendingCheck{fk: *fk, vals: vals})
			continue
		}
		if action == "" && fe.deferred.queue(fk, vals, false) {
			continue
		}
		cvals, ok := toChild(fk, vals)
		if !ok {
			continue // no referencing row can hold it
		}
		rows, err := referencing(fe.rw, fk, cvals)
		if err != nil || len(rows) == 0 {
			if err != nil {
				return err
			}
			continue
		}
		if (action == "set null" || action == "set default" || action == "cascade" && newRow != nil) && hasGenerated(fk.Child) {
			event := "DELETE"
			if newRow != nil {
				event = "UPDATE"
			}
			return pgerror.Newf(pgerror.FeatureNotSupported, "ON %s %s into table %q is not supported: it has an index over an expression or a partial index",
				event, strings.ToUpper(action), fk.Child.Name)
		}
		switch {
		case action == "cascade" && newRow != nil:
			key, ok := toChild(fk, pick(newRow, fk.ParentCols))
			if !ok {
				return missingReference(fk, pick(newRow, fk.ParentCols))
			}
			for _, r := range rows {
				nr := append([]types.Datum(nil), r...)
				for i, c := range fk.ChildCols {
					nr[c] = key[i]
				}
				if err := releaseReferences(fe, fk.ChildRefs, r, nr); err != nil {
					return err
				}
				if err := index.Update(fe.rw, fk.Child, r, nr); err != nil {
					return err
				}
			}
		case action == "cascade":
			for _, r := range rows {
				if err := releaseReferences(fe, fk.ChildRefs, r, nil); err != nil {
					return err
				}
				if err := index.Delete(fe.rw, fk.Child, r); err != nil {
					return err
				}
			}
		case action == "set null" || action == "set default":
			if err := setReferences(fe, fk, action, rows, cvals, newRow == nil); err != nil {
				return err
			}
		default:
			return stillReferenced(fk, vals)
		}
	}
	return nil
}

// setReferences runs SET NULL or SET DEFAULT on rows, the rows
// referencing the key vals that is deleted (onDelete) or changed. The
// rows changed this way are written like an UPDATE of them: their keys
// (a default one) must be referenced, and a default key equal to vals
// still references the row going away (23503, as PostgreSQL rechecks).
func setReferences(fe fkEnv, fk *planner.FKRef, action string, rows [][]types.Datum, vals []types.Datum, onDelete bool) error {
	cols := fk.ChildCols
	if onDelete {
		cols = fk.SetCols
	}
	for _, r := range rows {
		nr := append([]types.Datum(nil), r...)
		for _, c := range cols {
			v := types.Null
			if action == "set default" && fk.Defaults != nil && fk.Defaults[c] != nil {
				d, err := eval.Eval(fe.env, fk.Defaults[c], r)
				if err != nil {
					return err
				}
				v = d
			}
			if v.IsNull() && fk.Child.Columns[c].NotNull {
				return index.NotNullViolation(fk.Child, c)
			}
			nr[c] = v
		}
		if err := index.Update(fe.rw, fk.Child, r, nr); err != nil {
			return err
		}
		if action != "set default" {
			continue
		}
		key := pick(nr, fk.ChildCols)
		if rowsIdentical(key, vals) {
			return stillReferenced(fk, vals)
		}
		if err := checkReference(fe, fk, key); err != nil {
			return err
		}
	}
	return nil
}

// hasGenerated reports whether t has generated columns, which a row
// written without the planner's Generated expressions would leave stale.
func hasGenerated(t *catalog.Table) bool {
	for _, c := range t.Columns {
		if c.Generated != "" {
			return true
		}
	}
	return false
}
