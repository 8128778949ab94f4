package exec

import (
	"bytes"
	"hash/maphash"

	"github.com/kvsql/kvsql/types"
)

// keyStore holds the key values of the groups of a hash aggregation (or
// the build rows of a hash join) column by column, one entry per group,
// with owned copies of bytes, and finds the entry of a batch row through
// a hash table of chains.
type keyStore struct {
	cols  []keyCol
	seed  maphash.Seed
	heads map[uint64]int32 // hash -> first entry with it
	next  []int32          // entry -> next entry of the same hash, -1: none
	tail  map[uint64]int32 // hash -> last entry (chains keep insertion order)
	// hashes of the current batch's rows, by position.
	hashes []uint64
}

// keyCol is one key column of a keyStore.
type keyCol struct {
	kind  types.Kind
	class vecClass
	i     []int64
	b     [][]byte
	null  []bool
	bytes int64 // bytes held by b
}

func newKeyStore(kinds []types.T) *keyStore {
	ks := &keyStore{seed: maphash.MakeSeed(), heads: map[uint64]int32{}, tail: map[uint64]int32{}, hashes: make([]uint64, batchSize)}
	for _, t := range kinds {
		c, _ := vecClassOf(t)
		ks.cols = append(ks.cols, keyCol{kind: t.Kind(), class: c})
	}
	return ks
}

// len returns the number of entries.
func (ks *keyStore) len() int { return len(ks.next) }

// mix64 is a 64-bit finalizer (murmur3's): every input bit reaches the
// high bits that partOf reads.
func mix64(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// hashBatch computes the hash of the key columns cols (ordinals of b) of
// every live row of b into ks.hashes. A NULL hashes as a constant (a
// group of NULLs is one group; a join drops NULL keys before hashing).
func (ks *keyStore) hashBatch(b *batch, cols []int) {
	if len(ks.hashes) < b.n {
		ks.hashes = make([]uint64, b.n)
	}
	h := ks.hashes
	b.forEach(func(k int) { h[k] = 0x9e3779b97f4a7c15 })
	for _, c := range cols {
		v := b.cols[c]
		switch v.class {
		case classInts:
			b.forEach(func(k int) {
				x := uint64(v.i[k])
				if v.isNull(k) {
					x = 0x5bd1e995
				}
				h[k] = mix64(h[k]*31 + x)
			})
		default:
			b.forEach(func(k int) {
				x := uint64(0x5bd1e995)
				if !v.isNull(k) {
					x = maphash.Bytes(ks.seed, v.b[k])
				}
				h[k] = mix64(h[k]*31 + x)
			})
		}
	}
}

// find returns the entry whose keys equal the key columns cols of row k
// of b (hash ks.hashes[k]), or -1.
func (ks *keyStore) find(b *batch, cols []int, k int) int32 {
	e, ok := ks.heads[ks.hashes[k]]
	if !ok {
		return -1
	}
	for ; e >= 0; e = ks.next[e] {
		if ks.equal(e, b, cols, k) {
			return e
		}
	}
	return -1
}

// equal reports whether entry e's keys equal row k's (NULL equals NULL:
// grouping semantics).
func (ks *keyStore) equal(e int32, b *batch, cols []int, k int) bool {
	for j, c := range cols {
		v, kc := b.cols[c], &ks.cols[j]
		vn := v.isNull(k)
		if vn || kc.null[e] {
			if vn != kc.null[e] {
				return false
			}
			continue
		}
		if kc.class == classInts {
			if kc.i[e] != v.i[k] {
				return false
			}
		} else if !bytes.Equal(kc.b[e], v.b[k]) {
			return false
		}
	}
	return true
}

// add appends row k's keys as a new entry and returns it with the bytes
// it holds.
func (ks *keyStore) add(b *batch, cols []int, k int) (int32, int64) {
	e := int32(len(ks.next))
	size := int64(16)
	for j, c := range cols {
		v, kc := b.cols[c], &ks.cols[j]
		null := v.isNull(k)
		kc.null = append(kc.null, null)
		if kc.class == classInts {
			var x int64
			if !null {
				x = v.i[k]
			}
			kc.i = append(kc.i, x)
			size += 9
			continue
		}
		var x []byte
		if !null {
			x = bytes.Clone(v.b[k])
		}
		kc.b = append(kc.b, x)
		kc.bytes += int64(len(x))
		size += 25 + int64(len(x))
	}
	h := ks.hashes[k]
	ks.next = append(ks.next, -1)
	if t, ok := ks.tail[h]; ok {
		ks.next[t] = e
	} else {
		ks.heads[h] = e
	}
	ks.tail[h] = e
	return e, size
}

// datum returns column j of entry e as a Datum.
func (ks *keyStore) datum(j int, e int32) types.Datum {
	kc := &ks.cols[j]
	if kc.null[e] {
		return types.Null
	}
	if kc.class == classInts {
		return types.Datum{Kind: kc.kind, I: kc.i[e]}
	}
	return types.Datum{Kind: kc.kind, S: string(kc.b[e])}
}
