package types

import (
	"encoding/binary"
	"errors"
	"math"
)

// Arrays. A one-dimensional array (PostgreSQL's int4[], text[], ...) is
// the type T{Family: Array, Elem: f} with Width and Scale those of its
// elements (varchar(10)[], numeric(10,2)[]); its values are KindArray
// datums whose S holds the elements in the compact form below, so an
// array is as immutable and as cheap to copy as a string.
//
// The form: the element count as a uvarint, then each element as a kind
// byte (KindNull for a NULL element) and its payload: a varint for
// KindBool, KindInt, KindDate, KindTimestamp and KindTime; the 8 bytes of
// the float's bits for KindFloat; a uvarint length and the bytes for
// KindText, KindBytes and KindDecimal; both (I, then S) for KindInterval.

// ArrayOf is the type of arrays of elem.
func ArrayOf(elem T) T {
	return T{Family: Array, Elem: elem.Family, Width: elem.Width, Scale: elem.Scale}
}

// ElemType is the element type of the array type t.
func (t T) ElemType() T { return T{Family: t.Elem, Width: t.Width, Scale: t.Scale} }

// IsArray reports whether t is an array type.
func (t T) IsArray() bool { return t.Family == Array }

// arrayOIDs are the OIDs of PostgreSQL's array types by element family.
var arrayOIDs = map[Family]uint32{
	Bool: 1000, Bytea: 1001, Char: 1014, Int2: 1005, Int4: 1007, Text: 1009,
	Varchar: 1015, Int8: 1016, Float4: 1021, Float8: 1022, Timestamp: 1115,
	Date: 1182, TimestampTZ: 1185, Numeric: 1231, UUID: 2951, JSON: 199, JSONB: 3807,
	Interval: 1187, Time: 1183,
	Unknown: 1009, // an array of untyped literals is text[] once resolved
}

// OID is the PostgreSQL type OID of t (for an array, its array type's).
func (t T) OID() uint32 {
	if t.Family == Array {
		return arrayOIDs[t.Elem]
	}
	return t.Family.OID()
}

// ArrayOID is the OID of the array type whose elements are f, 0 if
// PostgreSQL has none kvsql supports.
func ArrayOID(f Family) uint32 {
	if f == Unknown || f == Array {
		return 0
	}
	return arrayOIDs[f]
}

// TypeByOID returns the type with the given PostgreSQL OID: a scalar
// family or an array of one.
func TypeByOID(oid uint32) (T, bool) {
	if f, ok := FamilyByOID(oid); ok {
		return T{Family: f}, true
	}
	for f, o := range arrayOIDs {
		if o == oid && f != Unknown {
			return T{Family: Array, Elem: f}, true
		}
	}
	return T{}, false
}

// NewArray makes an array datum of elems.
func NewArray(elems []Datum) Datum {
	return Datum{Kind: KindArray, S: string(AppendArray(nil, elems))}
}

// AppendArray appends the encoded form of elems to b.
func AppendArray(b []byte, elems []Datum) []byte {
	b = binary.AppendUvarint(b, uint64(len(elems)))
	for _, e := range elems {
		b = append(b, byte(e.Kind))
		switch e.Kind {
		case KindBool, KindInt, KindDate, KindTimestamp, KindTime:
			b = binary.AppendVarint(b, e.I)
		case KindFloat:
			b = binary.BigEndian.AppendUint64(b, math.Float64bits(e.F))
		case KindInterval:
			b = binary.AppendVarint(b, e.I)
			fallthrough
		case KindText, KindBytes, KindDecimal, KindArray:
			b = binary.AppendUvarint(b, uint64(len(e.S)))
			b = append(b, e.S...)
		}
	}
	return b
}

var errBadArray = errors.New("types: malformed array value")

// ArrayLen is the number of elements of the array datum d.
func ArrayLen(d Datum) int {
	n, w := binary.Uvarint([]byte(d.S[:min(len(d.S), binary.MaxVarintLen64)]))
	if w <= 0 {
		return 0
	}
	return int(n)
}

