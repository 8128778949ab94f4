package eval

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// The value side of to_char for numbers: each input type turns its value
// into the digit string numPrinter lays out, the way PostgreSQL 15's
// int4_to_char, int8_to_char, float4_to_char, float8_to_char and
// numeric_to_char do. They differ in how they round and overflow:
// integers are exact, floats keep at most 6 (real) or 15 (double)
// significant digits and round half to even, numeric rounds half away
// from zero.

// numericDScaleMax is the most fraction digits a numeric keeps
// (PostgreSQL's NUMERIC_DSCALE_MAX).
const numericDScaleMax = 0x3FFF

// Significant digits a float keeps (C's FLT_DIG and DBL_DIG).
const (
	float4Digits = 6
	float8Digits = 15
)

// numberToCharAs is to_char(x, format) for a number x of type family
// fam: smallint and integer as PostgreSQL's int4 variant, real as its
// float4 variant, other integers as int8, floats as float8.
func numberToCharAs(x types.Datum, fam types.Family, format string) (string, error) {
	if format == "" {
		return "", nil
	}
	nodes, desc, err := parseNumTemplate(format)
	if err != nil {
		return "", err
	}
	p := numPrinter{d: desc}
	switch x.Kind {
	case types.KindInt:
		if fam == types.Int2 || fam == types.Int4 {
			p.setInt4(int32(x.I))
		} else {
			err = p.setInt8(x.I)
		}
	case types.KindFloat:
		if fam == types.Float4 {
			p.setFloat4(float32(x.F))
		} else {
			p.setFloat8(x.F)
		}
	default:
		var d apd.Decimal
		x.Decimal(&d)
		err = p.setNumeric(&d)
	}
	if err != nil {
		return "", err
	}
	return p.render(nodes)
}

// setInt4 sets the digit string for an integer (int4_to_char). V
// multiplies in 32 bits and wraps as PostgreSQL's C code does.
func (p *numPrinter) setInt4(v int32) {
	d := &p.d
	switch {
	case d.has(numFlagRoman):
		p.number = romanNumeral(int64(v))
	case d.has(numFlagEEEE):
		p.number = floatSci(float64(v), d.post)
	default:
		if d.has(numFlagMulti) {
			v *= int4Power10(d.multi)
			d.pre += d.multi
		}
		p.setIntDigits(strconv.FormatInt(int64(v), 10))
	}
}

// int4Power10 is 10^n converted to a 32-bit integer as x86 converts an
// out-of-range double: to the most negative integer.
func int4Power10(n int) int32 {
	f := math.Pow10(n)
	if f >= 1<<31 {
		return math.MinInt32
	}
	return int32(f)
}

// setInt8 sets the digit string for a bigint (int8_to_char): a Roman
// numeral needs a value in integer range, EEEE rounds as numeric does,
// and V fails on overflow.
func (p *numPrinter) setInt8(v int64) error {
	d := &p.d
	switch {
	case d.has(numFlagRoman):
		if v < math.MinInt32 || v > math.MaxInt32 {
			return pgerror.New(pgerror.NumericValueOutOfRange, "integer out of range")
		}
		p.number = romanNumeral(v)
	case d.has(numFlagEEEE):
		var dec apd.Decimal
		dec.SetInt64(v)
		p.number = decimalSci(&dec, d.post)
	default:
		if d.has(numFlagMulti) {
			f := math.Pow10(d.multi)
			if !(f < 1<<63) {
				return pgerror.New(pgerror.NumericValueOutOfRange, "bigint out of range")
			}
			m := int64(f)
			if v*m/m != v {
				return pgerror.New(pgerror.NumericValueOutOfRange, "bigint out of range")
			}
			v *= m
			d.pre += d.multi
		}
		p.setIntDigits(strconv.FormatInt(v, 10))
	}
	return nil
}

// setIntDigits sets the digit string of an integer printed in decimal,
// its fraction positions all zeros.
func (p *numPrinter) setIntDigits(s string) {
	p.sign, s = splitSign(s)
	preLen := len(s)
	if p.d.post > 0 {
		s += "." + strings.Repeat("0", p.d.post)
	}
	p.fit(s, preLen)
}

// setFloat8 sets the digit string for a double (float8_to_char).
func (p *numPrinter) setFloat8(v float64) {
	d := &p.d
	switch {
	case d.has(numFlagRoman):
		p.number = romanNumeral(roundToInt32(v))
	case d.has(numFlagEEEE):
		if math.IsNaN(v) || math.IsInf(v, 0) {
			p.number = sciMask(d.pre, d.post)
		} else {
			p.number = floatSci(v, d.post)
		}
	default:
		if d.has(numFlagMulti) {
			v *= math.Pow10(d.multi)
			d.pre += d.multi
		}
		p.setFloatDigits(v, float8Digits)
	}
}

