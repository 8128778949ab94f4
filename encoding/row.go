package encoding

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// Row value tags (the low 4 bits of each column header). Unlike key tags
// they need not sort; they only name the kind of the body that follows.
const (
	rowNull      = 0  // no body
	rowFalse     = 1  // no body
	rowTrue      = 2  // no body
	rowInt       = 3  // zigzag uvarint
	rowFloat     = 4  // 8 bytes, IEEE bits little-endian (exact, -0 and NaN kept)
	rowText      = 5  // uvarint length + bytes
	rowBytes     = 6  // uvarint length + bytes
	rowDate      = 7  // zigzag uvarint
	rowTimestamp = 8  // zigzag uvarint
	rowDecimal   = 9  // uvarint length + the value's text ("101.50")
	rowInterval  = 10 // zigzag uvarints: microseconds, days, months
	rowTime      = 11 // zigzag uvarint
	rowJSONB     = 12 // uvarint length + a jsonb value's normalised text
	rowRecord    = 13 // uvarint length + the fields (types.NewRecord)
	rowArray     = 15 // uvarint length + the elements (types.AppendArray)
	rowTagBits   = 4
	rowTagMask   = 1<<rowTagBits - 1
)

// EncodeRow appends a row value to b: for each column, in order, a header
// uvarint (gap<<4 | tag) and the value's body, where gap is the column ID
// minus the previous column ID minus one (the first column's gap is its
// ID). A NULL costs one byte when the gap is below 8. Columns not listed
// are absent, which readers distinguish from NULL.
//
// colIDs must be strictly ascending and as long as vals, and each datum
// must have a valid kind; violating this is a programming error and
// panics. Appending into a buffer with enough capacity does not allocate.
func EncodeRow(b []byte, colIDs []uint32, vals []types.Datum) []byte {
	if len(colIDs) != len(vals) {
		panic(fmt.Sprintf("encoding.EncodeRow: %d column IDs for %d values", len(colIDs), len(vals)))
	}
	next := uint64(0) // smallest ID the next column may have
	for i, id := range colIDs {
		if uint64(id) < next {
			panic(fmt.Sprintf("encoding.EncodeRow: column IDs not strictly ascending at %d", id))
		}
		gap := uint64(id) - next
		next = uint64(id) + 1
		d := vals[i]
		switch d.Kind {
		case types.KindNull:
			b = appendUvarint(b, gap<<rowTagBits|rowNull)
		case types.KindBool:
			tag := uint64(rowFalse)
			if d.I != 0 {
				tag = rowTrue
			}
			b = appendUvarint(b, gap<<rowTagBits|tag)
		case types.KindInt:
			b = appendUvarint(appendUvarint(b, gap<<rowTagBits|rowInt), zigzag(d.I))
		case types.KindFloat:
			b = appendUvarint(b, gap<<rowTagBits|rowFloat)
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(d.F))
		case types.KindText, types.KindBytes, types.KindDecimal, types.KindArray, types.KindRecord:
			tag := uint64(rowText)
			switch d.Kind {
			case types.KindBytes:
				tag = rowBytes
			case types.KindDecimal:
				tag = rowDecimal
			case types.KindArray:
				tag = rowArray
			case types.KindRecord:
				tag = rowRecord
			default:
				if d.I == types.TextJSONB {
					tag = rowJSONB
				}
			}
			b = appendUvarint(b, gap<<rowTagBits|tag)
			b = appendUvarint(b, uint64(len(d.S)))
			b = append(b, d.S...)
		case types.KindDate:
			b = appendUvarint(appendUvarint(b, gap<<rowTagBits|rowDate), zigzag(d.I))
		case types.KindTimestamp:
			b = appendUvarint(appendUvarint(b, gap<<rowTagBits|rowTimestamp), zigzag(d.I))
		case types.KindTime:
			b = appendUvarint(appendUvarint(b, gap<<rowTagBits|rowTime), zigzag(d.I))
		case types.KindInterval:
			iv := d.Interval()
			b = appendUvarint(appendUvarint(b, gap<<rowTagBits|rowInterval), zigzag(iv.Micros))
			b = appendUvarint(appendUvarint(b, zigzag(int64(iv.Days))), zigzag(int64(iv.Months)))
		default:
			panic(fmt.Sprintf("encoding.EncodeRow: cannot encode datum of kind %v", d.Kind))
		}
	}
	return b
}

