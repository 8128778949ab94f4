package encoding

import (
	"encoding/binary"
	"math"
)

// canonicalNaN is the one NaN a key holds (math.NaN's bits). Every NaN
// encodes to it, so NaN = NaN in a key, as PostgreSQL treats NaN in
// indexes.
const canonicalNaN uint64 = 0x7ff8000000000001

// appendFloatBody appends the 8-byte ascending form of f: the IEEE bits
// with the sign bit flipped for positives and every bit flipped for
// negatives, which orders -Inf < negatives < 0 < positives < +Inf < NaN.
// -0 is written as +0 and every NaN as canonicalNaN.
func appendFloatBody(b []byte, f float64) []byte {
	var u uint64
	switch {
	case f != f:
		u = canonicalNaN
	case f == 0:
		u = 0
	default:
		u = math.Float64bits(f)
	}
	if u>>63 != 0 {
		u = ^u
	} else {
		u |= 1 << 63
	}
	return binary.BigEndian.AppendUint64(b, u)
}

// decodeFloatBody reverses appendFloatBody; b holds the bytes after the
// tag, each to be XORed with mask. It rejects -0 and NaNs other than
// canonicalNaN, which appendFloatBody never writes.
func decodeFloatBody(b []byte, mask byte) (rest []byte, f float64, err error) {
	if len(b) < 8 {
		return nil, 0, corruptf("float: need 8 bytes, have %d", len(b))
	}
	u := binary.BigEndian.Uint64(b)
	if mask != 0 {
		u = ^u
	}
	if u>>63 != 0 {
		u &^= 1 << 63
	} else {
		u = ^u
	}
	f = math.Float64frombits(u)
	if u == 1<<63 || (f != f && u != canonicalNaN) {
		return nil, 0, corruptf("float: non-canonical bits %#016x", u)
	}
	return b[8:], f, nil
}
