package types

import (
	"encoding/binary"
	"errors"
	"math"
)

// Arrays. An array (PostgreSQL's int4[], text[], ..., of up to six
// dimensions, int4[][] being the same type) is the type T{Family: Array,
// Elem: f} with Width and Scale those of its
// elements (varchar(10)[], numeric(10,2)[]); its values are KindArray
// datums whose S holds the elements in the compact form below, so an
// array is as immutable and as cheap to copy as a string.
//
// The form: the element count as a uvarint, then each element as a kind
// byte (KindNull for a NULL element) and its payload: a varint for
// KindBool, KindInt, KindDate, KindTimestamp and KindTime; the 8 bytes of
// the float's bits for KindFloat; a uvarint length and the bytes for
// KindText, KindBytes and KindDecimal; both (I, then S) for KindInterval.
//
// That form is a one-dimensional array whose lower bound is 1 (or the
// empty array, which has no dimensions): what every array was before
// kvsql had more. Any other shape (PostgreSQL's '{{1,2},{3,4}}' or
// '[0:2]={1,2,3}') is preceded by a header: the bytes 0x80 0x00 (a
// uvarint zero written in two bytes, which AppendUvarint never writes, so
// no element count starts that way), the dimension count as a uvarint,
// and for each dimension its length as a uvarint and its lower bound as
// a varint. The elements follow in the form above, in row-major order.

// ArrayOf is the type of arrays of elem.
func ArrayOf(elem T) T {
	return T{Family: Array, Elem: elem.Family, Width: elem.Width, Scale: elem.Scale, Comp: elem.Comp, Enum: elem.Enum}
}

// ElemType is the element type of the array type t.
func (t T) ElemType() T {
	return T{Family: t.Elem, Width: t.Width, Scale: t.Scale, Comp: t.Comp, Enum: t.Enum}
}

// IsArray reports whether t is an array type.
func (t T) IsArray() bool { return t.Family == Array }

// arrayOIDs are the OIDs of PostgreSQL's array types by element family.
var arrayOIDs = map[Family]uint32{
	Bool: 1000, Bytea: 1001, Char: 1014, Int2: 1005, Int4: 1007, Text: 1009,
	Varchar: 1015, Int8: 1016, Float4: 1021, Float8: 1022, Timestamp: 1115,
	Date: 1182, TimestampTZ: 1185, Numeric: 1231, UUID: 2951, JSON: 199, JSONB: 3807,
	Interval: 1187, Time: 1183, Inet: 1041, Cidr: 651,
	Int2Vector: 1006, OidVector: 1013, TimeTZ: 1270, Record: 2287,
	Unknown: 1009, // an array of untyped literals is text[] once resolved
}

