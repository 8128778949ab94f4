package exec

import (
	"math/bits"

	"github.com/kvsql/kvsql/types"
)

// PostgreSQL's hash partitioning, bit for bit, so a row lands in the
// same hash partition as in PostgreSQL: each non-NULL key value is hashed
// with its type's extended hash function under HASH_PARTITION_SEED, and
// the hashes are folded with hash_combine64 (partbounds.c,
// compute_partition_hash_value). The hash functions are lookup3's, as
// src/common/hashfn.c has them.

// hashPartitionSeed is PostgreSQL's HASH_PARTITION_SEED.
const hashPartitionSeed uint64 = 0x7A5B22367996DCFD

// HashPartitionable reports whether kvsql hashes keys of type t as
// PostgreSQL does (other key types are refused for hash partitioning).
func HashPartitionable(t types.T) bool {
	switch t.Family {
	case types.Int2, types.Int4, types.Int8, types.Text, types.Varchar:
		return true
	}
	return false
}

// partitionHash is compute_partition_hash_value over a key whose
// values have the types ts.
func partitionHash(key []types.Datum, ts []types.T) uint64 {
	var row uint64
	for i, d := range key {
		if d.IsNull() {
			continue
		}
		row = hashCombine64(row, hashExtended(d, ts[i], hashPartitionSeed))
	}
	return row
}

// hashExtended is the extended hash of a value of type t:
// hashint4extended for int2 and int4 (their int32 value),
// hashint8extended for int8, hashtextextended for text.
func hashExtended(d types.Datum, t types.T, seed uint64) uint64 {
	switch {
	case d.Kind == types.KindInt && t.Family != types.Int8:
		return hashUint32Extended(uint32(int32(d.I)), seed)
	case d.Kind == types.KindInt:
		v := d.I
		lo, hi := uint32(v), uint32(uint64(v)>>32)
		if v >= 0 {
			lo ^= hi
		} else {
			lo ^= ^hi
		}
		return hashUint32Extended(lo, seed)
	case d.Kind == types.KindText:
		return hashBytesExtended([]byte(d.S), seed)
	}
	return 0
}

// hashCombine64 is PostgreSQL's hash_combine64.
func hashCombine64(a, b uint64) uint64 {
	a ^= b + 0x49a0f4dd15e5a8e3 + (a << 54) + (a >> 7)
	return a
}

func rot(x uint32, k int) uint32 { return bits.RotateLeft32(x, k) }

func mix(a, b, c uint32) (uint32, uint32, uint32) {
	a -= c
	a ^= rot(c, 4)
	c += b
	b -= a
	b ^= rot(a, 6)
	a += c
	c -= b
	c ^= rot(b, 8)
	b += a
	a -= c
	a ^= rot(c, 16)
	c += b
	b -= a
	b ^= rot(a, 19)
	a += c
	c -= b
	c ^= rot(b, 4)
	b += a
	return a, b, c
}

func final(a, b, c uint32) (uint32, uint32, uint32) {
	c ^= b
	c -= rot(b, 14)
	a ^= c
	a -= rot(c, 11)
	b ^= a
	b -= rot(a, 25)
	c ^= b
	c -= rot(b, 16)
	a ^= c
	a -= rot(c, 4)
	b ^= a
	b -= rot(a, 14)
	c ^= b
	c -= rot(b, 24)
	return a, b, c
}

// hashUint32Extended is hash_uint32_extended.
func hashUint32Extended(k uint32, seed uint64) uint64 {
	a := uint32(0x9e3779b9 + 4 + 3923095)
	b, c := a, a
	if seed != 0 {
		a += uint32(seed >> 32)
		b += uint32(seed)
		a, b, c = mix(a, b, c)
	}
	a += k
	_, b, c = final(a, b, c)
	return uint64(b)<<32 | uint64(c)
}

// hashBytesExtended is hash_bytes_extended (little-endian byte order).
func hashBytesExtended(k []byte, seed uint64) uint64 {
	a := uint32(0x9e3779b9) + uint32(len(k)) + 3923095
	b, c := a, a
	if seed != 0 {
		a += uint32(seed >> 32)
		b += uint32(seed)
		a, b, c = mix(a, b, c)
	}
	le := func(p []byte) uint32 {
		return uint32(p[0]) | uint32(p[1])<<8 | uint32(p[2])<<16 | uint32(p[3])<<24
	}
	for len(k) >= 12 {
		a += le(k[0:])
		b += le(k[4:])
		c += le(k[8:])
		a, b, c = mix(a, b, c)
		k = k[12:]
	}
	// The last 11 bytes; the lowest byte of c is reserved for the length.
	n := len(k)
	if n >= 11 {
		c += uint32(k[10]) << 24
	}
	if n >= 10 {
		c += uint32(k[9]) << 16
	}
	if n >= 9 {
		c += uint32(k[8]) << 8
	}
	for i := min(n, 8) - 1; i >= 4; i-- {
		b += uint32(k[i]) << (8 * (i - 4))
	}
	for i := min(n, 4) - 1; i >= 0; i-- {
		a += uint32(k[i]) << (8 * i)
	}
	_, b, c = final(a, b, c)
	return uint64(b)<<32 | uint64(c)
}
