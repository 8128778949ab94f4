package wire

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"

	"github.com/kvsql/kvsql/exec/eval"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// Value formats: the wire format codes of Bind and RowDescription.
const (
	formatText   int16 = 0
	formatBinary int16 = 1
)

// PostgreSQL's binary date and timestamp epoch is 2000-01-01, ours is
// 1970-01-01.
const (
	pgEpochDays   = 10957
	pgEpochMicros = pgEpochDays * 86_400_000_000
)

// oidUnknown is the OID of PostgreSQL's "unknown" pseudo-type; a parameter
// with OID 0 or oidUnknown is passed to the engine as raw text.
const oidUnknown = 705

// typeSize is RowDescription's typlen: the fixed width, or -1 for
// variable-length types.
func typeSize(f types.Family) int16 {
	switch f {
	case types.Bool:
		return 1
	case types.Int2:
		return 2
	case types.Int4, types.Float4, types.Date:
		return 4
	case types.Int8, types.Float8, types.Timestamp, types.TimestampTZ, types.Time:
		return 8
	case types.UUID, types.Interval:
		return 16
	case types.TimeTZ:
		return 12
	}
	return -1
}

// typeModifier is RowDescription's atttypmod (see types.T.Typmod).
func typeModifier(t types.T) int32 { return t.Typmod() }

// appendText appends d in PostgreSQL's text output format for type t
// under the session's settings st: the engine's own text rendering
// (eval.AppendTextStyle, which casts to text use too), except that the
// output format writes booleans as t and f.
func appendText(b []byte, t types.T, d types.Datum, st eval.Style) []byte {
	if d.Kind == types.KindBool {
		if d.Bool() {
			return append(b, 't')
		}
		return append(b, 'f')
	}
	return eval.AppendTextStyle(b, d, t, st)
}

// appendBinary appends d in PostgreSQL's binary format for type t.
func appendBinary(b []byte, t types.T, d types.Datum) ([]byte, error) {
	switch t.Family {
	case types.Array:
		if d.Kind != types.KindArray {
			break
		}
		return appendArrayBinary(b, t, d)
	case types.Bool:
		if d.Kind != types.KindBool {
			break
		}
		if d.Bool() {
			return append(b, 1), nil
		}
		return append(b, 0), nil
	case types.Int2, types.Int4, types.Int8:
		if d.Kind != types.KindInt {
			break
		}
		switch t.Family {
		case types.Int2:
			return binary.BigEndian.AppendUint16(b, uint16(d.I)), nil
		case types.Int4:
			return binary.BigEndian.AppendUint32(b, uint32(d.I)), nil
		}
		return binary.BigEndian.AppendUint64(b, uint64(d.I)), nil
	case types.Numeric:
		if d.Kind != types.KindDecimal {
			break
		}
		return appendNumericBinary(b, d.S), nil
	case types.Float4, types.Float8:
		f, ok := floatOf(d)
		if !ok {
			break
		}
		if t.Family == types.Float4 {
			return binary.BigEndian.AppendUint32(b, math.Float32bits(float32(f))), nil
		}
		return binary.BigEndian.AppendUint64(b, math.Float64bits(f)), nil
	case types.Text, types.Varchar, types.Char, types.Unknown:
		if d.Kind != types.KindText {
			break
		}
		return append(b, d.S...), nil
	case types.Enum:
		// enum_send: the label's bytes, as its text.
		return eval.AppendTextStyle(b, d, t, eval.Style{}), nil
	case types.JSON, types.JSONB:
		if d.Kind != types.KindText {
			break
		}
		if t.Family == types.JSONB {
			b = append(b, 1) // jsonb's binary form: a version byte, then the text
		}
		return append(b, d.S...), nil
	case types.UUID:
		raw, err := hex.DecodeString(strings.ReplaceAll(d.S, "-", ""))
		if d.Kind != types.KindText || err != nil || len(raw) != 16 {
			break
		}
		return append(b, raw...), nil
	case types.Inet, types.Cidr:
		v, ok := types.InetOf(d)
		if !ok {
			break
		}
		return appendInetBinary(b, v, t.Family == types.Cidr), nil
	case types.TimeTZ:
		v, ok := types.TimeTZOf(d)
		if !ok {
			break
		}
		b = binary.BigEndian.AppendUint64(b, uint64(v.Micros))
		return binary.BigEndian.AppendUint32(b, uint32(int32(-v.Offset))), nil // seconds west of Greenwich
	case types.Bytea:
		if d.Kind != types.KindBytes && d.Kind != types.KindText {
			break
		}
		return append(b, d.S...), nil
	case types.Date:
		if d.Kind != types.KindDate {
			break
		}
		return binary.BigEndian.AppendUint32(b, uint32(int32(d.I-pgEpochDays))), nil
	case types.Timestamp, types.TimestampTZ:
		if d.Kind != types.KindTimestamp {
			break
		}
		if d.I == types.TimestampInfinity || d.I == types.TimestampNegInfinity {
			return binary.BigEndian.AppendUint64(b, uint64(d.I)), nil // PostgreSQL's DT_NOEND, DT_NOBEGIN
		}
		return binary.BigEndian.AppendUint64(b, uint64(d.I-pgEpochMicros)), nil
	case types.Time:
		if d.Kind != types.KindTime {
			break
		}
		return binary.BigEndian.AppendUint64(b, uint64(d.I)), nil
	case types.Interval:
		if d.Kind != types.KindInterval {
			break
		}
		iv := d.Interval()
		b = binary.BigEndian.AppendUint64(b, uint64(iv.Micros))
		b = binary.BigEndian.AppendUint32(b, uint32(iv.Days))
		return binary.BigEndian.AppendUint32(b, uint32(iv.Months)), nil
	}
	if t.Family == types.Record && d.Kind == types.KindRecord {
		return appendRecordBinary(b, t, d)
	}
	return b, pgerror.Newf(pgerror.Internal, "cannot send a %s value in binary format for a column of type %s", d.Kind, t)
}

