package planner

import (
	"slices"

	"github.com/kvsql/kvsql/pgerror"
)

// walkExpr calls fn on e and, while fn returns true, on its children. It
// does not enter subquery plans.
func walkExpr(e Expr, fn func(Expr) bool) {
	if e == nil || !fn(e) {
		return
	}
	for _, c := range exprChildren(e) {
		walkExpr(c, fn)
	}
}

func exprChildren(e Expr) []Expr {
	switch e := e.(type) {
	case *UnaryOp:
		return []Expr{e.X}
	case *BinOp:
		return []Expr{e.L, e.R}
	case *And:
		return e.Args
	case *Or:
		return e.Args
	case *IsNull:
		return []Expr{e.X}
	case *IsBool:
		return []Expr{e.X}
	case *In:
		return append([]Expr{e.X}, e.List...)
	case *Like:
		if e.Escape != nil {
			return []Expr{e.X, e.Pattern, e.Escape}
		}
		return []Expr{e.X, e.Pattern}
	case *Case:
		var out []Expr
		if e.Operand != nil {
			out = append(out, e.Operand)
		}
		for _, w := range e.Whens {
			out = append(out, w.Cond, w.Val)
		}
		if e.Else != nil {
			out = append(out, e.Else)
		}
		return out
	case *Cast:
		return []Expr{e.X}
	case *Func:
		return e.Args
	case *Subquery:
		if e.X != nil {
			return []Expr{e.X}
		}
	}
	return nil
}

// mapExpr rebuilds e bottom-up, replacing each node by fn's result (fn
// receives the node with its children already mapped). Subquery plans are
// not entered; Subquery.X is.
func mapExpr(e Expr, fn func(Expr) (Expr, error)) (Expr, error) {
	if e == nil {
		return nil, nil
	}
	x, err := mapChildren(e, func(c Expr) (Expr, error) { return mapExpr(c, fn) })
	if err != nil {
		return nil, err
	}
	return fn(x)
}

// remap rewrites the column references of e (Outer == 0) through layout:
// a reference to column i becomes a reference to position[i].
func remap(e Expr, position map[int]int) Expr {
	out, _ := mapExpr(e, func(x Expr) (Expr, error) {
		if c, ok := x.(*ColRef); ok && c.Outer == 0 {
			if p, ok := position[c.Index]; ok {
				return &ColRef{Index: p, T: c.T, Name: c.Name}, nil
			}
		}
		return x, nil
	})
	return out
}

// colRefs returns the columns (Outer == 0) e references.
func colRefs(e Expr, into map[int]bool) {
	walkExpr(e, func(x Expr) bool {
		if c, ok := x.(*ColRef); ok && c.Outer == 0 {
			into[c.Index] = true
		}
		return true
	})
}

// colRefsDeep is colRefs that also sees the columns of the current row
// read by correlated subqueries inside e (their references one level out).
func colRefsDeep(e Expr, into map[int]bool) {
	colRefs(e, into)
	walkExpr(e, func(x Expr) bool {
		if sq, ok := x.(*Subquery); ok && sq.Correlated {
			// The callback only records: mapOuterRefs puts each
			// reference back unchanged.
			_ = mapOuterRefs(sq.Plan, 1, func(c *ColRef) (Expr, error) {
				if !c.Agg {
					into[c.Index] = true
				}
				return c, nil
			})
		}
		return true
	})
}

// remapDeep is remap that also moves the references correlated subqueries
// inside e make to the current row. It rewrites those subqueries' plans in
// place, so e must be placed once, where position describes its row.
func remapDeep(e Expr, position map[int]int) (Expr, error) {
	move := func(c *ColRef) (*ColRef, error) {
		p, ok := position[c.Index]
		if !ok {
			return nil, pgerror.Newf(pgerror.Internal, "planner: column %s is not in the row a filter moved to", c.Name)
		}
		return &ColRef{Index: p, Outer: c.Outer, T: c.T, Name: c.Name}, nil
	}
	return mapExprRefs(e, 0, func(c *ColRef, depth int) (Expr, error) {
		if c.Outer != depth || c.Agg {
			return c, nil
		}
		return move(c)
	}, map[Node]bool{})
}

// hasCorrelatedSubquery reports whether e contains a correlated subquery.
func hasCorrelatedSubquery(e Expr) bool {
	found := false
	walkExpr(e, func(x Expr) bool {
		if sq, ok := x.(*Subquery); ok && sq.Correlated {
			found = true
		}
		return !found
	})
	return found
}