// setFloat4 sets the digit string for a real (float4_to_char): V
// multiplies in single precision.
func (p *numPrinter) setFloat4(v float32) {
	d := &p.d
	switch {
	case d.has(numFlagRoman):
		p.number = romanNumeral(roundToInt32(float64(v)))
	case d.has(numFlagEEEE):
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			p.number = sciMask(d.pre, d.post)
		} else {
			p.number = floatSci(float64(v), d.post)
		}
	default:
		if d.has(numFlagMulti) {
			v *= float32(math.Pow10(d.multi))
			d.pre += d.multi
		}
		p.setFloatDigits(float64(v), float4Digits)
	}
}

// setFloatDigits sets the digit string of a float keeping at most
// maxDigits significant digits: the fraction positions shrink so that
// integer and fraction digits together do not exceed it.
func (p *numPrinter) setFloatDigits(v float64, maxDigits int) {
	d := &p.d
	preLen := len(formatFixed(math.Abs(v), 0))
	if preLen >= maxDigits {
		d.post = 0
	} else if preLen+d.post > maxDigits {
		d.post = maxDigits - preLen
	}
	var s string
	p.sign, s = splitSign(formatFixed(v, d.post))
	preLen = len(s)
	if i := strings.IndexByte(s, '.'); i >= 0 {
		preLen = i
	}
	p.fit(s, preLen)
}

// formatFixed prints v with prec fraction digits as PostgreSQL's
// snprintf does "%.*f": NaN, Infinity and -Infinity by name, a negative
// zero with its sign.
func formatFixed(v float64, prec int) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

// roundToInt32 is rint(v) converted to int as x86 does it: the most
// negative integer when v is NaN or out of range.
func roundToInt32(v float64) int64 {
	r := math.RoundToEven(v)
	if math.IsNaN(r) || r < math.MinInt32 || r > math.MaxInt32 {
		return math.MinInt32
	}
	return int64(r)
}

// floatSci is a float in scientific notation with post fraction digits
// ("%+.*e"), a blank where a positive value's sign would be.
func floatSci(v float64, post int) string {
	s := strconv.FormatFloat(v, 'e', post, 64)
	if s[0] != '-' {
		s = " " + s
	}
	return s
}

// sciMask is what EEEE prints for NaN and infinities: '#'s in place of
// the digits, the point and a two-digit exponent, after a blank sign.
func sciMask(pre, post int) string {
	b := []byte(strings.Repeat("#", pre+post+6))
	b[0] = ' '
	b[pre+1] = '.'
	return string(b)
}

// setNumeric sets the digit string for a numeric (numeric_to_char),
// rounding half away from zero. NaN and the infinities print their
// names where they fit.
func (p *numPrinter) setNumeric(x *apd.Decimal) error {
	d := &p.d
	finite := x.Form == apd.Finite
	switch {
	case d.has(numFlagRoman):
		switch {
		case x.Form == apd.Infinite:
			return pgerror.New(pgerror.FeatureNotSupported, "cannot convert infinity to integer")
		case !finite:
			return pgerror.New(pgerror.FeatureNotSupported, "cannot convert NaN to integer")
		}
		neg, intPart, _ := roundDecimal(x, 0)
		v, err := strconv.ParseInt(intPart, 10, 64)
		if neg {
			v = -v
		}
		if err != nil || v < math.MinInt32 || v > math.MaxInt32 {
			return pgerror.New(pgerror.NumericValueOutOfRange, "integer out of range")
		}
		p.number = romanNumeral(v)
	case d.has(numFlagEEEE):
		if finite {
			p.number = decimalSci(x, d.post)
		} else {
			p.number = sciMask(d.pre, d.post)
		}
	default:
		if d.has(numFlagMulti) {
			d.pre += d.multi
		}
		switch {
		case x.Form == apd.Infinite:
			p.sign = '+'
			if x.Negative {
				p.sign = '-'
			}
			p.fit("Infinity", len("Infinity"))
			return nil
		case !finite:
			p.sign = '+'
			p.fit("NaN", len("NaN"))
			return nil
		}
		var shifted apd.Decimal
		shifted.Set(x)
		shifted.Exponent += int32(d.multi)
		// numeric_round keeps at most NUMERIC_DSCALE_MAX fraction digits;
		// template positions past them end the output (numPrinter).
		neg, intPart, frac := roundDecimal(&shifted, min(d.post, numericDScaleMax))
		p.sign = '+'
		if neg {
			p.sign = '-'
		}
		s := intPart
		if d.post > 0 {
			s += "." + frac
		}
		p.fit(s, len(intPart))
	}
	return nil
}

