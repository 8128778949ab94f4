package eval

import (
	"encoding/hex"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// codeCannotCoerce is PostgreSQL's 42846 cannot_coerce, which package
// pgerror does not name yet.
const codeCannotCoerce pgerror.Code = "42846"

// codeDatetimeFieldOverflow is 22008 datetime_field_overflow ("2024-02-30").
const codeDatetimeFieldOverflow pgerror.Code = "22008"

// Cast converts d to type t as an explicit CAST does, taking d's source
// type from its kind (a float is double precision). See CastFrom.
func Cast(d types.Datum, t types.T) (types.Datum, error) {
	return CastFrom(d, defaultType(d.Kind), t)
}

// defaultType is the type a datum of kind k is assumed to have when the
// caller does not say.
func defaultType(k types.Kind) types.T {
	switch k {
	case types.KindBool:
		return types.T{Family: types.Bool}
	case types.KindInt:
		return types.T{Family: types.Int8}
	case types.KindFloat:
		return types.T{Family: types.Float8}
	case types.KindText:
		return types.T{Family: types.Text}
	case types.KindBytes:
		return types.T{Family: types.Bytea}
	case types.KindDate:
		return types.T{Family: types.Date}
	case types.KindTimestamp:
		return types.T{Family: types.Timestamp}
	case types.KindDecimal:
		return types.T{Family: types.Numeric}
	case types.KindInterval:
		return types.T{Family: types.Interval}
	case types.KindTime:
		return types.T{Family: types.Time}
	}
	return types.T{Family: types.Unknown}
}

// CastFrom converts d, a value of type from, to type to with PostgreSQL's
// explicit-cast rules:
//
//   - text to a number trims surrounding whitespace; bad syntax is 22P02,
//     a value outside the type's range 22003;
//   - float to integer rounds half to even (PostgreSQL's rint), numeric to
//     integer rounds half away from zero; out of range is 22003;
//   - text to boolean accepts any unique prefix of true/false/yes/no, on,
//     off, 1 and 0, in any case;
//   - text to date or timestamp reads ISO forms (22007 otherwise);
//   - anything to text is FormatText; VARCHAR(n) truncates to n
//     characters, CHAR(n) truncates or pads with spaces, and CHAR's
//     padding is dropped when it becomes text;
//   - text to bytea reads the hex (\x...) and escape formats.
//
// Casts PostgreSQL does not have are 42846.
func CastFrom(d types.Datum, from, to types.T) (types.Datum, error) {
	return CastFromIn(d, from, to, time.UTC)
}

// CastFromIn is CastFrom in the time zone loc (the session's): it shows
// timestamptz values as text, reads zone-less timestamptz text, and
// converts between timestamp, date and timestamptz there.
func CastFromIn(d types.Datum, from, to types.T, loc *time.Location) (types.Datum, error) {
	if d.IsNull() {
		return d, nil
	}
	if loc == nil {
		loc = time.UTC
	}
	if to.Scale > 0 && (to.Family == types.Timestamp || to.Family == types.TimestampTZ || to.Family == types.Time) {
		// timestamp(p), time(p): cast, then round to p fractional digits.
		r, err := CastFromIn(d, from, types.T{Family: to.Family}, loc)
		if err != nil || r.IsNull() || r.I == types.TimestampInfinity || r.I == types.TimestampNegInfinity {
			return r, err
		}
		r.I = types.RoundMicros(r.I, int(to.Scale)-1)
		return r, nil
	}
	if from.Family == types.TimeTZ || to.Family == types.TimeTZ {
		if r, ok, err := castTimeTZ(d, from, to, loc); ok {
			return r, err
		}
	}
	if from.Family == types.TimestampTZ && d.Kind == types.KindTimestamp {
		switch to.Family {
		case types.Timestamp:
			return types.NewTimestamp(wallMicros(d.I, loc)), nil
		case types.Date:
			return types.NewDate(floorDiv(wallMicros(d.I, loc), microsPerDay)), nil
		case types.Time:
			w := wallMicros(d.I, loc)
			return types.NewTime(w - floorDiv(w, microsPerDay)*microsPerDay), nil
		case types.Text, types.Varchar, types.Char:
			return castToTextIn(d, from, to, loc), nil
		}
	}
	if to.Family == types.TimestampTZ && from.Family != types.TimestampTZ {
		switch {
		case d.Kind == types.KindTimestamp && from.Family == types.Timestamp, d.Kind == types.KindDate:
			return checkTimestamp(instantMicros(timeMicros(d), loc))
		case d.Kind == types.KindText:
			return ParseTimestampDatum(d.S, types.TimestampTZ, loc)
		}
	}
	if from.Family == types.JSONB {
		if r, ok, err := castFromJSONB(d, to, loc); ok {
			return r, err
		}
	}
	switch to.Family {
	case types.Unknown:
		return d, nil
	case types.Array:
		return castToArray(d, from, to)
	case types.Record:
		return castToRecord(d, from, to, loc)
	case types.Enum:
		return castToEnum(d, from, to)
	case types.Bool:
		return castToBool(d, from, to)
	case types.Int2, types.Int4, types.Int8:
		return castToInt(d, from, to)
	case types.RegClass, types.RegType:
		// An OID: from an integer, or a number's text (the planner
		// looks names up: regCast).
		r, err := castToInt(d, from, types.T{Family: types.Int8})
		if err != nil && d.Kind == types.KindText {
			if to.Family == types.RegClass {
				return types.Null, pgerror.Newf(pgerror.UndefinedTable, "relation %q does not exist", d.S)
			}
			return types.Null, pgerror.Newf(pgerror.UndefinedObject, "type %q does not exist", d.S)
		}
		return r, err
	case types.Numeric:
		return castToNumeric(d, from, to)
	case types.Float4, types.Float8:
		return castToFloat(d, from, to)
	case types.Text, types.Varchar, types.Char:
		return castToText(d, from, to), nil
	case types.JSON, types.JSONB:
		return castToJSON(d, from, to)
	case types.Inet, types.Cidr:
		return castToInet(d, from, to)
	case types.Int2Vector, types.OidVector:
		return castToVector(d, from, to)
	case types.UUID:
		if d.Kind == types.KindText {
			if u, ok := types.ParseUUID(d.S); ok {
				return types.NewText(u), nil
			}
			return types.Null, pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid input syntax for type uuid: %q", d.S)
		}
	case types.Bytea:
		switch d.Kind {
		case types.KindBytes:
			return d, nil
		case types.KindText:
			return parseBytea(d.S)
		}
	case types.Date:
		switch d.Kind {
		case types.KindDate:
			return d, nil
		case types.KindTimestamp:
			return types.NewDate(floorDiv(d.I, microsPerDay)), nil
		case types.KindText:
			return ParseDateDatum(d.S, loc)
		}
	case types.Interval:
		qfrom, qto, prec := int(to.Width>>4), int(to.Width&15), int(to.Scale)-1
		switch d.Kind {
		case types.KindInterval:
			return types.NewInterval(types.TruncateInterval(d.Interval(), qto, prec)), nil
		case types.KindTime:
			return types.NewInterval(types.IntervalValue{Micros: d.I}), nil
		case types.KindText:
			if qto > 0 || prec >= 0 {
				iv, err := types.ParseIntervalQualified(d.S, qfrom, qto, prec)
				if err != nil {
					_, err = ParseIntervalDatum(d.S)
					if err == nil {
						err = pgerror.Newf(pgerror.InvalidDatetimeFormat, "invalid input syntax for type interval: %q", d.S)
					}
					return types.Null, err
				}
				return types.NewInterval(iv), nil
			}
			return ParseIntervalDatum(d.S)
		}
	case types.Time:
		switch d.Kind {
		case types.KindTime:
			return d, nil
		case types.KindTimestamp:
			return types.NewTime(d.I - floorDiv(d.I, microsPerDay)*microsPerDay), nil
		case types.KindInterval:
			us := d.Interval().Micros % microsPerDay
			if us < 0 {
				us += microsPerDay
			}
			return types.NewTime(us), nil
		case types.KindText:
			return ParseTimeDatum(d.S)
		}
	case types.Timestamp, types.TimestampTZ:
		switch d.Kind {
		case types.KindTimestamp:
			return d, nil
		case types.KindDate:
			return types.NewTimestamp(timeMicros(d)), nil
		case types.KindText:
			return ParseTimestampDatum(d.S, to.Family, loc)
		}
	}
	return types.Null, cannotCast(from, to)
}

func cannotCast(from, to types.T) error {
	return pgerror.Newf(codeCannotCoerce, "cannot cast type %s to %s", from, to)
}

func castToBool(d types.Datum, from, to types.T) (types.Datum, error) {
	switch d.Kind {
	case types.KindBool:
		return d, nil
	case types.KindInt:
		return types.NewBool(d.I != 0), nil
	case types.KindText:
		if b, ok := parseBool(d.S); ok {
			return types.NewBool(b), nil
		}
		return types.Null, pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid input syntax for type boolean: %q", d.S)
	}
	return types.Null, cannotCast(from, to)
}

// parseBool reads PostgreSQL's boolean input forms.
func parseBool(s string) (bool, bool) {
	s = strings.ToLower(trimSpace(s))
	if s == "" {
		return false, false
	}
	switch {
	case strings.HasPrefix("true", s), strings.HasPrefix("yes", s), s == "on", s == "1":
		return true, true
	case strings.HasPrefix("false", s), strings.HasPrefix("no", s), s == "off", s == "of", s == "0":
		return false, true
	}
	return false, false
}

// trimSpace drops the whitespace C's isspace knows, as PostgreSQL's
// numeric input functions do.
func trimSpace(s string) string {
	return strings.Trim(s, " \t\n\r\v\f")
}

func castToInt(d types.Datum, from, to types.T) (types.Datum, error) {
	switch d.Kind {
	case types.KindInt:
		return checkIntRange(d.I, to.Family)
	case types.KindBool:
		return types.NewInt(d.I), nil
	case types.KindDecimal:
		i, ok := decimalToInt(d)
		switch {
		case d.S == "NaN":
			return types.Null, pgerror.Newf(pgerror.FeatureNotSupported, "cannot convert NaN to %s", to.Family)
		case strings.HasSuffix(d.S, "Infinity"):
			return types.Null, pgerror.Newf(pgerror.FeatureNotSupported, "cannot convert infinity to %s", to.Family)
		case !ok:
			return types.Null, intOutOfRange(to.Family)
		}
		return checkIntRange(i, to.Family)
	case types.KindFloat:
		f := d.F
		if from.Family == types.Numeric {
			f = roundHalfAway(f)
		} else {
			f = math.RoundToEven(f)
		}
		// 2^63 is the first float above MaxInt64.
		if math.IsNaN(f) || f < -(1<<63) || f >= 1<<63 {
			return types.Null, intOutOfRange(to.Family)
		}
		return checkIntRange(int64(f), to.Family)
	case types.KindText:
		s := trimSpace(d.S)
		if s == "" || strings.Contains(s, "_") {
			return types.Null, pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid input syntax for type %s: %q", to.Family, d.S)
		}
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return types.Null, pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid input syntax for type %s: %q", to.Family, d.S)
		}
		if err == nil {
			if r, err := checkIntRange(v, to.Family); err == nil {
				return r, nil
			}
		}
		return types.Null, pgerror.Newf(pgerror.NumericValueOutOfRange, "value %q is out of range for type %s", d.S, to.Family)
	}
	return types.Null, cannotCast(from, to)
}

