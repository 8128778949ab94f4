package encoding

import (
	"fmt"

	"github.com/kvsql/kvsql/types"
)

// EncodeKeyDatum appends the tagged, order-preserving encoding of d in
// direction dir to b and returns the extended slice. For two datums x, y
// of the same kind (or NULL) encoded in the same direction, bytes.Compare
// of the encodings agrees with the SQL order of x and y in that direction
// (NULL last ascending, first descending), and neither encoding is a
// proper prefix of the other. Appending into a buffer with enough capacity
// does not allocate.
//
// Any dir other than Descending encodes ascending.
//
// d must have a valid Kind (types.KindNull through types.KindArray);
// any other kind is a programming error and panics.
func EncodeKeyDatum(b []byte, d types.Datum, dir Direction) []byte {
	start := len(b)
	b = appendKeyAsc(b, d)
	if dir == Descending {
		invert(b[start:])
	}
	return b
}

// appendKeyAsc appends the ascending encoding of d.
func appendKeyAsc(b []byte, d types.Datum) []byte {
	switch d.Kind {
	case types.KindNull:
		return append(b, tagNull)
	case types.KindBool:
		if d.I != 0 {
			return append(b, tagTrue)
		}
		return append(b, tagFalse)
	case types.KindInt:
		return appendIntAsc(b, d.I)
	case types.KindFloat:
		return appendFloatBody(append(b, tagFloat), d.F)
	case types.KindText:
		if d.I == types.TextJSONB {
			// Equal jsonb values are one key (1.0 and 1).
			return appendEscaped(append(b, tagText), types.JSONBKeyText(d.S))
		}
		return appendEscaped(append(b, tagText), d.S)
	case types.KindBytes:
		return appendEscaped(append(b, tagBytes), d.S)
	case types.KindDate:
		return appendIntAsc(append(b, tagDate), d.I)
	case types.KindTimestamp:
		return appendIntAsc(append(b, tagTimestamp), d.I)
	case types.KindDecimal:
		return appendDecimalAsc(b, d)
	case types.KindInterval:
		return appendIntervalAsc(b, d.Interval())
	case types.KindTime:
		return appendIntAsc(append(b, tagTime), d.I)
	case types.KindArray:
		return appendArrayAsc(b, d)
	}
	panic(fmt.Sprintf("encoding: cannot encode datum of kind %v", d.Kind))
}

// invert complements b in place, turning an ascending encoding into a
// descending one.
func invert(b []byte) {
	for i := range b {
		b[i] = ^b[i]
	}
}

// DecodeKeyDatum decodes one tagged value from the start of b, reading its
// direction from the tag, and returns the bytes after it. Text and bytes
// values are copied into a new string; nothing else allocates. On invalid
// input (empty, truncated, unknown tag, non-canonical form) it returns an
// error wrapping ErrCorrupt with code XX001, a nil rest and a NULL datum.
func DecodeKeyDatum(b []byte) (rest []byte, d types.Datum, dir Direction, err error) {
	if len(b) == 0 {
		return nil, types.Null, Ascending, corruptf("key value: empty input")
	}
	t, mask := b[0], byte(0)
	if t&descBit != 0 {
		t, mask, dir = ^t, maskDesc, Descending
	}
	b = b[1:]
	switch {
	case t == tagNull:
		return b, types.Null, dir, nil
	case t == tagFalse:
		return b, types.NewBool(false), dir, nil
	case t == tagTrue:
		return b, types.NewBool(true), dir, nil
	case isIntTag(t):
		rest, d.I, err = decodeIntBody(t, b, mask)
		d.Kind = types.KindInt
	case t == tagFloat:
		rest, d.F, err = decodeFloatBody(b, mask)
		d.Kind = types.KindFloat
	case t == tagText, t == tagBytes:
		rest, d.S, err = decodeEscaped(b, mask)
		d.Kind = types.KindText
		if t == tagBytes {
			d.Kind = types.KindBytes
		}
	case t == tagInterval:
		rest, d, err = decodeIntervalBody(b, mask)
	case t == tagDate, t == tagTimestamp, t == tagTime:
		if len(b) == 0 || !isIntTag(b[0]^mask) {
			return nil, types.Null, dir, corruptf("date/timestamp: missing int body")
		}
		rest, d.I, err = decodeIntBody(b[0]^mask, b[1:], mask)
		switch t {
		case tagDate:
			d.Kind = types.KindDate
		case tagTimestamp:
			d.Kind = types.KindTimestamp
		default:
			d.Kind = types.KindTime
		}
	case t == tagDecNegInf, t == tagDecNeg, t == tagDecZero, t == tagDecPos, t == tagDecPosInf, t == tagDecNaN:
		rest, d, err = decodeDecimalBody(t, b, mask)
	case t == tagArray:
		rest, d, err = decodeArrayBody(b, mask)
	default:
		return nil, types.Null, dir, corruptf("key value: unknown tag 0x%02x", t^mask)
	}
	if err != nil {
		return nil, types.Null, dir, err
	}
	return rest, d, dir, nil
}