// DecodeRow reads the columns colIDs (strictly ascending) from the row
// value b. For each colIDs[i] present in b it sets out[i], NULL included;
// for an ID absent from b (a column added after the row was written) it
// leaves out[i] untouched, so the caller pre-fills defaults. Columns in b
// that are not requested are skipped.
//
// It allocates only the strings of requested text and bytes values.
// Decoding stops once every requested ID has been passed, so corruption
// after that point goes unnoticed; DecodeRowAll checks a whole value. On
// invalid bytes it returns an error wrapping ErrCorrupt (XX001); out may
// then be partly filled. len(out) < len(colIDs) is an error (XX000).
func DecodeRow(b []byte, colIDs []uint32, out []types.Datum) error {
	if len(out) < len(colIDs) {
		return pgerror.Newf(pgerror.Internal, "encoding.DecodeRow: %d outputs for %d columns", len(out), len(colIDs))
	}
	return decodeRow(b, colIDs, nil, out)
}

// DecodeRowInto is DecodeRow writing column colIDs[j] to out[ords[j]]
// instead of out[j]: a reader decodes straight into a table-width row.
func DecodeRowInto(b []byte, colIDs []uint32, ords []int, out []types.Datum) error {
	if len(ords) != len(colIDs) {
		return pgerror.Newf(pgerror.Internal, "encoding.DecodeRowInto: %d ordinals for %d columns", len(ords), len(colIDs))
	}
	for _, o := range ords {
		if o < 0 || o >= len(out) {
			return pgerror.Newf(pgerror.Internal, "encoding.DecodeRowInto: ordinal %d of a %d-column row", o, len(out))
		}
	}
	return decodeRow(b, colIDs, ords, out)
}

