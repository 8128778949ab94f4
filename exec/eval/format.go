package eval

import (
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kvsql/kvsql/types"
)

// FormatText renders d as PostgreSQL's cast to text does for a value of
// type t: booleans are "true"/"false", floats the shortest string that
// reads back as the same value ("Infinity", "NaN", exponent form outside
// 1e-4 .. 1e15, or 1e6 for real), bytea as "\x" and hex digits, dates and
// timestamps in the ISO DateStyle, timestamptz with a "+00" zone. The
// datum's kind wins where it disagrees with t. NULL renders as "" (callers
// decide what NULL means).
func FormatText(d types.Datum, t types.T) string {
	switch d.Kind {
	case types.KindText:
		return d.S
	case types.KindInt:
		if t.Kind() == types.KindFloat {
			return string(appendFloat(nil, float64(d.I), t.Family, 0))
		}
		return strconv.FormatInt(d.I, 10)
	}
	return string(AppendText(nil, d, t))
}

// AppendText appends FormatText(d, t) to b.
func AppendText(b []byte, d types.Datum, t types.T) []byte { return AppendTextIn(b, d, t, time.UTC) }

// FormatTextIn is FormatText with timestamptz values shown in loc, the
// session's time zone.
func FormatTextIn(d types.Datum, t types.T, loc *time.Location) string {
	if d.Kind == types.KindTimestamp && t.Family == types.TimestampTZ {
		return string(AppendTextIn(nil, d, t, loc))
	}
	return FormatText(d, t)
}

// AppendTextIn is AppendText with timestamptz values shown in loc.
func AppendTextIn(b []byte, d types.Datum, t types.T, loc *time.Location) []byte {
	return AppendTextStyle(b, d, t, Style{Loc: loc})
}

// Style is what a session's settings change in a value's text: the time
// zone timestamptz values are shown in (TimeZone), how intervals read
// (IntervalStyle) and how many digits floats get (extra_float_digits).
// The zero Style is PostgreSQL's defaults with the time zone UTC.
type Style struct {
	// Loc is the session's time zone; nil means UTC.
	Loc *time.Location
	// Interval is the IntervalStyle setting.
	Interval types.IntervalStyle
	// FloatDigits is the significant digits a float8 gets when
	// extra_float_digits is 0 or below, PostgreSQL's %g precision
	// 15 + extra_float_digits (at least 1; a real gets 9 fewer, at least
	// 1). 0 is the setting's default and every value above 0: the
	// shortest digits that read back as the value.
	FloatDigits int
}

// FloatDigitsFor is Style.FloatDigits for an extra_float_digits setting.
func FloatDigitsFor(extraFloatDigits int) int {
	if extraFloatDigits > 0 {
		return 0
	}
	return max(1, 15+extraFloatDigits)
}

