package eval

import (
	"math"
	"strconv"

	"github.com/cockroachdb/apd/v3"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// NUMERIC arithmetic, on apd decimals whose exponent is the negated
// display scale. Results follow PostgreSQL's numeric.c: + and - keep the
// larger scale, * adds the scales, / picks select_div_scale's scale (at
// least 16 significant digits), and rounding is half away from zero.

const (
	// numericMinSigDigits is NUMERIC_MIN_SIG_DIGITS: a quotient has at
	// least this many significant digits.
	numericMinSigDigits = 16
	// numericMaxDisplayScale is NUMERIC_MAX_DISPLAY_SCALE.
	numericMaxDisplayScale = 1000
	// numericMaxWeightDigits bounds the digits before the decimal point
	// (PostgreSQL's limit is 131072).
	numericMaxWeightDigits = 131072
	// numericMaxScale is NUMERIC_DSCALE_MAX.
	numericMaxScale = 16383
)

// exact computes + - * without rounding.
var exact = apd.Context{Precision: 0, MaxExponent: apd.MaxExponent, MinExponent: apd.MinExponent, Traps: apd.DefaultTraps &^ apd.Inexact &^ apd.Rounded}

// roundingCtx returns a context of precision p that rounds half away
// from zero.
func roundingCtx(p int64, mode apd.Rounder) *apd.Context {
	if p < 1 {
		p = 1
	}
	return &apd.Context{Precision: uint32(p), Rounding: mode, MaxExponent: apd.MaxExponent, MinExponent: apd.MinExponent, Traps: apd.DefaultTraps &^ apd.Inexact &^ apd.Rounded}
}

func isNaN(x *apd.Decimal) bool { return x.Form == apd.NaN || x.Form == apd.NaNSignaling }

// toDecimal converts a number datum to a decimal: an int exactly, a
// float as PostgreSQL's float8_numeric does (15 significant digits), a
// numeric as it is.
func toDecimal(d types.Datum, into *apd.Decimal) error {
	switch d.Kind {
	case types.KindDecimal:
		d.Decimal(into)
	case types.KindInt:
		into.SetInt64(d.I)
	case types.KindFloat:
		switch {
		case math.IsNaN(d.F):
			into.Form = apd.NaN
		case math.IsInf(d.F, 0):
			into.SetInt64(0)
			into.Form, into.Negative = apd.Infinite, d.F < 0
		default:
			if !types.ParseDecimal(strconv.FormatFloat(d.F, 'g', 15, 64), into) {
				return pgerror.Newf(pgerror.Internal, "eval: float %v has no decimal form", d.F)
			}
		}
	default:
		return pgerror.Newf(pgerror.UndefinedFunction, "cannot convert %s to numeric", d.Kind)
	}
	return nil
}

// decimalResult checks x against NUMERIC's limits and returns it as a
// datum.
func decimalResult(x *apd.Decimal) (types.Datum, error) {
	if x.Form == apd.Finite && !x.IsZero() {
		if adj := int64(x.NumDigits()) + int64(x.Exponent); adj > numericMaxWeightDigits {
			return types.Null, numericOverflow()
		}
		if -int64(x.Exponent) > numericMaxScale {
			return types.Null, numericOverflow()
		}
	}
	if x.Exponent > 0 {
		rescale(x, 0)
	}
	return types.NewDecimal(x), nil
}

func numericOverflow() error {
	return pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")
}

// rescale rounds x (finite) to scale digits after the point, half away
// from zero, or pads it with zeros.
func rescale(x *apd.Decimal, scale int32) {
	if x.Form != apd.Finite {
		return
	}
	p := int64(x.NumDigits()) + int64(x.Exponent) + int64(scale) + 1
	_, _ = roundingCtx(max(p, 1), apd.RoundHalfUp).Quantize(x, x, -scale)
}

// sqrtDecimal sets z to the square root of x (finite, not negative)
// rounded half away from zero to scale digits, as PostgreSQL's sqrt_var:
// the integer square root of x·10^(2(scale+1)), exact, is the root
// truncated to one digit more, and that digit rounds it. (apd's Sqrt
// rounds its last digit, whatever the context's rounding, so a root just
// under a half could round up twice.)
func sqrtDecimal(z, x *apd.Decimal, scale int32) {
	k := int64(scale) + 1
	n := new(apd.BigInt).Set(&x.Coeff)
	ten := apd.NewBigInt(10)
	if e := int64(x.Exponent) + 2*k; e >= 0 {
		n.Mul(n, new(apd.BigInt).Exp(ten, apd.NewBigInt(e), nil))
	} else {
		n.Quo(n, new(apd.BigInt).Exp(ten, apd.NewBigInt(-e), nil))
	}
	n.Sqrt(n)
	z.Form, z.Negative, z.Exponent = apd.Finite, false, int32(-k)
	z.Coeff.Set(n)
	rescale(z, scale)
}

// truncate drops x's digits beyond scale.
func truncate(x *apd.Decimal, scale int32) {
	if x.Form != apd.Finite {
		return
	}
	p := int64(x.NumDigits()) + int64(x.Exponent) + int64(scale) + 1
	_, _ = roundingCtx(max(p, 1), apd.RoundDown).Quantize(x, x, -scale)
}

// scaleOf is x's display scale.
func scaleOf(x *apd.Decimal) int32 {
	if x.Form != apd.Finite || x.Exponent > 0 {
		return 0
	}
	return -x.Exponent
}

// decimalArith applies + - * / % to two numbers as NUMERIC.
func decimalArith(op string, l, r types.Datum) (types.Datum, error) {
	var a, b, z apd.Decimal
	if err := toDecimal(l, &a); err != nil {
		return types.Null, err
	}
	if err := toDecimal(r, &b); err != nil {
		return types.Null, err
	}
	if isNaN(&a) || isNaN(&b) {
		if (op == "/" || op == "%") && b.Form == apd.Finite && b.IsZero() && !isNaN(&a) {
			return types.Null, divisionByZero()
		}
		return types.Datum{Kind: types.KindDecimal, S: "NaN"}, nil
	}
	var err error
	switch op {
	case "+":
		_, err = exact.Add(&z, &a, &b)
	case "-":
		_, err = exact.Sub(&z, &a, &b)
	case "*":
		_, err = exact.Mul(&z, &a, &b)
	case "/":
		if b.Form == apd.Finite && b.IsZero() {
			return types.Null, divisionByZero()
		}
		if a.Form == apd.Infinite || b.Form == apd.Infinite {
			return infiniteQuotient(&a, &b)
		}
		err = divide(&z, &a, &b, selectDivScale(&a, &b))
	case "%":
		if b.Form == apd.Finite && b.IsZero() {
			return types.Null, divisionByZero()
		}
		if a.Form == apd.Infinite {
			return types.Datum{Kind: types.KindDecimal, S: "NaN"}, nil
		}
		if b.Form == apd.Infinite {
			return types.NewDecimal(&a), nil
		}
		err = remainder(&z, &a, &b)
	default:
		return types.Null, pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: numeric %s numeric", op)
	}
	if err != nil {
		if z.Form == apd.NaN {
			// Infinity - Infinity and 0 * Infinity.
			return types.Datum{Kind: types.KindDecimal, S: "NaN"}, nil
		}
		return types.Null, numericOverflow()
	}
	return decimalResult(&z)
}

func infiniteQuotient(a, b *apd.Decimal) (types.Datum, error) {
	if a.Form == apd.Infinite && b.Form == apd.Infinite {
		return types.Datum{Kind: types.KindDecimal, S: "NaN"}, nil
	}
	if b.Form == apd.Infinite {
		return types.Datum{Kind: types.KindDecimal, S: "0"}, nil
	}
	neg := a.Negative != b.Negative
	if neg {
		return types.Datum{Kind: types.KindDecimal, S: "-Infinity"}, nil
	}
	return types.Datum{Kind: types.KindDecimal, S: "Infinity"}, nil
}

// adjusted is the exponent of x's leading digit: x = d.ddd × 10^adjusted.
func adjusted(x *apd.Decimal) int64 { return int64(x.NumDigits()) - 1 + int64(x.Exponent) }

// divide sets z to a / b rounded to scale digits: computed truncated with
// guard digits, then rounded once, as PostgreSQL's div_var does.
func divide(z, a, b *apd.Decimal, scale int32) error {
	if a.IsZero() {
		z.SetInt64(0)
		rescale(z, scale)
		return nil
	}
	p := adjusted(a) - adjusted(b) + 2 + int64(scale) + 2
	if p > numericMaxWeightDigits+numericMaxScale {
		return numericOverflow()
	}
	if _, err := roundingCtx(p, apd.RoundDown).Quo(z, a, b); err != nil {
		return err
	}
	rescale(z, scale)
	return nil
}

// remainder sets z to a - trunc(a / b) * b, with the larger scale.
func remainder(z, a, b *apd.Decimal) error {
	p := max(adjusted(a)-adjusted(b), 0) + 2
	var q apd.Decimal
	if _, err := roundingCtx(p+int64(max(scaleOf(a), scaleOf(b)))+2, apd.RoundDown).QuoInteger(&q, a, b); err != nil {
		return err
	}
	var m apd.Decimal
	if _, err := exact.Mul(&m, &q, b); err != nil {
		return err
	}
	if _, err := exact.Sub(z, a, &m); err != nil {
		return err
	}
	rescale(z, max(scaleOf(a), scaleOf(b)))
	return nil
}

// baseWeight returns x's weight and first digit in PostgreSQL's base
// 10000 representation (0, 0 for zero).
func baseWeight(x *apd.Decimal) (weight, first int64) {
	weight, first, _, _ = baseDigits(x)
	return weight, first
}

// baseDigits returns x's weight in base 10000, its first two base-10000
// digits, and whether any digit follows the first (PostgreSQL's ndigits
// > 1). Zero is 0, 0, 0, false.
func baseDigits(x *apd.Decimal) (weight, first, second int64, more bool) {
	if x.Form != apd.Finite || x.IsZero() {
		return 0, 0, 0, false
	}
	adj := adjusted(x)
	weight = adj / 4
	if adj < 0 && adj%4 != 0 {
		weight--
	}
	digits := x.Coeff.Append(make([]byte, 0, 24), 10)
	at := func(p int64) int64 { // the decimal digit of 10^p
		if i := adj - p; i >= 0 && i < int64(len(digits)) {
			return int64(digits[i] - '0')
		}
		return 0
	}
	for p := 4*weight + 3; p >= 4*weight; p-- {
		first = first*10 + at(p)
	}
	for p := 4*weight - 1; p >= 4*weight-4; p-- {
		second = second*10 + at(p)
	}
	// Any non-zero digit below the first base-10000 digit?
	lowest := adj - int64(len(digits)) + 1
	for p := 4*weight - 1; p >= lowest && !more; p-- {
		more = at(p) != 0
	}
	return weight, first, second, more
}

// selectDivScale is PostgreSQL's select_div_scale: enough digits for
// numericMinSigDigits significant digits, and no fewer than either
// operand's scale.
func selectDivScale(a, b *apd.Decimal) int32 {
	w1, f1 := baseWeight(a)
	w2, f2 := baseWeight(b)
	qweight := w1 - w2
	if f1 <= f2 {
		qweight--
	}
	rscale := numericMinSigDigits - qweight*4
	rscale = max(rscale, int64(scaleOf(a)), int64(scaleOf(b)), 0)
	rscale = min(rscale, numericMaxDisplayScale)
	return int32(rscale)
}

// decimalCompare orders two decimals as PostgreSQL's numeric does: NaN
// equals NaN and sorts above everything, infinities at their ends.
func decimalCompare(a, b *apd.Decimal) int {
	an, bn := isNaN(a), isNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	return a.Cmp(b)
}

// decimalFloat converts a decimal to float8 as numeric_float8 does.
func decimalFloat(d types.Datum) float64 { return types.DecimalFloat(d) }

// castToNumeric converts d to NUMERIC and applies t's precision and
// scale (NUMERIC(p, s)): rounded to s digits, 22003 when the integer
// part needs more than p - s digits.
func castToNumeric(d types.Datum, from, t types.T) (types.Datum, error) {
	var x apd.Decimal
	switch d.Kind {
	case types.KindText:
		ok, overflow := types.ParseDecimalRange(d.S, &x)
		switch {
		case overflow:
			return types.Null, numericOverflow()
		case !ok:
			return types.Null, pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid input syntax for type numeric: %q", d.S)
		}
	case types.KindFloat:
		if from.Family == types.Float4 && !math.IsNaN(d.F) && !math.IsInf(d.F, 0) {
			// float4_numeric: the value's FLT_DIG (6) significant
			// digits, so 7.8::real is 7.8, not 7.80000019073486.
			if !types.ParseDecimal(strconv.FormatFloat(float64(float32(d.F)), 'g', 6, 32), &x) {
				return types.Null, pgerror.Newf(pgerror.Internal, "eval: float %v has no decimal form", d.F)
			}
			break
		}
		if err := toDecimal(d, &x); err != nil {
			return types.Null, err
		}
	case types.KindInt, types.KindDecimal:
		if err := toDecimal(d, &x); err != nil {
			return types.Null, err
		}
	default:
		return types.Null, cannotCast(from, t)
	}
	return applyTypmod(&x, t)
}

// applyTypmod fits x to NUMERIC(p, s) when t has a precision.
func applyTypmod(x *apd.Decimal, t types.T) (types.Datum, error) {
	if t.Width > 0 && x.Form == apd.Finite {
		rescale(x, t.Scale)
		if !x.IsZero() && adjusted(x)+1 > int64(t.Width-t.Scale) {
			return types.Null, fieldOverflow("A field with precision " + strconv.Itoa(int(t.Width)) + ", scale " + strconv.Itoa(int(t.Scale)) + " must round to an absolute value less than " + tenPower(t.Width-t.Scale) + ".")
		}
	} else if t.Width > 0 && x.Form == apd.Infinite {
		return types.Null, fieldOverflow("A field with precision " + strconv.Itoa(int(t.Width)) + ", scale " + strconv.Itoa(int(t.Scale)) + " cannot hold an infinite value.")
	}
	return decimalResult(x)
}

func fieldOverflow(detail string) error {
	e := pgerror.New(pgerror.NumericValueOutOfRange, "numeric field overflow")
	e.Detail = detail
	return e
}

func tenPower(n int32) string {
	if n == 0 {
		return "1"
	}
	return "10^" + strconv.Itoa(int(n))
}

// decimalToInt rounds a decimal half away from zero into an int64; ok
// is false outside int64's range and for NaN and infinities.
func decimalToInt(d types.Datum) (int64, bool) {
	var x apd.Decimal
	d.Decimal(&x)
	if x.Form != apd.Finite {
		return 0, false
	}
	rescale(&x, 0)
	i, err := x.Int64()
	return i, err == nil
}

// decimalMath runs the math functions on NUMERIC arguments (args are
// non-NULL numbers); ok is false for a name it does not know.
func decimalMath(name string, args []types.Datum) (types.Datum, bool, error) {
	var x apd.Decimal
	if err := toDecimal(args[0], &x); err != nil {
		return types.Null, true, err
	}
	if isNaN(&x) && name != "mod" && name != "power" && name != "pow" && name != "log" {
		return types.Datum{Kind: types.KindDecimal, S: "NaN"}, true, nil
	}
	switch name {
	case "abs":
		x.Negative = false
	case "round", "trunc":
		var n int64
		if len(args) == 2 {
			n = args[1].I
		}
		n = max(min(n, numericMaxDisplayScale), -numericMaxWeightDigits)
		if name == "trunc" {
			truncate(&x, int32(n))
		} else {
			rescale(&x, int32(n))
		}
	case "floor", "ceil", "ceiling":
		if x.Form == apd.Finite {
			// Floor/Ceil, not Quantize with a directed rounding: at a
			// precision of one digit Quantize rounds -0.000001 to 0.
			// Not in place: Floor and Ceil split their argument with
			// Modf, which must not write over what it reads.
			ctx := roundingCtx(max(adjusted(&x)+2, 1), apd.RoundHalfEven)
			var arg apd.Decimal
			arg.Set(&x)
			if name == "floor" {
				_, _ = ctx.Floor(&x, &arg)
			} else {
				_, _ = ctx.Ceil(&x, &arg)
			}
			_, _ = ctx.Quantize(&x, &x, 0)
		}
	case "sign":
		switch {
		case x.Form == apd.Finite && x.IsZero():
			x.SetInt64(0)
		case x.Negative:
			x.SetInt64(-1)
		default:
			x.SetInt64(1)
		}
	case "mod":
		d, err := decimalArith("%", args[0], args[1])
		return d, true, err
	case "sqrt":
		if x.Negative && !x.IsZero() {
			return types.Null, true, pgerror.New(codeInvalidArgumentForPower, "cannot take square root of a negative number")
		}
		if x.Form == apd.Infinite {
			break
		}
		// numeric_sqrt: 16 significant digits, at least the argument's scale.
		w, _ := baseWeight(&x)
		sweight := (w+1)*4/2 - 1
		rscale := min(max(numericMinSigDigits-sweight, int64(scaleOf(&x)), 0), numericMaxDisplayScale)
		sqrtDecimal(&x, &x, int32(rscale))
	case "exp":
		if x.Form == apd.Infinite {
			if x.Negative {
				x.SetInt64(0)
			}
			break
		}
		f := toFloat(args[0])
		if f*0.434294481903252 > numericMaxWeightDigits {
			return types.Null, true, numericOverflow()
		}
		dweight := int64(f * 0.434294481903252)
		rscale := min(max(numericMinSigDigits-dweight, int64(scaleOf(&x)), 0), numericMaxDisplayScale)
		var z apd.Decimal
		if _, err := roundingCtx(max(dweight, 0)+rscale+8, apd.RoundHalfEven).Exp(&z, &x); err != nil {
			return types.Null, true, numericOverflow()
		}
		rescale(&z, int32(rscale))
		x = z
	case "ln", "log", "log10":
		base := apd.New(10, 0)
		num := &x
		if name == "ln" {
			base = nil
		}
		if len(args) == 2 {
			var y apd.Decimal
			if err := toDecimal(args[1], &y); err != nil {
				return types.Null, true, err
			}
			base, num = &x, &y
		}
		for _, v := range []*apd.Decimal{base, num} {
			if v == nil {
				continue
			}
			if isNaN(v) {
				return types.Datum{Kind: types.KindDecimal, S: "NaN"}, true, nil
			}
			if v.Form == apd.Finite && v.IsZero() {
				return types.Null, true, pgerror.New(codeInvalidArgumentForLog, "cannot take logarithm of zero")
			}
			if v.Negative {
				return types.Null, true, pgerror.New(codeInvalidArgumentForLog, "cannot take logarithm of a negative number")
			}
		}
		scale := int64(scaleOf(num))
		dweight := estimateLnDweight(num)
		if base != nil {
			scale = max(scale, int64(scaleOf(base)))
			dweight -= estimateLnDweight(base)
		}
		rscale := min(max(numericMinSigDigits-dweight, scale, 0), numericMaxDisplayScale)
		// Every digit up to rscale, and guard digits for the final
		// rounding: the logarithms' relative precision carries through
		// the quotient.
		ctx := roundingCtx(max(dweight, 0)+rscale+12, apd.RoundHalfEven)
		var z apd.Decimal
		if _, err := ctx.Ln(&z, num); err != nil {
			return types.Null, true, numericOverflow()
		}
		if base != nil {
			var lb apd.Decimal
			if _, err := ctx.Ln(&lb, base); err != nil {
				return types.Null, true, numericOverflow()
			}
			if lb.IsZero() {
				return types.Null, true, divisionByZero()
			}
			if _, err := ctx.Quo(&z, &z, &lb); err != nil {
				return types.Null, true, numericOverflow()
			}
		}
		rescale(&z, int32(rscale))
		x = z
	case "power", "pow":
		var y apd.Decimal
		if err := toDecimal(args[1], &y); err != nil {
			return types.Null, true, err
		}
		switch {
		case isNaN(&x) || isNaN(&y):
			if (isNaN(&x) && y.Form == apd.Finite && y.IsZero()) || (isNaN(&y) && x.Form == apd.Finite && x.Cmp(apd.New(1, 0)) == 0) {
				return types.Datum{Kind: types.KindDecimal, S: "1"}, true, nil
			}
			return types.Datum{Kind: types.KindDecimal, S: "NaN"}, true, nil
		case x.IsZero() && y.Negative:
			return types.Null, true, pgerror.New(codeInvalidArgumentForPower, "zero raised to a negative power is undefined")
		case x.Negative && y.Form == apd.Finite && !isIntegral(&y):
			return types.Null, true, pgerror.New(codeInvalidArgumentForPower, "a negative number raised to a non-integer power yields a complex result")
		case x.Form == apd.Infinite || y.Form == apd.Infinite:
			return types.Datum{Kind: types.KindDecimal, S: infinitePower(&x, &y)}, true, nil
		}
		var z apd.Decimal
		g := toFloat(args[1]) * math.Log10(math.Abs(toFloat(args[0]))) // the result's decimal weight
		switch {
		case x.IsZero():
			if y.IsZero() {
				z.SetInt64(1)
			}
		case g < -numericMaxWeightDigits-numericMaxDisplayScale:
			// Far below the smallest scale shown: it rounds to zero.
		case math.Abs(g) > numericMaxWeightDigits:
			return types.Null, true, numericOverflow()
		default:
			if _, err := roundingCtx(int64(math.Abs(g))+numericMinSigDigits+20, apd.RoundHalfEven).Pow(&z, &x, &y); err != nil {
				return types.Null, true, numericOverflow()
			}
		}
		// power_var's scale: 16 digits after the point for an integer
		// exponent, else 16 significant digits (the decimal weight of
		// the result estimated as y * log10(x), truncated).
		dweight := int64(0)
		if !isIntegral(&y) && !x.IsZero() {
			dweight = int64(g)
		}
		rscale := min(max(numericMinSigDigits-dweight, int64(scaleOf(&x)), int64(scaleOf(&y)), 0), numericMaxDisplayScale)
		rescale(&z, int32(rscale))
		x = z
	default:
		return types.Null, false, nil
	}
	d, err := decimalResult(&x)
	return d, true, err
}

// infinitePower is numeric_power's answer when x or y is infinite (and
// neither is NaN): PostgreSQL's rules for the limits.
func infinitePower(x, y *apd.Decimal) string {
	one := apd.New(1, 0)
	var ax apd.Decimal
	ax.Abs(x)
	switch {
	case y.Form == apd.Finite && y.IsZero():
		return "1"
	case x.Form == apd.Infinite:
		if y.Negative {
			return "0"
		}
		if x.Negative && y.Form == apd.Finite && isOddInteger(y) {
			return "-Infinity"
		}
		return "Infinity"
	case ax.Cmp(one) == 0: // x is 1 or -1, y infinite
		return "1"
	case (ax.Cmp(one) < 0) == y.Negative: // |x| < 1 to -inf, |x| > 1 to +inf
		return "Infinity"
	}
	return "0"
}

// isOddInteger reports whether finite y is an odd integer.
func isOddInteger(y *apd.Decimal) bool {
	if !isIntegral(y) {
		return false
	}
	var r apd.Decimal
	_, err := apd.BaseContext.WithPrecision(uint32(y.NumDigits())+2).Rem(&r, y, apd.New(2, 0))
	return err == nil && !r.IsZero()
}

func isIntegral(x *apd.Decimal) bool {
	var r apd.Decimal
	r.Reduce(x)
	return r.Exponent >= 0
}

// AddDecimal adds the number d to the running sum acc exactly; a sum
// that meets NaN or opposite infinities is NaN.
func AddDecimal(acc *apd.Decimal, d types.Datum) {
	if isNaN(acc) {
		return
	}
	var x apd.Decimal
	if err := toDecimal(d, &x); err != nil || isNaN(&x) {
		acc.Form = apd.NaN
		return
	}
	if _, err := exact.Add(acc, acc, &x); err != nil {
		acc.Form = apd.NaN
	}
}

// DecimalResult returns x as a NUMERIC datum, 22003 past NUMERIC's
// limits.
func DecimalResult(x *apd.Decimal) (types.Datum, error) { return decimalResult(x) }

// DecimalDiv is the NUMERIC quotient a / b (avg's final division).
func DecimalDiv(a, b types.Datum) (types.Datum, error) { return decimalArith("/", a, b) }

// estimateLnDweight is PostgreSQL's estimate_ln_dweight: the decimal
// weight of ln(x), from x - 1 near 1 and from x's first two base-10000
// digits elsewhere.
func estimateLnDweight(x *apd.Decimal) int64 {
	if x.Negative || x.Form != apd.Finite || x.IsZero() {
		return 0
	}
	if x.Cmp(apd.New(9, -1)) >= 0 && x.Cmp(apd.New(11, -1)) <= 0 {
		var d apd.Decimal
		_, _ = exact.Sub(&d, x, apd.New(1, 0))
		if d.IsZero() {
			return 0
		}
		return adjusted(&d)
	}
	weight, first, second, more := baseDigits(x)
	digits, dweight := float64(first), weight*4
	if more {
		digits = digits*10000 + float64(second)
		dweight -= 4
	}
	ln := math.Log(digits) + float64(dweight)*2.302585092994046
	return int64(math.Log10(math.Abs(ln)))
}

// DecimalMul is the NUMERIC product a * b.
func DecimalMul(a, b types.Datum) (types.Datum, error) { return decimalArith("*", a, b) }

// DecimalVariance finishes var_samp/var_pop (stddev with root) from n
// values whose sum is sumX and sum of squares sumX2, as PostgreSQL's
// numeric_stddev_internal: (n·sumX2 − sumX²) / (n·(n−1) or n²) at
// select_div_scale's scale, and its square root at that scale; a
// numerator that is not positive gives 0.
func DecimalVariance(sumX, sumX2 *apd.Decimal, n int64, sample, root bool) (types.Datum, error) {
	if isNaN(sumX) || isNaN(sumX2) || sumX.Form == apd.Infinite || sumX2.Form == apd.Infinite {
		return types.Datum{Kind: types.KindDecimal, S: "NaN"}, nil
	}
	var sq, nx2, num apd.Decimal
	N := apd.New(n, 0)
	if _, err := exact.Mul(&sq, sumX, sumX); err != nil {
		return types.Null, numericOverflow()
	}
	if _, err := exact.Mul(&nx2, N, sumX2); err != nil {
		return types.Null, numericOverflow()
	}
	if _, err := exact.Sub(&num, &nx2, &sq); err != nil {
		return types.Null, numericOverflow()
	}
	if num.Sign() <= 0 {
		return types.Datum{Kind: types.KindDecimal, S: "0"}, nil
	}
	den := apd.New(n*n, 0)
	if sample {
		den = apd.New(n*(n-1), 0)
	}
	scale := selectDivScale(&num, den)
	var v apd.Decimal
	if err := divide(&v, &num, den, scale); err != nil {
		return types.Null, numericOverflow()
	}
	if root {
		var r apd.Decimal
		if _, err := roundingCtx(adjusted(&v)/2+int64(scale)+8, apd.RoundDown).Sqrt(&r, &v); err != nil {
			return types.Null, numericOverflow()
		}
		rescale(&r, scale)
		v = r
	}
	return decimalResult(&v)
}