// appendRecordBinary is PostgreSQL's record_send: the field count, then
// each field's type OID, length (-1 for NULL) and binary value. A field
// of the anonymous record type is sent as text.
func appendRecordBinary(b []byte, t types.T, d types.Datum) ([]byte, error) {
	fields, err := types.RecordFields(nil, d)
	if err != nil {
		return b, pgerror.New(pgerror.DataCorrupted, "malformed record value")
	}
	b = binary.BigEndian.AppendUint32(b, uint32(len(fields)))
	for i, f := range fields {
		ft := types.T{Family: types.Text}
		if t.Comp != nil && i < len(t.Comp.Fields) {
			ft = t.Comp.Fields[i].T
		}
		b = binary.BigEndian.AppendUint32(b, ft.OID())
		if f.IsNull() {
			b = binary.BigEndian.AppendUint32(b, 0xFFFFFFFF)
			continue
		}
		at := len(b)
		b = append(b, 0, 0, 0, 0)
		if b, err = appendBinary(b, ft, f); err != nil {
			return b, err
		}
		binary.BigEndian.PutUint32(b[at:], uint32(len(b)-at-4))
	}
	return b, nil
}

func floatOf(d types.Datum) (float64, bool) {
	switch d.Kind {
	case types.KindFloat:
		return d.F, true
	case types.KindInt:
		return float64(d.I), true
	case types.KindDecimal:
		return types.DecimalFloat(d), true
	}
	return 0, false
}

// decodeParam decodes one Bind parameter value of type oid in the given
// format. raw == nil is SQL NULL. Errors carry 22021 (text that is not
// UTF-8 or holds NUL), 22P02 (bad text), 22003
// (out of range), 08P01 (bad binary length) or 0A000 (unsupported type).
func decodeParam(oid uint32, format int16, raw []byte, loc *time.Location) (types.Datum, error) {
	if raw == nil {
		return types.Null, nil
	}
	if format == formatText {
		if d, ok := decodeTextInt(oid, raw); ok {
			return d, nil
		}
		// Text arrives in the client encoding, UTF8, whatever the type.
		if err := pgerror.CheckUTF8(string(raw)); err != nil {
			return types.Null, err
		}
		return decodeText(oid, string(raw), loc)
	}
	if format != formatBinary {
		return types.Null, pgerror.Newf(pgerror.ProtocolViolation, "unsupported format code: %d", format)
	}
	return decodeBinary(oid, raw)
}

// decodeTextInt is decodeText of an int2, int4 or int8 value written as
// plain decimal digits (at most 18, an optional minus sign) that fits
// the type: the key parameters of pgbench and pgx, parsed from the bytes
// without the string decodeText converts them to. Anything else (spaces,
// a plus sign, more digits, out of range, not a number) reports !ok and
// goes decodeText's way, with its errors.
func decodeTextInt(oid uint32, raw []byte) (types.Datum, bool) {
	digits := raw
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 18 {
		return types.Null, false
	}
	var v int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return types.Null, false
		}
		v = v*10 + int64(c-'0')
	}
	if len(digits) < len(raw) {
		v = -v
	}
	switch {
	case oid == types.Int8.OID(),
		oid == types.Int4.OID() && v >= math.MinInt32 && v <= math.MaxInt32,
		oid == types.Int2.OID() && v >= math.MinInt16 && v <= math.MaxInt16:
		return types.NewInt(v), true
	}
	return types.Null, false
}

