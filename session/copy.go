package session

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/exec"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"github.com/kvsql/kvsql/wire/backend"
)

// copySpec describes a COPY for the wire server. COPY FROM STDIN runs in
// one transaction (the session's, or its own that commits in Finish), so a
// failed COPY stores nothing.
func (s *Session) copySpec(c *parse.CopyStmt) (*backend.CopySpec, error) {
	if err := checkCopyOptions(c); err != nil {
		return nil, err
	}
	spec := &backend.CopySpec{In: c.From, Format: c.Format, Delimiter: c.Delimiter, Header: c.Header,
		HeaderMatch: c.HeaderMatch, Quote: c.Quote, Escape: c.Escape}
	if c.NullSet {
		spec.Null, spec.NullSet = c.Null, true
	}
	if c.Query != nil {
		if c.From {
			return nil, pgerror.New(pgerror.SyntaxError, "COPY (query) FROM is not allowed")
		}
		q := &stmt{s: s, p: c.Query}
		if err := q.ensurePlan(s.catalog()); err != nil {
			return nil, err
		}
		spec.Columns = q.cols
		names := make([]string, len(q.cols))
		for i, col := range q.cols {
			names[i] = col.Name
		}
		if err := setForceOptions(spec, c, names, nil); err != nil {
			return nil, err
		}
		spec.Rows = func(ctx context.Context) (backend.Result, error) { return s.run(ctx, q, nil) }
		return spec, nil
	}
	cat := s.catalog()
	key, err := s.planner(cat).DDLLookupKey(c.Schema, c.Table)
	if err != nil {
		return nil, err
	}
	tbl, err := cat.Table(s.database, key)
	if err != nil {
		return nil, copyViewError(cat, s.database, c, err)
	}
	spec.Table = tbl.Name
	if c.Freeze && c.From && (s.cur == nil || !s.cur.isFresh(tbl.ID)) {
		// PostgreSQL writes FREEZE rows frozen, which is safe only in a
		// table no other transaction can have seen. kvsql's rows need no
		// freezing; the rule is kept so a script behaves the same on both.
		return nil, pgerror.New(pgerror.ObjectNotInPrerequisiteState, "cannot perform COPY FREEZE because the table was not created or truncated in the current subtransaction")
	}
	names := c.Columns
	if len(names) == 0 {
		for _, col := range tbl.Columns {
			if !col.Hidden {
				names = append(names, col.Name)
			}
		}
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		o := tbl.ColumnOrdinal(n)
		if o < 0 {
			return nil, pgerror.Newf(pgerror.UndefinedColumn, "column %q of relation %q does not exist", n, tbl.Name)
		}
		if indexOf(names[:i], n) >= 0 {
			return nil, pgerror.Newf(pgerror.DuplicateColumn, "column %q specified more than once", n)
		}
		col := tbl.Columns[o]
		spec.Columns = append(spec.Columns, backend.Column{Name: col.Name, Type: col.Type, TableOID: uint32(tbl.ID), Attr: int16(o + 1)})
		quoted[i] = `"` + strings.ReplaceAll(n, `"`, `""`) + `"`
	}
	if err := setForceOptions(spec, c, names, tbl); err != nil {
		return nil, err
	}
	list := strings.Join(quoted, ", ")
	quote := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
	table := quote(catalog.SchemaName(tbl.Schema)) + "." + quote(tbl.Name)
	if !c.From {
		if tbl.Partitioned() {
			e := pgerror.Newf(pgerror.WrongObjectType, "cannot copy from partitioned table %q", tbl.Name)
			e.Hint = "Try the COPY (SELECT ...) TO variant."
			return nil, e
		}
		// COPY TO reads the table alone, never its inheritance children.
		q, err := s.Prepare(context.Background(), "SELECT "+list+" FROM ONLY "+table, nil)
		if err != nil {
			return nil, err
		}
		st := q[0].(*stmt)
		spec.Rows = func(ctx context.Context) (backend.Result, error) { return s.run(ctx, st, nil) }
		return spec, nil
	}
	// COPY FROM: an INSERT plan whose VALUES row is replaced by each batch.
	// As in PostgreSQL, COPY writes GENERATED ALWAYS identity columns
	// (pg_dump's data sections do).
	placeholders := make([]string, len(names))
	for i := range placeholders {
		placeholders[i] = "$" + itoa(int64(i+1))
	}
	values := "VALUES (" + strings.Join(placeholders, ", ") + ")"
	if c.Where != "" {
		// COPY ... WHERE: the rows pass through the condition, over the
		// table's (unqualified) name and the COPY's column names.
		values = "SELECT * FROM (" + values + ") AS " + quote(tbl.Name) + " (" + list + ") WHERE " + c.Where
	}
	ins, err := parse.ParseOne("INSERT INTO " + table + " (" + list + ") OVERRIDING SYSTEM VALUE " + values)
	if err != nil {
		return nil, err
	}
	declared := make([]types.T, len(spec.Columns))
	for i, col := range spec.Columns {
		declared[i] = col.Type
	}
	if c.Where != "" {
		if _, _, err := s.planner(cat).Plan(&ins, declared); err != nil {
			return nil, copyWhereError(err)
		}
	}
	var t *txn
	auto := false
	var mark savepoint
	// The COPY is one statement: its NO ACTION foreign-key checks wait
	// for its end (Finish), as runRestarting's do, so a row may reference
	// a row later in the same COPY, as on PostgreSQL.
	var stmtMark int
	begin := func() {
		if t != nil {
			return
		}
		if s.cur != nil {
			t = s.cur
			mark = t.mark()
		} else {
			t, auto = s.begin(), true
		}
		stmtMark = t.deferred.BeginStatement()
	}
	// One executor context for the whole COPY: its batches are one
	// statement, so they share one statement snapshot (kv.Txn.View) as
	// PostgreSQL's COPY has one. A view per batch also cost a
	// copy-on-write clone of the write buffer each time, after which the
	// next batch's writes copied every buffer node they touched: half of
	// the buffer's cost in a COPY with an index.
	var ectx *exec.Ctx
	// reuse: each batch's constants overwrite the previous batch's
	// (copyNoReuse). Only for a plain COPY: a trigger's state (of the
	// table or a partition) or a WHERE condition's plan may keep an
	// expression of the batch.
	reuse := !copyNoReuse.Load() && c.Where == "" && len(tbl.Triggers) == 0 && !tbl.Partitioned()
	var consts []planner.Const
	var exprs []planner.Expr
	var batchRows [][]planner.Expr
	// The batches' INSERTs fire the table's statement-level triggers
	// through hooks: BEFORE STATEMENT with the first batch only, AFTER
	// STATEMENT never (Finish fires it once).
	hooks := &copyHooks{}
	execCtx := func(ctx context.Context) {
		if ectx == nil {
			ectx = s.execCtx(ctx, t, nil)
			hooks.Hooks, hooks.before = ectx.Hooks, true
			ectx.Hooks = hooks
		}
		ectx.Context = ctx
	}
	spec.Insert = func(ctx context.Context, rows [][]types.Datum) (int64, error) {
		begin()
		execCtx(ctx)
		defer func() { hooks.before = false }()
		plan, _, err := s.planner(t.cat).Plan(&ins, declared)
		if err != nil {
			return 0, err
		}
		pos := -1
		batch := &planner.Values{Cols: make([]planner.Column, len(spec.Columns)), Pos: &pos}
		for i, col := range spec.Columns {
			batch.Cols[i] = planner.Column{Name: col.Name, T: col.Type}
		}
		// The batch's constants and expression lists are cut from one
		// array each (rows arrive by the thousand; a pair of allocations
		// per field was a tenth of COPY's CPU with its garbage). The
		// constants hold copies of the rows' Datums: the wire server
		// reuses rows' memory. They are fresh per batch unless reuse:
		// a plan's expressions may be kept (trigger state).
		cells := 0
		for _, r := range rows {
			cells += len(r)
		}
		if !reuse || cap(consts) < cells {
			consts = make([]planner.Const, cells)
			exprs = make([]planner.Expr, cells)
		}
		if !reuse || cap(batchRows) < len(rows) {
			batchRows = make([][]planner.Expr, 0, len(rows))
		}
		consts, exprs = consts[:cells], exprs[:cells]
		batch.Rows = batchRows[:0]
		maxSize := s.db.maxValueSize()
		at := 0
		for _, r := range rows {
			row := exprs[at : at+len(r) : at+len(r)]
			for i, d := range r {
				if int64(len(d.S)) > maxSize {
					return 0, pgerror.Newf(pgerror.ProgramLimitExceeded, "COPY field of %d bytes for column %q exceeds the value limit of %d bytes", len(d.S), spec.Columns[i].Name, maxSize)
				}
				c := &consts[at+i]
				c.Value, c.T = d, spec.Columns[i].Type
				row[i] = c
			}
			at += len(r)
			batch.Rows = append(batch.Rows, row)
		}
		plan, ok := withValues(plan, batch)
		if !ok {
			return 0, pgerror.New(pgerror.Internal, "COPY: unexpected INSERT plan shape")
		}
		n, err := exec.Run(ectx, plan)
		if err != nil {
			if pos >= 0 {
				err = &backend.CopyRowError{Row: pos, NoText: writeError(err, tbl), Err: err}
			}
			return 0, err
		}
		t.addRows(tbl.ID, n)
		return n, nil
	}
	spec.Finish = func(ctx context.Context, err error) error {
		stmtTriggers := len(tbl.Triggers) > 0
		if t == nil {
			if err != nil || !stmtTriggers {
				return err
			}
			// No rows: the statement-level triggers fire all the same.
			begin()
			execCtx(ctx)
			err = hooks.Hooks.Fire(tbl, "before", "insert", nil, nil, nil)
		}
		// As PostgreSQL's after-trigger queue: the rows' foreign-key
		// checks, then the AFTER STATEMENT triggers.
		if ferr := t.deferred.EndStatement(t.kv, stmtMark, err == nil); err == nil {
			err = ferr
		}
		if err == nil && stmtTriggers {
			execCtx(ctx)
			err = hooks.Hooks.Fire(tbl, "after", "insert", nil, nil, nil)
		}
		switch {
		case auto && err == nil:
			return s.db.commit(t)
		case auto:
			s.db.rollback(t)
		case err != nil:
			_ = t.rollbackTo(mark)
			t.failed = true
		}
		return err
	}
	return spec, nil
}

