package planner

import (
	"github.com/kvsql/kvsql/pgerror"
)

// Grouped queries: rewriting expressions over the Aggregate node's
// output, and planning the Aggregate's input.

// groupRewrite rewrites an expression of a grouped query to read the
// Aggregate node's output: group keys by position, aggregates after them.
// A column reference left over is not grouped: 42803.
func groupRewrite(e Expr, groupBy []Expr, calls []AggCall) (Expr, error) {
	keys := make([]string, len(groupBy))
	for i, g := range groupBy {
		keys[i] = g.String()
	}
	var rec func(Expr) (Expr, error)
	rec = func(x Expr) (Expr, error) {
		s := x.String()
		for i, k := range keys {
			if k == s {
				return &ColRef{Index: i, T: x.Type(), Name: s}, nil
			}
		}
		switch v := x.(type) {
		case *aggRef:
			return &ColRef{Index: len(groupBy) + v.i, T: v.t, Name: aggString(calls[v.i])}, nil
		case *ColRef:
			if v.Outer == 0 {
				return nil, pgerror.Newf(pgerror.GroupingError, "column %q must appear in the GROUP BY clause or be used in an aggregate function", v.Name)
			}
			return v, nil
		}
		// Rebuild children through rec.
		return mapChildren(x, rec)
	}
	return rec(e)
}

// groupOuterRefs points the correlated subqueries of e, an expression
// evaluated above a grouped query's Aggregate, at the Aggregate's output:
// a reference to a FROM column becomes a reference to the group key that
// is that column. A subquery may not read an ungrouped column (42803, as
// in PostgreSQL).
func groupOuterRefs(e Expr, groupBy []Expr) (Expr, error) {
	toGroup := func(c *ColRef) (Expr, error) {
		if c.Agg {
			// An outer-level aggregate of this query (outerAggregate).
			return &ColRef{Index: len(groupBy) + c.Index, Outer: c.Outer, T: c.T, Name: c.Name}, nil
		}
		for i, g := range groupBy {
			if ref, ok := g.(*ColRef); ok && ref.Outer == 0 && ref.Index == c.Index {
				return &ColRef{Index: i, Outer: c.Outer, T: c.T, Name: c.Name}, nil
			}
		}
		return nil, pgerror.Newf(pgerror.GroupingError, "subquery uses ungrouped column %q from outer query", c.Name)
	}
	var err error
	walkExpr(e, func(x Expr) bool {
		if sq, ok := x.(*Subquery); ok && sq.Correlated && err == nil {
			err = mapOuterRefs(sq.Plan, 1, toGroup)
		}
		return err == nil
	})
	return e, err
}

// mapChildren rebuilds x with fn applied to each direct child.
func mapChildren(x Expr, fn func(Expr) (Expr, error)) (Expr, error) {
	var err error
	m := func(c Expr) Expr {
		if err != nil || c == nil {
			return c
		}
		var y Expr
		y, err = fn(c)
		return y
	}
	ms := func(cs []Expr) []Expr {
		out := make([]Expr, len(cs))
		for i, c := range cs {
			out[i] = m(c)
		}
		return out
	}
	var out Expr
	switch v := x.(type) {
	case *UnaryOp:
		out = &UnaryOp{Op: v.Op, X: m(v.X), T: v.T}
	case *BinOp:
		out = &BinOp{Op: v.Op, L: m(v.L), R: m(v.R), T: v.T}
	case *And:
		out = &And{Args: ms(v.Args)}
	case *Or:
		out = &Or{Args: ms(v.Args)}
	case *IsNull:
		out = &IsNull{X: m(v.X), Not: v.Not}
	case *IsBool:
		out = &IsBool{X: m(v.X), Value: v.Value, Not: v.Not}
	case *In:
		out = &In{X: m(v.X), List: ms(v.List), Not: v.Not}
	case *Like:
		out = &Like{X: m(v.X), Pattern: m(v.Pattern), Escape: m(v.Escape), Not: v.Not, CaseInsensitive: v.CaseInsensitive}
	case *Case:
		c := &Case{Operand: m(v.Operand), Else: m(v.Else), T: v.T}
		for _, w := range v.Whens {
			c.Whens = append(c.Whens, When{Cond: m(w.Cond), Val: m(w.Val)})
		}
		out = c
	case *Cast:
		out = &Cast{X: m(v.X), T: v.T}
	case *Func:
		out = &Func{Name: v.Name, Args: ms(v.Args), T: v.T}
	case *Subquery:
		c := *v
		c.X = m(v.X)
		out = &c
	default:
		out = x
	}
	return out, err
}

