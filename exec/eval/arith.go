package eval

import (
	"math"
	"time"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// evalBinOp evaluates both operands (left first) and applies the operator.
// Every operator except IS [NOT] DISTINCT FROM yields NULL for a NULL
// operand.
func evalBinOp(env *Env, e *planner.BinOp, row []types.Datum) (types.Datum, error) {
	l, err := Eval(env, e.L, row)
	if err != nil {
		return types.Null, err
	}
	r, err := Eval(env, e.R, row)
	if err != nil {
		return types.Null, err
	}
	switch e.Op {
	case "IS DISTINCT FROM", "IS NOT DISTINCT FROM":
		var same bool
		switch {
		case l.IsNull() || r.IsNull():
			same = l.IsNull() && r.IsNull()
		default:
			c, err := compareSQL(l, r)
			if err != nil {
				return types.Null, err
			}
			same = c == 0
		}
		return types.NewBool(same == (e.Op == "IS NOT DISTINCT FROM")), nil
	}
	if l.IsNull() || r.IsNull() {
		return types.Null, nil
	}
	switch e.Op {
	case "=", "<>", "!=", "<", "<=", ">", ">=":
		b, err := compareOp(e.Op, l, r)
		return types.NewBool(b), err
	case "+", "-", "*", "/", "%":
		if e.T.Family == types.TimeTZ {
			return timeTZArith(e.Op, l, r)
		}
		if e.T.Family == types.TimestampTZ && (isDatetimeKind(l.Kind) || isDatetimeKind(r.Kind)) {
			return datetimeArith(e.Op, l, r, e.T, env.loc()) // months and days on the session's calendar
		}
		return arith(e.Op, l, r, e.T)
	case "||":
		if int64(len(l.S))+int64(len(r.S)) > env.maxValueSize() {
			return types.Null, tooLarge()
		}
		return concat2(l, r, e.L.Type(), e.R.Type(), env.style()), nil
	case "&", "|", "#", "<<", ">>":
		return bitwise(e.Op, l, r, e.T)
	case "~", "~*", "!~", "!~*":
		return evalRegexOp(env, e.Op, l, r)
	}
	return types.Null, pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s %s %s", e.L.Type(), e.Op, e.R.Type())
}

// arith applies an arithmetic operator to non-NULL operands; t is the
// result type, whose range bounds integer results.
func arith(op string, l, r types.Datum, t types.T) (types.Datum, error) {
	switch {
	case l.Kind == types.KindInt && r.Kind == types.KindInt && t.Family != types.Numeric:
		if t.Kind() == types.KindFloat {
			return floatArith(op, float64(l.I), float64(r.I), t)
		}
		return intArith(op, l.I, r.I, t)
	case isNumber(l) && isNumber(r) && t.Kind() != types.KindFloat && l.Kind != types.KindFloat && r.Kind != types.KindFloat:
		return decimalArith(op, l, r)
	case isNumber(l) && isNumber(r):
		return floatArith(op, toFloat(l), toFloat(r), t)
	case isDatetimeKind(l.Kind) || isDatetimeKind(r.Kind):
		return datetimeArith(op, l, r, t, time.UTC)
	}
	return types.Null, pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s %s %s", l.Kind, op, r.Kind)
}

func isNumber(d types.Datum) bool {
	return d.Kind == types.KindInt || d.Kind == types.KindFloat || d.Kind == types.KindDecimal
}

func toFloat(d types.Datum) float64 {
	switch d.Kind {
	case types.KindInt:
		return float64(d.I)
	case types.KindDecimal:
		return decimalFloat(d)
	}
	return d.F
}

// intArith computes in int64 and checks the result against t's range.
func intArith(op string, a, b int64, t types.T) (types.Datum, error) {
	var v int64
	switch op {
	case "+":
		v = a + b
		if (v > a) != (b > 0) {
			return types.Null, intOutOfRange(intFamily(t))
		}
	case "-":
		v = a - b
		if (v < a) != (b > 0) {
			return types.Null, intOutOfRange(intFamily(t))
		}
	case "*":
		v = a * b
		if a != 0 && (v/a != b || (a == -1 && b == math.MinInt64)) {
			return types.Null, intOutOfRange(intFamily(t))
		}
	case "/":
		if b == 0 {
			return types.Null, divisionByZero()
		}
		if b == -1 {
			if a == math.MinInt64 {
				return types.Null, intOutOfRange(intFamily(t))
			}
			v = -a
		} else {
			v = a / b
		}
	case "%":
		if b == 0 {
			return types.Null, divisionByZero()
		}
		if b == -1 {
			v = 0
		} else {
			v = a % b
		}
	}
	return checkIntRange(v, intFamily(t))
}

// intFamily is t's integer family, int8 for anything else.
func intFamily(t types.T) types.Family {
	switch t.Family {
	case types.Int2, types.Int4:
		return t.Family
	}
	return types.Int8
}

// checkIntRange returns v as a datum if it fits family f.
func checkIntRange(v int64, f types.Family) (types.Datum, error) {
	switch f {
	case types.Int2:
		if v < math.MinInt16 || v > math.MaxInt16 {
			return types.Null, intOutOfRange(f)
		}
	case types.Int4:
		if v < math.MinInt32 || v > math.MaxInt32 {
			return types.Null, intOutOfRange(f)
		}
	}
	return types.NewInt(v), nil
}

func intOutOfRange(f types.Family) error {
	switch f {
	case types.Int2:
		return pgerror.New(pgerror.NumericValueOutOfRange, "smallint out of range")
	case types.Int4:
		return pgerror.New(pgerror.NumericValueOutOfRange, "integer out of range")
	}
	return pgerror.New(pgerror.NumericValueOutOfRange, "bigint out of range")
}

func divisionByZero() error {
	return pgerror.New(pgerror.DivisionByZero, "division by zero")
}

// floatArith computes in float64; a finite result of finite operands that
// overflows to infinity is 22003, as is a zero product or quotient of
// non-zero operands (underflow), following PostgreSQL's float8 operators.
func floatArith(op string, a, b float64, t types.T) (types.Datum, error) {
	var v float64
	switch op {
	case "+":
		v = a + b
	case "-":
		v = a - b
	case "*":
		v = a * b
	case "/":
		if b == 0 && !math.IsNaN(a) { // NaN / 0 is NaN, as in float8div
			return types.Null, divisionByZero()
		}
		v = a / b
	case "%":
		if b == 0 {
			return types.Null, divisionByZero()
		}
		v = math.Mod(a, b)
	}
	if t.Family == types.Float4 {
		v = float64(float32(v))
	}
	inInf := math.IsInf(a, 0) || math.IsInf(b, 0)
	if math.IsInf(v, 0) && !inInf {
		return types.Null, floatOverflow(t)
	}
	if v == 0 && (op == "*" || op == "/") && a != 0 && !inInf && (op == "/" || b != 0) {
		return types.Null, pgerror.New(pgerror.NumericValueOutOfRange, "value out of range: underflow")
	}
	return types.NewFloat(v), nil
}

func floatOverflow(t types.T) error {
	if t.Family == types.Numeric {
		return pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")
	}
	return pgerror.New(pgerror.NumericValueOutOfRange, "value out of range: overflow")
}

// dateArith handles date + int, int + date, date - int and date - date.
func dateArith(op string, l, r types.Datum) (types.Datum, error) {
	switch {
	case op == "+" && l.Kind == types.KindDate && r.Kind == types.KindInt:
		return addDays(l.I, r.I)
	case op == "+" && l.Kind == types.KindInt && r.Kind == types.KindDate:
		return addDays(r.I, l.I)
	case op == "-" && l.Kind == types.KindDate && r.Kind == types.KindInt:
		if r.I == math.MinInt64 {
			return types.Null, dateOutOfRange()
		}
		return addDays(l.I, -r.I)
	case op == "-" && l.Kind == types.KindDate && r.Kind == types.KindDate:
		v, err := intArith("-", l.I, r.I, types.T{Family: types.Int4})
		return v, err
	}
	return types.Null, pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s %s %s", l.Kind, op, r.Kind)
}

// maxDateDays bounds dates to PostgreSQL's range (years 4713 BC .. 5874897
// AD), in days from 1970-01-01.
const (
	minDateDays = -2440588
	maxDateDays = 2145031948
)

func addDays(d, n int64) (types.Datum, error) {
	v := d + n
	if (v > d) != (n > 0) || v < minDateDays || v > maxDateDays {
		return types.Null, dateOutOfRange()
	}
	return types.NewDate(v), nil
}

func dateOutOfRange() error {
	return pgerror.New(pgerror.NumericValueOutOfRange, "date out of range")
}

// bitwise applies &, |, # (xor), << and >> to integers. Shifts take the
// count modulo the operand width, as PostgreSQL's C shifts do on x86.
func bitwise(op string, l, r types.Datum, t types.T) (types.Datum, error) {
	if l.Kind != types.KindInt || r.Kind != types.KindInt {
		return types.Null, pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s %s %s", l.Kind, op, r.Kind)
	}
	a, b := l.I, r.I
	f := intFamily(t)
	var v int64
	switch op {
	case "&":
		v = a & b
	case "|":
		v = a | b
	case "#":
		v = a ^ b
	case "<<", ">>":
		v = shift(op, a, b, f)
	}
	return types.NewInt(v), nil
}

func shift(op string, a, n int64, f types.Family) int64 {
	switch f {
	case types.Int2, types.Int4:
		// PostgreSQL computes int2 shifts in int32 too.
		x := int32(a)
		s := uint(n) & 31
		if op == "<<" {
			x <<= s
		} else {
			x >>= s
		}
		if f == types.Int2 {
			return int64(int16(x))
		}
		return int64(x)
	}
	s := uint(n) & 63
	if op == "<<" {
		return a << s
	}
	return a >> s
}

// evalUnary evaluates -x, +x, NOT x and ~x.
func evalUnary(env *Env, e *planner.UnaryOp, row []types.Datum) (types.Datum, error) {
	x, err := Eval(env, e.X, row)
	if err != nil || x.IsNull() {
		return types.Null, err
	}
	switch e.Op {
	case "-":
		switch x.Kind {
		case types.KindInt:
			if x.I == math.MinInt64 {
				return types.Null, intOutOfRange(intFamily(e.T))
			}
			return checkIntRange(-x.I, intFamily(e.T))
		case types.KindFloat:
			return types.NewFloat(-x.F), nil
		case types.KindDecimal:
			return decimalArith("-", types.Datum{Kind: types.KindDecimal, S: "0"}, x)
		case types.KindInterval:
			iv, err := intervalNeg(x.Interval())
			return types.NewInterval(iv), err
		}
	case "+":
		if isNumber(x) {
			return x, nil
		}
	case "NOT":
		if x.Kind == types.KindBool {
			return types.NewBool(!x.Bool()), nil
		}
		return types.Null, notBoolean("NOT", e.X)
	case "~":
		if x.Kind == types.KindInt {
			return checkIntRange(^x.I, intFamily(e.T))
		}
	}
	return types.Null, pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s %s", e.Op, e.X.Type())
}