// AppendTextStyle is AppendText with the session's settings st.
func AppendTextStyle(b []byte, d types.Datum, t types.T, st Style) []byte {
	loc := st.Loc
	if t.Family == types.TimeTZ {
		if v, ok := types.TimeTZOf(d); ok {
			return types.AppendTimeTZ(b, v)
		}
	}
	if t.Family == types.Inet || t.Family == types.Cidr {
		if v, ok := types.InetOf(d); ok {
			return types.AppendInet(b, v, t.Family == types.Cidr)
		}
	}
	if t.Family == types.Enum && d.Kind == types.KindBytes {
		return appendEnumLabel(b, d, t)
	}
	switch d.Kind {
	case types.KindBool:
		if d.Bool() {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case types.KindInt:
		if t.Kind() == types.KindFloat {
			return appendFloat(b, float64(d.I), t.Family, st.FloatDigits)
		}
		return strconv.AppendInt(b, d.I, 10)
	case types.KindFloat:
		return appendFloat(b, d.F, t.Family, st.FloatDigits)
	case types.KindText, types.KindDecimal:
		return append(b, d.S...)
	case types.KindBytes:
		b = append(b, '\\', 'x')
		return hex.AppendEncode(b, []byte(d.S))
	case types.KindArray:
		return appendArrayText(b, d, t, st)
	case types.KindRecord:
		return appendRecordText(b, d, t, st)
	case types.KindDate:
		return append(b, types.FormatDate(d.I)...)
	case types.KindInterval:
		return types.AppendIntervalStyle(b, d.Interval(), st.Interval)
	case types.KindTime:
		return append(b, types.FormatTime(d.I)...)
	case types.KindTimestamp:
		if t.Family == types.TimestampTZ {
			if loc == nil {
				loc = time.UTC
			}
			return types.AppendTimestamp(b, d.I, loc)
		}
		return types.AppendTimestamp(b, d.I, nil)
	}
	return b
}

// appendFloat renders f as PostgreSQL 12+ does: with digits 0 (the
// default, extra_float_digits above 0) the shortest digits that read
// back as f, in exponent form when the decimal exponent is below -4 or
// at least the type's precision (15 for double precision, 6 for real;
// see appendShortestFloat); otherwise printf's %.*g with digits
// significant digits for a float8 and 9 fewer for a real (see
// Style.FloatDigits). NUMERIC is plain decimal, never exponent form.
func appendFloat(b []byte, f float64, fam types.Family, digits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "Infinity"...)
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...)
	case fam == types.Numeric:
		if f == 0 {
			return append(b, '0')
		}
		return strconv.AppendFloat(b, f, 'f', -1, 64)
	case f == 0:
		if math.Signbit(f) {
			return append(b, "-0"...)
		}
		return append(b, '0')
	}
	if fam == types.Float4 {
		if digits > 0 {
			return strconv.AppendFloat(b, float64(float32(f)), 'g', max(1, digits-9), 64)
		}
		return appendShortestFloat(b, float64(float32(f)), 32)
	}
	if digits > 0 {
		return strconv.AppendFloat(b, f, 'g', digits, 64)
	}
	return appendShortestFloat(b, f, 64)
}

// concat2 is the || operator on non-NULL operands of types lt and rt:
// bytea || bytea is bytea; otherwise both sides are rendered as text
// (non-text operands in their type's text under the session's settings).
func concat2(l, r types.Datum, lt, rt types.T, st Style) types.Datum {
	// CHAR(n) becomes text first, losing its trailing blanks.
	if lt.Family == types.Char && l.Kind == types.KindText {
		l.S = strings.TrimRight(l.S, " ")
	}
	if rt.Family == types.Char && r.Kind == types.KindText {
		r.S = strings.TrimRight(r.S, " ")
	}
	switch {
	case l.Kind == types.KindBytes && r.Kind == types.KindBytes:
		return types.Datum{Kind: types.KindBytes, S: l.S + r.S}
	case l.Kind == types.KindText && r.Kind == types.KindText:
		return types.NewText(l.S + r.S)
	}
	b := make([]byte, 0, 32)
	b = AppendTextStyle(b, l, lt, st)
	b = AppendTextStyle(b, r, rt, st)
	return types.NewText(string(b))
}

// decimalExponent reads the exponent of strconv's 'e' format ("1.5e-07").
func decimalExponent(e []byte) int {
	i := len(e) - 1
	for i > 0 && e[i] != 'e' {
		i--
	}
	exp, neg := 0, false
	for _, c := range e[i+1:] {
		switch {
		case c == '-':
			neg = true
		case c >= '0' && c <= '9':
			exp = exp*10 + int(c-'0')
		}
	}
	if neg {
		return -exp
	}
	return exp
}

// Clip cuts s to at most max bytes at a character boundary and appends
// "..." when it was longer, as PostgreSQL shows long values in messages
// (pg_mbcliplen: 64 bytes per value in "Failing row contains", 100 in a
// COPY error's CONTEXT).
func Clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