// roundHalfAway rounds to the nearest integer, ties away from zero.
func roundHalfAway(f float64) float64 { return math.Round(f) }

func castToFloat(d types.Datum, from, to types.T) (types.Datum, error) {
	var f float64
	switch d.Kind {
	case types.KindInt:
		f = float64(d.I)
	case types.KindFloat:
		f = d.F
	case types.KindDecimal:
		// numeric_float8 and numeric_float4 read the number's text as
		// float8in and float4in do: a finite non-zero number that
		// becomes infinite or zero is out of range (subnormals are not).
		f = decimalFloat(d)
		g := f
		if to.Family == types.Float4 {
			g = float64(float32(f))
		}
		if (math.IsInf(g, 0) || g == 0) && !types.DecimalIsSpecialOrZero(d) {
			return types.Null, pgerror.Newf(pgerror.NumericValueOutOfRange, "%q is out of range for type %s", FormatText(d, from), to.Family)
		}
	case types.KindText:
		return parseFloat(d.S, to)
	default:
		return types.Null, cannotCast(from, to)
	}
	if to.Family == types.Float4 && !math.IsInf(f, 0) && !math.IsNaN(f) {
		g := float64(float32(f))
		switch {
		case math.IsInf(g, 0):
			return types.Null, floatOverflow(to)
		case g == 0 && f != 0:
			return types.Null, pgerror.New(pgerror.NumericValueOutOfRange, "value out of range: underflow")
		}
		f = g
	}
	return types.NewFloat(f), nil
}

