package planner

import (
	"errors"
	"maps"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"vitess.io/vitess/go/vt/sqlparser"
)

// An INSERT, UPDATE or DELETE naming a view writes the table under it
// when the view is automatically updatable, as PostgreSQL's rewriter
// (rewriteTargetView) has it: the statement is bound as one on that
// table, so its indexes, constraints, triggers, row locks and conflicts
// work unchanged. The view is resolved, level by level through views
// over views, into an updatableView: its columns as expressions over
// the table's full-width row, its WHERE, and the CHECK OPTION conditions
// written rows must pass. The statement's own expressions are bound over
// the view's columns and then lowered onto the table's row (lower).

// updatableView is an automatically updatable view resolved down to the
// table its rows live in.
type updatableView struct {
	view  *catalog.View
	table *catalog.Table
	cols  []viewColumn
	// where are the conjuncts of every level's WHERE over the table's
	// row: UPDATE and DELETE change only the rows they admit.
	where []Expr
	// checks are the CHECK OPTION conditions (CheckExpr.View), innermost
	// view first, as PostgreSQL evaluates them.
	checks []CheckExpr
	// defaults are the views' column defaults (ALTER VIEW ... SET
	// DEFAULT) by table column, the outermost view's winning: what an
	// INSERT or UPDATE through the view writes for DEFAULT.
	defaults map[int]string
}

// viewColumn is one column of an updatable view.
type viewColumn struct {
	name string
	t    types.T
	expr Expr // over the table's full-width row
	// base is the table column the view column is, or -1 when it is
	// computed; then errView and errCol name the view and column the
	// error for writing it names (the level where it stopped being a
	// plain column).
	base            int
	errView, errCol string
}

// viewCommand is the statement an updatable view is resolved for: its
// errors are worded for it.
type viewCommand uint8

const (
	viewInsert viewCommand = iota
	viewUpdate
	viewDelete
)

// dmlTarget resolves the target of INSERT, UPDATE or DELETE: a table (uv
// nil) or an automatically updatable view and the table under it. alias
// is the name the statement's expressions qualify the target with.
func (b *binder) dmlTarget(te sqlparser.TableExpr, cmd viewCommand) (t *catalog.Table, alias string, uv *updatableView, err error) {
	if at, ok := te.(*sqlparser.AliasedTableExpr); ok {
		if tn, ok := at.Expr.(sqlparser.TableName); ok {
			name, _ := parse.OnlyTable(tn.Name.String())
			if key, kerr := b.p.LookupKey(tn.Qualifier.String(), name); kerr == nil {
				if _, terr := b.p.Catalog.Table(b.p.DB, key); terr != nil {
					if v, verr := b.p.Catalog.View(b.p.DB, key); verr == nil {
						if uv, err = b.updatableView(v, cmd, false, 0); err != nil {
							return nil, "", nil, err
						}
						alias = at.As.String()
						if alias == "" {
							alias = v.Name
						}
						return uv.table, alias, uv, nil
					}
				}
			}
		}
	}
	t, alias, err = b.targetTable(te)
	return t, alias, nil, err
}

// notUpdatable is PostgreSQL's error for writing a view that is not
// automatically updatable; detail says why.
func notUpdatable(view string, cmd viewCommand, detail string) error {
	var e *pgerror.Error
	switch cmd {
	case viewInsert:
		e = pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "cannot insert into view %q", view)
		e.Hint = "To enable inserting into the view, provide an INSTEAD OF INSERT trigger or an unconditional ON INSERT DO INSTEAD rule."
	case viewUpdate:
		e = pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "cannot update view %q", view)
		e.Hint = "To enable updating the view, provide an INSTEAD OF UPDATE trigger or an unconditional ON UPDATE DO INSTEAD rule."
	default:
		e = pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "cannot delete from view %q", view)
		e.Hint = "To enable deleting from the view, provide an INSTEAD OF DELETE trigger or an unconditional ON DELETE DO INSTEAD rule."
	}
	e.Detail = detail
	return e
}

// columnNotUpdatable is the error for naming a computed view column in
// INSERT's column list or UPDATE's SET.
func (c *viewColumn) notUpdatable(cmd viewCommand) error {
	verb := "insert into"
	if cmd != viewInsert {
		verb = "update"
	}
	e := pgerror.Newf(pgerror.FeatureNotSupported, "cannot %s column %q of view %q", verb, c.errCol, c.errView)
	e.Detail = "View columns that are not columns of their base relation are not updatable."
	return e
}