// OID is the PostgreSQL type OID of t (for an array, its array type's).
func (t T) OID() uint32 {
	if t.Comp != nil {
		if t.Family == Array {
			return t.Comp.ArrayOID
		}
		return t.Comp.OID
	}
	if t.Enum != nil {
		if t.Family == Array {
			return t.Enum.ArrayOID
		}
		return t.Enum.OID
	}
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

// MaxArrayDims is PostgreSQL's MAXDIM: an array has at most six
// dimensions.
const MaxArrayDims = 6

// MaxArrayElems is PostgreSQL's MaxArraySize: an array holds fewer than
// 2^27 elements (54000 "array size exceeds the maximum allowed").
const MaxArrayElems = 1<<27 - 1

// ArrayShape is the dimensions of an array: Lens[i] elements along
// dimension i, subscripted from Lower[i]. The empty array has no
// dimensions.
type ArrayShape struct {
	Lens, Lower []int
}

// Count is the number of elements an array of shape s holds.
func (s ArrayShape) Count() int {
	if len(s.Lens) == 0 {
		return 0
	}
	n := 1
	for _, l := range s.Lens {
		if n *= l; n > MaxArrayElems {
			return MaxArrayElems + 1 // no valid array is this large
		}
	}
	return n
}

// Vector is the shape of a one-dimensional array of n elements from 1.
func Vector(n int) ArrayShape {
	if n == 0 {
		return ArrayShape{}
	}
	return ArrayShape{Lens: []int{n}, Lower: []int{1}}
}

// plain reports whether s needs no header: one dimension from 1, or none.
func (s ArrayShape) plain() bool {
	return len(s.Lens) == 0 || len(s.Lens) == 1 && s.Lower[0] == 1
}

// NewArray makes a one-dimensional array datum of elems (lower bound 1).
func NewArray(elems []Datum) Datum {
	return Datum{Kind: KindArray, S: string(AppendArray(nil, elems))}
}

// NewArrayShaped makes an array datum of elems (row-major) with shape s;
// len(elems) must be s.Count(). An array with no elements is the empty
// array, whatever s says, as in PostgreSQL.
func NewArrayShaped(elems []Datum, s ArrayShape) Datum {
	if len(elems) == 0 || s.plain() {
		return NewArray(elems)
	}
	b := append([]byte(nil), arrayHeader...)
	b = binary.AppendUvarint(b, uint64(len(s.Lens)))
	for i, l := range s.Lens {
		b = binary.AppendUvarint(b, uint64(l))
		b = binary.AppendVarint(b, int64(s.Lower[i]))
	}
	return Datum{Kind: KindArray, S: string(AppendArray(b, elems))}
}

// arrayHeader starts an array with a shape header (see the top of the
// file): a uvarint zero in two bytes.
const arrayHeader = "\x80\x00"

// ArrayShapeOf is the shape of the array datum d.
func ArrayShapeOf(d Datum) ArrayShape {
	s, _, ok := splitArrayHeader(d.S)
	if !ok {
		return ArrayShape{}
	}
	return s
}

// splitArrayHeader reads an encoded array's shape and returns the rest
// (the element count and elements); ok is false for a malformed header.
func splitArrayHeader(s string) (ArrayShape, string, bool) {
	if len(s) < 2 || s[:2] != arrayHeader {
		return Vector(ArrayLenString(s)), s, true
	}
	s = s[2:]
	n, w := uvarint(s)
	if w <= 0 || n == 0 || n > MaxArrayDims {
		return ArrayShape{}, "", false
	}
	s = s[w:]
	sh := ArrayShape{Lens: make([]int, n), Lower: make([]int, n)}
	for i := range sh.Lens {
		l, w := uvarint(s)
		if w <= 0 || l == 0 || l > uint64(len(s)) {
			return ArrayShape{}, "", false
		}
		s = s[w:]
		lb, w := varint(s)
		if w <= 0 || lb < math.MinInt32 || lb > math.MaxInt32 {
			return ArrayShape{}, "", false
		}
		s = s[w:]
		sh.Lens[i], sh.Lower[i] = int(l), int(lb)
	}
	if sh.plain() {
		return ArrayShape{}, "", false // written without the header
	}
	return sh, s, true
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
		case KindText, KindBytes, KindDecimal, KindArray, KindRecord:
			b = binary.AppendUvarint(b, uint64(len(e.S)))
			b = append(b, e.S...)
		}
	}
	return b
}

var errBadArray = errors.New("types: malformed array value")

// ArrayLen is the number of elements of the array datum d.
func ArrayLen(d Datum) int {
	s, ok := arrayBody(d.S)
	if !ok {
		return 0
	}
	return ArrayLenString(s)
}

// arrayBody is the element count and elements of an encoded array, past
// any shape header, read without building the shape.
func arrayBody(s string) (string, bool) {
	if len(s) < 2 || s[:2] != arrayHeader {
		return s, true
	}
	_, rest, ok := splitArrayHeader(s)
	return rest, ok
}

// ArrayLenString is the element count at the start of s.
func ArrayLenString(s string) int {
	n, w := uvarint(s)
	if w <= 0 {
		return 0
	}
	return int(n)
}

// ArrayElems decodes the elements of the array datum d in row-major
// order, appending them to dst.
func ArrayElems(dst []Datum, d Datum) ([]Datum, error) {
	s, ok := arrayBody(d.S)
	if !ok {
		return dst, errBadArray
	}
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
		case KindText, KindBytes, KindDecimal, KindArray, KindRecord:
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
	shape, s, ok := splitArrayHeader(s)
	if !ok {
		return false
	}
	n, w := uvarint(s)
	if w <= 0 || n > uint64(len(s)) || n != uint64(shape.Count()) || n == 0 && len(shape.Lens) > 0 {
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
		case KindText, KindBytes, KindDecimal, KindArray, KindRecord:
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
