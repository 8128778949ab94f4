package session

import (
	"context"
	"strings"

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
	spec := &backend.CopySpec{In: c.From, Format: c.Format, Delimiter: c.Delimiter, Header: c.Header}
	if c.NullSet {
		spec.Null = c.Null
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
		spec.Rows = func(ctx context.Context) (backend.Result, error) { return s.run(ctx, q, nil) }
		return spec, nil
	}
	cat := s.catalog()
	tbl, err := cat.Table(s.database, c.Table)
	if err != nil {
		return nil, err
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
		col := tbl.Columns[o]
		spec.Columns = append(spec.Columns, backend.Column{Name: col.Name, Type: col.Type, TableOID: uint32(tbl.ID), Attr: int16(o + 1)})
		quoted[i] = `"` + strings.ReplaceAll(n, `"`, `""`) + `"`
	}
	list := strings.Join(quoted, ", ")
	table := `"` + strings.ReplaceAll(tbl.Name, `"`, `""`) + `"`
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
	ins, err := parse.ParseOne("INSERT INTO " + table + " (" + list + ") OVERRIDING SYSTEM VALUE VALUES (" + strings.Join(placeholders, ", ") + ")")
	if err != nil {
		return nil, err
	}
	declared := make([]types.T, len(spec.Columns))
	for i, col := range spec.Columns {
		declared[i] = col.Type
	}
	var t *txn
	auto := false
	var mark savepoint
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
	}
	spec.Insert = func(ctx context.Context, rows [][]types.Datum) error {
		begin()
		plan, _, err := s.planner(t.cat).Plan(&ins, declared)
		if err != nil {
			return err
		}
		batch := &planner.Values{Cols: make([]planner.Column, len(spec.Columns))}
		for i, col := range spec.Columns {
			batch.Cols[i] = planner.Column{Name: col.Name, T: col.Type}
		}
		for _, r := range rows {
			exprs := make([]planner.Expr, len(r))
			for i, d := range r {
				if int64(len(d.S)) > s.db.maxValueSize() {
					return pgerror.Newf(pgerror.ProgramLimitExceeded, "COPY field of %d bytes for column %q exceeds the value limit of %d bytes", len(d.S), spec.Columns[i].Name, s.db.maxValueSize())
				}
				exprs[i] = &planner.Const{Value: d, T: spec.Columns[i].Type}
			}
			batch.Rows = append(batch.Rows, exprs)
		}
		plan, ok := withValues(plan, batch)
		if !ok {
			return pgerror.New(pgerror.Internal, "COPY: unexpected INSERT plan shape")
		}
		n, err := exec.Run(s.execCtx(ctx, t, nil), plan)
		if err != nil {
			return err
		}
		t.addRows(tbl.ID, n)
		return nil
	}
	spec.Finish = func(ctx context.Context, err error) error {
		if t == nil {
			return err
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

// withValues returns plan with its VALUES leaf replaced by v (the plan of
// INSERT ... VALUES: Insert over an optional Project over Values).
func withValues(n planner.Node, v *planner.Values) (planner.Node, bool) {
	switch p := n.(type) {
	case *planner.Values:
		return v, true
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

// copyTo runs COPY ... TO STDOUT outside the wire protocol (in process):
// the rows are returned as a query result.
func (s *Session) copyTo(ctx context.Context, c *parse.CopyStmt) (backend.Result, error) {
	spec, err := s.copySpec(c)
	if err != nil {
		return nil, err
	}
	return spec.Rows(ctx)
}