// decodeText parses the text form s of a value of type oid. Unknown OIDs
// (0, 705, or a type kvsql does not have) keep the raw text.
func decodeText(oid uint32, s string, loc *time.Location) (types.Datum, error) {
	if t, ok := types.TypeByOID(oid); ok && t.IsArray() {
		return eval.CastFrom(types.NewText(s), types.T{Family: types.Unknown}, t)
	}
	fam, ok := types.FamilyByOID(oid)
	if !ok {
		return types.NewText(s), nil
	}
	switch fam {
	case types.JSON, types.JSONB:
		return eval.JSONText(s, fam)
	case types.UUID:
		u, ok := types.ParseUUID(s)
		if !ok {
			return types.Null, badText("uuid", s)
		}
		return types.NewText(u), nil
	case types.Inet, types.Cidr:
		return eval.CastFrom(types.NewText(s), types.T{Family: types.Text}, types.T{Family: fam})
	case types.TimeTZ:
		return eval.CastFromIn(types.NewText(s), types.T{Family: types.Text}, types.T{Family: fam}, loc)
	case types.Bool:
		v, ok := parseBool(s)
		if !ok {
			return types.Null, badText("boolean", s)
		}
		return types.NewBool(v), nil
	case types.Int2, types.Int4, types.Int8:
		bits := map[types.Family]int{types.Int2: 16, types.Int4: 32, types.Int8: 64}[fam]
		v, err := strconv.ParseInt(strings.TrimSpace(s), 10, bits)
		if err != nil {
			if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
				return types.Null, pgerror.Newf(pgerror.NumericValueOutOfRange, "value %q is out of range for type %s", s, fam)
			}
			return types.Null, badText(fam.String(), s)
		}
		return types.NewInt(v), nil
	case types.Numeric:
		var x apd.Decimal
		if !types.ParseDecimal(s, &x) {
			return types.Null, badText("numeric", s)
		}
		return types.NewDecimal(&x), nil
	case types.Float4, types.Float8:
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
				return types.Null, pgerror.Newf(pgerror.NumericValueOutOfRange, "%q is out of range for type %s", s, fam)
			}
			return types.Null, badText(fam.String(), s)
		}
		return types.NewFloat(v), nil
	case types.Bytea:
		b, err := parseByteaText(s)
		if err != nil {
			return types.Null, err
		}
		return types.NewBytes(b), nil
	case types.Date:
		return eval.ParseDateDatum(s, loc)
	case types.Timestamp, types.TimestampTZ:
		return eval.ParseTimestampDatum(s, fam, loc)
	case types.Interval:
		return eval.ParseIntervalDatum(s)
	case types.Time:
		return eval.ParseTimeDatum(s)
	}
	return types.NewText(s), nil
}

func badText(typ, s string) error {
	return pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid input syntax for type %s: %q", typ, s)
}