// writeError reports whether err, a COPY row's, is one PostgreSQL meets
// when it writes a buffer of rows rather than while it reads the row —
// a unique or exclusion violation, unless a BEFORE ROW trigger makes it
// write each row as it reads it — so that its CONTEXT names the line
// without its text.
func writeError(err error, tbl *catalog.Table) bool {
	if c := pgerror.CodeOf(err); c != pgerror.UniqueViolation && c != pgerror.ExclusionViolation {
		return false
	}
	for _, tr := range tbl.Triggers {
		if tr.Timing == "before" && !tr.Statement {
			return false
		}
	}
	return true
}

// copyHooks are the hooks of a COPY's batches: they pass every firing to
// the statement's hooks but the statement-level ones (no old or new
// row), of which only a BEFORE while before is set. A COPY is one
// statement, whose BEFORE STATEMENT triggers fire once before its first
// row and AFTER STATEMENT ones once after its last, as in PostgreSQL;
// each batch's INSERT would fire both.
type copyHooks struct {
	exec.Hooks
	before bool
}

func (h *copyHooks) Fire(tbl *catalog.Table, timing, event string, old, new []types.Datum, set []int) error {
	if old == nil && new == nil && (timing != "before" || !h.before) {
		return nil
	}
	return h.Hooks.Fire(tbl, timing, event, old, new, set)
}