const detailNotSingle = "Views that do not select from a single table or view are not automatically updatable."

// autoUpdatableDetail is PostgreSQL's view_query_is_auto_updatable: ""
// when the view's query can be written through, else the DETAIL saying
// why not. The select list is checked for aggregates, window functions
// and set-returning functions, at its top level only.
func autoUpdatableDetail(st *parse.Statement) string {
	if st.Compound != nil {
		return "Views containing UNION, INTERSECT, or EXCEPT are not automatically updatable."
	}
	sel, ok := st.AST.(*sqlparser.Select)
	if !ok {
		if _, ok := st.AST.(*sqlparser.Union); ok {
			return "Views containing UNION, INTERSECT, or EXCEPT are not automatically updatable."
		}
		return detailNotSingle
	}
	var exprs []sqlparser.SelectExpr
	if sel.SelectExprs != nil {
		exprs = sel.SelectExprs.Exprs
	}
	exprs, distinctOn := splitDistinctOn(exprs)
	switch {
	case sel.Distinct || distinctOn != nil:
		return "Views containing DISTINCT are not automatically updatable."
	case sel.GroupBy != nil && len(sel.GroupBy.Exprs) > 0:
		return "Views containing GROUP BY are not automatically updatable."
	case sel.Having != nil:
		return "Views containing HAVING are not automatically updatable."
	case sel.With != nil:
		return "Views containing WITH are not automatically updatable."
	case sel.Limit != nil:
		return "Views containing LIMIT or OFFSET are not automatically updatable."
	}
	var agg, win, srf bool
	for _, se := range exprs {
		ae, ok := se.(*sqlparser.AliasedExpr)
		if !ok {
			continue
		}
		_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
			switch n := n.(type) {
			case *sqlparser.Subquery:
				return false, nil
			case *sqlparser.OverClause:
				win = true
			case sqlparser.AggrFunc:
				agg = true
			case *sqlparser.FuncExpr:
				agg = agg || isAggregate(n.Name.Lowered())
			}
			return true, nil
		}, ae.Expr)
		srf = srf || len(srfCalls(ae.Expr)) > 0
	}
	switch {
	case win: // before aggregates: count(*) OVER () is a window function
		return "Views that return window functions are not automatically updatable."
	case agg:
		return "Views that return aggregate functions are not automatically updatable."
	case srf:
		return "Views that return set-returning functions are not automatically updatable."
	}
	if len(sel.From) != 1 {
		return detailNotSingle
	}
	at, ok := sel.From[0].(*sqlparser.AliasedTableExpr)
	if !ok {
		return detailNotSingle
	}
	tn, ok := at.Expr.(sqlparser.TableName)
	if !ok || tn.Qualifier.IsEmpty() && tn.Name.String() == "dual" {
		return detailNotSingle
	}
	return ""
}

