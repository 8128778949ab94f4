package planner

// Filters over a derived table or a view. Such a relation's plan is bound
// before the query around it, so the WHERE conjuncts that concern only
// its columns arrive afterwards, in joinTree. PostgreSQL pulls simple
// subqueries up into the query and pushes the other quals down into
// them; here pushFilters moves the conjuncts into the bound plan, and a
// table scan at the bottom chooses its access path again with them, so
// `SELECT * FROM v WHERE id = 1` over a view of a table is a primary-key
// get, not a full scan under a filter.

// pushFilters moves the conjuncts filters, over the rows of n, into n as
// far as they go; it returns the new plan and the conjuncts that stay
// above it. A conjunct moves only when evaluating it lower cannot change
// the answer: no subquery, no volatile call, no enclosing query's column.
func (b *binder) pushFilters(n Node, filters []Expr) (Node, []Expr) {
	if !b.enabled("subquery_pushdown") || len(filters) == 0 {
		return n, filters
	}
	var move, stay []Expr
	for _, f := range filters {
		if pushable(f) {
			move = append(move, f)
		} else {
			stay = append(stay, f)
		}
	}
	if len(move) == 0 {
		return n, filters
	}
	n, left := b.pushInto(n, move)
	return n, append(stay, left...)
}

// pushable reports whether an expression may be evaluated at another
// place in the plan: it reads only the current row's columns and calls
// nothing whose answer depends on how often or when it runs.
func pushable(e Expr) bool {
	ok := true
	walkExpr(e, func(x Expr) bool {
		switch x := x.(type) {
		case *Subquery:
			ok = false
		case *ColRef:
			ok = x.Outer == 0
		case *Func:
			ok = !volatileFunc(x.Name)
		}
		return ok
	})
	return ok
}

// pushInto moves filters (over n's rows, all pushable) into n: through
// projections, filters, sorts and DISTINCT, below a grouped aggregation
// when they read only its group keys, and into the side of a join whose
// columns they read when that side's rows are never null-extended. It
// returns the plan and the filters it could not move.
func (b *binder) pushInto(n Node, filters []Expr) (Node, []Expr) {
	switch v := n.(type) {
	case *Project:
		down, stay := substitute(filters, v.Exprs)
		if len(down) == 0 {
			return n, filters
		}
		p := *v
		p.Input = b.pushBelow(v.Input, down)
		return &p, stay
	case *Filter:
		f := *v
		in, left := b.pushInto(v.Input, filters)
		f.Input = in
		if len(left) > 0 {
			f.Pred = andOf(append(splitAnd(v.Pred), left...))
		}
		return &f, nil
	case *Sort:
		s := *v
		s.Input = b.pushBelow(v.Input, filters)
		return &s, nil
	case *Distinct:
		d := *v
		d.Input = b.pushBelow(v.Input, filters)
		return &d, nil
	case *Aggregate:
		// A group is kept or dropped whole by a conjunct over its keys;
		// without GROUP BY there is one row even for no input.
		if v.Strategy == ScalarAgg || len(v.GroupBy) == 0 {
			return n, filters
		}
		down, stay := substitute(filters, v.GroupBy)
		if len(down) == 0 {
			return n, filters
		}
		a := *v
		a.Input = b.pushBelow(v.Input, down)
		return &a, stay
	case *Join:
		return b.pushIntoJoin(v, filters)
	case *Scan:
		if v.Foreign != nil || v.Memo != nil || v.KeepOrder || v.Vectorized {
			return n, filters
		}
		var needed map[int]bool
		if v.Needed != nil {
			needed = make(map[int]bool, len(v.Needed))
			for _, c := range v.Needed {
				needed[c] = true
			}
		}
		var all []Expr
		if f := v.WholeFilter(); f != nil {
			all = splitAnd(f)
		}
		return b.chooseScan(v.Table, v.Alias, v.Cols, append(all, filters...), needed), nil
	}
	return n, filters
}

// pushBelow moves filters into n, keeping those it cannot move in a
// Filter over it.
func (b *binder) pushBelow(n Node, filters []Expr) Node {
	n, left := b.pushInto(n, filters)
	if len(left) > 0 {
		return &Filter{Input: n, Pred: andOf(left)}
	}
	return n
}

// pushIntoJoin moves the filters that read one side of j only into that
// side, when the join never null-extends it: either side of an inner
// join, the left (preserved) side of a left, semi or anti join.
func (b *binder) pushIntoJoin(j *Join, filters []Expr) (Node, []Expr) {
	if j.Algo == Apply || j.Type == FullJoin {
		return j, filters
	}
	mid := len(j.Left.Columns())
	rightOK := j.Type == InnerJoin
	var left, right, stay []Expr
	for _, f := range filters {
		cols := map[int]bool{}
		colRefs(f, cols)
		lo, hi := true, true
		for c := range cols {
			lo = lo && c < mid
			hi = hi && c >= mid
		}
		switch {
		case lo:
			left = append(left, f)
		case hi && rightOK:
			shift := map[int]int{}
			for c := range cols {
				shift[c] = c - mid
			}
			right = append(right, remap(f, shift))
		default:
			stay = append(stay, f)
		}
	}
	if len(left) == 0 && len(right) == 0 {
		return j, filters
	}
	out := *j
	if len(left) > 0 {
		out.Left = b.pushBelow(j.Left, left)
	}
	if len(right) > 0 {
		out.Right = b.pushBelow(j.Right, right)
	}
	return &out, stay
}

// substitute rewrites the filters that read only the first len(exprs)
// columns of a row computed as exprs (a projection's expressions, an
// aggregation's group keys) over that computation's input, when those
// expressions may be evaluated there; the others stay.
func substitute(filters []Expr, exprs []Expr) (down, stay []Expr) {
	for _, f := range filters {
		cols := map[int]bool{}
		colRefs(f, cols)
		ok := true
		for c := range cols {
			ok = ok && c < len(exprs) && pushable(exprs[c])
		}
		if !ok {
			stay = append(stay, f)
			continue
		}
		g, _ := mapExpr(f, func(x Expr) (Expr, error) {
			if c, ok := x.(*ColRef); ok && c.Outer == 0 {
				return exprs[c.Index], nil
			}
			return x, nil
		})
		down = append(down, g)
	}
	return down, stay
}