// groupedInOrder reports whether input already arrives ordered by the
// group keys (an index or primary key scan in key order), so equal keys
// are adjacent and aggregation can stream group by group.
func groupedInOrder(input Node, groupBy []Expr) bool {
	keys := make([]SortKey, len(groupBy))
	for i, g := range groupBy {
		keys[i] = SortKey{Expr: g}
	}
	return providesOrder(input, keys)
}

// mergeProjects folds a projection over a projection of plain column
// references and constants (the FROM-order layout a join tree restores,
// with NULLs for pruned columns) into one.
func mergeProjects(p *Project) *Project {
	inner, ok := p.Input.(*Project)
	if !ok {
		return p
	}
	// A correlated subquery reads its outer row by position (ColRef.Outer)
	// inside its own plan, which the substitution below does not reach:
	// merged, it would read the inner project's input at positions of
	// the inner project's output.
	for _, e := range p.Exprs {
		if hasCorrelatedSubquery(e) {
			return p
		}
	}
	for _, e := range inner.Exprs {
		switch e := e.(type) {
		case *ColRef:
			if e.Outer != 0 {
				return p
			}
		case *Const:
		default:
			return p
		}
	}
	out := &Project{Input: inner.Input, Cols: p.Cols}
	for _, e := range p.Exprs {
		x, _ := mapExpr(e, func(x Expr) (Expr, error) {
			if ref, ok := x.(*ColRef); ok && ref.Outer == 0 {
				switch in := inner.Exprs[ref.Index].(type) {
				case *ColRef:
					return &ColRef{Index: in.Index, T: ref.T, Name: ref.Name}, nil
				default:
					return in, nil
				}
			}
			return x, nil
		})
		out.Exprs = append(out.Exprs, x)
	}
	return out
}

// peelLayout looks through a projection of plain column references and
// constants (the FROM-order layout over a join tree) and rewrites the
// aggregate's inputs to read below it. Otherwise it returns its arguments.
func peelLayout(input Node, groupBy []Expr, calls []AggCall) (Node, []Expr, []AggCall) {
	layout, ok := input.(*Project)
	if !ok {
		return input, groupBy, calls
	}
	for _, e := range layout.Exprs {
		switch e := e.(type) {
		case *ColRef:
			if e.Outer != 0 {
				return input, groupBy, calls
			}
		case *Const:
		default:
			return input, groupBy, calls
		}
	}
	// As in mergeProjects: a correlated subquery's outer references
	// would keep the layout's positions.
	for _, e := range groupBy {
		if hasCorrelatedSubquery(e) {
			return input, groupBy, calls
		}
	}
	for _, call := range calls {
		for _, a := range call.Args {
			if hasCorrelatedSubquery(a) {
				return input, groupBy, calls
			}
		}
		for _, k := range call.OrderBy {
			if hasCorrelatedSubquery(k.Expr) {
				return input, groupBy, calls
			}
		}
	}
	sub := func(e Expr) Expr {
		x, _ := mapExpr(e, func(x Expr) (Expr, error) {
			if ref, ok := x.(*ColRef); ok && ref.Outer == 0 {
				if in, ok := layout.Exprs[ref.Index].(*ColRef); ok {
					return &ColRef{Index: in.Index, T: ref.T, Name: ref.Name}, nil
				}
				return layout.Exprs[ref.Index], nil
			}
			return x, nil
		})
		return x
	}
	g := make([]Expr, len(groupBy))
	for i, e := range groupBy {
		g[i] = sub(e)
	}
	c := make([]AggCall, len(calls))
	for i, call := range calls {
		c[i] = call
		c[i].Args = make([]Expr, len(call.Args))
		for j, a := range call.Args {
			c[i].Args[j] = sub(a)
		}
		c[i].OrderBy = make([]SortKey, len(call.OrderBy))
		for j, k := range call.OrderBy {
			c[i].OrderBy[j] = SortKey{Expr: sub(k.Expr), Desc: k.Desc, NullsFirst: k.NullsFirst}
		}
	}
	return layout.Input, g, c
}