// decodeRow decodes the columns colIDs of b into out[ords[j]] (out[j]
// when ords is nil).
func decodeRow(b []byte, colIDs []uint32, ords []int, out []types.Datum) error {
	next, j := uint64(0), 0
	for len(b) > 0 && j < len(colIDs) { // each iteration consumes at least one byte
		rest, id, tag, err := decodeRowHeader(b, next)
		if err != nil {
			return err
		}
		next = id + 1
		for j < len(colIDs) && uint64(colIDs[j]) < id {
			j++
		}
		if j < len(colIDs) && uint64(colIDs[j]) == id {
			dst := &out[j]
			if ords != nil {
				dst = &out[ords[j]]
			}
			b, err = decodeRowBody(rest, tag, dst, "")
			j++
		} else {
			b, err = decodeRowBody(rest, tag, nil, "")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// DecodeRowAll decodes every column of the row value b, checking all of
// it. It is meant for tools, tests and the pretty-printer; the read path
// uses DecodeRow.
func DecodeRowAll(b []byte) (colIDs []uint32, vals []types.Datum, err error) {
	next := uint64(0)
	for len(b) > 0 {
		rest, id, tag, err := decodeRowHeader(b, next)
		if err != nil {
			return colIDs, vals, err
		}
		next = id + 1
		var d types.Datum
		b, err = decodeRowBody(rest, tag, &d, "")
		if err != nil {
			return colIDs, vals, err
		}
		colIDs = append(colIDs, uint32(id))
		vals = append(vals, d)
	}
	return colIDs, vals, nil
}

// decodeRowHeader reads one column header; next is the smallest ID the
// column may have.
func decodeRowHeader(b []byte, next uint64) (rest []byte, id uint64, tag uint8, err error) {
	h, n := readUvarint(b)
	if n <= 0 {
		return nil, 0, 0, corruptf("row: bad column header")
	}
	id = next + h>>rowTagBits // h>>4 < 2^60 and next <= 2^32: no overflow
	if id > math.MaxUint32 {
		return nil, 0, 0, corruptf("row: column ID %d out of range", id)
	}
	return b[n:], id, uint8(h & rowTagMask), nil
}

// decodeRowBody reads the body of a column with the given tag into *dst,
// or only skips it (no allocation) when dst is nil. On error *dst is left
// unchanged. A string-like value (text, bytes, numeric, array, record,
// jsonb) is a copy of its bytes, or, when src is not empty, a substring
// of src: src is then the whole buffer b is a suffix of, as a string
// (DecodeRowColsShared).
func decodeRowBody(b []byte, tag uint8, dst *types.Datum, src string) (rest []byte, err error) {
	var d types.Datum
	switch tag {
	case rowNull:
	case rowFalse:
		d = types.NewBool(false)
	case rowTrue:
		d = types.NewBool(true)
	case rowInterval:
		var v [3]int64
		for i := range v {
			u, n := readUvarint(b)
			if n <= 0 {
				return nil, corruptf("row: bad interval")
			}
			v[i] = unzigzag(u)
			b = b[n:]
		}
		if v[1] != int64(int32(v[1])) || v[2] != int64(int32(v[2])) {
			return nil, corruptf("row: interval days or months out of range")
		}
		d = types.NewInterval(types.IntervalValue{Micros: v[0], Days: int32(v[1]), Months: int32(v[2])})
	case rowInt, rowDate, rowTimestamp, rowTime:
		u, n := readUvarint(b)
		if n <= 0 {
			return nil, corruptf("row: bad integer")
		}
		d.Kind = types.KindInt
		if tag == rowDate {
			d.Kind = types.KindDate
		} else if tag == rowTimestamp {
			d.Kind = types.KindTimestamp
		} else if tag == rowTime {
			d.Kind = types.KindTime
		}
		d.I = unzigzag(u)
		b = b[n:]
	case rowFloat:
		if len(b) < 8 {
			return nil, corruptf("row: float needs 8 bytes, have %d", len(b))
		}
		d = types.NewFloat(math.Float64frombits(binary.LittleEndian.Uint64(b)))
		b = b[8:]
	case rowText, rowBytes, rowDecimal, rowArray, rowRecord, rowJSONB:
		l, n := readUvarint(b)
		if n <= 0 || l > uint64(len(b)-n) {
			return nil, corruptf("row: bad string length")
		}
		end := n + int(l)
		if dst != nil {
			d.Kind = types.KindText
			switch tag {
			case rowBytes:
				d.Kind = types.KindBytes
			case rowDecimal:
				d.Kind = types.KindDecimal
			case rowArray:
				d.Kind = types.KindArray
			case rowRecord:
				d.Kind = types.KindRecord
			case rowJSONB:
				d.I = types.TextJSONB
			}
			if src != "" {
				off := len(src) - len(b)
				d.S = src[off+n : off+end]
			} else {
				d.S = string(b[n:end])
			}
			if tag == rowDecimal && !types.IsDecimalText(d.S) {
				return nil, corruptf("row: bad decimal %q", d.S)
			}
			if (tag == rowArray || tag == rowRecord) && !types.ArrayValid(d.S) {
				return nil, corruptf("row: bad array")
			}
		}
		b = b[end:]
	default:
		return nil, corruptf("row: unknown value tag %d", tag)
	}
	if dst != nil {
		*dst = d
	}
	return b, nil
}

// appendUvarint appends v as a little-endian base-128 varint (the form of
// encoding/binary.PutUvarint).
func appendUvarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// readUvarint reads a varint written by appendUvarint. It returns n <= 0
// for truncated, overlong (more than 64 bits) or non-shortest input, so
// that every value has exactly one accepted form.
func readUvarint(b []byte) (v uint64, n int) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1 // the common one-byte case
	}
	var shift uint
	for i, c := range b {
		if i == binary.MaxVarintLen64 {
			return 0, -1
		}
		if c < 0x80 {
			if (i == binary.MaxVarintLen64-1 && c > 1) || (i > 0 && c == 0) {
				return 0, -1
			}
			return v | uint64(c)<<shift, i + 1
		}
		v |= uint64(c&0x7f) << shift
		shift += 7
	}
	return 0, 0
}

// zigzag maps signed to unsigned so that small magnitudes stay short.
func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }
