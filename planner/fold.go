package planner

import "github.com/kvsql/kvsql/types"

// Constant folding of what is decided without evaluating anything: a
// strict operator with a NULL operand is NULL, AND with FALSE is FALSE, OR
// with TRUE is TRUE. PostgreSQL's planner does the same, and it matters
// beyond speed: in `WHERE x / 0 = NULL` the division is never evaluated,
// so the query returns no rows instead of failing with 22012. Filters that
// fold to FALSE or NULL become empty inputs (see emptyIfFalse).

// isNullConst reports whether e is a NULL constant.
func isNullConst(e Expr) bool {
	c, ok := e.(*Const)
	return ok && c.Value.Kind == types.KindNull
}

// boolConst returns e's value if e is a boolean constant.
func boolConst(e Expr) (value, ok bool) {
	c, isConst := e.(*Const)
	if !isConst || c.Value.Kind != types.KindBool {
		return false, false
	}
	return c.Value.Bool(), true
}

// alwaysFalse reports whether a filter predicate is FALSE or NULL for
// every row.
func alwaysFalse(e Expr) bool {
	if isNullConst(e) {
		return true
	}
	v, ok := boolConst(e)
	return ok && !v
}

// foldStrict returns a NULL constant of type t when any operand is a NULL
// constant (the operator is strict), else nil.
func foldStrict(t types.T, operands ...Expr) Expr {
	for _, o := range operands {
		if isNullConst(o) {
			return &Const{T: t}
		}
	}
	return nil
}

// foldAnd simplifies a conjunction: a FALSE argument decides it, TRUE
// arguments drop out.
func foldAnd(args []Expr) Expr {
	var kept []Expr
	for _, a := range args {
		if v, ok := boolConst(a); ok {
			if !v {
				return &Const{Value: types.NewBool(false), T: tBool}
			}
			continue
		}
		kept = append(kept, a)
	}
	switch len(kept) {
	case 0:
		return &Const{Value: types.NewBool(true), T: tBool}
	case 1:
		return kept[0]
	}
	return &And{Args: kept}
}

// foldOr simplifies a disjunction: a TRUE argument decides it, FALSE
// arguments drop out.
func foldOr(args []Expr) Expr {
	var kept []Expr
	for _, a := range args {
		if v, ok := boolConst(a); ok {
			if v {
				return &Const{Value: types.NewBool(true), T: tBool}
			}
			continue
		}
		kept = append(kept, a)
	}
	switch len(kept) {
	case 0:
		return &Const{Value: types.NewBool(false), T: tBool}
	case 1:
		return kept[0]
	}
	return &Or{Args: kept}
}

// emptyIfFalse returns an input with no rows and n's columns when pred is
// always FALSE or NULL, else nil.
func emptyIfFalse(n Node, pred Expr) Node {
	if pred == nil || !alwaysFalse(pred) {
		return nil
	}
	return &Values{Cols: n.Columns()}
}
