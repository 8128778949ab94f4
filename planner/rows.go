package planner

import (
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"vitess.io/vitess/go/vt/sqlparser"
)

// Row constructors in comparisons, (a, b) op (c, d), are bound as the
// scalar comparisons PostgreSQL's row comparison is defined by; kvsql has
// no record values, so a row constructor elsewhere stays 0A000.

// rowComparison binds e when one of its sides is a row constructor of
// more than one value (ok false otherwise): = and <> compare pairwise, <
// <= > >= lexicographically, and IN compares with each row of a list or
// a subquery.
func (b *binder) rowComparison(e *sqlparser.ComparisonExpr, s *scope) (x Expr, ok bool, err error) {
	left, isRow := rowItems(e.Left)
	_, sub := e.Right.(*sqlparser.Subquery)
	if !isRow || oneFieldRow(e.Left) && !rowOperand(e.Right) && !sub {
		// ROW(x) against anything but a row constructor or a subquery
		// (a record column, say) compares record values.
		return nil, false, nil
	}
	if sq, ok := e.Right.(*sqlparser.Subquery); ok && e.Operator == sqlparser.EqualOp && e.Modifier == sqlparser.Any {
		// row = ANY (subquery) is row IN (subquery).
		x, err := b.rowInSubquery(left, sq, false, s)
		return x, true, err
	}
	switch e.Operator {
	case sqlparser.InOp, sqlparser.NotInOp:
		not := e.Operator == sqlparser.NotInOp
		switch right := e.Right.(type) {
		case sqlparser.ValTuple:
			var eqs []Expr
			for _, item := range right {
				r, isRow := rowItems(item)
				if !isRow {
					return nil, true, rowSizeError()
				}
				eq, err := b.rowCompare("=", left, r, s)
				if err != nil {
					return nil, true, err
				}
				eqs = append(eqs, eq)
			}
			in := foldOr(eqs)
			if not {
				return foldNot(in), true, nil
			}
			return in, true, nil
		case *sqlparser.Subquery:
			x, err := b.rowInSubquery(left, right, not, s)
			return x, true, err
		}
		return nil, true, pgerror.New(pgerror.FeatureNotSupported, "unsupported IN list")
	}
	op, known := comparisonOps[e.Operator]
	if !known {
		return nil, true, pgerror.Newf(pgerror.FeatureNotSupported, "operator %s on row constructors is not supported", e.Operator.ToString())
	}
	right, isRow := rowItems(e.Right)
	if !isRow {
		return nil, true, pgerror.New(pgerror.FeatureNotSupported, "comparing a row constructor with a value that is no row constructor is not supported")
	}
	x, err = b.rowCompare(op, left, right, s)
	return x, true, err
}

// rowItems returns the values of a row constructor of two or more
// values ((a, b) or ROW(a, b)), or of ROW(x).
func rowItems(e sqlparser.Expr) (sqlparser.ValTuple, bool) {
	if f, ok := e.(*sqlparser.FuncExpr); ok && f.Name.Lowered() == parse.MarkerRow && len(f.Exprs) == 1 {
		return sqlparser.ValTuple(f.Exprs), true // ROW(x)
	}
	t, ok := e.(sqlparser.ValTuple)
	return t, ok && len(t) > 1
}

func rowSizeError() error {
	return pgerror.New(pgerror.SyntaxError, "unequal number of entries in row expressions")
}

// rowCompare binds (l1, l2, ...) op (r1, r2, ...): = is every pair equal,
// <> some pair unequal, and an ordering compares the first pair that is
// not equal (f = l1 < r1 OR (l1 = r1 AND f over the rest), the last pair
// compared with op itself), NULL when that pair has a NULL, as
// PostgreSQL's row comparison does.
func (b *binder) rowCompare(op string, l, r sqlparser.ValTuple, s *scope) (Expr, error) {
	if len(l) != len(r) {
		return nil, rowSizeError()
	}
	pair := func(op string, i int) (Expr, error) {
		x, err := b.expr(l[i], s)
		if err != nil {
			return nil, err
		}
		return b.compare(op, x, r[i], s)
	}
	var parts []Expr
	switch op {
	case "=", "<>":
		for i := range l {
			p, err := pair(op, i)
			if err != nil {
				return nil, err
			}
			parts = append(parts, p)
		}
		if op == "=" {
			return foldAnd(parts), nil
		}
		return foldOr(parts), nil
	}
	strict := op[:1] // < or >
	f, err := pair(op, len(l)-1)
	if err != nil {
		return nil, err
	}
	for i := len(l) - 2; i >= 0; i-- {
		lt, err := pair(strict, i)
		if err != nil {
			return nil, err
		}
		eq, err := pair("=", i)
		if err != nil {
			return nil, err
		}
		f = foldOr([]Expr{lt, foldAnd([]Expr{eq, f})})
	}
	return f, nil
}