// updatableView resolves view v for cmd. cascaded is set when a view
// over v has WITH CASCADED CHECK OPTION: v's WHERE is then checked too.
func (b *binder) updatableView(v *catalog.View, cmd viewCommand, cascaded bool, depth int) (*updatableView, error) {
	if depth > 32 {
		return nil, pgerror.Newf(pgerror.StatementTooComplex, "view %q: views nested too deeply", v.Name)
	}
	st, err := parse.ParseOne(v.SQL)
	if err != nil {
		return nil, pgerror.Newf(pgerror.DataCorrupted, "view %q: %v", v.Name, err)
	}
	if d := autoUpdatableDetail(&st); d != "" {
		return nil, notUpdatable(v.Name, cmd, d)
	}
	sel := st.AST.(*sqlparser.Select)
	at := sel.From[0].(*sqlparser.AliasedTableExpr)
	tn := at.Expr.(sqlparser.TableName)
	vp := *b.p
	if v.SearchPath != nil {
		vp.SearchPath = v.SearchPath
	}
	vb := &binder{p: &vp, frames: st.Frames, setOps: st.SetOps, cteMat: st.CTEMaterialized}
	defer func() { b.p.Volatile = b.p.Volatile || vp.Volatile }()

	// The relation under v: a table, or a view resolved in turn.
	name, _ := parse.OnlyTable(tn.Name.String())
	alias := at.As.String()
	if alias == "" {
		alias = name
	}
	key, err := vp.LookupKey(tn.Qualifier.String(), name)
	if err != nil {
		return nil, notUpdatable(v.Name, cmd, detailNotSingle)
	}
	out := &updatableView{view: v}
	s := &scope{aggContext: "this context"}
	var inner []Expr // the inner relation's columns over the table's row; nil for the table itself
	var innerCols []viewColumn
	if t, terr := vp.Catalog.Table(vp.DB, key); terr == nil {
		if t.MatView != "" {
			return nil, notUpdatable(v.Name, cmd, detailNotSingle)
		}
		if _, _, err := vb.targetTable(&sqlparser.AliasedTableExpr{Expr: tn}); err != nil {
			return nil, err // a foreign table that cannot be written
		}
		if t.Partitioned() || b.inheritMembers(t) != nil {
			return nil, pgerror.Newf(pgerror.FeatureNotSupported, "writing view %q over a partitioned or inherited table is not supported", v.Name)
		}
		out.table = t
		s = tableScope(t, alias)
		s.aggContext = "this context"
		for i, c := range t.Columns {
			innerCols = append(innerCols, viewColumn{name: c.Name, t: c.Type, expr: &ColRef{Index: i, T: c.Type, Name: c.Name}, base: i})
		}
	} else if iv, verr := vp.Catalog.View(vp.DB, key); verr == nil {
		in, err := vb.updatableView(iv, cmd, cascaded || v.CheckOption == "cascaded", depth+1)
		if err != nil {
			return nil, err
		}
		out.table, out.where, out.checks, out.defaults = in.table, in.where, in.checks, in.defaults
		innerCols = in.cols
		for _, c := range in.cols {
			s.cols = append(s.cols, Column{Name: c.name, Table: alias, T: c.t})
			inner = append(inner, c.expr)
		}
	} else {
		return nil, notUpdatable(v.Name, cmd, detailNotSingle)
	}
	n := len(out.table.Columns)
	lowered := func(x Expr) (Expr, error) {
		if inner == nil {
			return x, nil
		}
		return lower(x, inner, n)
	}

	// The view's columns.
	var exprs []sqlparser.SelectExpr
	if sel.SelectExprs != nil {
		exprs, _ = splitDistinctOn(sel.SelectExprs.Exprs)
	}
	for _, se := range exprs {
		switch se := se.(type) {
		case *sqlparser.StarExpr:
			q := se.TableName.Name.String()
			if q != "" && q != alias {
				return nil, pgerror.Newf(pgerror.UndefinedTable, "missing FROM-clause entry for table %q", q)
			}
			for i, c := range s.cols {
				if !c.Hidden {
					vc := innerCols[i]
					vc.name = c.Name
					out.cols = append(out.cols, vc)
				}
			}
		case *sqlparser.AliasedExpr:
			x, err := vb.expr(se.Expr, s)
			if err != nil {
				return nil, err
			}
			name := se.As.String()
			if name == "" {
				name = columnName(se.Expr)
			}
			vc := viewColumn{name: name, t: x.Type(), base: -1}
			if c, ok := x.(*ColRef); ok && c.Outer == 0 {
				vc = innerCols[c.Index]
				vc.name = name
			}
			if vc.expr, err = lowered(x); err != nil {
				return nil, err
			}
			out.cols = append(out.cols, vc)
		}
	}
	for i, name := range v.Columns {
		if i < len(out.cols) {
			out.cols[i].name = name
		}
	}
	cloned := false
	for i := range out.cols {
		c := &out.cols[i]
		if c.base < 0 && c.errView == "" {
			c.errView, c.errCol = v.Name, c.name
		}
		if c.base >= 0 && v.Defaults[c.name] != "" {
			if !cloned { // the inner view's map stays its own
				out.defaults, cloned = maps.Clone(out.defaults), true
				if out.defaults == nil {
					out.defaults = map[int]string{}
				}
			}
			out.defaults[c.base] = v.Defaults[c.name]
		}
	}
	if cmd != viewDelete {
		some := false
		for _, c := range out.cols {
			some = some || c.base >= 0
		}
		if !some {
			return nil, notUpdatable(v.Name, cmd, "Views that have no updatable columns are not automatically updatable.")
		}
	}

	// Its WHERE, and the check its CHECK OPTION (or one above) asks for.
	if sel.Where != nil {
		s.aggContext = "WHERE"
		w, err := vb.boolExpr(sel.Where.Expr, s)
		if err != nil {
			return nil, err
		}
		if w, err = lowered(w); err != nil {
			return nil, err
		}
		out.where = append(out.where, splitAnd(w)...)
		if cascaded || v.CheckOption != "" {
			out.checks = append(out.checks, CheckExpr{Name: v.Name, Expr: w, View: true})
		}
	}
	return out, nil
}

