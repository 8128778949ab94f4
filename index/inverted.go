package index

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"math"
	"slices"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
)

// The inverted-list form keeps, per search value, the list of primary keys
// of the rows holding it. To bound the size of a hot search value's record
// the list is split into NumChunks chunks: a pk lives in chunk
// fnv32a(pk) % NumChunks, and each chunk is its own key
// /idx/value/chunk. A chunk's value is an op log:
//
//	op   = kind(1 byte: opAdd or opRemove) uvarint(len(pk)) pk
//	value = op op op ...
//
// Insert and Delete append one op with kv Merge — no read, no rewrite of
// the list. Readers fold the log in order (add inserts the pk into a set,
// remove deletes it) and return the live pks sorted by their key bytes,
// i.e. in primary-key order. Removes leave garbage; a Delete whose pk
// hash falls in 1/compactSample of the space reads its chunk and, when the
// log holds more than twice as many ops as live pks (plus slack), rewrites
// it folded (a Set of add ops, or a Delete when empty). Compact does the
// same for every chunk of an index.
const (
	// NumChunks is the number of chunks per search value.
	NumChunks = 16

	opAdd    byte = 1
	opRemove byte = 2

	compactSample = 8
	compactSlack  = 8
)

// fnv32a is the 32-bit FNV-1a hash of b (hash/fnv's, without its
// allocation).
func fnv32a(b []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range b {
		h ^= uint32(c)
		h *= 16777619
	}
	return h
}

func chunkOf(pk []byte) uint32 { return fnv32a(pk) % NumChunks }

func appendOp(b []byte, kind byte, pk []byte) []byte {
	b = append(b, kind)
	b = binary.AppendUvarint(b, uint64(len(pk)))
	return append(b, pk...)
}

// logOp is one parsed op of an op log: the pk is buf[off:off+n] of the
// buffer the log was parsed from; seq orders the ops of one pk.
type logOp struct {
	off, n int32
	seq    int32
	remove bool
}

// parseOps appends the ops of the log buf[base:] to ops; seq continues
// from len(ops).
func parseOps(ops []logOp, buf []byte, base int) ([]logOp, error) {
	if len(buf) > math.MaxInt32 {
		return ops, pgerror.Newf(pgerror.ProgramLimitExceeded, "index: inverted list of %d bytes is too long", len(buf))
	}
	for i := base; i < len(buf); { // each iteration consumes at least 2 bytes
		kind := buf[i]
		n, w := binary.Uvarint(buf[i+1:])
		if (kind != opAdd && kind != opRemove) || w <= 0 || uint64(len(buf)-i-1-w) < n || n > 1<<30 {
			return ops, pgerror.Newf(pgerror.DataCorrupted, "index: bad inverted-list op at byte %d", i-base)
		}
		ops = append(ops, logOp{off: int32(i + 1 + w), n: int32(n), seq: int32(len(ops)), remove: kind == opRemove})
		i += 1 + w + int(n)
	}
	return ops, nil
}