// isConstant reports whether e depends on no column of the current row:
// constants, parameters and outer references (fixed per execution).
func isConstant(e Expr) bool {
	ok := true
	walkExpr(e, func(x Expr) bool {
		switch c := x.(type) {
		case *ColRef:
			if c.Outer == 0 {
				ok = false
			}
		case *Subquery:
			ok = false
		case *Func:
			if volatileFunc(c.Name) {
				ok = false
			}
		}
		return ok
	})
	return ok
}

// walkPlanExprs calls fn on every expression held by the nodes of n
// (not entering subquery plans).
func walkPlanExprs(n Node, fn func(Expr)) {
	for _, e := range nodeExprs(n) {
		fn(e)
	}
	for _, c := range n.Children() {
		walkPlanExprs(c, fn)
	}
}

// nodeExprs returns the expressions n itself holds (not its children's).
func nodeExprs(n Node) []Expr {
	if v, ok := n.(*Values); ok {
		// Straight from the rows: a 1,000-row INSERT is walked three times.
		out := make([]Expr, 0, valuesWidth(v))
		for _, r := range v.Rows {
			for _, x := range r {
				if x != nil {
					out = append(out, x)
				}
			}
		}
		return out
	}
	slots := nodeExprSlots(n)
	out := make([]Expr, len(slots))
	for i, p := range slots {
		out[i] = *p
	}
	return out
}

// valuesWidth is the number of expressions v's rows hold, nil or not.
func valuesWidth(v *Values) int {
	n := 0
	for _, r := range v.Rows {
		n += len(r)
	}
	return n
}

// nodeExprSlots returns the places n itself holds a (non-nil) expression
// in, for rewrites that replace them; each once, though two fields may
// share them (an equality span's Lo and Hi are one slice).
func nodeExprSlots(n Node) []*Expr {
	var out []*Expr
	if v, ok := n.(*Values); ok {
		// The binder builds every row of a VALUES list as a slice of its
		// own, so no slot can appear twice: no seen-set, whose upkeep was
		// most of planning a 1,000-row INSERT (it is walked three times).
		out = make([]*Expr, 0, valuesWidth(v))
		for _, r := range v.Rows {
			for i := range r {
				if r[i] != nil {
					out = append(out, &r[i])
				}
			}
		}
		return out
	}
	seen := map[*Expr]bool{}
	each := func(es ...*Expr) {
		for _, e := range es {
			if *e != nil && !seen[e] {
				seen[e] = true
				out = append(out, e)
			}
		}
	}
	list := func(es []Expr) {
		for i := range es {
			each(&es[i])
		}
	}
	keys := func(ks []SortKey) {
		for i := range ks {
			each(&ks[i].Expr)
		}
	}
	switch v := n.(type) {
	case *Scan:
		each(&v.Filter, &v.SpanFilter)
		for i := range v.Spans {
			list(v.Spans[i].Lo)
			list(v.Spans[i].Hi)
		}
		if m := v.Memo; m != nil {
			list(m.Keys)
			list(m.Probes)
			each(&m.Build, &m.Rest)
		}
		if f := v.Foreign; f != nil {
			for i := range f.Spans {
				list(f.Spans[i].Eq)
				each(&f.Spans[i].Lo, &f.Spans[i].Hi)
			}
		}
	case *Series:
		each(&v.Start, &v.Stop, &v.Step)
	case *TableFunc:
		list(v.Args)
	case *Filter:
		each(&v.Pred)
	case *Project:
		list(v.Exprs)
	case *Join:
		list(v.LeftKeys)
		list(v.RightKeys)
		each(&v.On)
	case *LookupJoin:
		list(v.Keys)
		each(&v.Filter, &v.On)
	case *Aggregate:
		list(v.GroupBy)
		for i := range v.Aggs {
			list(v.Aggs[i].Args)
			keys(v.Aggs[i].OrderBy)
		}
	case *Window:
		list(v.Partition)
		keys(v.Order)
		for i := range v.Funcs {
			list(v.Funcs[i].Args)
			each(&v.Funcs[i].Filter, &v.Funcs[i].Frame.Start.Offset, &v.Funcs[i].Frame.End.Offset,
				&v.Funcs[i].Frame.Start.Target, &v.Funcs[i].Frame.End.Target)
		}
	case *Sort:
		keys(v.Keys)
	case *TopN:
		keys(v.Keys)
		each(&v.Count, &v.Offset)
	case *Limit:
		keys(v.TiesOn)
		each(&v.Count, &v.Offset)
	case *Insert:
		list(v.Returning)
		for i := range v.Checks {
			each(&v.Checks[i].Expr)
		}
		for i := range v.Set {
			each(&v.Set[i].Expr)
		}
		each(&v.UpdateWhere)
	case *Update:
		for i := range v.Set {
			each(&v.Set[i].Expr)
		}
		for i := range v.Checks {
			each(&v.Checks[i].Expr)
		}
		list(v.Returning)
	case *Delete:
		list(v.Returning)
	}
	return out
}

