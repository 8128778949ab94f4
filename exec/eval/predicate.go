package eval

import (
	"strings"

	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// A WHERE clause is evaluated once per scanned row, so EvalBool takes two
// shortcuts the general evaluator cannot: a comparison of integers or of
// strings read straight from the row or a constant (id = 3, a < b,
// name = 'x') is compared in place, without copying Datums through Eval;
// and a conjunction of such comparisons is decided argument by argument.
// Both give exactly Eval's answers and errors; anything else (NULLs,
// mixed kinds, other operators) takes the general path.

// operand returns a pointer to the value of a column of row (of the
// current query level) or of a constant, or nil.
func operand(e planner.Expr, row []types.Datum) *types.Datum {
	switch e := e.(type) {
	case *planner.ColRef:
		if e.Outer == 0 && e.Index < len(row) {
			return &row[e.Index]
		}
	case *planner.Const:
		return &e.Value
	}
	return nil
}

// fastCompare evaluates a comparison BinOp whose operands are columns or
// constants holding two non-NULL integers or two texts; ok is false when
// it does not apply.
func fastCompare(e *planner.BinOp, row []types.Datum) (result, ok bool) {
	l, r := operand(e.L, row), operand(e.R, row)
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
		if v, ok := fastCompare(b, row); ok {
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