// foldParsed folds ops parsed from buf into the live pks, sorted by their
// bytes, in place: it returns a prefix of ops holding one add op per live
// pk. All ops of one pk must be in ops in log order; ops of several
// chunks may be mixed (a pk's ops are all in its one chunk).
func foldParsed(ops []logOp, buf []byte) []logOp {
	pk := func(o logOp) []byte { return buf[o.off : o.off+o.n] }
	slices.SortFunc(ops, func(a, b logOp) int {
		if c := bytes.Compare(pk(a), pk(b)); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
	out := ops[:0]
	for i := 0; i < len(ops); {
		j := i + 1
		for j < len(ops) && bytes.Equal(pk(ops[j]), pk(ops[i])) {
			j++
		}
		// The last op of a pk decides whether it is live.
		if last := ops[j-1]; !last.remove {
			out = append(out, last)
		}
		i = j
	}
	return out
}

// foldRuns is foldParsed for ops parsed from several chunks, ends[i]
// being the end in ops of the ops of the i-th chunk: it sorts each chunk
// on its own (a chunk written in key order, as a bulk load writes it, is
// only checked) and merges the chunks, which costs far fewer comparisons
// than sorting them together (a search value holding 100,000 pks: about
// 4 comparisons a pk instead of 17). The live pks are written to out
// (reused) and returned; ops is reordered.
func foldRuns(ops []logOp, ends []int, buf []byte, out []logOp) []logOp {
	sortRuns(ops, ends, buf)
	return mergeRuns(ops, ends, buf, out)
}

// opOrder orders the ops of buf by pk, then in log order.
func opOrder(buf []byte) func(a, b logOp) int {
	return func(a, b logOp) int {
		if c := bytes.Compare(buf[a.off:a.off+a.n], buf[b.off:b.off+b.n]); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	}
}

// sortRuns sorts each run of ops (ends as foldRuns's) by pk, then in log
// order; a run already in order is only checked.
func sortRuns(ops []logOp, ends []int, buf []byte) {
	less := opOrder(buf)
	start := 0
	for _, end := range ends {
		if run := ops[start:end]; !slices.IsSortedFunc(run, less) {
			slices.SortFunc(run, less)
		}
		start = end
	}
}

// mergeRuns is foldRuns of runs already sorted (sortRuns).
func mergeRuns(ops []logOp, ends []int, buf []byte, out []logOp) []logOp {
	pk := func(o logOp) []byte { return buf[o.off : o.off+o.n] }
	less := opOrder(buf)
	// heap is a min-heap of the chunks' next positions in ops, ordered by
	// the op there.
	type cursor struct{ pos, end int }
	var heapBuf [NumChunks]cursor
	heap := heapBuf[:0]
	start := 0
	for _, end := range ends {
		if start < end {
			heap = append(heap, cursor{start, end})
		}
		start = end
	}
	down := func(i int) {
		for {
			m := i
			for _, c := range [2]int{2*i + 1, 2*i + 2} {
				if c < len(heap) && less(ops[heap[c].pos], ops[heap[m].pos]) < 0 {
					m = c
				}
			}
			if m == i {
				return
			}
			heap[i], heap[m] = heap[m], heap[i]
			i = m
		}
	}
	for i := len(heap)/2 - 1; i >= 0; i-- {
		down(i)
	}
	out = slices.Grow(out[:0], len(ops))
	for len(heap) > 0 {
		o := ops[heap[0].pos]
		// The ops of one pk are adjacent in the merged order, in log
		// order: a later one replaces the earlier.
		if n := len(out); n > 0 && bytes.Equal(pk(out[n-1]), pk(o)) {
			out[n-1] = o
		} else {
			out = append(out, o)
		}
		if heap[0].pos++; heap[0].pos == heap[0].end {
			heap[0] = heap[len(heap)-1]
			heap = heap[:len(heap)-1]
		}
		if len(heap) > 0 {
			down(0)
		}
	}
	// The last op of a pk decides whether it is live.
	live := out[:0]
	for _, o := range out {
		if !o.remove {
			live = append(live, o)
		}
	}
	return live
}

// foldOps folds an op log into its live pks, sorted, and returns the
// number of ops read.
func foldOps(v []byte) (pks []string, ops int, err error) {
	parsed, err := parseOps(nil, v, 0)
	if err != nil {
		return nil, len(parsed), err
	}
	live := foldParsed(parsed, v)
	pks = make([]string, len(live))
	for i, o := range live {
		pks[i] = string(v[o.off : o.off+o.n])
	}
	return pks, len(parsed), nil
}

func addPK(w kv.Writer, key, pk []byte) error { return w.Merge(key, appendOp(nil, opAdd, pk)) }

func removePK(rw kv.ReadWriter, key, pk []byte) error {
	if err := rw.Merge(key, appendOp(nil, opRemove, pk)); err != nil {
		return err
	}
	if fnvSample(pk) {
		return compactChunk(rw, key)
	}
	return nil
}

func fnvSample(pk []byte) bool { return (fnv32a(pk)/NumChunks)%compactSample == 0 }

// compactChunk rewrites one chunk folded when its log has too much
// garbage.
func compactChunk(rw kv.ReadWriter, key []byte) error {
	v, err := rw.Get(key)
	if errors.Is(err, kv.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	pks, ops, err := foldOps(v)
	if err != nil {
		return err
	}
	if ops <= 2*len(pks)+compactSlack {
		return nil
	}
	if len(pks) == 0 {
		return rw.Delete(key)
	}
	var b []byte
	for _, pk := range pks {
		b = appendOp(b, opAdd, []byte(pk))
	}
	return rw.Set(key, b)
}

// Compact folds every chunk of an inverted-list index whose op log has
// garbage. It is safe at any time; readers see the same pks before and
// after.
func Compact(rw kv.ReadWriter, idx *catalog.Index) error {
	if idx.Form != catalog.FormInverted {
		return nil
	}
	p := encoding.EncodeUvarintAsc(nil, idx.ID)
	it, err := rw.NewIter(kv.IterOptions{LowerBound: p, UpperBound: encoding.PrefixEnd(p)})
	if err != nil {
		return err
	}
	var keys [][]byte
	for ok := it.First(); ok; ok = it.Next() {
		keys = append(keys, append([]byte(nil), it.Key()...))
	}
	err = it.Error()
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := compactChunk(rw, k); err != nil {
			return err
		}
	}
	return nil
}
