package exec

import (
	"errors"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// coerceRow converts a full-width row, in place, to what t stores: each
// value assigned to its column's type (as PostgreSQL's assignment casts
// do), sequences drawn for serial and identity columns holding their
// DEFAULT (types.SerialDefault) and, when fillSeq, for a NULL hidden
// row id, then NOT NULL checked. Without widths, VARCHAR(n) and CHAR(n)
// take strings of any length (SQLite's REPLACE, see insertOp).
func coerceRow(rs *runState, t *catalog.Table, row []types.Datum, fillSeq, widths bool) error {
	if len(row) != len(t.Columns) {
		return pgerror.Newf(pgerror.Internal, "exec: row of %d values for table %q with %d columns", len(row), t.Name, len(t.Columns))
	}
	null := -1 // the first NOT NULL column holding NULL
	for i := range t.Columns {
		col := &t.Columns[i]
		d := &row[i]
		if d.Kind == col.Type.Kind() && (!assignChecks(col.Type.Family) ||
			col.Type.Family == types.Int4 && d.I == int64(int32(d.I))) {
			continue // stored as it is (COPY's rows, mostly: no copy of the Datum)
		}
		if d.IsNull() {
			if d.I == types.NullSerial || fillSeq && t.HiddenRowID && col.Hidden {
				if rs.ctx.NextVal == nil {
					return pgerror.Newf(pgerror.Internal, "exec: no sequence source for column %q of %q", col.Name, t.Name)
				}
				v, err := rs.ctx.NextVal(t, i)
				if err != nil {
					return err
				}
				row[i] = types.NewInt(v)
				continue
			}
			if col.NotNull && null < 0 {
				null = i
			}
			continue
		}
		ct := col.Type
		if !widths && (ct.Family == types.Varchar || ct.Family == types.Char) {
			ct.Width = 0
		}
		v, err := assignValue(*d, ct)
		if err != nil {
			return err
		}
		row[i] = v
	}
	if null >= 0 {
		// Reported once the whole row is converted, so that its detail
		// shows the row as it would be stored, as PostgreSQL's does.
		err := index.NotNullViolation(t, null)
		if e, ok := err.(*pgerror.Error); ok {
			e.Detail = "Failing row contains (" + formatRow(t, row) + ")." // partition.go
		}
		return err
	}
	return nil
}

// AssignValue converts d for storage in a column of type ct, as a write
// does (see assignValue); ALTER COLUMN ... TYPE uses it for the new values.
func AssignValue(d types.Datum, ct types.T) (types.Datum, error) {
	if d.IsNull() {
		return d, nil
	}
	return assignValue(d, ct)
}

// assignValue converts d for storage in a column of type ct: a string
// longer than VARCHAR(n)/CHAR(n) is 22001 unless only spaces are cut;
// integers outside SMALLINT/INTEGER are 22003; REAL rounds to float32.
func assignValue(d types.Datum, ct types.T) (types.Datum, error) {
	var err error
	if d.Kind != ct.Kind() {
		to := types.T{Family: ct.Family} // the width is checked below, not cut by the cast
		if ct.IsArray() {
			to = types.T{Family: types.Array, Elem: ct.Elem}
		}
		if ct.Family == types.Enum || ct.Elem == types.Enum || ct.Family == types.Record || ct.Elem == types.Record {
			to = ct // the labels, or the fields; no width to check
		}
		if d, err = eval.Cast(d, to); err != nil {
			return d, err
		}
	}
	switch ct.Family {
	case types.Array:
		// Each element is stored as a value of the element type would be:
		// too long for varchar(n) is 22001, char(n) is padded, int2
		// range-checked, real rounded, numeric(p, s) rounded.
		if (ct.Width == 0 && ct.Scale == 0 && ct.Elem != types.Int2 && ct.Elem != types.Int4 && ct.Elem != types.Float4) || ct.Elem == types.Enum {
			break
		}
		elems, err := types.ArrayElems(nil, d)
		if err != nil {
			return d, pgerror.New(pgerror.DataCorrupted, "malformed array value")
		}
		et := ct.ElemType()
		for i, e := range elems {
			if e.IsNull() {
				continue
			}
			if et.Family == types.Numeric {
				elems[i], err = eval.CastFrom(e, types.T{Family: types.Numeric}, et) // NUMERIC(p, s) rounds
			} else {
				elems[i], err = assignValue(e, et)
			}
			if err != nil {
				return d, err
			}
		}
		d = types.NewArrayShaped(elems, types.ArrayShapeOf(d))
	case types.Varchar, types.Char:
		n := utf8.RuneCountInString(d.S)
		if ct.Width > 0 && n > int(ct.Width) {
			cut := truncateRunes(d.S, int(ct.Width))
			if strings.TrimRight(d.S[len(cut):], " ") != "" {
				return d, pgerror.Newf(pgerror.StringDataRightTruncation, "value too long for type %s", ct)
			}
			d.S, n = cut, int(ct.Width)
		}
		if ct.Family == types.Char && ct.Width > 0 && n < int(ct.Width) {
			// CHAR(n) is stored blank-padded to n characters.
			d.S += strings.Repeat(" ", int(ct.Width)-n)
		}
	case types.Int2:
		if d.I < math.MinInt16 || d.I > math.MaxInt16 {
			return d, pgerror.New(pgerror.NumericValueOutOfRange, "smallint out of range")
		}
	case types.Int4:
		if d.I < math.MinInt32 || d.I > math.MaxInt32 {
			return d, pgerror.New(pgerror.NumericValueOutOfRange, "integer out of range")
		}
	case types.Float4:
		if f := float32(d.F); !math.IsInf(float64(f), 0) || math.IsInf(d.F, 0) {
			d.F = float64(f)
		} else {
			return d, pgerror.New(pgerror.NumericValueOutOfRange, "value out of range: overflow")
		}
	}
	return d, nil
}

// assignChecks reports whether assignValue may change or refuse a value
// of a column of family f that already has the column's kind (the cases
// of its switch).
func assignChecks(f types.Family) bool {
	switch f {
	case types.Array, types.Varchar, types.Char, types.Int2, types.Int4, types.Float4:
		return true
	}
	return false
}

func truncateRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// readsTable reports whether plan n reads table t anywhere (so that a
// statement writing t must collect its input before writing).
func readsTable(n planner.Node, t *catalog.Table) bool {
	switch n := n.(type) {
	case *planner.Scan:
		if n.Table != nil && n.Table.ID == t.ID {
			return true
		}
	case *planner.LookupJoin:
		if n.Table != nil && n.Table.ID == t.ID {
			return true
		}
	}
	for _, c := range n.Children() {
		if readsTable(c, t) {
			return true
		}
	}
	return false
}

// computeGenerated fills row's generated columns (the hidden columns of
// indexes over expressions and partial indexes) from the rest of the row.
func computeGenerated(env *eval.Env, gen []planner.Assignment, row []types.Datum) error {
	for _, g := range gen {
		d, err := eval.Eval(env, g.Expr, row)
		if err != nil {
			return err
		}
		row[g.Col] = d
	}
	return nil
}

// checkRow refuses a row that a CHECK constraint finds false (23514,
// naming the constraint, with the row in the detail as PostgreSQL puts
// it); NULL passes.
func checkRow(env *eval.Env, t *catalog.Table, checks []planner.CheckExpr, row []types.Datum) error {
	for _, c := range checks {
		if c.Domain != nil {
			if err := eval.CheckDomainValue(env, c.Domain, row[c.Col]); err != nil {
				return err
			}
			continue
		}
		d, err := eval.Eval(env, c.Expr, row)
		if err != nil {
			return err
		}
		if c.View {
			if !d.IsNull() && d.Bool() {
				continue
			}
			e := pgerror.Newf(pgerror.WithCheckOptionViolation, "new row violates check option for view %q", c.Name)
			e.Detail = "Failing row contains (" + formatRow(t, row) + ")."
			return e
		}
		if d.IsNull() || d.Bool() {
			continue
		}
		e := pgerror.Newf(pgerror.CheckViolation, "new row for relation %q violates check constraint %q", t.Name, c.Name)
		e.Detail = "Failing row contains (" + formatRow(t, row) + ")." // partition.go
		e.Schema, e.Table, e.Constraint = "public", t.Name, c.Name
		return e
	}
	return nil
}

// mustCollect reports whether an UPDATE or DELETE of t must collect its
// input before writing: when its reads are not of a statement-start view
// (Ctx.Read), which hides the statement's own writes, or when t has
// triggers, whose statements read the transaction as it is.
func mustCollect(rs *runState, t *catalog.Table) bool {
	return rs.ctx.Read == nil || len(t.Triggers) > 0
}

// dmlBase is what INSERT, UPDATE and DELETE share: the input (collected
// into a row buffer first when it reads the written table, so that a
// statement never sees its own writes: the Halloween problem), RETURNING,
// and the rows-affected count.
type dmlBase struct {
	rs        *runState
	env       *eval.Env
	table     *catalog.Table
	input     Operator
	returning []planner.Expr
	// joined marks UPDATE and DELETE, whose input rows carry the FROM or
	// USING items' columns after the table's: RETURNING reads them there.
	joined bool
	// returnOID: RETURNING reads the table's OID after the row (and the
	// joined columns): oid, the table's, or the partition a routed
	// INSERT wrote the row to.
	returnOID bool
	oid       int64
	t         ticker
	// event is the statement's ("insert", "update" or "delete") for its
	// statement-level triggers; started: the BEFORE ones have fired.
	event   string
	started bool

	collect  bool
	buf      *rowBuffer
	it       *bufferIter
	affected int64
	done     bool
	out      []types.Datum
	retRow   []types.Datum   // the written row and the joined columns RETURNING reads
	key      []byte          // lockRow's and targetRow's scratch
	seen     map[string]bool // target rows met (see targetRow)
	// retry, when set, is asked for more rows once the input is done:
	// an input row and the row it wrote (updateOp.retryAside), or nils.
	retry func() (in, written []types.Datum, err error)
}

func (b *dmlBase) RowsAffected() int64 { return b.affected }

// targetRow returns the target table's row at the start of an input row
// (UPDATE ... FROM and DELETE ... USING join other tables' columns after
// it), and whether the statement has met that row before: through a
// join a target row may come more than once, and PostgreSQL changes it
// once, with the first match.
func (b *dmlBase) targetRow(row []types.Datum) ([]types.Datum, bool) {
	nc := len(b.table.Columns)
	if len(row) <= nc {
		return row, false
	}
	old := row[:nc:nc]
	b.key = index.MasterKeyOfRow(b.key[:0], b.table, old)
	if b.seen[string(b.key)] {
		return old, true
	}
	if b.seen == nil {
		b.seen = map[string]bool{}
	}
	b.seen[string(b.key)] = true
	return old, false
}

// lockRow takes the lock of a row the statement is about to change (see
// Ctx.Hooks.LockRow).
func (b *dmlBase) lockRow(row []types.Datum) error {
	if b.rs.ctx.Hooks == nil || len(row) != len(b.table.Columns) {
		return nil
	}
	b.key = index.MasterKeyOfRow(b.key[:0], b.table, row)
	_, err := b.rs.ctx.Hooks.LockRow(b.table, b.key, planner.RowLock{})
	return err
}

// fire runs the table's triggers for one row (see Ctx.Hooks.Fire).
func (b *dmlBase) fire(timing, event string, old, new []types.Datum, set []int) error {
	if len(b.table.Triggers) == 0 || b.rs.ctx.Hooks == nil {
		return nil
	}
	return b.rs.ctx.Hooks.Fire(b.table, timing, event, old, new, set)
}

// ErrSkipRow is what Hooks.Fire returns when a BEFORE trigger's function
// returned NULL: the statement leaves that row alone.
var ErrSkipRow = errors.New("exec: a BEFORE trigger skipped the row")

// fireBefore runs the BEFORE triggers of one row: skip reports that one
// of them skipped it (ErrSkipRow). They may change new in place.
func (b *dmlBase) fireBefore(event string, old, new []types.Datum, set []int) (skip bool, err error) {
	err = b.fire("before", event, old, new, set)
	if err == ErrSkipRow {
		return true, nil
	}
	return false, err
}

// nextInput returns the next input row, collecting the whole input first
// when required.
func (b *dmlBase) nextInput() ([]types.Datum, error) {
	if err := b.t.tick(); err != nil {
		return nil, err
	}
	if !b.collect {
		return b.input.Next()
	}
	if b.it == nil {
		b.buf = newRowBuffer(b.rs, b.rs.workMem)
		for {
			row, err := b.input.Next()
			if err != nil {
				return nil, err
			}
			if row == nil {
				break
			}
			if err := b.t.tick(); err != nil {
				return nil, err
			}
			if err := b.buf.add(row); err != nil {
				return nil, err
			}
		}
		b.it = b.buf.iter()
	}
	return b.it.next()
}

// run drives the statement: write is applied to every input row; with
// RETURNING each written row's values are produced, otherwise everything
// is written on the first call and no row is produced.
func (b *dmlBase) run(write func(row []types.Datum) ([]types.Datum, error)) ([]types.Datum, error) {
	if !b.started {
		// FOR EACH STATEMENT triggers: a firing with no rows.
		b.started = true
		if err := b.fire("before", b.event, nil, nil, nil); err != nil {
			return nil, err
		}
	}
	for !b.done {
		row, err := b.nextInput()
		if err != nil {
			return nil, err
		}
		var written []types.Datum
		if row == nil && b.retry != nil {
			if row, written, err = b.retry(); err != nil {
				return nil, err
			}
		}
		if row == nil {
			b.done = true
			if err := b.rs.flushForeign(); err != nil {
				return nil, err
			}
			if err := b.fire("after", b.event, nil, nil, nil); err != nil {
				return nil, err
			}
			break
		}
		if written == nil {
			if written, err = write(row); err != nil {
				return nil, err
			}
		}
		if written == nil {
			continue
		}
		b.affected++
		if len(b.returning) > 0 {
			if b.out == nil {
				b.out = make([]types.Datum, len(b.returning))
			}
			if nc := len(b.table.Columns); b.joined && len(row) > nc || b.returnOID {
				b.retRow = append(b.retRow[:0], written...)
				if b.joined && len(row) > nc {
					b.retRow = append(b.retRow, row[nc:]...)
				}
				if b.returnOID {
					b.retRow = append(b.retRow, types.NewInt(b.oid))
				}
				written = b.retRow
			}
			if err := evalInto(b.env, b.returning, written, b.out); err != nil {
				return nil, err
			}
			return b.out, nil
		}
	}
	return nil, nil
}

func (b *dmlBase) Close() error {
	err := b.input.Close()
	if b.buf != nil {
		if cerr := b.buf.close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	return err
}
