package encoding

import (
	"math"
	"unsafe"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// DecodeRowCols is DecodeRowInto for a reader that wants a few columns of
// a wide row, as an index scan's master reads do (the bench's lookup
// table: thirteen columns, of which a query reads pad only). It gives
// the same answers and the same errors as DecodeRowInto, but a column it
// passes over costs its header and a length read (skipRowBody, the batch
// readers' skip) instead of a Datum built and dropped, and a one-byte
// header is read without a call.
func DecodeRowCols(b []byte, colIDs []uint32, ords []int, out []types.Datum) error {
	return decodeRowCols(b, colIDs, ords, out, "")
}

// DecodeRowColsShared is DecodeRowCols for a value the caller owns and
// never writes again (kv.Reader.Get's copy): its string-like values
// (text, bytes, numeric, arrays, records, jsonb) are substrings of b, one
// string over b's bytes, instead of a copy and an allocation each. A
// master get of a YCSB row (ten 100-byte text columns) then allocates
// nothing more than the value Get returned. The Datums keep all of b
// alive, so use it when they take most of b (every column of the row),
// not for a column or two of a wide row that may outlive it (a sort or a
// hash table would hold whole rows where it counts one column).
func DecodeRowColsShared(b []byte, colIDs []uint32, ords []int, out []types.Datum) error {
	if len(b) == 0 {
		return decodeRowCols(b, colIDs, ords, out, "")
	}
	return decodeRowCols(b, colIDs, ords, out, unsafe.String(&b[0], len(b)))
}

// decodeRowCols is DecodeRowCols, its string-like values substrings of
// src when src is not empty (src is then b as a string).
func decodeRowCols(b []byte, colIDs []uint32, ords []int, out []types.Datum, src string) error {
	if len(ords) != len(colIDs) {
		return pgerror.Newf(pgerror.Internal, "encoding.DecodeRowCols: %d ordinals for %d columns", len(ords), len(colIDs))
	}
	for _, o := range ords {
		if o < 0 || o >= len(out) {
			return pgerror.Newf(pgerror.Internal, "encoding.DecodeRowCols: ordinal %d of a %d-column row", o, len(out))
		}
	}
	next, j := uint64(0), 0
	for len(b) > 0 && j < len(colIDs) { // each iteration consumes at least one byte
		var rest []byte
		var id uint64
		var tag uint8
		var err error
		if h := b[0]; h < 0x80 {
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
			b, err = decodeRowBody(rest, tag, &out[ords[j]], src)
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