// mapOuterRefs rewrites, in place, the references plan makes (at any
// subquery depth inside it) to the row of the query depth levels out:
// fn returns the replacement for such a ColRef (whose Outer is relative
// to where it stands). A subquery plan reached twice (BETWEEN binds its
// operand twice) is rewritten once.
func mapOuterRefs(plan Node, depth int, fn func(*ColRef) (Expr, error)) error {
	return mapDeepRefs(plan, depth, func(c *ColRef, d int) (Expr, error) {
		if c.Outer == d {
			return fn(c)
		}
		return c, nil
	}, map[Node]bool{})
}

// mapDeepRefs applies fn to every column reference of plan that reads an
// enclosing query at depth or further out (Outer >= depth at depth, one
// more inside each correlated subquery and the right side of an Apply
// join), giving fn the depth it was found at.
func mapDeepRefs(plan Node, depth int, fn func(*ColRef, int) (Expr, error), seen map[Node]bool) error {
	if seen[plan] {
		return nil
	}
	seen[plan] = true
	for _, slot := range nodeExprSlots(plan) {
		e, err := mapExprRefs(*slot, depth, fn, seen)
		if err != nil {
			return err
		}
		*slot = e
	}
	for i, c := range plan.Children() {
		d := depth
		if j, ok := plan.(*Join); ok && j.Algo == Apply && i == 1 {
			d++ // the right side has the left row as one more enclosing row
		}
		if err := mapDeepRefs(c, d, fn, seen); err != nil {
			return err
		}
	}
	return nil
}

// mapExprRefs is mapDeepRefs for an expression evaluated at depth.
func mapExprRefs(e Expr, depth int, fn func(*ColRef, int) (Expr, error), seen map[Node]bool) (Expr, error) {
	return mapExpr(e, func(x Expr) (Expr, error) {
		switch x := x.(type) {
		case *ColRef:
			if x.Outer >= depth {
				return fn(x, depth)
			}
		case *Subquery:
			if x.Correlated {
				return x, mapDeepRefs(x.Plan, depth+1, fn, seen)
			}
		}
		return x, nil
	})
}

// ColumnsRead returns the columns of the current row (ordinals) that e
// reads, in ascending order; ok is false when e holds a subquery, whose
// plan may read the row in ways the walk does not see.
func ColumnsRead(e Expr) (cols []int, ok bool) {
	set := map[int]bool{}
	ok = true
	walkExpr(e, func(x Expr) bool {
		switch x := x.(type) {
		case *Subquery:
			ok = false
		case *ColRef:
			if x.Outer == 0 {
				set[x.Index] = true
			}
		}
		return ok
	})
	if !ok {
		return nil, false
	}
	for c := range set {
		cols = append(cols, c)
	}
	slices.Sort(cols)
	return cols, true
}

// OuterRef is a column of an enclosing row that a subquery's plan reads:
// Level 1 is the row the subquery runs for, 2 the one enclosing that, and
// so on; Index is the column.
type OuterRef struct{ Level, Index int }

// SubqueryInputs returns the enclosing columns sq's plan reads, and
// whether its answer depends on nothing else: false when the plan calls
// a volatile function (random(), nextval, ...), whose answers may differ
// between runs for the same inputs. The executor memoizes a correlated
// subquery's results by these columns' values.
func SubqueryInputs(sq *Subquery) (refs []OuterRef, pure bool) {
	seen := map[OuterRef]bool{}
	pure = true
	visited := map[Node]bool{}
	var walkPlan func(n Node, depth int)
	walk := func(e Expr, depth int) {
		walkExpr(e, func(x Expr) bool {
			switch x := x.(type) {
			case *ColRef:
				if x.Outer >= depth {
					r := OuterRef{Level: x.Outer - depth + 1, Index: x.Index}
					if !seen[r] {
						seen[r] = true
						refs = append(refs, r)
					}
				}
			case *Func:
				if volatileFunc(x.Name) {
					pure = false
				}
			case *Subquery:
				walkPlan(x.Plan, depth+1)
			}
			return true
		})
	}
	walkPlan = func(n Node, depth int) {
		if visited[n] {
			return
		}
		visited[n] = true
		for _, slot := range nodeExprSlots(n) {
			walk(*slot, depth)
		}
		for i, c := range n.Children() {
			d := depth
			if j, ok := n.(*Join); ok && j.Algo == Apply && i == 1 {
				d++
			}
			walkPlan(c, d)
		}
	}
	walkPlan(sq.Plan, 1)
	return refs, pure
}
