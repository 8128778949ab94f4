package eval

import (
	"strings"
	"unicode"

	"github.com/cockroachdb/apd/v3"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// numericFunc runs the functions PostgreSQL defines on NUMERIC only
// (arguments non-NULL): scale, min_scale, trim_scale, div and factorial.
// ok is false for any other name.
func numericFunc(name string, args []types.Datum) (d types.Datum, ok bool, err error) {
	switch name {
	case "scale", "min_scale", "trim_scale", "div", "factorial":
	default:
		return types.Null, false, nil
	}
	if name == "factorial" {
		d, err = factorial(args[0])
		return d, true, err
	}
	var x apd.Decimal
	if err := toDecimal(args[0], &x); err != nil {
		return types.Null, true, err
	}
	switch name {
	case "scale":
		if x.Form != apd.Finite {
			return types.Null, true, nil
		}
		return types.NewInt(int64(scaleOf(&x))), true, nil
	case "min_scale":
		if x.Form != apd.Finite {
			return types.Null, true, nil
		}
		return types.NewInt(int64(scaleOf(trimmed(&x)))), true, nil
	case "trim_scale":
		if x.Form != apd.Finite {
			return args[0], true, nil
		}
		d, err = decimalResult(trimmed(&x))
		return d, true, err
	}
	// div(a, b): the integral part of a / b, truncated toward zero.
	var y apd.Decimal
	if err := toDecimal(args[1], &y); err != nil {
		return types.Null, true, err
	}
	switch {
	case isNaN(&x) || isNaN(&y):
		return types.Datum{Kind: types.KindDecimal, S: "NaN"}, true, nil
	case y.Form == apd.Finite && y.IsZero():
		return types.Null, true, pgerror.New(pgerror.DivisionByZero, "division by zero")
	case x.Form == apd.Infinite || y.Form == apd.Infinite:
		d, err = decimalArith("/", args[0], args[1])
		if err != nil || d.Kind != types.KindDecimal {
			return d, true, err
		}
		var q apd.Decimal
		d.Decimal(&q)
		truncate(&q, 0)
		d, err = decimalResult(&q)
		return d, true, err
	}
	var q apd.Decimal
	if _, err := roundingCtx(max(adjusted(&x)-adjusted(&y)+2, 1), apd.RoundDown).QuoInteger(&q, &x, &y); err != nil {
		return types.Null, true, numericOverflow()
	}
	d, err = decimalResult(&q)
	return d, true, err
}

// trimmed returns finite x without the trailing zeros of its fraction.
func trimmed(x *apd.Decimal) *apd.Decimal {
	text := types.DecimalText(x)
	if strings.Contains(text, ".") {
		text = strings.TrimSuffix(strings.TrimRight(text, "0"), ".")
	}
	var z apd.Decimal
	if !types.ParseDecimal(text, &z) {
		z.Set(x)
	}
	return &z
}

// factorial is PostgreSQL's numeric_fac: n! for n ≥ 0 (22003 for a
// negative n, and once the result passes NUMERIC's range).
func factorial(arg types.Datum) (types.Datum, error) {
	n := arg
	if n.Kind != types.KindInt {
		i, ok := decimalToInt(arg)
		if !ok {
			return types.Null, pgerror.New(pgerror.NumericValueOutOfRange, "bigint out of range")
		}
		n = types.NewInt(i)
	}
	if n.I < 0 {
		return types.Null, pgerror.New(pgerror.NumericValueOutOfRange, "factorial of a negative number is undefined")
	}
	// 32177! has 131,070 digits before the point, NUMERIC's limit.
	if n.I > 32177 {
		return types.Null, numericOverflow()
	}
	z := apd.New(1, 0)
	for i := int64(2); i <= n.I; i++ {
		if _, err := apd.BaseContext.Mul(z, z, apd.New(i, 0)); err != nil {
			return types.Null, numericOverflow()
		}
	}
	return decimalResult(z)
}

// toNumber is to_number(text, format): the digits, decimal point and sign
// of s read under format's pattern, as PostgreSQL's NUM_processor reads
// them. Each 9 or 0 takes a digit when one is there (and the sign before
// it, wherever it stands), D or . the decimal point, G or , a group
// separator when one is there, S, MI, PL and SG a sign, PR the angle
// brackets of a negative number, L a currency symbol, TH a suffix, FM
// nothing; other format characters skip an input character only when it
// is the same one (a space takes a space).
func toNumber(s, format string) (types.Datum, error) {
	var digits strings.Builder
	neg, sawPoint, in := false, false, 0
	pr := strings.Contains(strings.ToUpper(format), "PR")
	peek := func() byte {
		if in < len(s) {
			return s[in]
		}
		return 0
	}
	sign := func() bool {
		switch c := peek(); {
		case c == '-' || (pr && c == '<'):
			neg, in = true, in+1
		case c == '+':
			in++
		default:
			return false
		}
		return true
	}
	up := strings.ToUpper(format)
	for f := 0; f < len(format); {
		switch {
		case strings.HasPrefix(up[f:], "FM"):
			f += 2
		case strings.HasPrefix(up[f:], "PR"):
			if peek() == '>' {
				in++
			}
			f += 2
		case strings.HasPrefix(up[f:], "MI"), strings.HasPrefix(up[f:], "PL"), strings.HasPrefix(up[f:], "SG"):
			sign()
			f += 2
		case strings.HasPrefix(up[f:], "TH"):
			for k := 0; k < 2 && unicode.IsLetter(rune(peek())); k++ {
				in++
			}
			f += 2
		case up[f] == '9' || up[f] == '0':
			sign()
			if c := peek(); c >= '0' && c <= '9' {
				digits.WriteByte(c)
				in++
			}
			f++
		case up[f] == 'D' || up[f] == '.':
			if peek() == '.' {
				in++
				if !sawPoint {
					digits.WriteByte('.')
					sawPoint = true
				}
			}
			f++
		case up[f] == 'G' || up[f] == ',':
			if peek() == ',' {
				in++
			}
			f++
		case up[f] == 'S':
			sign()
			f++
		case up[f] == 'L':
			if c := peek(); c != 0 && (c < '0' || c > '9') && c != '.' && c != '-' {
				in++
			}
			f++
		default:
			if peek() == format[f] {
				in++
			}
			f++
		}
	}
	text := digits.String()
	if text == "" || text == "." {
		return types.Null, pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid input syntax for type numeric: \" \"")
	}
	if strings.HasPrefix(text, ".") {
		text = "0" + text
	}
	if neg {
		text = "-" + text
	}
	var x apd.Decimal
	if !types.ParseDecimal(text, &x) {
		return types.Null, pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid input syntax for type numeric: %q", text)
	}
	return decimalResult(&x)
}

