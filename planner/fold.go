package planner

import "github.com/kvsql/kvsql/types"

// Constant folding of what is decided without evaluating anything, as
// PostgreSQL's eval_const_expressions does: a strict operator, function
// or cast with a NULL constant operand is NULL (unary minus included), a
// CASE arm whose condition is a constant FALSE or NULL is dropped and one
// whose condition is TRUE ends the CASE, NOT NOT x is x, AND with FALSE is
// FALSE, OR with TRUE is TRUE. It matters beyond speed: in
// a / b * -CAST(NULL AS INTEGER) the division is never evaluated, so the
// query yields NULL instead of failing with 22012. As in PostgreSQL, an
// expression over columns is never evaluated at plan time (a / 0 stays).
// Filters with a FALSE or NULL conjunct become empty inputs (see
// emptyIfFalse), as PostgreSQL's one-time filter skips the scan.

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
// every row: a FALSE or NULL constant, or a conjunction with one.
func alwaysFalse(e Expr) bool {
	if isNullConst(e) {
		return true
	}
	if and, ok := e.(*And); ok {
		for _, a := range and.Args {
			if alwaysFalse(a) {
				return true
			}
		}
		return false
	}
	v, ok := boolConst(e)
	return ok && !v
}

// alwaysTrue reports whether a filter predicate is the constant TRUE.
func alwaysTrue(e Expr) bool {
	v, ok := boolConst(e)
	return ok && v
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

// nonStrictFuncs are the functions that do not yield NULL for a NULL
// argument (exec's evalFunc handles their NULLs).
var nonStrictFuncs = map[string]bool{
	"coalesce": true, "ifnull": true, "nullif": true, "greatest": true, "least": true,
	"concat": true, "concat_ws": true, "format": true, "format_type": true,
	"jsonb_build_object": true, "json_build_object": true, "jsonb_build_array": true, "json_build_array": true,
	"pg_notify":      true, // a NULL channel is 22023, a NULL payload an empty one
	"quote_nullable": true, // NULL is the word NULL
}

// foldStrictFunc returns a NULL constant of type t for a call of a strict
// function with a NULL constant argument, else nil.
func foldStrictFunc(name string, t types.T, args []Expr) Expr {
	if nonStrictFuncs[name] {
		return nil
	}
	return foldStrict(t, args...)
}

// foldNot simplifies NOT x: NOT of a constant is a constant (NULL stays
// NULL) and NOT NOT x is x (also in three-valued logic).
func foldNot(x Expr) Expr {
	if isNullConst(x) {
		return &Const{T: tBool}
	}
	if v, ok := boolConst(x); ok {
		return &Const{Value: types.NewBool(!v), T: tBool}
	}
	if u, ok := x.(*UnaryOp); ok && u.Op == "NOT" {
		return u.X
	}
	return &UnaryOp{Op: "NOT", X: x, T: tBool}
}

// foldCase drops the arms of c whose condition is a constant FALSE or
// NULL, and ends it at the first arm whose condition is TRUE (that arm's
// value becomes the ELSE); a CASE left without arms is its ELSE.
func foldCase(c *Case) Expr {
	var whens []When
	els := c.Else
	for _, w := range c.Whens {
		if isNullConst(w.Cond) {
			continue
		}
		if v, ok := boolConst(w.Cond); ok && !v {
			continue
		}
		if v, ok := boolConst(w.Cond); ok && v {
			els = w.Val
			break
		}
		whens = append(whens, w)
	}
	if len(whens) == 0 {
		if els == nil {
			return &Const{T: c.T}
		}
		return els
	}
	return &Case{Whens: whens, Else: els, T: c.T}
}
