package exec

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"slices"

	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/types"
)

// Normalized sort keys. Comparing extended rows Datum by Datum
// (sortKeys.compare) costs a type switch, NULL checks and a direction
// flip per key per comparison, and a sort makes about n·log2(n)
// comparisons. normKeys instead encodes each row's keys once into one
// byte string (encoding.AppendSortKey: NULLS FIRST/LAST, ASC/DESC, C
// collation for text) followed by the row's input position, so every
// comparison is a bytes.Compare, and most are settled by the first eight
// bytes cached in the entry as an integer. The position makes all keys
// distinct, so the unstable pdqsort gives the stable order compareSeq
// gives.
//
// Not every value has a sort key that orders like eval.Compare (jsonb,
// arrays, records), and values of two kinds in one key column (an int
// beside a float in a UNION's column) compare across kinds. The first
// such value switches the normKeys off for the rest of the sort, which
// then uses compareSeq on the key Datums every extended row keeps anyway.
type normKeys struct {
	sk    *sortKeys
	off   bool         // a key value without a usable sort key was seen
	kinds []types.Kind // each key column's kind; KindNull until a non-NULL
	ents  []normEntry
	arena []byte // the current block that keys are carved from
}

// normEntry is one row to sort: pre is keyPrefix(key), so that most
// comparisons are one integer compare.
// idx is the row's index among the rows added since the last reset.
type normEntry struct {
	pre uint64
	key []byte
	idx int
}

// normEntrySize is what one entry costs besides its key bytes.
const normEntrySize = 40

const normArenaBlock = 64 << 10

func newNormKeys(sk *sortKeys) normKeys {
	return normKeys{sk: sk, kinds: make([]types.Kind, len(sk.keys))}
}

// add encodes the keys of the extended row ext (with its position seq)
// and returns the bytes it holds for them, or 0 once the keys are off.
func (n *normKeys) add(ext []types.Datum, seq int64) int64 {
	if n.off {
		return 0
	}
	w := n.sk.width
	for i := range n.sk.keys {
		d := ext[w+i]
		if d.Kind == types.KindNull {
			continue
		}
		if !encoding.SortKeyKind(d) || (n.kinds[i] != types.KindNull && n.kinds[i] != d.Kind) {
			n.off, n.ents, n.arena = true, nil, nil
			return 0
		}
		n.kinds[i] = d.Kind
	}
	if cap(n.arena)-len(n.arena) < 256 {
		n.arena = make([]byte, 0, normArenaBlock)
	}
	start := len(n.arena)
	b := n.arena
	for i, k := range n.sk.keys {
		b = encoding.AppendSortKey(b, ext[w+i], k.Desc, k.NullsFirst)
	}
	b = binary.BigEndian.AppendUint64(b, uint64(seq))
	// A key longer than the room left makes append move the block; the
	// keys already carved keep pointing into the old one, which stays
	// valid (nothing writes before len(n.arena)).
	n.arena = b
	key := b[start:len(b):len(b)]
	n.ents = append(n.ents, normEntry{pre: keyPrefix(key), key: key, idx: len(n.ents)})
	return int64(len(key)) + normEntrySize
}

// sortRows sorts the entries and returns rows, which holds the rows
// added since the last reset in the order they were added, in key order:
// equal keys in input order, or with pg as PostgreSQL's in-memory sort
// leaves them (pgsort.go). It reports false when the keys are off (rows
// is then untouched).
func (n *normKeys) sortRows(rows [][]types.Datum, pg bool) ([][]types.Datum, bool) {
	if n.off || len(n.ents) != len(rows) {
		return rows, false
	}
	byKey := func(a, b normEntry) int {
		switch {
		case a.pre < b.pre:
			return -1
		case a.pre > b.pre:
			return 1
		}
		return bytes.Compare(a.key, b.key)
	}
	if pg {
		seq := func(x normEntry) uint64 { return binary.BigEndian.Uint64(x.key[len(x.key)-8:]) }
		sortLikePG(n.ents, byKey, func(a, b normEntry) int {
			if a.pre != b.pre {
				return cmp.Compare(a.pre, b.pre)
			}
			return bytes.Compare(withoutSeq(a.key), withoutSeq(b.key))
		}, func(a, b normEntry) int { return cmp.Compare(seq(a), seq(b)) })
	} else {
		slices.SortFunc(n.ents, byKey)
	}
	out := make([][]types.Datum, len(rows))
	for i, e := range n.ents {
		out[i] = rows[e.idx]
	}
	return out, true
}

// keyPrefix is the first eight bytes, big-endian and zero-padded, of a
// normalized key without the row position that ends it. Sort keys are
// prefix-free, so prefixes that differ order the keys with or without
// their positions alike.
func keyPrefix(key []byte) uint64 {
	var p [8]byte
	copy(p[:], withoutSeq(key))
	return binary.BigEndian.Uint64(p[:])
}

// withoutSeq is a normalized key without the row position that ends it.
func withoutSeq(key []byte) []byte { return key[:len(key)-8] }

// pop takes back the entry add made last (the sort spills the rows
// before it first); its key bytes stay carved from the arena.
func (n *normKeys) pop() {
	if !n.off && len(n.ents) > 0 {
		n.ents = n.ents[:len(n.ents)-1]
	}
}

// reset forgets the entries (after they were sorted and spilled), keeping
// the entry slice's storage.
func (n *normKeys) reset() {
	if n.off {
		return
	}
	clear(n.ents)
	n.ents = n.ents[:0]
	n.arena = nil
}

// normalizedSort turns the normalized keys on; tests and benchmarks turn
// it off to run the Datum comparator on the same input.
var normalizedSort = true
