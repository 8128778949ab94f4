package foreign

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"

	"github.com/kvsql/kvsql/types"
)

// Encoding is how one field's value is spelled in a key or a value.
type Encoding string

const (
	EncText    Encoding = "text"    // UTF-8 text
	EncDecimal Encoding = "decimal" // a number in ASCII: 42, -7, 2.5
	EncBytes   Encoding = "bytes"   // raw bytes
	EncUint8   Encoding = "uint8"   // unsigned big-endian integers
	EncUint16  Encoding = "uint16be"
	EncUint32  Encoding = "uint32be"
	EncUint64  Encoding = "uint64be"
	EncInt16   Encoding = "int16be" // two's complement big-endian integers
	EncInt32   Encoding = "int32be"
	EncInt64   Encoding = "int64be"
)

var widths = map[Encoding]int{EncUint8: 1, EncUint16: 2, EncUint32: 4, EncUint64: 8, EncInt16: 2, EncInt32: 4, EncInt64: 8}

// Width is the encoding's fixed byte width, 0 for a variable one.
func (e Encoding) Width() int { return widths[e] }

// Sorts reports whether the encoding's byte order is its values'
// order, so that a range of values is a range of keys: true for the
// unsigned big-endian integers. Decimal text does not sort (10 < 9 as
// bytes), two's complement puts negatives after positives, and a
// variable-width text or bytes field is followed by a delimiter that
// breaks its order (a prefix of a value sorts by the delimiter byte).
func (e Encoding) Sorts() bool {
	switch e {
	case EncUint8, EncUint16, EncUint32, EncUint64:
		return true
	}
	return false
}

// DefaultEncoding is the encoding a column of type t gets when the
// document names none.
func DefaultEncoding(t types.T) Encoding {
	switch t.Family {
	case types.Bytea:
		return EncBytes
	case types.Int2, types.Int4, types.Int8, types.Float4, types.Float8, types.Numeric:
		return EncDecimal
	}
	return EncText
}

// check reports whether a column of type t can be read in encoding e.
func (e Encoding) check(t types.T) error {
	fam := t.Family
	ok := false
	switch e {
	case EncText:
		ok = fam == types.Text || fam == types.Varchar || fam == types.JSON || fam == types.JSONB || fam == types.Bool
	case EncDecimal:
		ok = fam == types.Int2 || fam == types.Int4 || fam == types.Int8 || fam == types.Float4 || fam == types.Float8 || fam == types.Numeric
	case EncBytes:
		ok = fam == types.Bytea || fam == types.Text || fam == types.Varchar
	default:
		if e.Width() == 0 {
			return fmt.Errorf("encoding %q is not one of text, decimal, bytes, uint8, uint16be, uint32be, uint64be, int16be, int32be, int64be", e)
		}
		ok = fam == types.Int2 || fam == types.Int4 || fam == types.Int8
	}
	if !ok {
		return fmt.Errorf("type %s cannot be read in encoding %s", t.Family, e)
	}
	return nil
}

// errMalformed marks bytes a field's encoding does not read.
type errMalformed struct{ msg string }

func (e errMalformed) Error() string { return e.msg }

func malformed(format string, args ...any) error {
	return errMalformed{fmt.Sprintf(format, args...)}
}