// parseFloat reads a float as PostgreSQL's float8in/float4in/numeric_in
// do: decimal or exponent notation, Infinity, -Infinity and NaN in any
// case, surrounding whitespace ignored.
func parseFloat(s string, to types.T) (types.Datum, error) {
	t := trimSpace(s)
	bitSize := 64
	if to.Family == types.Float4 {
		bitSize = 32
	}
	bad := t == "" || strings.ContainsAny(t, "_xXpP")
	var f float64
	var err error
	if !bad {
		f, err = strconv.ParseFloat(t, bitSize)
		bad = err != nil && !errors.Is(err, strconv.ErrRange)
	}
	if bad {
		return types.Null, pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid input syntax for type %s: %q", to.Family, s)
	}
	if err != nil || f == 0 && nonzeroMantissa(t) { // overflow, or underflow to zero
		return types.Null, pgerror.Newf(pgerror.NumericValueOutOfRange, "%q is out of range for type %s", t, to.Family)
	}
	if math.IsInf(f, 0) && to.Family == types.Numeric {
		// Accept only the spelled-out infinities, not overflowing digits.
		l := strings.ToLower(strings.TrimLeft(t, "+-"))
		if l != "inf" && l != "infinity" {
			return types.Null, floatOverflow(to)
		}
	}
	return types.NewFloat(f), nil
}