// roundDecimal rounds a finite x half away from zero to post fraction
// digits and returns its sign and digits: the integer part without
// leading zeros ("0" for none) and exactly post fraction digits. A value
// that rounds to zero is not negative.
func roundDecimal(x *apd.Decimal, post int) (neg bool, intPart, frac string) {
	coeff := x.Coeff.Text(10)
	exp := int(x.Exponent)
	if exp >= 0 {
		intPart = coeff + strings.Repeat("0", exp)
	} else {
		k := -exp
		if len(coeff) <= k {
			coeff = strings.Repeat("0", k-len(coeff)+1) + coeff
		}
		intPart, frac = coeff[:len(coeff)-k], coeff[len(coeff)-k:]
	}
	all := intPart + frac
	if len(frac) > post {
		all = roundDigitString(all, len(intPart)+post)
	} else {
		all += strings.Repeat("0", post-len(frac))
	}
	intPart, frac = all[:len(all)-post], all[len(all)-post:]
	if intPart = strings.TrimLeft(intPart, "0"); intPart == "" {
		intPart = "0"
	}
	nonZero := strings.Trim(all, "0") != ""
	return x.Negative && nonZero, intPart, frac
}

// roundDigitString keeps the first n digits of a digit string, rounding half
// up on the next one; a carry out of the first digit makes it one digit
// longer ("996" to 2 digits is "100").
func roundDigitString(digits string, n int) string {
	up := digits[n] >= '5'
	b := []byte(digits[:n])
	for i := n - 1; up && i >= 0; i-- {
		if b[i] == '9' {
			b[i] = '0'
		} else {
			b[i]++
			up = false
		}
	}
	if up {
		b = append([]byte{'1'}, b...)
	}
	return string(b)
}

// decimalSci is a finite numeric in scientific notation with post
// fraction digits, as numeric_out_sci prints it, a blank where a
// positive value's sign would be. The significand rounds half away from
// zero and may round up to 10 ("10.00e+00"), keeping its exponent.
func decimalSci(x *apd.Decimal, post int) string {
	coeff := x.Coeff.Text(10)
	exponent := 0
	if coeff == "0" {
		coeff = strings.Repeat("0", post+1)
	} else {
		exponent = len(coeff) - 1 + int(x.Exponent)
		if len(coeff) > post+1 {
			coeff = roundDigitString(coeff, post+1)
		} else {
			coeff += strings.Repeat("0", post+1-len(coeff))
		}
	}
	intLen := len(coeff) - post
	s := coeff[:intLen]
	if post > 0 {
		s += "." + coeff[intLen:]
	}
	sign := " "
	if x.Negative && x.Coeff.Sign() != 0 {
		sign = "-"
	}
	return fmt.Sprintf("%s%se%+03d", sign, s, exponent)
}

// splitSign splits a printed number into its sign ('-' or '+') and
// digits.
func splitSign(s string) (byte, string) {
	if strings.HasPrefix(s, "-") {
		return '-', s[1:]
	}
	return '+', s
}

// fit sets number as the digit string, its integer part preLen long:
// blank positions pad a short integer part, and one too long for the
// template's digit positions turns every digit into '#'.
func (p *numPrinter) fit(number string, preLen int) {
	p.number = number
	switch {
	case preLen < p.d.pre:
		p.outPreSpaces = p.d.pre - preLen
	case preLen > p.d.pre:
		b := []byte(strings.Repeat("#", p.d.pre+p.d.post+1))
		b[p.d.pre] = '.'
		p.number = string(b)
	}
}

// Roman numeral digits for units, tens and hundreds (1 to 9).
var (
	romanOnes     = []string{"I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX"}
	romanTens     = []string{"X", "XX", "XXX", "XL", "L", "LX", "LXX", "LXXX", "XC"}
	romanHundreds = []string{"C", "CC", "CCC", "CD", "D", "DC", "DCC", "DCCC", "CM"}
)

// romanNumeral is n in upper-case Roman numerals, or fifteen '#'s when n
// is outside 1..3999.
func romanNumeral(n int64) string {
	if n < 1 || n > 3999 {
		return strings.Repeat("#", 15)
	}
	var b strings.Builder
	b.WriteString(strings.Repeat("M", int(n/1000)))
	for _, place := range []struct {
		digit int64
		names []string
	}{{n / 100 % 10, romanHundreds}, {n / 10 % 10, romanTens}, {n % 10, romanOnes}} {
		if place.digit > 0 {
			b.WriteString(place.names[place.digit-1])
		}
	}
	return b.String()
}
