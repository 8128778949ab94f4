package planner

import (
	"strconv"
	"strings"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"vitess.io/vitess/go/vt/sqlparser"
)

// GROUP BY ROLLUP, CUBE and GROUPING SETS, as PostgreSQL defines them: the
// query is grouped once per grouping set, and the results are
// concatenated. In the rows of a set, a grouping expression the set
// leaves out reads NULL and grouping(...) says which were left out. The
// plan is that definition: one aggregation per set, under UNION ALL (or
// UNION for SELECT DISTINCT), with ORDER BY and LIMIT over the whole.

// groupingSetsQuery plans sel when its GROUP BY holds ROLLUP, CUBE or
// GROUPING SETS; ok is false otherwise.
func (b *binder) groupingSetsQuery(sel *sqlparser.Select, s *scope) (n Node, ok bool, err error) {
	if sel.GroupBy == nil || !hasGroupingSets(sel.GroupBy.Exprs) {
		return nil, false, nil
	}
	if len(sel.Windows) > 0 || hasWindowCall(sel) {
		return nil, true, pgerror.New(pgerror.FeatureNotSupported, "window functions over GROUPING SETS, ROLLUP or CUBE are not supported")
	}
	sets := [][]sqlparser.Expr{{}}
	for _, g := range sel.GroupBy.Exprs {
		elem, err := groupingSetsOf(g)
		if err != nil {
			return nil, true, err
		}
		var next [][]sqlparser.Expr
		for _, a := range sets {
			for _, e := range elem {
				next = append(next, append(append([]sqlparser.Expr{}, a...), e...))
			}
		}
		sets = next
	}
	var all []sqlparser.Expr // every grouping expression, once
	for _, set := range sets {
		for _, e := range set {
			if indexOfExpr(all, e) < 0 {
				all = append(all, e)
			}
		}
	}
	for i, set := range sets {
		branch := groupingBranch(sel, set, all)
		b.forceGroup, b.keepUnknown = len(set) == 0, true
		bn, err := b.selectNode(branch, &scope{parent: s.parent, owner: s})
		b.forceGroup, b.keepUnknown = false, false
		if err != nil {
			return nil, true, err
		}
		if i == 0 {
			n = bn
			continue
		}
		if n, err = setOp(Union, !sel.Distinct, n, bn); err != nil {
			return nil, true, err
		}
	}
	n, err = b.orderLimitOutput(n, sel.OrderBy, sel.Limit, s)
	return n, true, err
}

func hasGroupingSets(exprs []sqlparser.Expr) bool {
	for _, g := range exprs {
		if f, ok := g.(*sqlparser.FuncExpr); ok {
			switch f.Name.Lowered() {
			case "rollup", "cube", parse.MarkerGroupingSets:
				return true
			}
		}
	}
	return false
}

func hasWindowCall(sel *sqlparser.Select) bool {
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch n.(type) {
		case *sqlparser.OverClause:
			found = true
		case *sqlparser.Subquery:
			return false, nil
		}
		return !found, nil
	}, sel.SelectExprs, sel.Having)
	return found
}

// groupingSetsOf returns the grouping sets one GROUP BY element stands
// for, in PostgreSQL's order.
func groupingSetsOf(g sqlparser.Expr) ([][]sqlparser.Expr, error) {
	f, ok := g.(*sqlparser.FuncExpr)
	if !ok {
		return [][]sqlparser.Expr{unitOf(g)}, nil
	}
	switch f.Name.Lowered() {
	case "rollup", "cube":
		units := make([][]sqlparser.Expr, len(f.Exprs))
		for i, a := range f.Exprs {
			units[i] = unitOf(a)
		}
		n := len(units)
		var out [][]sqlparser.Expr
		if f.Name.Lowered() == "rollup" {
			for k := n; k >= 0; k-- {
				var set []sqlparser.Expr
				for _, u := range units[:k] {
					set = append(set, u...)
				}
				out = append(out, set)
			}
			return out, nil
		}
		if n > 12 {
			return nil, pgerror.New(pgerror.ProgramLimitExceeded, "CUBE is limited to 12 elements")
		}
		for mask := 1<<n - 1; mask >= 0; mask-- {
			var set []sqlparser.Expr
			for i, u := range units {
				if mask&(1<<(n-1-i)) != 0 {
					set = append(set, u...)
				}
			}
			out = append(out, set)
		}
		return out, nil
	case parse.MarkerGroupingSets:
		var out [][]sqlparser.Expr
		for _, a := range f.Exprs {
			if e, ok := a.(*sqlparser.FuncExpr); ok && e.Name.Lowered() == parse.MarkerEmptySet {
				out = append(out, nil)
				continue
			}
			sets, err := groupingSetsOf(a)
			if err != nil {
				return nil, err
			}
			out = append(out, sets...)
		}
		return out, nil
	case parse.MarkerEmptySet:
		return [][]sqlparser.Expr{nil}, nil
	}
	return [][]sqlparser.Expr{{g}}, nil
}

