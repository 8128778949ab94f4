package planner

import (
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"vitess.io/vitess/go/vt/sqlparser"
)

// Comparisons: =, <>, <, IS [NOT] DISTINCT FROM, LIKE and IN lists, with
// their operands brought to one type as PostgreSQL's operator resolution
// does.

func (b *binder) comparison(e *sqlparser.ComparisonExpr, s *scope) (Expr, error) {
	if x, ok, err := b.rowComparison(e, s); ok { // rows.go
		return x, err
	}
	switch e.Operator {
	case sqlparser.InOp, sqlparser.NotInOp:
		not := e.Operator == sqlparser.NotInOp
		if sq, ok := e.Right.(*sqlparser.Subquery); ok {
			return b.subquery(SubIn, sq, e.Left, "=", not, s)
		}
		x, err := b.expr(e.Left, s)
		if err != nil {
			return nil, err
		}
		tuple, ok := e.Right.(sqlparser.ValTuple)
		if !ok {
			return nil, pgerror.New(pgerror.FeatureNotSupported, "unsupported IN list")
		}
		if len(tuple) == 0 {
			// SQLite's x IN () is false, x NOT IN () true, even for NULL x.
			return &Const{Value: types.NewBool(not), T: tBool}, nil
		}
		list := make([]Expr, len(tuple))
		for i, item := range tuple {
			if list[i], err = b.expr(item, s); err != nil {
				return nil, err
			}
		}
		if in, ok, err := splitIn(x, list, not); ok || err != nil {
			return in, err
		}
		in, err := inList(x, list, not)
		if c, ok := x.(*Const); ok && err != nil && !c.Value.IsNull() {
			// As for IN (subquery): a constant that is no value of the
			// list's type equals none of its items (SQLite's answer).
			x = asText(x)
			for i := range list {
				list[i] = &Cast{X: list[i], T: tText}
			}
			return &In{X: x, List: list, Not: not}, nil
		}
		return in, err
	case sqlparser.LikeOp, sqlparser.NotLikeOp:
		if f, ok := anyAllMarker(e.Right); ok {
			return b.likeAnyAll(e.Operator == sqlparser.NotLikeOp, false, e.Left, f, s) // array.go
		}
		x, err := b.expr(e.Left, s)
		if err != nil {
			return nil, err
		}
		pat, err := b.expr(e.Right, s)
		if err != nil {
			return nil, err
		}
		if x.Type().Family != types.Char { // CHAR(n) is matched with its padding (bpcharlike)
			if x, err = coerce(x, tText); err != nil {
				return nil, err
			}
		}
		if pat, err = coerce(pat, tText); err != nil {
			return nil, err
		}
		like := &Like{X: x, Pattern: pat, Not: e.Operator == sqlparser.NotLikeOp}
		if e.Escape != nil {
			if like.Escape, err = b.expr(e.Escape, s); err != nil {
				return nil, err
			}
			if like.Escape, err = coerce(like.Escape, tText); err != nil {
				return nil, err
			}
		}
		return like, nil
	case sqlparser.NullSafeEqualOp:
		x, err := b.expr(e.Left, s)
		if err != nil {
			return nil, err
		}
		return b.compare("IS NOT DISTINCT FROM", x, e.Right, s)
	case sqlparser.RegexpOp, sqlparser.NotRegexpOp:
		if f, ok := anyAllMarker(e.Right); ok { // ILIKE, as the dialect layer spells it
			return b.likeAnyAll(e.Operator == sqlparser.NotRegexpOp, true, e.Left, f, s) // array.go
		}
		name := "~"
		if e.Operator == sqlparser.NotRegexpOp {
			name = "!~"
		}
		return b.call(name, []sqlparser.Expr{e.Left, e.Right}, s)
	}
	op, ok := comparisonOps[e.Operator]
	if !ok {
		return nil, pgerror.New(pgerror.FeatureNotSupported, "unsupported comparison")
	}
	if f, ok := e.Right.(*sqlparser.FuncExpr); ok && len(f.Exprs) == 1 &&
		(f.Name.Lowered() == parse.MarkerAny || f.Name.Lowered() == parse.MarkerAll) {
		x, err := b.expr(e.Left, s)
		if err != nil {
			return nil, err
		}
		a, err := b.expr(f.Exprs[0], s)
		if err != nil {
			return nil, err
		}
		return anyAllArray(op, f.Name.Lowered() == parse.MarkerAll, x, a) // array.go
	}
	if e.Modifier != sqlparser.Missing {
		sq, ok := e.Right.(*sqlparser.Subquery)
		if !ok {
			return nil, pgerror.New(pgerror.FeatureNotSupported, "ANY/ALL need a subquery")
		}
		kind := SubAny
		if e.Modifier == sqlparser.All {
			kind = SubAll
		}
		return b.subquery(kind, sq, e.Left, op, false, s)
	}
	x, err := b.expr(e.Left, s)
	if err != nil {
		return nil, err
	}
	return b.compare(op, x, e.Right, s)
}

