package index

import (
	"encoding/binary"
	"errors"
	"hash/fnv"
	"sort"

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

func chunkOf(pk []byte) uint32 {
	h := fnv.New32a()
	h.Write(pk)
	return h.Sum32() % NumChunks
}

func appendOp(b []byte, kind byte, pk []byte) []byte {
	b = append(b, kind)
	b = binary.AppendUvarint(b, uint64(len(pk)))
	return append(b, pk...)
}

// foldOps folds an op log into its live pks, sorted, and returns the
// number of ops read.
func foldOps(v []byte) (pks []string, ops int, err error) {
	live := map[string]bool{}
	for len(v) > 0 { // each iteration consumes at least 2 bytes
		kind := v[0]
		n, w := binary.Uvarint(v[1:])
		if (kind != opAdd && kind != opRemove) || w <= 0 || uint64(len(v)-1-w) < n {
			return nil, ops, pgerror.Newf(pgerror.DataCorrupted, "index: bad inverted-list op at byte %d", ops)
		}
		pk := string(v[1+w : 1+w+int(n)])
		if kind == opAdd {
			live[pk] = true
		} else {
			delete(live, pk)
		}
		v = v[1+w+int(n):]
		ops++
	}
	pks = make([]string, 0, len(live))
	for pk := range live {
		pks = append(pks, pk)
	}
	sort.Strings(pks)
	return pks, ops, nil
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

func fnvSample(pk []byte) bool {
	h := fnv.New32a()
	h.Write(pk)
	return (h.Sum32()/NumChunks)%compactSample == 0
}

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