// decode reads one field's bytes as a datum of type t. inKey asks for
// the canonical spelling (a decimal key field 05 is malformed: 5 is
// spelled 5, and a scan for id = 5 reads the prefix of "5").
func (e Encoding) decode(b []byte, t types.T, inKey bool) (types.Datum, error) {
	switch e {
	case EncText, EncBytes:
		if t.Family == types.Bytea {
			return types.NewBytes(append([]byte{}, b...)), nil
		}
		if !utf8.Valid(b) {
			return types.Datum{}, malformed("not UTF-8")
		}
		s := string(b)
		switch t.Family {
		case types.Bool:
			v, err := strconv.ParseBool(s)
			if err != nil {
				return types.Datum{}, malformed("%q is not a boolean", s)
			}
			return types.NewBool(v), nil
		case types.JSON, types.JSONB:
			if !jsonValid(b) {
				return types.Datum{}, malformed("not JSON")
			}
			if t.Family == types.JSONB {
				return types.NewJSONB(s), nil
			}
		}
		return types.NewText(s), nil
	case EncDecimal:
		return decodeDecimal(string(b), t, inKey)
	}
	w := e.Width()
	if len(b) != w {
		return types.Datum{}, malformed("%d bytes, %s needs %d", len(b), e, w)
	}
	var u uint64
	for _, c := range b {
		u = u<<8 | uint64(c)
	}
	var v int64
	switch e {
	case EncInt16:
		v = int64(int16(u))
	case EncInt32:
		v = int64(int32(u))
	case EncInt64:
		v = int64(u)
	default:
		if u > math.MaxInt64 {
			return types.Datum{}, malformed("%d is out of range for bigint", u)
		}
		v = int64(u)
	}
	return intDatum(v, t)
}

func intDatum(v int64, t types.T) (types.Datum, error) {
	switch t.Family {
	case types.Int2:
		if v < math.MinInt16 || v > math.MaxInt16 {
			return types.Datum{}, malformed("%d is out of range for smallint", v)
		}
	case types.Int4:
		if v < math.MinInt32 || v > math.MaxInt32 {
			return types.Datum{}, malformed("%d is out of range for integer", v)
		}
	}
	return types.NewInt(v), nil
}

func decodeDecimal(s string, t types.T, inKey bool) (types.Datum, error) {
	switch t.Family {
	case types.Int2, types.Int4, types.Int8:
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return types.Datum{}, malformed("%q is not an integer", s)
		}
		if inKey && strconv.FormatInt(v, 10) != s {
			return types.Datum{}, malformed("%q is not how %d is spelled", s, v)
		}
		return intDatum(v, t)
	case types.Float4, types.Float8:
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return types.Datum{}, malformed("%q is not a number", s)
		}
		return types.NewFloat(v), nil
	default: // numeric
		d, _, err := apd.NewFromString(s)
		if err != nil || d.Form != apd.Finite {
			return types.Datum{}, malformed("%q is not a number", s)
		}
		return types.NewDecimal(d), nil
	}
}

// encode spells d (not NULL) in encoding e; an error means the value
// cannot be spelled (out of range for the width, a negative unsigned).
func (e Encoding) encode(d types.Datum) ([]byte, error) {
	switch e {
	case EncText, EncBytes:
		switch d.Kind {
		case types.KindText, types.KindBytes:
			return []byte(d.S), nil
		case types.KindBool:
			return []byte(strconv.FormatBool(d.Bool())), nil
		}
	case EncDecimal:
		switch d.Kind {
		case types.KindInt:
			return strconv.AppendInt(nil, d.I, 10), nil
		case types.KindFloat:
			return strconv.AppendFloat(nil, d.F, 'g', -1, 64), nil
		case types.KindDecimal:
			return []byte(d.String()), nil
		}
	default:
		if d.Kind != types.KindInt {
			break
		}
		w := e.Width()
		v := d.I
		switch e {
		case EncUint8, EncUint16, EncUint32, EncUint64:
			if v < 0 || (w < 8 && v >= 1<<(8*w)) {
				return nil, fmt.Errorf("%d is out of range for %s", v, e)
			}
		default:
			if w < 8 && (v < -(1<<(8*w-1)) || v >= 1<<(8*w-1)) {
				return nil, fmt.Errorf("%d is out of range for %s", v, e)
			}
		}
		var buf [8]byte
		binary.BigEndian.PutUint64(buf[:], uint64(v))
		return append([]byte{}, buf[8-w:]...), nil
	}
	return nil, fmt.Errorf("a %s value cannot be spelled in encoding %s", d.Kind, e)
}
