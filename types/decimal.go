package types

import (
	"math"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// NUMERIC values. A KindDecimal datum keeps its value as the text
// PostgreSQL prints for it: the digits with the value's display scale
// ("1.50" stays "1.50"), "NaN", "Infinity" or "-Infinity". Text keeps a
// Datum a small comparable value; arithmetic parses it into an
// apd.Decimal, whose coefficient and exponent are exactly PostgreSQL's
// digits and display scale.

// MaxNumericPrecision is the largest precision NUMERIC(p, s) accepts.
const MaxNumericPrecision = 1000

// MinNumericScale and MaxNumericScale bound s in NUMERIC(p, s)
// (PostgreSQL 15's NUMERIC_MIN_SCALE and NUMERIC_MAX_SCALE).
const (
	MinNumericScale = -1000
	MaxNumericScale = 1000
)

// NewDecimal returns d as a datum. A negative zero is zero.
func NewDecimal(d *apd.Decimal) Datum {
	return Datum{Kind: KindDecimal, S: DecimalText(d)}
}

// DecimalText is d as PostgreSQL's numeric_out writes it: never in
// exponent notation, the scale kept, no sign on zero.
func DecimalText(d *apd.Decimal) string {
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return "NaN"
	case apd.Infinite:
		if d.Negative {
			return "-Infinity"
		}
		return "Infinity"
	}
	s := d.Text('f')
	if d.Negative && d.IsZero() {
		s = s[1:]
	}
	return s
}

// ParseDecimal reads numeric_in's input forms: digits with an optional
// sign, point and exponent, NaN, and Infinity or inf with an optional
// sign, in any case, surrounded by optional whitespace. ok is false for
// anything else.
func ParseDecimal(s string, into *apd.Decimal) (ok bool) {
	ok, overflow := ParseDecimalRange(s, into)
	return ok && !overflow
}

// ParseDecimalRange is ParseDecimal telling apart a well-formed number
// whose exponent is beyond what NUMERIC holds (overflow: PostgreSQL's
// 22003 "value overflows numeric format", not a syntax error).
func ParseDecimalRange(s string, into *apd.Decimal) (ok, overflow bool) {
	t := strings.Trim(s, " \t\n\r\v\f")
	if t == "" {
		return false, false
	}
	switch strings.ToLower(strings.TrimLeft(t, "+-")) {
	case "nan":
		if t[0] == '+' || t[0] == '-' {
			return false, false
		}
		into.Form = apd.NaN
		return true, false
	case "infinity", "inf":
		into.SetInt64(0)
		into.Form, into.Negative = apd.Infinite, t[0] == '-'
		return true, false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E') {
			return false, false
		}
	}
	if _, _, err := into.SetString(t); err != nil || into.Form != apd.Finite {
		// A well-formed mantissa and exponent that apd refuses has an
		// exponent out of range.
		m, e, found := strings.Cut(strings.ToLower(t), "e")
		if _, _, merr := new(apd.Decimal).SetString(m); found && merr == nil && isInteger(e) {
			return true, true
		}
		return false, false
	}
	if into.Exponent > 0 {
		// 1e3 is 1000: PostgreSQL keeps no positive exponent.
		into.Coeff.Mul(&into.Coeff, apd.NewBigInt(0).Exp(apd.NewBigInt(10), apd.NewBigInt(int64(into.Exponent)), nil))
		into.Exponent = 0
	}
	return true, false
}

// isInteger reports whether s is an optionally signed run of digits.
func isInteger(s string) bool {
	s = strings.TrimLeft(s, "+-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Decimal parses a KindDecimal datum's value into into.
func (d Datum) Decimal(into *apd.Decimal) {
	if !ParseDecimal(d.S, into) {
		into.Form = apd.NaN // unreachable for datums made by NewDecimal
	}
}

// DecimalFloat is a KindDecimal datum as float8, as numeric_float8
// converts it: NaN for NaN, the infinity of its sign beyond float8's
// range.
func DecimalFloat(d Datum) float64 {
	var x apd.Decimal
	d.Decimal(&x)
	switch x.Form {
	case apd.NaN, apd.NaNSignaling:
		return math.NaN()
	case apd.Infinite:
		return math.Inf(sign(x.Negative))
	}
	f, err := x.Float64()
	if err != nil {
		return math.Inf(sign(x.Negative))
	}
	return f
}

// DecimalIsSpecialOrZero reports whether a NUMERIC datum is zero, NaN or
// an infinity: the values whose float is 0, NaN or infinite without
// being out of a float's range.
func DecimalIsSpecialOrZero(d Datum) bool {
	var x apd.Decimal
	d.Decimal(&x)
	return x.Form != apd.Finite || x.IsZero()
}

func sign(negative bool) int {
	if negative {
		return -1
	}
	return 1
}

// IsDecimalText reports whether s has the form DecimalText writes (an
// optional minus, digits, an optional point and digits; NaN, Infinity,
// -Infinity): a cheap check for decoders, which keep the text as it is.
func IsDecimalText(s string) bool {
	switch s {
	case "NaN", "Infinity", "-Infinity":
		return true
	}
	s = strings.TrimPrefix(s, "-")
	digits, point := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !point && digits > 0:
			point = true
		default:
			return false
		}
	}
	return digits > 0 && s[len(s)-1] != '.'
}

// DecimalInt64 reads decimal text of the form DecimalText writes as an
// int64 coefficient and its scale (digits after the point), when it has
// at most 18 digits; ok is false otherwise (too long, NaN, infinite).
// Sums use it to stay in integer arithmetic; the batch engine passes the
// bytes of a column vector.
func DecimalInt64[S ~string | ~[]byte](s S) (coef int64, scale int, ok bool) {
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	if len(s) == 0 || len(s) > 19 {
		return 0, 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			coef = coef*10 + int64(c-'0')
			n++
			if scale > 0 || i > 0 && s[i-1] == '.' {
				scale++
			}
		case c == '.' && scale == 0:
		default:
			return 0, 0, false
		}
	}
	if n == 0 || n > 18 {
		return 0, 0, false
	}
	if neg {
		coef = -coef
	}
	return coef, scale, true
}