// rowInSubquery binds (a, b) [NOT] IN (SELECT x, y ...): TRUE when some
// row equals, else NULL when some row's equality is NULL, else FALSE
// (NOT IN the negation), as two EXISTS over the subquery's rows:
//
//	CASE WHEN EXISTS (SELECT FROM (q) r(c1, c2) WHERE a = c1 AND b = c2) THEN TRUE
//	     WHEN EXISTS (SELECT FROM (q) r(c1, c2) WHERE (a = c1 AND b = c2) IS NULL) THEN NULL
//	     ELSE FALSE END
//
// The subquery's columns get names no user column has, so a and b still
// read the enclosing query.
func (b *binder) rowInSubquery(left sqlparser.ValTuple, sq *sqlparser.Subquery, not bool, s *scope) (Expr, error) {
	names := make(sqlparser.Columns, len(left))
	var eq sqlparser.Expr
	for i, x := range left {
		names[i] = sqlparser.NewIdentifierCI(rowInColumn + itoa(i+1))
		c := &sqlparser.ComparisonExpr{Operator: sqlparser.EqualOp, Left: x, Right: &sqlparser.ColName{Name: names[i]}}
		if eq == nil {
			eq = c
		} else {
			eq = &sqlparser.AndExpr{Left: eq, Right: c}
		}
	}
	exists := func(where sqlparser.Expr) sqlparser.Expr {
		from := &sqlparser.AliasedTableExpr{Expr: &sqlparser.DerivedTable{Select: sq.Select}, As: sqlparser.NewIdentifierCS(rowInColumn), Columns: names}
		sel := &sqlparser.Select{SelectExprs: &sqlparser.SelectExprs{Exprs: []sqlparser.SelectExpr{&sqlparser.AliasedExpr{Expr: sqlparser.NewIntLiteral("1")}}},
			From: []sqlparser.TableExpr{from}, Where: sqlparser.NewWhere(sqlparser.WhereClause, where)}
		return &sqlparser.ExistsExpr{Subquery: &sqlparser.Subquery{Select: sel}}
	}
	found, unknown := sqlparser.BoolVal(!not), sqlparser.BoolVal(not)
	c := &sqlparser.CaseExpr{Whens: []*sqlparser.When{
		{Cond: exists(eq), Val: found},
		{Cond: exists(&sqlparser.IsExpr{Left: eq, Right: sqlparser.IsNullOp}), Val: &sqlparser.NullVal{}},
	}, Else: unknown}
	if err := b.rowSubqueryWidth(sq, len(left), s); err != nil {
		return nil, err
	}
	return b.expr(c, s)
}

// rowInColumn names the subquery and, numbered, its columns in
// rowInSubquery's EXISTS.
const rowInColumn = "kvsql_row_in"

// rowSubqueryWidth checks that the subquery of (a, b, ...) IN (subquery)
// has as many columns as the row, with PostgreSQL's errors.
func (b *binder) rowSubqueryWidth(sq *sqlparser.Subquery, n int, s *scope) error {
	plan, err := b.selectStatement(sq.Select, &scope{parent: s})
	if err != nil {
		return err
	}
	w := 0
	for _, c := range plan.Columns() {
		if !c.Hidden {
			w++
		}
	}
	switch {
	case w > n:
		return pgerror.New(pgerror.SyntaxError, "subquery has too many columns")
	case w < n:
		return pgerror.New(pgerror.SyntaxError, "subquery has too few columns")
	}
	return nil
}

// rowIsNull binds ROW(a, b) IS [NOT] NULL (ok false when e is no such
// test): every value NULL, or every value not NULL.
func (b *binder) rowIsNull(e *sqlparser.IsExpr, s *scope) (x Expr, ok bool, err error) {
	items, isRow := rowItems(e.Left)
	if !isRow || e.Right != sqlparser.IsNullOp && e.Right != sqlparser.IsNotNullOp {
		return nil, false, nil
	}
	var parts []Expr
	for _, item := range items {
		v, err := b.expr(item, s)
		if err != nil {
			return nil, true, err
		}
		parts = append(parts, &IsNull{X: v, Not: e.Right == sqlparser.IsNotNullOp})
	}
	return foldAnd(parts), true, nil
}

// oneFieldRow reports whether e is ROW(x).
func oneFieldRow(e sqlparser.Expr) bool {
	f, ok := e.(*sqlparser.FuncExpr)
	return ok && f.Name.Lowered() == parse.MarkerRow && len(f.Exprs) == 1
}

// rowOperand reports whether e is a row constructor, or a list of them
// (the right side of IN).
func rowOperand(e sqlparser.Expr) bool {
	if _, ok := rowItems(e); ok {
		return true
	}
	t, ok := e.(sqlparser.ValTuple)
	if !ok || len(t) == 0 {
		return false
	}
	for _, item := range t {
		if _, ok := rowItems(item); !ok {
			return false
		}
	}
	return true
}