// lower rewrites e, bound over a row whose first len(exprs) columns are
// exprs computed over another row of width n, into an expression over
// that row: a reference to column i < len(exprs) becomes exprs[i], one to
// a later column (an UPDATE's FROM item) moves to i - len(exprs) + n.
// References from correlated subqueries inside e are rewritten the same
// way, exprs' own references moved out as many levels.
func lower(e Expr, exprs []Expr, n int) (Expr, error) {
	return mapExprRefs(e, 0, func(c *ColRef, depth int) (Expr, error) {
		if c.Outer != depth || c.Agg {
			return c, nil
		}
		if c.Index >= len(exprs) {
			return &ColRef{Index: c.Index - len(exprs) + n, Outer: c.Outer, T: c.T, Name: c.Name}, nil
		}
		if depth == 0 {
			return exprs[c.Index], nil
		}
		return mapExpr(exprs[c.Index], func(x Expr) (Expr, error) {
			switch x := x.(type) {
			case *ColRef:
				return &ColRef{Index: x.Index, Outer: x.Outer + depth, T: x.T, Name: x.Name}, nil
			case *Subquery:
				if x.Correlated {
					return nil, pgerror.Newf(pgerror.FeatureNotSupported, "a view column computed by a correlated subquery cannot be read in a subquery of a statement writing the view")
				}
			}
			return x, nil
		})
	}, map[Node]bool{})
}

// scope is the scope of the statement's expressions over the view's
// columns, qualified by alias.
func (uv *updatableView) scope(alias string) *scope {
	s := &scope{aggContext: "this context"}
	for _, c := range uv.cols {
		s.cols = append(s.cols, Column{Name: c.name, Table: alias, T: c.t})
	}
	return s
}

// exprs are the view's columns over the table's row.
func (uv *updatableView) exprs() []Expr {
	out := make([]Expr, len(uv.cols))
	for i, c := range uv.cols {
		out[i] = c.expr
	}
	return out
}

// lowerAll lowers each of xs (bound over uv.scope and, after its
// columns, the FROM items') onto the table's row.
func (uv *updatableView) lowerAll(xs []Expr) error {
	exprs := uv.exprs()
	for i, x := range xs {
		var err error
		if xs[i], err = lower(x, exprs, len(uv.table.Columns)); err != nil {
			return err
		}
	}
	return nil
}

// column finds the view column name for writing: its position, or
// PostgreSQL's errors for a missing or computed column.
func (uv *updatableView) column(name string, cmd viewCommand) (int, error) {
	for i := range uv.cols {
		if uv.cols[i].name == name {
			if uv.cols[i].base < 0 {
				return 0, uv.cols[i].notUpdatable(cmd)
			}
			return i, nil
		}
	}
	return 0, pgerror.Newf(pgerror.UndefinedColumn, "column %q of relation %q does not exist", name, uv.view.Name)
}

// insertTargets maps the view columns an INSERT writes (names, or the
// view's first given columns when names is empty) to the table's
// columns.
func (uv *updatableView) insertTargets(names sqlparser.Columns, given int) ([]int, error) {
	var cols []int
	if len(names) == 0 {
		for i := range uv.cols {
			if i < given {
				cols = append(cols, i)
			}
		}
	} else {
		named := map[string]bool{}
		for _, n := range names {
			i, err := uv.column(n.String(), viewInsert)
			if err != nil {
				return nil, err
			}
			if named[n.String()] {
				return nil, pgerror.Newf(pgerror.DuplicateColumn, "column %q specified more than once", n.String())
			}
			named[n.String()] = true
			cols = append(cols, i)
		}
	}
	var targets []int
	seen := map[int]bool{}
	for _, i := range cols {
		c := &uv.cols[i]
		if c.base < 0 {
			return nil, c.notUpdatable(viewInsert)
		}
		if seen[c.base] {
			return nil, pgerror.Newf(pgerror.SyntaxError, "multiple assignments to same column %q", uv.table.Columns[c.base].Name)
		}
		seen[c.base] = true
		targets = append(targets, c.base)
	}
	return targets, nil
}