// unitOf is a parenthesised list of expressions grouped together, or one.
func unitOf(e sqlparser.Expr) []sqlparser.Expr {
	if t, ok := e.(sqlparser.ValTuple); ok {
		return append([]sqlparser.Expr{}, t...)
	}
	return []sqlparser.Expr{e}
}

// sameGrouping reports whether two grouping expressions are the same: the
// same text, or the same column where one side leaves the table out.
func sameGrouping(a, b sqlparser.Expr) bool {
	ca, aok := a.(*sqlparser.ColName)
	cb, bok := b.(*sqlparser.ColName)
	if aok && bok {
		return ca.Name.Equal(cb.Name) && (ca.Qualifier.IsEmpty() || cb.Qualifier.IsEmpty() || ca.Qualifier.Name.String() == cb.Qualifier.Name.String())
	}
	return sqlparser.String(a) == sqlparser.String(b)
}

func indexOfExpr(list []sqlparser.Expr, e sqlparser.Expr) int {
	for i, x := range list {
		if sameGrouping(x, e) {
			return i
		}
	}
	return -1
}

// groupingBranch is sel grouped by set alone: the grouping expressions of
// all that set leaves out read a NULL of their type in its select list and HAVING (not
// inside aggregate arguments), grouping(...) becomes its bit mask, and
// ORDER BY and LIMIT are left to the whole.
func groupingBranch(sel *sqlparser.Select, set, all []sqlparser.Expr) *sqlparser.Select {
	br := sqlparser.CloneRefOfSelect(sel)
	br.OrderBy, br.Limit, br.Distinct = nil, nil, false
	br.GroupBy = nil
	if len(set) > 0 {
		br.GroupBy = &sqlparser.GroupBy{Exprs: append([]sqlparser.Expr{}, set...)}
	}
	absent := func(e sqlparser.Expr) bool {
		return indexOfExpr(all, e) >= 0 && indexOfExpr(set, e) < 0
	}
	nullOf := func(e sqlparser.Expr) sqlparser.Expr {
		return &sqlparser.FuncExpr{Name: sqlparser.NewIdentifierCI(parse.MarkerNullOf), Exprs: []sqlparser.Expr{e}}
	}
	inSubquery := 0
	replace := func(node sqlparser.SQLNode) sqlparser.SQLNode {
		return sqlparser.Rewrite(node, func(c *sqlparser.Cursor) bool {
			if _, ok := c.Node().(*sqlparser.Subquery); ok {
				inSubquery++
			}
			switch x := c.Node().(type) {
			case sqlparser.AggrFunc:
				return false
			case *sqlparser.ColName:
				// Inside a subquery only a qualified name can be told
				// from the subquery's own columns.
				if absent(x) && (inSubquery == 0 || !x.Qualifier.IsEmpty()) {
					c.Replace(nullOf(x))
				}
				return false
			case *sqlparser.FuncExpr:
				name := x.Name.Lowered()
				if isAggregate(name) {
					return false
				}
				if name == "grouping" {
					mask := 0
					for _, a := range x.Exprs {
						mask <<= 1
						if indexOfExpr(set, a) < 0 {
							mask |= 1
						}
					}
					c.Replace(sqlparser.NewIntLiteral(strconv.Itoa(mask)))
					return false
				}
				if inSubquery == 0 && absent(x) {
					c.Replace(nullOf(x))
					return false
				}
			case sqlparser.Expr:
				if inSubquery == 0 && absent(x) {
					c.Replace(nullOf(x))
					return false
				}
			}
			return true
		}, func(c *sqlparser.Cursor) bool {
			if _, ok := c.Node().(*sqlparser.Subquery); ok {
				inSubquery--
			}
			return true
		})
	}
	for _, se := range br.SelectExprs.Exprs {
		ae, ok := se.(*sqlparser.AliasedExpr)
		if !ok {
			continue
		}
		if ae.As.IsEmpty() {
			// The column keeps the name the expression gives it.
			switch x := ae.Expr.(type) {
			case *sqlparser.ColName:
				ae.As = sqlparser.NewIdentifierCI(x.Name.String())
			case *sqlparser.FuncExpr:
				if strings.EqualFold(x.Name.String(), "grouping") {
					ae.As = sqlparser.NewIdentifierCI("grouping")
				}
			}
		}
		ae.Expr = replace(ae.Expr).(sqlparser.Expr)
	}
	if br.Having != nil {
		br.Having.Expr = replace(br.Having.Expr).(sqlparser.Expr)
	}
	return br
}
