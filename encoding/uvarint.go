package encoding

import (
	"encoding/binary"
	"math/bits"
)

// uvarintSmallMax is the largest value EncodeUvarintAsc writes as a single
// byte. Larger values are a length byte 0xF8..0xFF (1..8 bytes) followed by
// the value big-endian without leading zero bytes.
const uvarintSmallMax = 0xf7

// EncodeUvarintAsc appends an order-preserving, untagged encoding of v to b
// and returns the extended slice: one byte for v <= 247, otherwise 2 to 9
// bytes. For any u < v the encoding of u sorts before that of v under
// bytes.Compare, and no encoding is a prefix of another. Key spaces (table
// and index ids) begin every key in this form.
func EncodeUvarintAsc(b []byte, v uint64) []byte {
	if v <= uvarintSmallMax {
		return append(b, byte(v))
	}
	n := byteLen(v)
	b = append(b, uvarintSmallMax+byte(n))
	return appendBigEndian(b, v, n)
}

// DecodeUvarintAsc decodes a value written by EncodeUvarintAsc from the
// start of b and returns the bytes after it. It returns an error wrapping
// ErrCorrupt if b is empty, truncated, or not the shortest encoding.
func DecodeUvarintAsc(b []byte) (rest []byte, v uint64, err error) {
	if len(b) == 0 {
		return nil, 0, corruptf("uvarint: empty input")
	}
	t := b[0]
	if t <= uvarintSmallMax {
		return b[1:], uint64(t), nil
	}
	n := int(t - uvarintSmallMax)
	v, err = readBigEndian(b[1:], n, 0)
	if err != nil {
		return nil, 0, err
	}
	if (n == 1 && v <= uvarintSmallMax) || (n > 1 && v>>(8*(n-1)) == 0) {
		return nil, 0, corruptf("uvarint: non-canonical %d-byte form of %d", n, v)
	}
	return b[1+n:], v, nil
}

// EncodeInt64Asc appends v to b as 8 untagged bytes that sort as the signed
// value: big-endian with the sign bit flipped.
func EncodeInt64Asc(b []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(b, uint64(v)^(1<<63))
}

// DecodeInt64Asc decodes 8 bytes written by EncodeInt64Asc.
func DecodeInt64Asc(b []byte) (rest []byte, v int64, err error) {
	if len(b) < 8 {
		return nil, 0, corruptf("int64: need 8 bytes, have %d", len(b))
	}
	return b[8:], int64(binary.BigEndian.Uint64(b) ^ (1 << 63)), nil
}

// EncodeInt64Desc appends v to b as 8 untagged bytes that sort in
// descending order of the signed value (the complement of EncodeInt64Asc).
func EncodeInt64Desc(b []byte, v int64) []byte {
	return EncodeInt64Asc(b, ^v)
}

// DecodeInt64Desc decodes 8 bytes written by EncodeInt64Desc.
func DecodeInt64Desc(b []byte) (rest []byte, v int64, err error) {
	rest, v, err = DecodeInt64Asc(b)
	return rest, ^v, err
}

// byteLen is the number of bytes needed to hold v (0 for v == 0).
func byteLen(v uint64) int { return (bits.Len64(v) + 7) / 8 }

// appendBigEndian appends the low n bytes of v, most significant first.
func appendBigEndian(b []byte, v uint64, n int) []byte {
	for i := n - 1; i >= 0; i-- {
		b = append(b, byte(v>>(8*i)))
	}
	return b
}

// readBigEndian reads n bytes of b, each XORed with mask, as a big-endian
// number.
func readBigEndian(b []byte, n int, mask byte) (uint64, error) {
	if len(b) < n {
		return 0, corruptf("truncated value: need %d bytes, have %d", n, len(b))
	}
	var v uint64
	for _, c := range b[:n] {
		v = v<<8 | uint64(c^mask)
	}
	return v, nil
}