// parseBool accepts PostgreSQL's boolean spellings: unique prefixes of
// true/false/yes/no, on/off, 1/0, case-insensitively.
func parseBool(s string) (bool, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
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

// parseByteaText reads bytea's hex format (\x0a0b) or its escape format
// (backslash-octal \ooo and \\ for a backslash).
func parseByteaText(s string) ([]byte, error) {
	if strings.HasPrefix(s, `\x`) {
		b, err := hex.DecodeString(s[2:])
		if err != nil {
			return nil, badText("bytea", s)
		}
		return b, nil
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			out = append(out, s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '\\' {
			out = append(out, '\\')
			i++
			continue
		}
		if i+3 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3]) && s[i+1] <= '3' {
			out = append(out, (s[i+1]-'0')<<6|(s[i+2]-'0')<<3|(s[i+3]-'0'))
			i += 3
			continue
		}
		return nil, badText("bytea", s)
	}
	return out, nil
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// decodeBinary parses the binary form of a value of type oid.
func decodeBinary(oid uint32, raw []byte) (types.Datum, error) {
	if t, ok := types.TypeByOID(oid); ok && t.IsArray() {
		return decodeArrayBinary(t, raw)
	}
	fam, ok := types.FamilyByOID(oid)
	if !ok {
		if oid == 0 || oid == oidUnknown {
			return types.NewText(string(raw)), nil
		}
		if oid >= oidFirstUser {
			return decodeUserBinary(oid, raw)
		}
		return types.Null, pgerror.Newf(pgerror.FeatureNotSupported, "binary format for parameters of type OID %d is not supported", oid)
	}
	return decodeBinaryFamily(fam, raw)
}

// oidFirstUser is the first OID of a user type (catalog.UserTypeOIDBase,
// PostgreSQL's FirstNormalObjectId).
const oidFirstUser = 16384

// decodeUserBinary reads a parameter of a user type in binary: an
// enum's binary form is its label's bytes, which the planner's cast to
// the parameter's type reads as text; an array of the type (OID one
// above the element's, as catalog.UserType.ArrayOID) is an array of
// such labels.
func decodeUserBinary(oid uint32, raw []byte) (types.Datum, error) {
	if len(raw) >= 12 && binary.BigEndian.Uint32(raw[8:12]) == oid-1 {
		elem := types.EnumOf(&types.EnumType{OID: oid - 1, ArrayOID: oid})
		return decodeArrayBinary(types.ArrayOf(elem), raw)
	}
	if err := pgerror.CheckUTF8(string(raw)); err != nil {
		return types.Null, err
	}
	return types.NewText(string(raw)), nil
}

// decodeBinaryFamily parses the binary form of a value of a scalar family (not
// an array): decodeBinary once the OID is resolved, for a caller that
// resolves it once per column (COPY).
func decodeBinaryFamily(fam types.Family, raw []byte) (types.Datum, error) {
	need := int(typeSize(fam))
	if need > 0 && len(raw) != need {
		return types.Null, pgerror.Newf(pgerror.ProtocolViolation, "incorrect binary data format: %s needs %d bytes, got %d", fam, need, len(raw))
	}
	switch fam {
	case types.JSONB:
		if len(raw) == 0 || raw[0] != 1 {
			return types.Null, pgerror.New(pgerror.ProtocolViolation, "unsupported jsonb version number")
		}
		return eval.JSONText(string(raw[1:]), fam)
	case types.JSON:
		return eval.JSONText(string(raw), fam)
	case types.UUID:
		u, _ := types.ParseUUID(hex.EncodeToString(raw))
		return types.NewText(u), nil
	case types.Inet, types.Cidr:
		return decodeInetBinary(raw, fam)
	case types.TimeTZ:
		v := types.TimeTZValue{Micros: int64(binary.BigEndian.Uint64(raw)), Offset: -int(int32(binary.BigEndian.Uint32(raw[8:])))}
		if v.Micros < 0 || v.Micros > types.MicrosPerDay || v.Offset > types.MaxTimeTZOffset || v.Offset < -types.MaxTimeTZOffset {
			return types.Null, pgerror.New(pgerror.InvalidBinaryRepresentation, "time with time zone out of range")
		}
		return types.NewTimeTZ(v), nil
	case types.Bool:
		return types.NewBool(raw[0] != 0), nil
	case types.Int2:
		return types.NewInt(int64(int16(binary.BigEndian.Uint16(raw)))), nil
	case types.Int4:
		return types.NewInt(int64(int32(binary.BigEndian.Uint32(raw)))), nil
	case types.Int8:
		return types.NewInt(int64(binary.BigEndian.Uint64(raw))), nil
	case types.Float4:
		return types.NewFloat(float64(math.Float32frombits(binary.BigEndian.Uint32(raw)))), nil
	case types.Float8:
		return types.NewFloat(math.Float64frombits(binary.BigEndian.Uint64(raw))), nil
	case types.Numeric:
		s, err := decodeNumericBinary(raw)
		if err != nil {
			return types.Null, err
		}
		return types.Datum{Kind: types.KindDecimal, S: s}, nil
	case types.Bytea:
		return types.NewBytes(raw), nil
	case types.Date:
		return types.NewDate(int64(int32(binary.BigEndian.Uint32(raw))) + pgEpochDays), nil
	case types.Timestamp, types.TimestampTZ:
		v := int64(binary.BigEndian.Uint64(raw))
		if v == types.TimestampInfinity || v == types.TimestampNegInfinity {
			return types.NewTimestamp(v), nil
		}
		if v > types.TimestampInfinity-pgEpochMicros {
			return types.Null, pgerror.New(codeDatetimeFieldOverflow, "timestamp out of range")
		}
		return types.NewTimestamp(v + pgEpochMicros), nil
	case types.Time:
		us := int64(binary.BigEndian.Uint64(raw))
		if us < 0 || us > types.MicrosPerDay {
			return types.Null, pgerror.New(codeDatetimeFieldOverflow, "time out of range")
		}
		return types.NewTime(us), nil
	case types.Interval:
		return types.NewInterval(types.IntervalValue{
			Micros: int64(binary.BigEndian.Uint64(raw)),
			Days:   int32(binary.BigEndian.Uint32(raw[8:])),
			Months: int32(binary.BigEndian.Uint32(raw[12:])),
		}), nil
	}
	return types.NewText(string(raw)), nil
}

// codeDatetimeFieldOverflow is 22008 datetime_field_overflow.
const codeDatetimeFieldOverflow pgerror.Code = "22008"
