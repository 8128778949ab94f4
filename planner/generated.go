package planner

import (
	"fmt"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
)

// Indexes over expressions and partial indexes keep what they index in
// hidden generated columns of their table (catalog.Column.Generated):
// each key expression and each WHERE predicate is a column that INSERT
// and UPDATE compute from the row, so the index is an ordinary one over
// columns and every layer below the planner is unchanged. The planner
// matches a query's expressions to those columns (useGenerated) and uses
// a partial index only when the query's filters imply its predicate
// (implies).

// exprText parses text, one SQL expression as the catalog keeps it (a
// default, a CHECK, an index expression) or a clause holds it, into its
// syntax tree; what names it in the 42601 of text that is not one.
func exprText(text, what string) (sqlparser.Expr, error) {
	st, err := parse.ParseOne("SELECT (" + text + ")")
	if err != nil {
		return nil, err
	}
	sel, ok := st.AST.(*sqlparser.Select)
	var ae *sqlparser.AliasedExpr
	if ok && len(sel.SelectExprs.Exprs) == 1 {
		ae, ok = sel.SelectExprs.Exprs[0].(*sqlparser.AliasedExpr)
	}
	if !ok || ae == nil {
		return nil, pgerror.Newf(pgerror.SyntaxError, "syntax error in %s", what)
	}
	return ae.Expr, nil
}

// rowExpr parses and binds expr (SQL text) over a full-width row of t;
// context names the clause in PostgreSQL's errors ("index expressions").
func (b *binder) rowExpr(t *catalog.Table, expr, context string) (Expr, error) {
	e, err := exprText(expr, context)
	if err != nil {
		return nil, err
	}
	s := tableScope(t, t.Name)
	s.aggContext = context
	return b.expr(e, s)
}

// BindIndexExpr binds an index key expression (predicate false) or a
// partial index's WHERE predicate (true) over t's row and returns its
// type, with PostgreSQL's errors: no subqueries (0A000), no aggregates
// (42803), only immutable functions (42P17), a boolean predicate (42804).
func (p *Planner) BindIndexExpr(t *catalog.Table, expr string, predicate bool) (types.T, error) {
	what := "index expression"
	if predicate {
		what = "index predicate"
	}
	x, err := (&binder{p: p}).rowExpr(t, expr, what+"s")
	if err != nil {
		return types.T{}, err
	}
	if hasSubquery(x) {
		return types.T{}, pgerror.Newf(pgerror.FeatureNotSupported, "cannot use subquery in %s", what)
	}
	if readsVolatile(x) || readsStable(x) {
		return types.T{}, pgerror.Newf(pgerror.InvalidObjectDefinition, "functions in %s must be marked IMMUTABLE", what)
	}
	if predicate {
		if f := x.Type().Family; f != types.Bool && f != types.Unknown {
			return types.T{}, pgerror.Newf(pgerror.DatatypeMismatch, "argument of WHERE must be type boolean, not type %s", x.Type())
		}
		return types.T{Family: types.Bool}, nil
	}
	if x.Type().Family == types.Unknown {
		return types.T{Family: types.Text}, nil
	}
	return x.Type(), nil
}

// readsStable reports whether e reads the clock, which PostgreSQL's
// STABLE functions do: an index cannot hold such a value.
func readsStable(e Expr) bool {
	found := false
	walkExpr(e, func(x Expr) bool {
		if f, ok := x.(*Func); ok {
			switch f.Name {
			case "now", "current_timestamp", "current_date", "current_time", "localtimestamp", "localtime",
				"statement_timestamp", "transaction_timestamp":
				found = true
			}
		}
		return !found
	})
	return found
}

// generated binds the expressions of t's generated columns over its
// full-width row, for INSERT and UPDATE to compute once the rest of the
// row is known.
func (b *binder) generated(t *catalog.Table) ([]Assignment, error) {
	var out []Assignment
	for i, c := range t.Columns {
		if c.Generated == "" {
			continue
		}
		x, err := b.rowExpr(t, c.Generated, "index expressions")
		if err != nil {
			return nil, fmt.Errorf("generated column %q: %w", c.Name, err)
		}
		if x, err = assign(x, c.Type); err != nil {
			return nil, err
		}
		out = append(out, Assignment{Col: i, Expr: x})
	}
	return out, nil
}

// isPredicate reports whether column o of t holds a partial index's
// predicate.
func isPredicate(t *catalog.Table, o int) bool {
	for _, idx := range t.Indexes {
		if idx.Predicate == t.Columns[o].Name {
			return true
		}
	}
	return false
}

// useGenerated rewrites filters (over t's full-width row) so that an
// expression an index keeps in a generated column reads that column:
// WHERE lower(name) = 'x' becomes a comparison of the column, which the
// index over it answers. An expression matches when it prints the same and
// reads the same columns. Expressions that fail to bind (a column since
// renamed, say) are left alone: the filter is then evaluated as written.
func (b *binder) useGenerated(t *catalog.Table, filters []Expr) []Expr {
	type gen struct {
		text string
		cols map[int]bool
		col  int
	}
	var gens []gen
	for i, c := range t.Columns {
		if c.Generated == "" || isPredicate(t, i) {
			continue
		}
		x, err := b.rowExpr(t, c.Generated, "index expressions")
		if err != nil {
			continue
		}
		cols := map[int]bool{}
		colRefs(x, cols)
		gens = append(gens, gen{text: x.String(), cols: cols, col: i})
	}
	if len(gens) == 0 {
		return filters
	}
	out := make([]Expr, len(filters))
	for k, f := range filters {
		out[k], _ = mapExpr(f, func(x Expr) (Expr, error) {
			if _, ok := x.(*ColRef); ok {
				return x, nil
			}
			s := x.String()
			for _, g := range gens {
				if s != g.text {
					continue
				}
				cols := map[int]bool{}
				colRefs(x, cols)
				if sameIntSet(cols, g.cols) {
					c := t.Columns[g.col]
					return &ColRef{Index: g.col, T: c.Type, Name: c.Name}, nil
				}
			}
			return x, nil
		})
	}
	return out
}

// implies reports whether filters (over t's row) imply partial index
// idx's predicate: each conjunct of the predicate is one of the filters,
// as PostgreSQL's simplest proof does.
func (b *binder) implies(t *catalog.Table, filters []Expr, idx *catalog.Index) bool {
	o := t.ColumnOrdinal(idx.Predicate)
	if o < 0 {
		return false
	}
	pred, err := b.rowExpr(t, t.Columns[o].Generated, "index predicates")
	if err != nil {
		return false
	}
	have := map[string]bool{}
	for _, f := range filters {
		for _, c := range splitAnd(f) {
			have[c.String()] = true
		}
	}
	for _, c := range splitAnd(pred) {
		if !have[c.String()] {
			return false
		}
	}
	return true
}

func sameIntSet(a, b map[int]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// Generated binds t's generated columns as INSERT computes them, for a
// statement that fills them itself (CREATE INDEX over existing rows).
func (p *Planner) Generated(t *catalog.Table) ([]Assignment, error) {
	return (&binder{p: p}).generated(t)
}
