package eval

import (
	"math"
	"strconv"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// SQLSTATEs package pgerror does not name yet.
const (
	codeInvalidArgumentForLog   pgerror.Code = "2201E"
	codeInvalidArgumentForPower pgerror.Code = "2201F"
	codeSubstringError          pgerror.Code = "22011"
)

// mathFunc runs the numeric functions on non-NULL arguments. ok is false
// when name is not one of them.
func mathFunc(e *planner.Func, args []types.Datum) (d types.Datum, ok bool, err error) {
	if d, ok, err := numericFunc(e.Name, args); ok {
		return d, true, err
	}
	if e.Name == "width_bucket" && len(args) == 4 {
		d, err = widthBucketRange(args, e.Args[0].Type().Family == types.Numeric)
		return d, true, err
	}
	// PostgreSQL picks round(numeric) or round(float8) by argument type.
	numeric := e.T.Family == types.Numeric || (len(e.Args) > 0 && e.Args[0].Type().Family == types.Numeric)
	if numeric || (len(args) > 0 && args[0].Kind == types.KindDecimal) {
		if d, ok, err := decimalMath(e.Name, args); ok {
			return d, true, err
		}
	}
	switch e.Name {
	case "abs":
		x := args[0]
		if x.Kind == types.KindInt {
			if x.I == math.MinInt64 {
				return types.Null, true, intOutOfRange(types.Int8)
			}
			if x.I < 0 {
				d, err = checkIntRange(-x.I, intFamily(e.T))
				return d, true, err
			}
			return x, true, nil
		}
		return floatResult(math.Abs(toFloat(x)))
	case "round", "trunc":
		x := toFloat(args[0])
		if len(args) == 2 {
			return roundDigits(x, args[1].I, e.Name == "trunc")
		}
		switch {
		case e.Name == "trunc":
			x = math.Trunc(x)
		case numeric:
			x = math.Round(x)
		default:
			x = math.RoundToEven(x)
		}
		return floatResult(x)
	case "floor":
		return floatResult(math.Floor(toFloat(args[0])))
	case "ceil", "ceiling":
		return floatResult(math.Ceil(toFloat(args[0])))
	case "sign":
		x := toFloat(args[0])
		switch {
		case x > 0:
			x = 1
		case x < 0:
			x = -1
		}
		return floatResult(x)
	case "sqrt":
		x := toFloat(args[0])
		if x < 0 {
			return types.Null, true, pgerror.New(codeInvalidArgumentForPower, "cannot take square root of a negative number")
		}
		return floatResult(math.Sqrt(x))
	case "exp":
		x := toFloat(args[0])
		return checkedFloat(math.Exp(x), !math.IsInf(x, 0), x != 0 && !math.IsInf(x, -1), e.T)
	case "ln", "log", "log10":
		if len(args) == 2 {
			b, err := logArg(toFloat(args[0]))
			if err != nil {
				return types.Null, true, err
			}
			x, err := logArg(toFloat(args[1]))
			if err != nil {
				return types.Null, true, err
			}
			if b == 1 {
				return types.Null, true, divisionByZero()
			}
			return floatResult(math.Log(x) / math.Log(b))
		}
		x, err := logArg(toFloat(args[0]))
		if err != nil {
			return types.Null, true, err
		}
		if e.Name == "ln" {
			return floatResult(math.Log(x))
		}
		return floatResult(math.Log10(x))
	case "power", "pow":
		return power(toFloat(args[0]), toFloat(args[1]), e.T)
	case "mod":
		a, b := args[0], args[1]
		if a.Kind == types.KindInt && b.Kind == types.KindInt {
			d, err := intArith("%", a.I, b.I, e.T)
			return d, true, err
		}
		d, err := floatArith("%", toFloat(a), toFloat(b), e.T)
		return d, true, err
	}
	return types.Null, false, nil
}

func floatResult(f float64) (types.Datum, bool, error) { return types.NewFloat(f), true, nil }

// checkedFloat reports overflow (an infinite result from a finite input)
// and underflow (a zero result from an input that should not give zero).
func checkedFloat(v float64, infOK, zeroBad bool, t types.T) (types.Datum, bool, error) {
	if math.IsInf(v, 0) && infOK {
		return types.Null, true, floatOverflow(t)
	}
	if v == 0 && zeroBad {
		return types.Null, true, pgerror.New(pgerror.NumericValueOutOfRange, "value out of range: underflow")
	}
	return types.NewFloat(v), true, nil
}

func logArg(x float64) (float64, error) {
	switch {
	case x == 0:
		return 0, pgerror.New(codeInvalidArgumentForLog, "cannot take logarithm of zero")
	case x < 0:
		return 0, pgerror.New(codeInvalidArgumentForLog, "cannot take logarithm of a negative number")
	}
	return x, nil
}

// power is x^y with PostgreSQL's domain errors.
func power(x, y float64, t types.T) (types.Datum, bool, error) {
	switch {
	case x == 0 && y < 0:
		return types.Null, true, pgerror.New(codeInvalidArgumentForPower, "zero raised to a negative power is undefined")
	case x < 0 && y != math.Trunc(y) && !math.IsInf(y, 0):
		return types.Null, true, pgerror.New(codeInvalidArgumentForPower, "a negative number raised to a non-integer power yields a complex result")
	}
	v := math.Pow(x, y)
	finite := !math.IsInf(x, 0) && !math.IsInf(y, 0)
	return checkedFloat(v, finite, x != 0 && finite, t)
}

// roundDigits rounds (or truncates) x to n decimal digits, negative n
// rounding to tens, hundreds... It works on the shortest decimal form of x
// so that 2.675 (not exactly representable) rounds to 2.68, as NUMERIC
// would; ties go away from zero.
func roundDigits(x float64, n int64, trunc bool) (types.Datum, bool, error) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return types.NewFloat(x), true, nil
	}
	if n > 400 {
		n = 400
	} else if n < -400 {
		n = -400
	}
	neg := x < 0
	// digits and exponent: x = 0.d1d2d3... * 10^exp.
	s := strconv.FormatFloat(math.Abs(x), 'e', -1, 64)
	mant, expPart := s, "0"
	for i := 0; i < len(s); i++ {
		if s[i] == 'e' {
			mant, expPart = s[:i], s[i+1:]
			break
		}
	}
	exp, _ := strconv.Atoi(expPart)
	digits := make([]byte, 0, len(mant))
	for i := 0; i < len(mant); i++ {
		if mant[i] != '.' {
			digits = append(digits, mant[i])
		}
	}
	exp++                       // now x = 0.digits * 10^exp
	keep := int(int64(exp) + n) // digits to keep
	if keep < 0 {
		return types.NewFloat(0), true, nil
	}
	if keep < len(digits) {
		up := !trunc && digits[keep] >= '5'
		digits = digits[:keep]
		if up {
			i := keep - 1
			for i >= 0 && digits[i] == '9' {
				digits[i] = '0'
				i--
			}
			if i < 0 {
				digits = append([]byte{'1'}, digits...)
				exp++
			} else {
				digits[i]++
			}
		}
	}
	if len(digits) == 0 {
		return types.NewFloat(0), true, nil
	}
	out := "0." + string(digits) + "e" + strconv.Itoa(exp)
	v, err := strconv.ParseFloat(out, 64)
	if err != nil {
		return types.Null, true, pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")
	}
	if neg {
		v = -v
	}
	return types.NewFloat(v), true, nil
}