// nonzeroMantissa reports whether the number t spells has a nonzero
// digit before its exponent.
func nonzeroMantissa(t string) bool {
	for i := 0; i < len(t) && t[i] != 'e' && t[i] != 'E'; i++ {
		if t[i] >= '1' && t[i] <= '9' {
			return true
		}
	}
	return false
}

func castToText(d types.Datum, from, to types.T) types.Datum {
	return castToTextIn(d, from, to, time.UTC)
}

func castToTextIn(d types.Datum, from, to types.T, loc *time.Location) types.Datum {
	s := FormatTextIn(d, from, loc)
	if v, ok := types.InetOf(d); ok && (from.Family == types.Inet || from.Family == types.Cidr) {
		s = string(types.AppendInet(nil, v, true)) // text(inet) shows a host's /32 too
	}
	if from.Family == types.Char && d.Kind == types.KindText && to.Family != types.Char {
		s = strings.TrimRight(s, " ")
	}
	if to.Width <= 0 {
		return types.NewText(s)
	}
	n := int(to.Width)
	count := 0
	for i := range s {
		if count == n {
			s = s[:i]
			break
		}
		count++
	}
	if to.Family == types.Char && count < n {
		s += strings.Repeat(" ", n-count)
	}
	return types.NewText(s)
}

