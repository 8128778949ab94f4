package planner

import "github.com/kvsql/kvsql/types"

// memoizeScans gives the scans of a correlated subquery's plan a
// ScanMemo where their filters equate an expression of the scan's row
// with one of the enclosing rows (rule scan_memo). A subquery runs once
// per outer row; without the memo each run rescans its table, with it
// only the first does and the others are hash lookups. Nested subqueries
// are handled when they are bound.
func (b *binder) memoizeScans(plan Node) {
	if !b.enabled("scan_memo") {
		return
	}
	if s, ok := plan.(*Scan); ok {
		s.Memo = scanMemo(s)
	}
	for _, c := range plan.Children() {
		b.memoizeScans(c)
	}
}

// scanMemo returns s's memo, or nil when its filter has no equality
// between the row and the enclosing rows, or when its key spans already
// read the enclosing rows (an index lookup per run is what a memo would
// buy).
func scanMemo(s *Scan) *ScanMemo {
	if s.Filter == nil {
		return nil
	}
	for _, sp := range s.Spans {
		for _, e := range append(append([]Expr{}, sp.Lo...), sp.Hi...) {
			if readsOuter(e) {
				return nil
			}
		}
	}
	if s.Foreign != nil {
		// A foreign scan's prefixes are evaluated when it opens: the
		// memo, built by the first run, would keep that run's prefix.
		for _, sp := range s.Foreign.Spans {
			for _, e := range append(append([]Expr{}, sp.Eq...), sp.Lo, sp.Hi) {
				if e != nil && readsOuter(e) {
					return nil
				}
			}
		}
	}
	m := &ScanMemo{}
	var build, rest []Expr
	for _, c := range splitAnd(s.Filter) {
		if eq, ok := c.(*BinOp); ok && eq.Op == "=" {
			l, r := eq.L, eq.R
			if rowOnly(r) && outerOnly(l) {
				l, r = r, l
			}
			if rowOnly(l) && outerOnly(r) && sameKeyType(l.Type(), r.Type()) {
				m.Keys, m.Probes = append(m.Keys, l), append(m.Probes, r)
				continue
			}
		}
		if readsOuter(c) || hasSubquery(c) {
			rest = append(rest, c)
		} else {
			build = append(build, c)
		}
	}
	if len(m.Keys) == 0 {
		return nil
	}
	if len(build) > 0 {
		m.Build = andOf(build)
	}
	if len(rest) > 0 {
		m.Rest = andOf(rest)
	}
	return m
}

// sameKeyType reports whether values of a and b hash alike when equal:
// the same type family (int and float, which = may compare, do not).
func sameKeyType(a, b types.T) bool { return a.Family == b.Family }

// rowOnly reports whether e reads the current row and nothing else that
// changes between runs: no enclosing row, subquery or volatile function.
func rowOnly(e Expr) bool {
	row, ok := false, true
	walkExpr(e, func(x Expr) bool {
		switch x := x.(type) {
		case *ColRef:
			if x.Outer == 0 {
				row = true
			} else {
				ok = false
			}
		case *Subquery:
			ok = false
		case *Func:
			if volatileFunc(x.Name) {
				ok = false
			}
		}
		return ok
	})
	return ok && row
}

// outerOnly reports whether e reads enclosing rows and not the current
// one (nor a subquery).
func outerOnly(e Expr) bool {
	return readsOuter(e) && isConstant(e) && !hasSubquery(e)
}

// readsOuter reports whether e reads an enclosing query's row.
func readsOuter(e Expr) bool {
	found := false
	walkExpr(e, func(x Expr) bool {
		if c, ok := x.(*ColRef); ok && c.Outer > 0 {
			found = true
		}
		if sq, ok := x.(*Subquery); ok && sq.Correlated {
			found = true // its plan may read them
		}
		return !found
	})
	return found
}

func hasSubquery(e Expr) bool {
	found := false
	walkExpr(e, func(x Expr) bool {
		_, found = x.(*Subquery)
		return !found
	})
	return found
}