// splitIn binds x [NOT] IN (list) as PostgreSQL's transformAExprIn does
// when some items read the row's columns: the other items, if there are
// at least two, form one IN list, tested first; each column-reading item
// is a comparison of its own, joined by OR (IN) or AND (NOT IN) in list
// order. It matters for NULLs and errors: in WHERE a NOT IN (a / b, -1,
// NULL) the list (-1, NULL) is never TRUE, so the row is rejected before
// a / b is evaluated. ok is false when no item reads a column.
func splitIn(x Expr, list []Expr, not bool) (Expr, bool, error) {
	var vars, consts []Expr
	for _, item := range list {
		if readsRow(item) {
			vars = append(vars, item)
		} else {
			consts = append(consts, item)
		}
	}
	if len(vars) == 0 {
		return nil, false, nil
	}
	op := "="
	if not {
		op = "<>"
	}
	var args []Expr
	items := list
	if len(consts) > 1 {
		in, err := inList(x, consts, not)
		if err != nil {
			return nil, true, err
		}
		args, items = append(args, in), vars
	}
	for _, item := range items {
		c, err := compareExprs(op, x, item)
		if err != nil {
			return nil, true, err
		}
		args = append(args, c)
	}
	if not {
		return foldAnd(args), true, nil
	}
	return foldOr(args), true, nil
}

// inList binds x IN (list), coercing x and the items to a common type.
func inList(x Expr, list []Expr, not bool) (Expr, error) {
	t := x.Type()
	for _, item := range list {
		t = compareType(t, item.Type())
		if t.Family == types.Unknown && item.Type().Family != types.Unknown && x.Type().Family != types.Unknown {
			return nil, mismatch("IN", x.Type(), item.Type())
		}
	}
	if t.Family == types.Unknown {
		t = tText
	}
	t = comparedWithoutTypmod(t)
	x, err := coerceCompare(x, t)
	if err != nil {
		return nil, err
	}
	out := make([]Expr, len(list))
	for i := range list {
		if out[i], err = coerceCompare(list[i], t); err != nil {
			return nil, err
		}
	}
	return &In{X: x, List: out, Not: not}, nil
}

func compareExprs(op string, x, y Expr) (Expr, error) {
	if !comparableTypes(x.Type(), y.Type()) {
		return nil, pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s %s %s", x.Type(), op, y.Type())
	}
	t := compareType(x.Type(), y.Type())
	if t.Family == types.Unknown {
		t = tText
	}
	if err := vectorOrder(op, t); err != nil {
		return nil, err
	}
	t = comparedWithoutTypmod(t)
	if t.Family == types.Char {
		// CHAR(n) values compare with trailing blanks insignificant:
		// both sides padded to the wider width, or, when a side is
		// bpchar of no width (which padding could cut), both compared as
		// text with their trailing blanks removed.
		t.Width = max(x.Type().Width, y.Type().Width)
		if unboundedChar(x.Type()) || unboundedChar(y.Type()) {
			t = tText
		}
	}
	var err error
	if x, err = coerceCompare(x, t); err != nil {
		return nil, err
	}
	if y, err = coerceCompare(y, t); err != nil {
		return nil, err
	}
	if op != "IS DISTINCT FROM" && op != "IS NOT DISTINCT FROM" {
		if c := foldStrict(tBool, x, y); c != nil {
			return c, nil
		}
	}
	return &BinOp{Op: op, L: x, R: y, T: tBool}, nil
}

// comparedWithoutTypmod is t, the type a comparison is done in, without
// its modifier, as PostgreSQL resolves an untyped literal compared with a
// column to the column's base type: numeric(20,3) = '1.1234' is false
// (the literal is not rounded to 1.123), varchar(3) = 'abcd' is not cut
// to 'abc', timestamp(0) = '... 00:00:00.5' is not rounded. CHAR(n)
// keeps its width, which compareExprs pads both sides to; arrays keep
// theirs.
func comparedWithoutTypmod(t types.T) types.T {
	if t.Family == types.Char || t.IsArray() {
		return t
	}
	return withoutTypmod(t)
}

// vectorOrder refuses an ordering comparison of int2vector and oidvector
// values: PostgreSQL orders them element by element (as arrays, or
// oidvector's own order), which is not built; their text would sort
// otherwise.
func vectorOrder(op string, t types.T) error {
	switch op {
	case "<", "<=", ">", ">=":
	default:
		return nil
	}
	if t.Family == types.Int2Vector || t.Family == types.OidVector {
		return pgerror.Newf(pgerror.FeatureNotSupported, "ordering %s values is not supported", t.Family)
	}
	return nil
}

// coerceCompare brings x to type t, the compareType of a comparison.
// Numeric values of different families compare without casts where
// exec's exact comparison of ints and floats gives PostgreSQL's answer
// (integers among themselves, integers with numeric, numeric with the
// floats: kvsql's numeric is a float64); an integer compared in float8 is
// cast, so that it is rounded to float8 first as PostgreSQL does.
// unboundedChar reports whether t is bpchar without a width.
func unboundedChar(t types.T) bool { return t.Family == types.Char && t.Width <= 0 }

func coerceCompare(x Expr, t types.T) (Expr, error) {
	if isNumeric(x.Type().Family) && isNumeric(t.Family) {
		if isInteger(x.Type().Family) && t.Family == types.Float8 {
			return coerce(x, tFloat8)
		}
		return x, nil
	}
	if isText(x.Type().Family) && isText(t.Family) {
		xt := x.Type()
		switch {
		case t.Family == types.Char && (xt.Family != types.Char || xt.Width != t.Width) && t.Width > 0:
			return &Cast{X: x, T: t}, nil // padded to the width compared at
		case xt.Family == types.Char && t.Family != types.Char:
			return &Cast{X: x, T: t}, nil // as text: trailing blanks removed
		}
		return x, nil
	}
	return coerce(x, t)
}