// parseBytea reads bytea input: "\x" followed by hex digit pairs
// (whitespace allowed between pairs), or the escape format where "\\" is a
// backslash and "\nnn" an octal byte.
func parseBytea(s string) (types.Datum, error) {
	bad := pgerror.New(pgerror.InvalidTextRepresentation, "invalid input syntax for type bytea")
	if strings.HasPrefix(s, `\x`) {
		h := strings.Map(func(r rune) rune {
			if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, s[2:])
		b, err := hex.DecodeString(h)
		if err != nil {
			return types.Null, pgerror.New(pgerror.InvalidParameterValue, "invalid hexadecimal data")
		}
		return types.NewBytes(b), nil
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b = append(b, c)
			continue
		}
		switch {
		case i+1 < len(s) && s[i+1] == '\\':
			b = append(b, '\\')
			i++
		case i+3 < len(s) && isOctal(s[i+1]) && s[i+1] <= '3' && isOctal(s[i+2]) && isOctal(s[i+3]):
			b = append(b, (s[i+1]-'0')<<6|(s[i+2]-'0')<<3|(s[i+3]-'0'))
			i += 3
		default:
			return types.Null, bad
		}
	}
	return types.NewBytes(b), nil
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// ParseDateDatum reads date text (types.ParseDate) with PostgreSQL's
// errors: 22007 for bad syntax, 22008 for a field out of range.
func ParseDateDatum(s string, loc *time.Location) (types.Datum, error) {
	if loc == nil {
		loc = time.UTC
	}
	days, err := types.ParseDateIn(s, loc)
	if err != nil {
		return types.Null, dateTimeError(err, "date", s)
	}
	return types.NewDate(days), nil
}

// ParseTimestampDatum reads text as a timestamp (fam Timestamp: any zone
// in the text ignored) or a timestamptz (the text's zone, else loc).
func ParseTimestampDatum(s string, fam types.Family, loc *time.Location) (types.Datum, error) {
	if loc == nil {
		loc = time.UTC
	}
	us, err := types.ParseTimestampIn(s, loc, fam == types.TimestampTZ)
	if err != nil {
		return types.Null, dateTimeError(err, fam.String(), s)
	}
	return types.NewTimestamp(us), nil
}

// dateTimeError is the error for date/time text s of type typ.
func dateTimeError(err error, typ, s string) error {
	if errors.Is(err, types.ErrDateTimeRange) {
		return pgerror.Newf(codeDatetimeFieldOverflow, "date/time field value out of range: %q", s)
	}
	return pgerror.Newf(pgerror.InvalidDatetimeFormat, "invalid input syntax for type %s: %q", typ, s)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// charLen is the length of s in characters (runes), as PostgreSQL counts
// for UTF-8 text.
func charLen(s string) int { return utf8.RuneCountInString(s) }

// ParseIntervalDatum reads interval text (types.ParseInterval) with
// PostgreSQL's errors: 22007 for bad syntax, 22015 for a field out of
// range.
func ParseIntervalDatum(s string) (types.Datum, error) {
	iv, err := types.ParseInterval(s)
	if err != nil {
		if errors.Is(err, types.ErrIntervalOverflow) {
			return types.Null, pgerror.New(codeDatetimeFieldOverflow, "interval out of range")
		}
		if errors.Is(err, types.ErrIntervalRange) {
			return types.Null, pgerror.Newf(codeIntervalFieldOverflow, "interval field value out of range: %q", s)
		}
		return types.Null, pgerror.Newf(pgerror.InvalidDatetimeFormat, "invalid input syntax for type interval: %q", s)
	}
	return types.NewInterval(iv), nil
}

// ParseTimeDatum reads time text (types.ParseTime): 22007 for bad
// syntax, 22008 for a field out of range.
func ParseTimeDatum(s string) (types.Datum, error) {
	us, err := types.ParseTime(s)
	if err != nil {
		if errors.Is(err, types.ErrTimeRange) {
			return types.Null, pgerror.Newf(codeDatetimeFieldOverflow, "date/time field value out of range: %q", s)
		}
		return types.Null, pgerror.Newf(pgerror.InvalidDatetimeFormat, "invalid input syntax for type time: %q", s)
	}
	return types.NewTime(us), nil
}

// codeIntervalFieldOverflow is 22015 interval_field_overflow.
const codeIntervalFieldOverflow pgerror.Code = "22015"
