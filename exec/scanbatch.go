package exec

import (
	"bytes"
	"slices"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// masterBatch reads the master rows behind an index scan a batch at a
// time. An index yields primary keys in index order, which is random in
// the master file once the scan covers more than one search value (a
// range over a column the primary key does not follow). The batch takes
// up to batchRows entries, encodes their master keys, reads them in
// ascending key order through one MasterReader (each seek starts where
// the last one stopped, in a data block already in the cache), and then
// hands the rows out in index order again, so a plan that relies on the
// index's order (ORDER BY served by the index) still gets it. Entries
// already in key order (one value of a key+id index) skip the sort.
//
// Rows handed out are valid until the next fill. Only the columns of
// cols are written into the row buffers, so the others stay NULL.
type masterBatch struct {
	t    *catalog.Table
	cols *index.Cols
	max  int // batch size

	n     int
	pks   []types.Datum // n × len(t.PrimaryKey)
	keys  [][]byte      // the master key of each entry
	buf   []byte        // the keys' bytes
	order []int         // entry positions in master key order
	rows  []types.Datum // n × len(t.Columns)
	found []bool
	pos   int // the next entry to hand out

	// split: load reads a batch of at least splitMin entries with two
	// goroutines, each over half of the batch's keys in key order, the
	// second through its own MasterReader (second, opened on the
	// caller's goroutine; Close releases it). Only for readers that may
	// be iterated concurrently: a read-only statement's snapshot.
	split  bool
	second *index.MasterReader
}

// splitMin is the smallest batch whose master reads load splits over two
// goroutines: below it, starting and joining a goroutine (a few µs) is
// not paid back by the seeks (about 1 µs each) it takes over.
const splitMin = 128

// batchDatums bounds a batch's row buffers (about 2.5 MB of Datums).
const batchDatums = 64 << 10

func newMasterBatch(t *catalog.Table, cols *index.Cols) *masterBatch {
	return &masterBatch{t: t, cols: cols, max: min(max(batchDatums/len(t.Columns), 16), 1024)}
}

// next returns the next row of the batch, or nil when it is used up.
func (b *masterBatch) next(idx *catalog.Index) ([]types.Datum, error) {
	if b.pos >= b.n {
		return nil, nil
	}
	i := b.pos
	b.pos++
	if !b.found[i] {
		return nil, pgerror.Newf(pgerror.DataCorrupted, "index %q of table %q points at a missing row", idx.Name, b.t.Name)
	}
	nc := len(b.t.Columns)
	return b.rows[i*nc : (i+1)*nc : (i+1)*nc], nil
}

// fill reads up to b.max entries of it and their master rows through the
// MasterReader m returns, or with one Get from r when the iterator held
// one entry only (a lookup that finds one row would pay more for opening
// an iterator than it saves). It reports whether it is exhausted.
func (b *masterBatch) fill(it index.RowIter, r kv.Reader, m func() (*index.MasterReader, error)) (exhausted bool, err error) {
	b.reset()
	for b.n < b.max {
		if !it.Next() {
			exhausted = true
			break
		}
		row := it.Row()
		for _, o := range b.t.PrimaryKey {
			b.pks = append(b.pks, row[o])
		}
		b.push()
	}
	minIter := 1
	if exhausted {
		minIter = 2
	}
	return exhausted, b.load(r, m, minIter)
}

// firstEntries is the capacity of a new batch's entry buffers: a lookup
// of a few rows grows none of them, where growing from zero (1, 2, 4, 8,
// 16 entries) cost a quarter of a 10-row lookup's CPU time.
const firstEntries = 16

// keyBytes is the bytes of master key a new batch reserves per entry.
const keyBytes = 16

// reset empties the batch; the first reset sizes its entry buffers for
// firstEntries entries.
func (b *masterBatch) reset() {
	b.n, b.pos = 0, 0
	if b.keys == nil {
		n := min(firstEntries, b.max)
		b.pks = make([]types.Datum, 0, n*len(b.t.PrimaryKey))
		b.keys = make([][]byte, 0, n)
		b.buf = make([]byte, 0, n*keyBytes)
		b.order = make([]int, 0, n)
		return
	}
	b.pks, b.keys, b.buf = b.pks[:0], b.keys[:0], b.buf[:0]
}

// add puts the primary key pk (copied) into the batch and returns its
// entry number; the caller keeps b.n below b.max.
func (b *masterBatch) add(pk []types.Datum) int {
	b.pks = append(b.pks, pk...)
	b.push()
	return b.n - 1
}

// push encodes the master key of the primary key just appended to b.pks.
func (b *masterBatch) push() {
	np := len(b.t.PrimaryKey)
	start := len(b.buf)
	b.buf = index.MasterKey(b.buf, b.t, b.pks[b.n*np:])
	b.keys = append(b.keys, b.buf[start:len(b.buf):len(b.buf)])
	b.n++
}

// at returns the row of entry i and whether it was found; valid until
// the next reset.
func (b *masterBatch) at(i int) ([]types.Datum, bool) {
	nc := len(b.t.Columns)
	return b.rows[i*nc : (i+1)*nc : (i+1)*nc], b.found[i]
}

// load reads the master rows of the batch's entries in ascending key
// order through the MasterReader m returns, or with a Get each from r
// when the batch holds fewer than minIter entries: a Get seeks with the
// key's prefix, which lets Pebble skip the files whose bloom filter
// rules the key out, while the MasterReader's SeekGE visits every level;
// that pays only over a run of keys close together.
func (b *masterBatch) load(r kv.Reader, m func() (*index.MasterReader, error), minIter int) (err error) {
	t := b.t
	np, nc := len(t.PrimaryKey), len(t.Columns)
	if b.n == 0 {
		return nil
	}
	// b.buf may have moved while growing: take the keys from where the
	// bytes are now.
	off := 0
	for i, k := range b.keys {
		b.keys[i] = b.buf[off : off+len(k) : off+len(k)]
		off += len(k)
	}
	b.order = b.order[:0]
	for i := range b.n {
		b.order = append(b.order, i)
	}
	if !slices.IsSortedFunc(b.keys, bytes.Compare) {
		slices.SortFunc(b.order, func(x, y int) int { return bytes.Compare(b.keys[x], b.keys[y]) })
	}
	// Buffers sized to the batch, not to b.max: a lookup of a few rows
	// should not allocate a thousand rows.
	if need := b.n * nc; len(b.rows) < need {
		// At least double: a scan whose batches grow reallocates a few
		// times, not on every fill.
		n := min(max(b.n, 2*len(b.found)), b.max)
		b.rows = make([]types.Datum, n*nc)
		b.found = make([]bool, n)
	}
	get := func(i int) (bool, error) {
		return index.GetCols(r, t, b.pks[i*np:(i+1)*np], b.rows[i*nc:(i+1)*nc], b.cols)
	}
	if b.n >= minIter {
		mr, err := m()
		if err != nil {
			return err
		}
		if b.split && b.n >= splitMin {
			return b.loadSplit(r, mr)
		}
		get = func(i int) (bool, error) {
			return mr.GetKey(b.keys[i], b.pks[i*np:(i+1)*np], b.rows[i*nc:(i+1)*nc], b.cols)
		}
	}
	return b.readInOrder(b.order, get)
}

// readInOrder reads the master rows of the entries of order (ascending
// master keys) with get.
func (b *masterBatch) readInOrder(order []int, get func(i int) (bool, error)) (err error) {
	nc := len(b.t.Columns)
	prev := -1
	for _, i := range order {
		// Equal keys (a lookup join's outer repeats a value) share one
		// read.
		if prev >= 0 && bytes.Equal(b.keys[prev], b.keys[i]) {
			copy(b.rows[i*nc:(i+1)*nc], b.rows[prev*nc:(prev+1)*nc])
			b.found[i] = b.found[prev]
			continue
		}
		if b.found[i], err = get(i); err != nil {
			return err
		}
		prev = i
	}
	return nil
}

// loadSplit reads the batch's master rows with two goroutines: this one
// the first half of the keys in key order through first (the scan's
// MasterReader), a helper the second half through b.second. Each entry's
// row goes to its own slot, so the rows come out in index order as with
// one reader; equal keys split between the halves are read twice.
func (b *masterBatch) loadSplit(r kv.Reader, first *index.MasterReader) error {
	t := b.t
	np, nc := len(t.PrimaryKey), len(t.Columns)
	if b.second == nil {
		m, err := index.NewMasterReader(r, t)
		if err != nil {
			return err
		}
		b.second = m
	}
	getWith := func(m *index.MasterReader) func(i int) (bool, error) {
		return func(i int) (bool, error) {
			return m.GetKey(b.keys[i], b.pks[i*np:(i+1)*np], b.rows[i*nc:(i+1)*nc], b.cols)
		}
	}
	h := len(b.order) / 2
	done := make(chan error, 1)
	go func() {
		defer func() {
			// A panic on this goroutine would end the process: it is
			// the statement's internal error instead.
			if r := recover(); r != nil {
				done <- pgerror.Newf(pgerror.Internal, "exec: master read: %v", r)
			}
		}()
		done <- b.readInOrder(b.order[h:], getWith(b.second))
	}()
	err := b.readInOrder(b.order[:h], getWith(first))
	if herr := <-done; err == nil {
		err = herr
	}
	return err
}

// close releases the batch's second MasterReader, if any.
func (b *masterBatch) close() error {
	if b.second == nil {
		return nil
	}
	err := b.second.Close()
	b.second = nil
	return err
}

// batchedMasterReads turns the batches on; tests and benchmarks turn it
// off to compare with a master get per index entry.
var batchedMasterReads = true

// splitMasterReads lets an index scan's batches load with two goroutines
// (masterBatch.split); tests and benchmarks turn it off to compare.
var splitMasterReads = true