// NumericSeriesArgs checks generate_series(numeric)'s start, stop and step
// as PostgreSQL does (no NaN, no infinity, no zero step) and returns the
// step's sign.
func NumericSeriesArgs(start, stop, step types.Datum) (int, error) {
	var x apd.Decimal
	for i, d := range []types.Datum{start, stop, step} {
		if err := toDecimal(d, &x); err != nil {
			return 0, err
		}
		what := [...]string{"start value", "stop value", "step size"}[i]
		switch {
		case isNaN(&x):
			return 0, pgerror.Newf(pgerror.InvalidParameterValue, "%s cannot be NaN", what)
		case x.Form == apd.Infinite:
			return 0, pgerror.Newf(pgerror.InvalidParameterValue, "%s cannot be infinity", what)
		case i == 2 && x.IsZero():
			return 0, pgerror.New(pgerror.InvalidParameterValue, "step size cannot equal zero")
		}
	}
	if x.Negative {
		return -1, nil
	}
	return 1, nil
}

// DecimalAdd is NUMERIC a + b.
func DecimalAdd(a, b types.Datum) (types.Datum, error) { return decimalArith("+", a, b) }

// DecimalCmp compares two NUMERIC (or integer) values: -1, 0 or 1.
func DecimalCmp(a, b types.Datum) int {
	var x, y apd.Decimal
	_ = toDecimal(a, &x)
	_ = toDecimal(b, &y)
	return decimalCompare(&x, &y)
}
