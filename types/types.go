// Package types defines kvsql's SQL types and the Datum, the one value
// representation that every layer above the key-value store shares: the
// key and row encodings write Datums, the executor computes on them, the
// wire server formats them, and the sqllogictest runner prints them.
//
// There are only two types here:
//
//   - T, a SQL type: a Family (INT4, TEXT, ...) plus a width for
//     VARCHAR(n)/CHAR(n). Families carry their PostgreSQL type OID.
//   - Datum, a value: a small struct (no interface, no pointer) so that
//     rows are plain []Datum slices that cost no allocation per value.
//
// NUMERIC is exact: a KindDecimal datum holds its value's text, scale
// kept, and arithmetic runs on github.com/cockroachdb/apd (decimal.go).
package types

import (
	"math"
	"strconv"
)

// Kind is the physical form of a Datum. Several SQL type families share a
// kind: INT2, INT4 and INT8 are all KindInt.
type Kind uint8

const (
	KindNull Kind = iota
	KindBool
	KindInt
	KindFloat
	KindText
	KindBytes
	KindDate      // I holds days since 1970-01-01
	KindTimestamp // I holds microseconds since 1970-01-01 00:00:00 UTC
	KindDecimal   // S holds the value as PostgreSQL prints it ("101.50", "NaN")
	KindInterval  // I holds microseconds, S months and days (NewInterval)
	KindTime      // I holds microseconds since midnight (0 .. 24h inclusive)
	KindArray     // S holds the elements (types.AppendArray)
	KindRecord    // S holds the fields in the array form (types.NewRecord)
)

var kindNames = [...]string{"null", "bool", "int", "float", "text", "bytes", "date", "timestamp", "decimal", "interval", "time", "array", "record"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Datum is one SQL value. The zero Datum is NULL.
//
// Which field holds the value depends on Kind: KindBool and KindInt,
// KindDate and KindTimestamp use I (a bool is 0 or 1); KindFloat uses F;
// KindText, KindBytes and KindDecimal use S (bytes are stored in a string so a Datum is
// immutable and comparable without copying).
type Datum struct {
	Kind Kind
	I    int64
	F    float64
	S    string
}

// Null is the NULL datum.
var Null = Datum{}

// NullSerial in a KindNull datum's I marks the DEFAULT of a serial or
// identity column (SerialDefault): the NULL an INSERT or UPDATE writes
// there is replaced by the column's next sequence value, while a NULL the
// statement gives (or COPY's \N) stays NULL and fails NOT NULL, as in
// PostgreSQL. The mark never reaches storage or a client.
const NullSerial = 1

// SerialDefault is the value a serial or identity column's DEFAULT binds
// to (see NullSerial).
var SerialDefault = Datum{I: NullSerial}

// IsSerialDefault reports whether d is SerialDefault.
func (d Datum) IsSerialDefault() bool { return d.Kind == KindNull && d.I == NullSerial }

func NewBool(b bool) Datum {
	if b {
		return Datum{Kind: KindBool, I: 1}
	}
	return Datum{Kind: KindBool}
}
func NewInt(i int64) Datum     { return Datum{Kind: KindInt, I: i} }
func NewFloat(f float64) Datum { return Datum{Kind: KindFloat, F: f} }
func NewText(s string) Datum   { return Datum{Kind: KindText, S: s} }

// TextJSONB in a KindText datum's I marks a jsonb value (its normalised
// text): Compare and Hash order and hash such a datum as jsonb does
// (numbers by value, objects before arrays ...) rather than by bytes.
// Rows, spill files and the wire keep the mark; a cast to text drops it.
const TextJSONB = 1

// NewJSONB returns the jsonb datum whose normalised text is s.
func NewJSONB(s string) Datum { return Datum{Kind: KindText, I: TextJSONB, S: s} }

// IsJSONB reports whether d is a jsonb value (see TextJSONB).
func (d Datum) IsJSONB() bool     { return d.Kind == KindText && d.I == TextJSONB }
func NewBytes(b []byte) Datum     { return Datum{Kind: KindBytes, S: string(b)} }
func NewDate(days int64) Datum    { return Datum{Kind: KindDate, I: days} }
func NewTimestamp(us int64) Datum { return Datum{Kind: KindTimestamp, I: us} }
func NewTime(us int64) Datum      { return Datum{Kind: KindTime, I: us} }

// IsNull reports whether d is NULL.
func (d Datum) IsNull() bool { return d.Kind == KindNull }

// Bool returns the value of a KindBool datum.
func (d Datum) Bool() bool { return d.I != 0 }

// String renders d for debugging and test output (not for the wire: the
// wire server formats values as PostgreSQL does).
func (d Datum) String() string {
	switch d.Kind {
	case KindNull:
		return "NULL"
	case KindBool:
		if d.Bool() {
			return "true"
		}
		return "false"
	case KindInt:
		return strconv.FormatInt(d.I, 10)
	case KindFloat:
		if math.IsInf(d.F, 1) {
			return "Infinity"
		} else if math.IsInf(d.F, -1) {
			return "-Infinity"
		}
		return strconv.FormatFloat(d.F, 'g', -1, 64)
	case KindText:
		return strconv.Quote(d.S)
	case KindBytes:
		return "'\\x" + hexString(d.S) + "'"
	case KindDate:
		return FormatDate(d.I)
	case KindTimestamp:
		return FormatTimestamp(d.I)
	case KindDecimal:
		return d.S
	case KindInterval:
		return FormatInterval(d.Interval())
	case KindTime:
		return FormatTime(d.I)
	case KindRecord:
		fields, err := RecordFields(nil, d)
		if err != nil {
			return "<bad record>"
		}
		b := []byte{'('}
		for i, f := range fields {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, f.String()...)
		}
		return string(append(b, ')'))
	case KindArray:
		elems, err := ArrayElems(nil, d)
		if err != nil {
			return "<bad array>"
		}
		return string(AppendArrayText(nil, ArrayShapeOf(d), func(b []byte, i int) []byte {
			return append(b, elems[i].String()...)
		}))
	}
	return "?"
}

func hexString(s string) string {
	const digits = "0123456789abcdef"
	b := make([]byte, 0, 2*len(s))
	for i := 0; i < len(s); i++ {
		b = append(b, digits[s[i]>>4], digits[s[i]&15])
	}
	return string(b)
}

// ParseUUID reads a UUID as PostgreSQL's uuid_in does: 32 hex digits in
// either case, optionally in braces, optionally with a hyphen after any
// group of four digits; it returns the canonical lower-case
// 8-4-4-4-12 form.
func ParseUUID(s string) (string, bool) {
	if len(s) >= 2 && s[0] == '{' && s[len(s)-1] == '}' {
		s = s[1 : len(s)-1]
	}
	var hex [32]byte
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f':
		case c >= 'A' && c <= 'F':
			c += 'a' - 'A'
		case c == '-' && n > 0 && n%4 == 0 && n < 32 && i+1 < len(s) && s[i+1] != '-':
			continue
		default:
			return "", false
		}
		if n == 32 {
			return "", false
		}
		hex[n] = c
		n++
	}
	if n != 32 {
		return "", false
	}
	h := string(hex[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32], true
}
