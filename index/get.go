package index

import (
	"bytes"
	"errors"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// Get reads the row with primary key pk (one value per t.PrimaryKey entry)
// into out (len(t.Columns)) and reports whether it exists. Columns that
// the stored row lacks (added later by ADD COLUMN) get their
// DefaultValue. It costs one kv Get. It is GetCols with every column.
func Get(r kv.Reader, t *catalog.Table, pk []types.Datum, out []types.Datum) (bool, error) {
	return GetCols(r, t, pk, out, nil)
}

// GetCols is Get decoding only the primary-key columns and those of cols
// (nil: every column) into out; the other entries of out are left as they
// are, so a caller that reuses out for one read set keeps them NULL.
func GetCols(r kv.Reader, t *catalog.Table, pk []types.Datum, out []types.Datum, cols *Cols) (bool, error) {
	_, found, err := GetColsKey(r, t, pk, out, cols, nil)
	return found, err
}

// GetColsKey is GetCols encoding the master key into key[:0] and
// returning that buffer for the next call: a caller making many gets
// (a lookup join) keeps one, where a buffer of GetCols's own would move
// to the heap at every call (the key goes through the kv.Reader
// interface).
func GetColsKey(r kv.Reader, t *catalog.Table, pk []types.Datum, out []types.Datum, cols *Cols, key []byte) ([]byte, bool, error) {
	if len(pk) != len(t.PrimaryKey) || len(out) != len(t.Columns) {
		return key, false, pgerror.Newf(pgerror.Internal, "index.Get: %d key values and %d outputs for table %q", len(pk), len(out), t.Name)
	}
	key = MasterKey(key[:0], t, pk)
	v, err := r.Get(key)
	if errors.Is(err, kv.ErrNotFound) {
		return key, false, nil
	}
	if err != nil {
		return key, false, err
	}
	for i, o := range t.PrimaryKey {
		out[o] = pk[i]
	}
	return key, true, decodeOwnedValue(t, v, out, cols)
}

// GetUnique reads the row whose values in the unique index idx are vals
// (one non-NULL value per idx.Columns entry, of the columns' types) into
// out (len(t.Columns)) and reports whether it exists. It costs two kv
// Gets: the index entry, whose value is the primary key, then the master
// record. An index entry whose master record is missing is reported as
// pgerror.DataCorrupted.
//
// vals must not hold a NULL: entries with a NULL indexed value carry the
// primary key in their key (several rows may share them), so only a scan
// (ScanIndex) finds them; GetUnique reports an internal error instead.
// It is GetUniqueCols with every column.
func GetUnique(r kv.Reader, t *catalog.Table, idx *catalog.Index, vals []types.Datum, out []types.Datum) (bool, error) {
	return GetUniqueCols(r, t, idx, vals, out, nil)
}

// GetUniqueCols is GetUnique decoding only the primary-key columns and
// those of cols (nil: every column) from the master record; the other
// entries of out are left as they are (see GetCols).
func GetUniqueCols(r kv.Reader, t *catalog.Table, idx *catalog.Index, vals []types.Datum, out []types.Datum, cols *Cols) (bool, error) {
	var buf [64]byte
	v, err := uniqueEntry(r, t, idx, vals, out, buf[:0])
	if v == nil || err != nil {
		return false, err
	}
	pk, _, err := splitUniqueValue(t, idx, v)
	if err != nil {
		return false, err
	}
	// The master key is the table's space followed by the entry's pk.
	mv, err := r.Get(append(encoding.EncodeUvarintAsc(buf[:0], t.ID), pk...))
	if errors.Is(err, kv.ErrNotFound) {
		return false, pgerror.Newf(pgerror.DataCorrupted, "index %q of table %q points at a missing row %s", idx.Name, t.Name, prettyPK(t, pk))
	}
	if err != nil {
		return false, err
	}
	if err := decodePKInto(t, pk, out); err != nil {
		return false, err
	}
	return true, decodeOwnedValue(t, mv, out, cols)
}

// GetUniqueEntry is GetUnique without the master get: it fills only the
// indexed, primary-key and INCLUDE columns of out (the rest NULL), as ScanIndex
// does, for an index-only read. It costs one kv Get.
func GetUniqueEntry(r kv.Reader, t *catalog.Table, idx *catalog.Index, vals []types.Datum, out []types.Datum) (bool, error) {
	var buf [64]byte
	v, err := uniqueEntry(r, t, idx, vals, out, buf[:0])
	if v == nil || err != nil {
		return false, err
	}
	pk, inc, err := splitUniqueValue(t, idx, v)
	if err != nil {
		return false, err
	}
	for i := range out {
		out[i] = types.Null
	}
	for i, o := range idx.Columns {
		out[o] = vals[i]
	}
	if err := decodePKInto(t, pk, out); err != nil {
		return false, err
	}
	return true, decodeIncluded(t, idx, inc, out)
}

// uniqueEntry gets the entry of vals in idx, building its key in buf,
// and returns its value (the primary key bytes, then the included
// values), nil when absent.
func uniqueEntry(r kv.Reader, t *catalog.Table, idx *catalog.Index, vals []types.Datum, out []types.Datum, buf []byte) ([]byte, error) {
	if idx.Form != catalog.FormUnique || len(vals) != len(idx.Columns) || len(out) != len(t.Columns) {
		return nil, pgerror.Newf(pgerror.Internal, "index.GetUnique: %d values and %d outputs for %s index %q of table %q", len(vals), len(out), idx.Form, idx.Name, t.Name)
	}
	key := encoding.EncodeUvarintAsc(buf, idx.ID)
	for i, v := range vals {
		if v.IsNull() {
			return nil, pgerror.Newf(pgerror.Internal, "index.GetUnique: NULL value for column %d of index %q", i, idx.Name)
		}
		key = encoding.EncodeKeyDatum(key, v, dir(idx.Desc, i))
	}
	pk, err := r.Get(key)
	if errors.Is(err, kv.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if pk == nil {
		pk = []byte{} // a table without key columns cannot exist, but stay found
	}
	return pk, nil
}

// decodeValue fills the value columns of out that cols selects (nil:
// all) from a master value; a selected column the value lacks (added by
// ADD COLUMN after the row was written) gets its DefaultValue. Columns
// outside cols are not touched.
func decodeValue(t *catalog.Table, v []byte, out []types.Datum, cols *Cols) error {
	ords, ids := valueCols(t, cols)
	if len(ords) == 0 {
		return nil
	}
	for _, o := range ords {
		out[o] = t.Columns[o].DefaultValue
	}
	// DecodeRowCols: a scan that reads a few columns of a wide row skips
	// the others by length instead of building their Datums.
	return encoding.DecodeRowCols(v, ids, ords, out)
}

// decodeOwnedValue is decodeValue for a value the caller owns and drops
// (kv.Reader.Get's copy): when every value column is read, as SELECT *
// does, its text and other string-like values are substrings of v
// (encoding.DecodeRowColsShared) instead of a copy and an allocation
// each. A read of a few columns copies them, so that a value it keeps
// (a sort's, a hash table's) does not hold the whole row.
func decodeOwnedValue(t *catalog.Table, v []byte, out []types.Datum, cols *Cols) error {
	ords, ids := valueCols(t, cols)
	if len(ords) == 0 || len(ords) < len(layoutOf(t).valueOrds) {
		return decodeValue(t, v, out, cols)
	}
	for _, o := range ords {
		out[o] = t.Columns[o].DefaultValue
	}
	return encoding.DecodeRowColsShared(v, ids, ords, out)
}

// MasterReader reads master rows by primary key through one iterator it
// keeps open, so a run of lookups costs a seek each instead of a fresh
// iterator per Get: an index range yields the primary keys of one search
// value in ascending order, and a seek forward from the last position is
// cheap. Its iterator spans the whole master file, so a transaction that
// validates its reads records the whole table as read: use it for
// read-only statements. Not safe for concurrent use; Close it.
//
// A key a little ahead of the iterator's position is reached by stepping
// (Next, comparing keys only: a skipped entry's value is never read)
// rather than seeking: a SeekGE costs about 1 µs even when the key is in
// the data block the iterator is on (Pebble tries four Nexts, then
// searches the index block and the data block again, on every level of
// the LSM), a step 90–150 ns (BenchmarkMasterReaderSorted/next-all). A
// run of neighbouring keys (the rows of one value of a key+id index over
// a column that follows the primary key) then costs a seek and steps.
// When the key is more than masterSteps entries ahead, the steps taken
// are lost and the reader seeks; at every 10th row, 8 steps and a seek
// or 16 steps cost about the same, so the 10% lookups are bound by
// Pebble's cost per entry either way.
type MasterReader struct {
	t   *catalog.Table
	it  kv.Iterator
	key []byte
	// After steps ran out (the keys are far apart), the next skip reads
	// seek without trying to step; skip doubles with each run-out in a
	// row, up to maxSkip, so sparse keys lose few steps.
	skip, skipped int
}

// maxSkip bounds MasterReader.skip.
const maxSkip = 64

// masterSteps is how many entries a MasterReader steps over before it
// gives up and seeks (see BenchmarkMasterReaderSorted: a seek costs
// about as much as 10–15 steps, and a step that runs out is lost).
var masterSteps = 8

// SetMasterSteps sets how many entries a MasterReader steps before it
// seeks (0: it always seeks) and returns the previous setting. For tests
// and benchmarks that compare the two ways; not safe while readers run.
func SetMasterSteps(n int) int {
	old := masterSteps
	masterSteps = n
	return old
}

// NewMasterReader opens a MasterReader over t's master file in r.
func NewMasterReader(r kv.Reader, t *catalog.Table) (*MasterReader, error) {
	lo := encoding.EncodeUvarintAsc(nil, t.ID)
	hi := encoding.EncodeUvarintAsc(nil, t.ID+1)
	it, err := r.NewIter(kv.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return nil, err
	}
	return &MasterReader{t: t, it: it}, nil
}

// seek positions the iterator at the first key >= key: by stepping when
// the iterator is a little before key, else with SeekGE. It reports
// whether the iterator is at a key; false with a nil it.Error() means
// past the master file's end.
func (m *MasterReader) seek(key []byte) bool {
	if m.skipped < m.skip {
		m.skipped++
		return m.it.SeekGE(key)
	}
	if masterSteps > 0 && m.it.Valid() {
		c := bytes.Compare(m.it.Key(), key)
		if c == 0 {
			return true
		}
		if c < 0 {
			for range masterSteps {
				if !m.it.Next() {
					m.skip = 0
					return false
				}
				if bytes.Compare(m.it.Key(), key) >= 0 {
					m.skip = 0
					return true
				}
			}
			m.skip, m.skipped = min(max(2*m.skip, 1), maxSkip), 0
		}
	}
	return m.it.SeekGE(key)
}

// Get is GetCols through the reader's iterator.
func (m *MasterReader) Get(pk, out []types.Datum, cols *Cols) (bool, error) {
	if len(pk) != len(m.t.PrimaryKey) || len(out) != len(m.t.Columns) {
		return false, pgerror.Newf(pgerror.Internal, "index.MasterReader.Get: %d key values and %d outputs for table %q", len(pk), len(out), m.t.Name)
	}
	m.key = MasterKey(m.key[:0], m.t, pk)
	return m.GetKey(m.key, pk, out, cols)
}

// GetKey is Get of a master key the caller encoded (MasterKey(t, pk)).
// Keys asked for in ascending order cost least: the iterator seeks
// forward from where it is.
func (m *MasterReader) GetKey(key []byte, pk, out []types.Datum, cols *Cols) (bool, error) {
	if len(pk) != len(m.t.PrimaryKey) || len(out) != len(m.t.Columns) {
		return false, pgerror.Newf(pgerror.Internal, "index.MasterReader.GetKey: %d key values and %d outputs for table %q", len(pk), len(out), m.t.Name)
	}
	v, found, err := m.Value(key)
	if !found || err != nil {
		return false, err
	}
	for i, o := range m.t.PrimaryKey {
		out[o] = pk[i]
	}
	return true, decodeValue(m.t, v, out, cols)
}

// Value returns the stored value of the master key key (MasterKey's
// encoding), valid until the reader's next call, and whether the row
// exists: for callers that decode values themselves (exec's batch
// lookups). Keys asked for in ascending order cost least, as with
// GetKey.
func (m *MasterReader) Value(key []byte) ([]byte, bool, error) {
	if !m.seek(key) {
		return nil, false, m.it.Error()
	}
	if !bytes.Equal(m.it.Key(), key) {
		return nil, false, nil
	}
	return m.it.Value(), true, nil
}

// Close releases the iterator.
func (m *MasterReader) Close() error { return m.it.Close() }