// insertWidth is how many values each row of an INSERT's source gives,
// as far as it is known before binding it (-1: a query's, known later).
func insertWidth(rows sqlparser.InsertRows) int {
	if v, ok := rows.(sqlparser.Values); ok && len(v) > 0 {
		return len(v[0])
	}
	return -1
}

// inferenceColumn is the table column an ON CONFLICT (columns) name of
// the view stands for, or -1.
func (uv *updatableView) inferenceColumn(name string) int {
	for _, c := range uv.cols {
		if c.name == name {
			return c.base
		}
	}
	return -1
}

// shifted maps each of the table's column positions to the same column
// of the row n columns on (ON CONFLICT's excluded row follows the
// existing one).
func (uv *updatableView) shifted(n int) map[int]int {
	m := make(map[int]int, len(uv.table.Columns))
	for i := range uv.table.Columns {
		m[i] = i + n
	}
	return m
}

// viewWritable is what information_schema reports of view v, as
// PostgreSQL's pg_relation_is_updatable and pg_column_is_updatable do:
// whether rows can be inserted and updated through it (it is
// automatically updatable and has a column that can be written), and
// which of its columns can be.
func (b *binder) viewWritable(v *catalog.View) (writable bool, cols []bool) {
	uv, err := b.updatableView(v, viewDelete, false, 0)
	if err != nil {
		return false, nil
	}
	for _, c := range uv.cols {
		cols = append(cols, c.base >= 0)
		writable = writable || c.base >= 0
	}
	return writable, cols
}

// CheckViewOption refuses WITH CHECK OPTION on a view that is not
// automatically updatable, as CREATE VIEW does in PostgreSQL (0A000, the
// reason in the hint).
func (p *Planner) CheckViewOption(v *catalog.View) error {
	_, err := (&binder{p: p}).updatableView(v, viewInsert, false, 0)
	var pe *pgerror.Error
	if errors.As(err, &pe) && pe.Code == pgerror.ObjectNotInPrerequisiteState {
		e := pgerror.New(pgerror.FeatureNotSupported, "WITH CHECK OPTION is supported only on automatically updatable views")
		e.Hint = pe.Detail
		return e
	}
	return err
}

// dmlDefault binds the DEFAULT an INSERT or UPDATE writes to column i of
// t: through an updatable view (uv not nil), the view's default for the
// view column that is i when it has one, else the table's.
func (b *binder) dmlDefault(t *catalog.Table, uv *updatableView, i int) (Expr, error) {
	text, ok := "", false
	if uv != nil {
		text, ok = uv.defaults[i]
	}
	if !ok {
		return b.defaultExpr(t.Columns[i])
	}
	return b.viewDefault(text, t.Columns[i].Name, t.Columns[i].Type)
}

// viewDefault binds a view column's default expression for a column of
// type ct.
func (b *binder) viewDefault(text, col string, ct types.T) (Expr, error) {
	e, err := exprText(text, "DEFAULT expression")
	if err != nil {
		return nil, pgerror.Newf(pgerror.DataCorrupted, "default of view column %q: %v", col, err)
	}
	x, err := b.expr(e, &scope{aggContext: "DEFAULT expressions"})
	if err != nil {
		return nil, err
	}
	xt := x.Type()
	if x, err = assign(x, ct); err != nil {
		e := pgerror.Newf(pgerror.DatatypeMismatch, "column %q is of type %s but default expression is of type %s", col, ct, xt)
		e.Hint = "You will need to rewrite or cast the expression."
		return nil, e
	}
	return x, nil
}

// BindViewDefault checks ALTER VIEW v ALTER COLUMN col SET DEFAULT text
// (text "" for DROP DEFAULT): the column exists (42703) and the
// expression is one of its type.
func (p *Planner) BindViewDefault(v *catalog.View, col, text string) error {
	b := &binder{p: p}
	n, err := b.view(v)
	if err != nil {
		return err
	}
	for _, c := range n.Columns() {
		if c.Name == col && !c.Hidden {
			if text == "" {
				return nil
			}
			_, err := b.viewDefault(text, col, c.T)
			return err
		}
	}
	return pgerror.Newf(pgerror.UndefinedColumn, "column %q of relation %q does not exist", col, v.Name)
}
