package planner

import (
	"math"
	"strconv"
	"strings"

	"github.com/kvsql/kvsql/types"
	"vitess.io/vitess/go/vt/sqlparser"
)

// The fast path for binding an INSERT's rows of literals.
//
// A bulk load's INSERT ... VALUES carries a thousand rows of plain
// literals (planner/parse/fastinsert.go builds their trees straight from
// the tokens). Bound the general way, each value is a scope, an untyped
// constant from b.expr, and a second constant of the column's type from
// assign: three allocations and two type dispatches per value, the
// largest cost of planning such a statement. literalConst binds a plain
// literal to its column's type in one step, and insertRows hands the
// constants and the rows' expression slices out of one slab per
// statement.
//
// literalConst answers only where it gives exactly what b.expr then
// assign give (constValue is the conversion castConst makes); for
// anything else — an expression, a conversion left to run time, an
// array column, a value that does not convert — it says so and the value
// takes the general path, which also reports every error as before.
// TestInsertLiteralDifferential compares both paths on random values.

// literalFastOff turns the fast path off (tests compare both paths).
var literalFastOff = false

// literalConst is the constant that e, a value of an INSERT's VALUES row
// for a column of type t, binds to when e is a plain literal converted at
// plan time; ok is false when e must take the general path (b.expr then
// assign), errors included.
func literalConst(e sqlparser.Expr, t types.T) (c Const, ok bool) {
	if literalFastOff {
		return Const{}, false
	}
	if isText(t.Family) {
		t = types.T{Family: t.Family} // assign: the width is checked at write
	}
	if t.IsArray() {
		return Const{}, false
	}
	var v types.Datum
	var err error
	switch e := e.(type) {
	case *sqlparser.NullVal:
		v, ok, err = constValue(types.Null, t)
	case sqlparser.BoolVal:
		if t != tBool {
			return Const{}, false
		}
		return Const{Value: types.NewBool(bool(e)), T: tBool}, true
	case *sqlparser.Literal:
		switch e.Type {
		case sqlparser.StrVal:
			v, ok, err = constValue(types.NewText(e.Val), t)
		case sqlparser.IntVal:
			i, perr := strconv.ParseInt(e.Val, 10, 64)
			if perr != nil || !isNumeric(t.Family) {
				return Const{}, false // a NUMERIC literal; to text, a run-time cast
			}
			xt := tInt8
			if int64(int32(i)) == i {
				xt = tInt4
			}
			if xt.Family == t.Family && t.Width == 0 && (t.Scale == 0 || t.Family == types.Numeric) {
				return Const{Value: types.NewInt(i), T: xt}, true // coerce keeps it as it is
			}
			v, ok, err = constValue(types.NewInt(i), t)
		case sqlparser.DecimalVal, sqlparser.FloatVal:
			// 1.5 and 1e3 are NUMERIC constants; for a double precision
			// column the general path parses a decimal and converts it
			// (ParseFloat of its digits: the value rounded once).
			// Parsing the literal's digits rounds the same value the same
			// way without the decimal. Zero, infinity and subnormals
			// take the general path, which knows float8in's errors.
			if t != tFloat8 {
				return Const{}, false
			}
			f, perr := strconv.ParseFloat(e.Val, 64)
			if perr != nil || f == 0 || math.IsInf(f, 0) || math.Abs(f) < 0x1p-1022 || strings.ContainsAny(e.Val, "_xXpP") {
				return Const{}, false
			}
			return Const{Value: types.NewFloat(f), T: tFloat8}, true
		default:
			return Const{}, false
		}
	default:
		return Const{}, false
	}
	if err != nil || !ok {
		return Const{}, false
	}
	return Const{Value: v, T: t}, true
}
