package encoding

import (
	"encoding/binary"
	"math"

	"github.com/kvsql/kvsql/types"
)

// RowField is one column of a row value as DecodeRowFields reads it,
// without allocating: B aliases the row value's bytes and is valid only
// as long as they are. Kind is the datum kind the column would decode to
// (KindNull for a NULL); JSONB marks a jsonb text. Intervals are not
// decoded (their kind is reported and their body skipped): batch readers
// do not carry them.
type RowField struct {
	Kind  types.Kind
	JSONB bool
	I     int64   // bool (0 or 1), integers, dates, timestamps, times
	F     float64 // floats
	B     []byte  // text, bytes, numeric text, arrays, records
}

// DecodeRowFields is DecodeRow for batch readers: for each colIDs[j]
// (strictly ascending) present in b it sets out[j] and present[j]; an
// absent column (added after the row was written) gets present[j] =
// false and out[j] untouched. Unlike DecodeRow it allocates nothing.
// Decimal, array and record bodies are checked as DecodeRow checks them.
func DecodeRowFields(b []byte, colIDs []uint32, out []RowField, present []bool) error {
	for j := range colIDs {
		present[j] = false
	}
	next, j := uint64(0), 0
	for len(b) > 0 && j < len(colIDs) {
		var rest []byte
		var id uint64
		var tag uint8
		var err error
		if h := b[0]; h < 0x80 {
			// The common one-byte header (a gap below 8): no call.
			rest, id, tag = b[1:], next+uint64(h>>rowTagBits), h&rowTagMask
			if id > math.MaxUint32 {
				return corruptf("row: column ID %d out of range", id)
			}
		} else if rest, id, tag, err = decodeRowHeader(b, next); err != nil {
			return err
		}
		next = id + 1
		for j < len(colIDs) && uint64(colIDs[j]) < id {
			j++
		}
		if j < len(colIDs) && uint64(colIDs[j]) == id {
			b, err = decodeRowField(rest, tag, &out[j])
			present[j] = true
			j++
		} else {
			b, err = skipRowBody(rest, tag)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// skipRowBody returns b past the body of a column with the given tag, as
// decodeRowBody(b, tag, nil, "") does, without building the value: a column
// the reader does not want costs a length read.
func skipRowBody(b []byte, tag uint8) ([]byte, error) {
	switch tag {
	case rowNull, rowFalse, rowTrue:
		return b, nil
	case rowInt, rowDate, rowTimestamp, rowTime:
		// One to three bytes in shortest form (a last byte of 0 is not)
		// without readUvarint's loop: most integers of a row.
		switch {
		case len(b) > 0 && b[0] < 0x80:
			return b[1:], nil
		case len(b) > 1 && b[1] < 0x80 && b[1] != 0:
			return b[2:], nil
		case len(b) > 2 && b[1] >= 0x80 && b[2] < 0x80 && b[2] != 0:
			return b[3:], nil
		}
		if _, n := readUvarint(b); n > 0 {
			return b[n:], nil
		}
		return nil, corruptf("row: bad integer")
	case rowFloat:
		if len(b) < 8 {
			return nil, corruptf("row: float needs 8 bytes, have %d", len(b))
		}
		return b[8:], nil
	case rowText, rowBytes, rowDecimal, rowArray, rowRecord, rowJSONB:
		l, n := readUvarint(b)
		if n <= 0 || l > uint64(len(b)-n) {
			return nil, corruptf("row: bad string length")
		}
		return b[n+int(l):], nil
	}
	return decodeRowBody(b, tag, nil, "") // intervals; unknown tags fail there
}

// decodeRowField reads the body of a column with the given tag into *f.
func decodeRowField(b []byte, tag uint8, f *RowField) ([]byte, error) {
	*f = RowField{}
	switch tag {
	case rowNull:
	case rowFalse:
		f.Kind = types.KindBool
	case rowTrue:
		f.Kind, f.I = types.KindBool, 1
	case rowInt, rowDate, rowTimestamp, rowTime:
		u, n := readUvarint(b)
		if n <= 0 {
			return nil, corruptf("row: bad integer")
		}
		switch tag {
		case rowInt:
			f.Kind = types.KindInt
		case rowDate:
			f.Kind = types.KindDate
		case rowTimestamp:
			f.Kind = types.KindTimestamp
		default:
			f.Kind = types.KindTime
		}
		f.I = unzigzag(u)
		b = b[n:]
	case rowFloat:
		if len(b) < 8 {
			return nil, corruptf("row: float needs 8 bytes, have %d", len(b))
		}
		f.Kind, f.F = types.KindFloat, math.Float64frombits(binary.LittleEndian.Uint64(b))
		b = b[8:]
	case rowInterval:
		f.Kind = types.KindInterval
		return decodeRowBody(b, tag, nil, "")
	case rowText, rowBytes, rowDecimal, rowArray, rowRecord, rowJSONB:
		l, n := readUvarint(b)
		if n <= 0 || l > uint64(len(b)-n) {
			return nil, corruptf("row: bad string length")
		}
		end := n + int(l)
		f.B = b[n:end:end]
		switch tag {
		case rowBytes:
			f.Kind = types.KindBytes
		case rowDecimal:
			f.Kind = types.KindDecimal
			if !types.IsDecimalText(string(f.B)) {
				return nil, corruptf("row: bad decimal %q", f.B)
			}
		case rowArray, rowRecord:
			f.Kind = types.KindArray
			if tag == rowRecord {
				f.Kind = types.KindRecord
			}
			if !types.ArrayValid(string(f.B)) {
				return nil, corruptf("row: bad array")
			}
		default:
			f.Kind, f.JSONB = types.KindText, tag == rowJSONB
		}
		b = b[end:]
	default:
		return nil, corruptf("row: unknown value tag %d", tag)
	}
	return b, nil
}