// DecodeKeyInt is DecodeKeyDatum for a value its caller expects to be an
// integer (an int key column of a batch scan), without building a Datum:
// ok is false, and nothing is read, when b does not start with an integer
// tag of either direction; the caller then decodes it with DecodeKeyDatum.
func DecodeKeyInt(b []byte) (rest []byte, v int64, ok bool, err error) {
	if len(b) == 0 {
		return nil, 0, false, nil
	}
	t, mask := b[0], byte(0)
	if t&descBit != 0 {
		t, mask = ^t, maskDesc
	}
	if !isIntTag(t) {
		return nil, 0, false, nil
	}
	rest, v, err = decodeIntBody(t, b[1:], mask)
	return rest, v, err == nil, err
}

// EncodeKey appends a whole key to b: the key space as EncodeUvarintAsc,
// then each of vals as EncodeKeyDatum. vals[i] uses dirs[i] when i <
// len(dirs) and Ascending otherwise, so nil dirs means all ascending.
// Keys built this way compare under bytes.Compare as their tuples compare
// column by column, and a key sorts before every key it is a prefix of.
func EncodeKey(b []byte, space uint64, vals []types.Datum, dirs []Direction) []byte {
	b = EncodeUvarintAsc(b, space)
	for i := range vals {
		dir := Ascending
		if i < len(dirs) {
			dir = dirs[i]
		}
		b = EncodeKeyDatum(b, vals[i], dir)
	}
	return b
}

// DecodeKey decodes a key written by EncodeKey into its space and values.
// The directions are not returned; use DecodeKeyDatum for them. Every byte
// of b must belong to a value.
func DecodeKey(b []byte) (space uint64, vals []types.Datum, err error) {
	// Every value takes at least one byte; most keys have few columns.
	return DecodeKeyAppend(b, make([]types.Datum, 0, min(len(b), 8)))
}

// DecodeKeyAppend is DecodeKey appending the values to vals (which may be a
// reused slice with its length set to 0), so that decoding a key into a
// buffer of sufficient capacity allocates only for text and bytes values.
// On error the returned slice holds the values decoded before the error.
func DecodeKeyAppend(b []byte, vals []types.Datum) (space uint64, out []types.Datum, err error) {
	b, space, err = DecodeUvarintAsc(b)
	if err != nil {
		return 0, vals, err
	}
	for len(b) > 0 { // each iteration consumes at least one byte
		var d types.Datum
		b, d, _, err = DecodeKeyDatum(b)
		if err != nil {
			return space, vals, err
		}
		vals = append(vals, d)
	}
	return space, vals, nil
}

// PrefixEnd returns the smallest key that is greater than every key that
// starts with prefix: prefix with its trailing 0xFF bytes removed and its
// last byte incremented. It returns nil (no upper bound) when prefix is
// empty or all 0xFF. The result never shares memory with prefix.
//
// With it, a scan over exactly the keys of one space, or of one value of
// the leading columns, is [prefix, PrefixEnd(prefix)).
func PrefixEnd(prefix []byte) []byte {
	for i := len(prefix) - 1; i >= 0; i-- {
		if prefix[i] != 0xff {
			end := make([]byte, i+1)
			copy(end, prefix)
			end[i]++
			return end
		}
	}
	return nil
}
