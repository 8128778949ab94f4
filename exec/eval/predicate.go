package eval

import (
	"math"
	"strings"

	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// A WHERE clause is evaluated once per scanned row, so EvalBool takes two
// shortcuts the general evaluator cannot: a comparison of integers or of
// strings read straight from the row, a constant or a parameter (id = 3,
// a < b, name = $1) is compared in place, without copying Datums through Eval;
// and a conjunction of such comparisons is decided argument by argument.
// Both give exactly Eval's answers and errors; anything else (NULLs,
// mixed kinds, other operators) takes the general path.

// operand returns a pointer to the value of a column of row (of the
// current query level), of a constant or of a parameter, or nil.
func operand(env *Env, e planner.Expr, row []types.Datum) *types.Datum {
	switch e := e.(type) {
	case *planner.ColRef:
		if e.Outer == 0 && e.Index < len(row) {
			return &row[e.Index]
		}
	case *planner.Const:
		return &e.Value
	case *planner.Param:
		if e.N >= 1 && e.N <= len(env.Params) {
			return &env.Params[e.N-1]
		}
	case *planner.Cast:
		// A cast that leaves the value as it is: an integer into an
		// integer type whose range holds it (a parameter sent as int8
		// compared with an int4 column), text into text.
		d := operand(env, e.X, row)
		switch {
		case d == nil:
		case d.Kind == types.KindInt && fitsInt(d.I, e.T.Family):
			return d
		case d.Kind == types.KindText && e.T.Family == types.Text:
			return d
		}
	}
	return nil
}

// fitsInt reports whether v is a value of integer family f.
func fitsInt(v int64, f types.Family) bool {
	switch f {
	case types.Int8:
		return true
	case types.Int4:
		return v >= math.MinInt32 && v <= math.MaxInt32
	case types.Int2:
		return v >= math.MinInt16 && v <= math.MaxInt16
	}
	return false
}

// fastCompare evaluates a comparison BinOp whose operands are columns or
// constants holding two non-NULL integers or two texts; ok is false when
// it does not apply.
func fastCompare(env *Env, e *planner.BinOp, row []types.Datum) (result, ok bool) {
	l, r := operand(env, e.L, row), operand(env, e.R, row)
	if l == nil || r == nil || l.Kind != r.Kind {
		return false, false
	}
	var c int
	switch l.Kind {
	case types.KindInt:
		c = cmpInt(l.I, r.I)
	case types.KindText:
		c = strings.Compare(l.S, r.S)
	default:
		return false, false
	}
	switch e.Op {
	case "=":
		return c == 0, true
	case "<>", "!=":
		return c != 0, true
	case "<":
		return c < 0, true
	case "<=":
		return c <= 0, true
	case ">":
		return c > 0, true
	case ">=":
		return c >= 0, true
	}
	return false, false
}

// truth is a three-valued logic value.
type truth uint8

const (
	truthFalse truth = iota
	truthTrue
	truthNull
)

// evalTruth evaluates a boolean argument of op (for its error message).
func evalTruth(env *Env, e planner.Expr, row []types.Datum, op string) (truth, error) {
	if b, ok := e.(*planner.BinOp); ok {
		if v, ok := fastCompare(env, b, row); ok {
			if v {
				return truthTrue, nil
			}
			return truthFalse, nil
		}
	}
	d, err := Eval(env, e, row)
	if err != nil {
		return truthNull, err
	}
	switch d.Kind {
	case types.KindNull:
		return truthNull, nil
	case types.KindBool:
		if d.Bool() {
			return truthTrue, nil
		}
		return truthFalse, nil
	}
	return truthNull, notBoolean(op, e)
}