// copyNoReuse stops a plain COPY FROM from reusing one batch's constant
// and expression arrays for the next (a 1,000-row batch of four columns
// allocated and zeroed about 0.5 MB of pointers, which the collector then
// scanned): the differential test compares the two.
var copyNoReuse atomic.Bool

// withValues returns plan with its VALUES leaf replaced by v (the plan of
// INSERT ... VALUES: Insert over optional Projects and, for COPY ...
// WHERE, a Filter, over Values).
func withValues(n planner.Node, v *planner.Values) (planner.Node, bool) {
	switch p := n.(type) {
	case *planner.Values:
		return v, true
	case *planner.Filter:
		in, ok := withValues(p.Input, v)
		if !ok {
			return nil, false
		}
		c := *p
		c.Input = in
		return &c, true
	case *planner.Project:
		in, ok := withValues(p.Input, v)
		if !ok {
			return nil, false
		}
		c := *p
		c.Input = in
		return &c, true
	case *planner.Insert:
		in, ok := withValues(p.Input, v)
		if !ok {
			return nil, false
		}
		c := *p
		c.Input = in
		return &c, true
	}
	return nil, false
}

// copyViewError is PostgreSQL's 42809 for COPY of a view (a view has
// no rows to read or write: COPY (SELECT ...) TO reads it), else err.
func copyViewError(cat *catalog.Catalog, db string, c *parse.CopyStmt, err error) error {
	if _, verr := cat.View(db, c.Table); verr != nil {
		return err
	}
	if c.From {
		e := pgerror.Newf(pgerror.WrongObjectType, "cannot copy to view %q", c.Table)
		e.Hint = "To enable copying to a view, provide an INSTEAD OF INSERT trigger."
		return e
	}
	e := pgerror.Newf(pgerror.WrongObjectType, "cannot copy from view %q", c.Table)
	e.Hint = "Try the COPY (SELECT ...) TO variant."
	return e
}

// copyWhereError names COPY FROM's WHERE condition in the errors the
// planner reports for a WHERE clause, as PostgreSQL does.
func copyWhereError(err error) error {
	var pe *pgerror.Error
	if errors.As(err, &pe) && strings.HasSuffix(pe.Message, "not allowed in WHERE") {
		c := *pe
		c.Message = strings.TrimSuffix(pe.Message, "WHERE") + "COPY FROM WHERE conditions"
		return &c
	}
	return err
}

// copyTo runs COPY ... TO STDOUT outside the wire protocol (in process):
// the rows are returned as a query result.
func (s *Session) copyTo(ctx context.Context, c *parse.CopyStmt) (backend.Result, error) {
	spec, err := s.copySpec(c)
	if err != nil {
		return nil, err
	}
	return spec.Rows(ctx)
}