// ArrayElems decodes the elements of the array datum d, appending them to
// dst.
func ArrayElems(dst []Datum, d Datum) ([]Datum, error) {
	s := d.S
	n, w := uvarint(s)
	if w <= 0 || n > uint64(len(s)) {
		return dst, errBadArray
	}
	s = s[w:]
	for ; n > 0; n-- {
		if len(s) == 0 {
			return dst, errBadArray
		}
		e := Datum{Kind: Kind(s[0])}
		s = s[1:]
		switch e.Kind {
		case KindNull:
		case KindBool, KindInt, KindDate, KindTimestamp, KindTime, KindInterval:
			v, w := varint(s)
			if w <= 0 {
				return dst, errBadArray
			}
			e.I, s = v, s[w:]
			if e.Kind != KindInterval {
				break
			}
			l, w := uvarint(s)
			if w <= 0 || l > uint64(len(s)-w) {
				return dst, errBadArray
			}
			e.S, s = s[w:w+int(l)], s[w+int(l):]
		case KindFloat:
			if len(s) < 8 {
				return dst, errBadArray
			}
			e.F, s = math.Float64frombits(binary.BigEndian.Uint64([]byte(s[:8]))), s[8:]
		case KindText, KindBytes, KindDecimal, KindArray:
			l, w := uvarint(s)
			if w <= 0 || l > uint64(len(s)-w) {
				return dst, errBadArray
			}
			e.S, s = s[w:w+int(l)], s[w+int(l):]
		default:
			return dst, errBadArray
		}
		dst = append(dst, e)
	}
	if len(s) != 0 {
		return dst, errBadArray
	}
	return dst, nil
}

// uvarint and varint read from a string without converting it.
func uvarint(s string) (uint64, int) {
	var x uint64
	var sh uint
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		c := s[i]
		if c < 0x80 {
			return x | uint64(c)<<sh, i + 1
		}
		x |= uint64(c&0x7f) << sh
		sh += 7
	}
	return 0, 0
}

func varint(s string) (int64, int) {
	u, n := uvarint(s)
	x := int64(u >> 1)
	if u&1 != 0 {
		x = ^x
	}
	return x, n
}

// ArrayValid reports whether s is a well-formed encoded array (what a row
// decoder checks before handing it on), without allocating.
func ArrayValid(s string) bool {
	n, w := uvarint(s)
	if w <= 0 || n > uint64(len(s)) {
		return false
	}
	s = s[w:]
	for ; n > 0; n-- {
		if len(s) == 0 {
			return false
		}
		k := Kind(s[0])
		s = s[1:]
		switch k {
		case KindNull:
		case KindBool, KindInt, KindDate, KindTimestamp, KindTime, KindInterval:
			_, w := varint(s)
			if w <= 0 {
				return false
			}
			s = s[w:]
			if k == KindInterval {
				l, w := uvarint(s)
				if w <= 0 || l > uint64(len(s)-w) {
					return false
				}
				s = s[w+int(l):]
			}
		case KindFloat:
			if len(s) < 8 {
				return false
			}
			s = s[8:]
		case KindText, KindBytes, KindDecimal, KindArray:
			l, w := uvarint(s)
			if w <= 0 || l > uint64(len(s)-w) {
				return false
			}
			s = s[w+int(l):]
		default:
			return false
		}
	}
	return len(s) == 0
}

// KeyExact reports whether a value of type t read back from its key
// encoding is the value written: not for NUMERIC (the key holds the
// number, not its display scale: 1.50 keys as 1.5), arrays (whose
// elements may be NUMERIC) nor jsonb (whose key drops its numbers'
// trailing zeros, types.JSONBKeyText). Columns of other types are read
// from keys by index-only scans; these are kept in the master value too.
func (t T) KeyExact() bool { return t.Family != Numeric && t.Family != Array && t.Family != JSONB }
