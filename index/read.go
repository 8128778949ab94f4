package index

import (
	"slices"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// Span bounds a scan over a PREFIX of a file's key columns (the primary
// key for ScanMaster, the indexed columns for ScanIndex): len(Lo) and
// len(Hi) may be shorter than the key. A nil Lo or Hi is unbounded on that
// side. Bounds are in key order: for a DESC column, Lo holds the LARGER
// value. LoExcl/HiExcl exclude every key whose prefix equals the bound.
// NULL sorts last in an ascending column (first in a descending one), so
// an unbounded side includes NULLs there.
type Span struct {
	Lo, Hi         []types.Datum
	LoExcl, HiExcl bool
}

// RowIter is the row iterator protocol of the index package.
//
// Next advances to the next row and reports whether there is one; the
// first call positions on the first row. Row returns the current row,
// valid (and unmodified) only until the next call to Next or Close: copy
// it to keep it. Err reports the error that stopped iteration, if any
// (Next returned false with a nil Err: the span is exhausted). Close
// releases the underlying kv iterator and must always be called.
type RowIter interface {
	Next() bool
	Row() []types.Datum
	Err() error
	Close() error
}

// spanBounds turns a span over the leading key columns of space into kv
// iterator bounds.
func spanBounds(space uint64, sp Span, desc []bool) (lo, hi []byte) {
	prefix := encoding.EncodeUvarintAsc(nil, space)
	enc := func(vals []types.Datum) []byte {
		b := append([]byte(nil), prefix...)
		for i, v := range vals {
			b = encoding.EncodeKeyDatum(b, v, dir(desc, i))
		}
		return b
	}
	lo, hi = prefix, encoding.PrefixEnd(prefix)
	if sp.Lo != nil {
		if lo = enc(sp.Lo); sp.LoExcl {
			lo = encoding.PrefixEnd(lo)
		}
	}
	if sp.Hi != nil {
		if hi = enc(sp.Hi); !sp.HiExcl {
			hi = encoding.PrefixEnd(hi)
		}
	}
	return lo, hi
}

// kvIter walks a kv iterator forward or backward and decodes each entry
// into row with decode.
type kvIter struct {
	it      kv.Iterator
	reverse bool
	started bool
	row     []types.Datum
	decode  func(key, value []byte, row []types.Datum) error
	err     error
}

var _ RowIter = (*kvIter)(nil)

func (s *kvIter) Next() bool {
	if !s.advance() {
		return false
	}
	if s.err = s.decode(s.it.Key(), s.it.Value(), s.row); s.err != nil {
		return false
	}
	return true
}

// advance moves the kv iterator to the next entry in scan order and
// reports whether there is one (setting err when the iterator failed).
func (s *kvIter) advance() bool {
	if s.err != nil {
		return false
	}
	var ok bool
	switch {
	case !s.started && !s.reverse:
		ok = s.it.First()
	case !s.started:
		ok = s.it.Last()
	case s.reverse:
		ok = s.it.Prev()
	default:
		ok = s.it.Next()
	}
	s.started = true
	if !ok {
		s.err = s.it.Error()
	}
	return ok
}

func (s *kvIter) Row() []types.Datum { return s.row }
func (s *kvIter) Err() error         { return s.err }
func (s *kvIter) Close() error       { return s.it.Close() }

// Cols is the set of columns a read decodes. Primary-key columns always
// come from the key (they cost no value decoding); value columns outside
// the set are skipped without being decoded and are left NULL, so a query
// reading two of a table's columns does not pay for the others (nor
// allocate their strings). A nil *Cols decodes every column. A Cols is
// immutable once built and may be shared by concurrent reads.
type Cols struct {
	// valueOrds are the table ordinals of the selected value columns, in
	// column-ID order (the order of a master value); valueIDs their IDs.
	valueOrds []int
	valueIDs  []uint32
	// Inline storage for both, so a small read set is one allocation.
	ordBuf [6]int
	idBuf  [6]uint32
}

// NewCols returns the read set of t holding the columns ords (table
// ordinals, in any order; duplicates and ordinals out of range are
// ignored). A nil ords means every column and returns nil. It allocates
// once for up to six value columns, so build it once per scan, not per
// row.
func NewCols(t *catalog.Table, ords []int) *Cols {
	if ords == nil {
		return nil
	}
	c := &Cols{}
	c.valueOrds, c.valueIDs = c.ordBuf[:0], c.idBuf[:0]
	l := layoutOf(t)
	for i, o := range l.valueOrds {
		if slices.Contains(ords, o) {
			c.valueOrds = append(c.valueOrds, o)
			c.valueIDs = append(c.valueIDs, l.valueIDs[i])
		}
	}
	return c
}

// valueCols returns the value columns a read of t through c decodes.
func valueCols(t *catalog.Table, c *Cols) (ords []int, ids []uint32) {
	if c == nil {
		l := layoutOf(t)
		return l.valueOrds, l.valueIDs
	}
	return c.valueOrds, c.valueIDs
}

// ScanMaster returns the rows of t whose primary key lies in sp, in key
// order (reverse: descending), each with every column filled. It is
// ScanMasterCols with every column.
func ScanMaster(r kv.Reader, t *catalog.Table, sp Span, reverse bool) (RowIter, error) {
	return ScanMasterCols(r, t, sp, reverse, nil)
}

// ScanMasterCols returns the rows of t whose primary key lies in sp, in
// key order (reverse: descending), each full-width with the primary-key
// columns and the columns of cols filled and the others NULL (nil cols:
// every column). The iterator reuses one row buffer: see RowIter.
func ScanMasterCols(r kv.Reader, t *catalog.Table, sp Span, reverse bool, cols *Cols) (RowIter, error) {
	lo, hi := spanBounds(t.ID, sp, t.PrimaryKeyDesc)
	it, err := r.NewIter(kv.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return nil, err
	}
	return &masterIter{kvIter: kvIter{it: it, reverse: reverse, row: make([]types.Datum, len(t.Columns))}, t: t, cols: cols}, nil
}

// masterIter decodes master records: the key into the primary-key
// columns, the value into the selected value columns. It is a kvIter
// whose decode is a method, not a closure, so the per-row call is direct.
type masterIter struct {
	kvIter
	t    *catalog.Table
	cols *Cols
}

var _ RowIter = (*masterIter)(nil)

func (s *masterIter) Next() bool {
	if !s.advance() {
		return false
	}
	key, row := s.it.Key(), s.row
	rest, _, err := encoding.DecodeUvarintAsc(key)
	if err != nil {
		s.err = err
		return false
	}
	for _, o := range s.t.PrimaryKey {
		if rest, row[o], _, err = encoding.DecodeKeyDatum(rest); err != nil {
			s.err = err
			return false
		}
		markJSONB(s.t, o, row)
	}
	if len(rest) != 0 {
		s.err = pgerror.Newf(pgerror.DataCorrupted, "index: master key %s has trailing bytes", encoding.Pretty(key))
		return false
	}
	if s.err = decodeValue(s.t, s.it.Value(), row, s.cols); s.err != nil {
		return false
	}
	return true
}

// FillRow decodes the columns cols selects into the current row of it, a
// master scan opened with ScanMasterCols: a scan can read the columns its
// filter needs first and the rest only for the rows that pass.
func FillRow(it RowIter, cols *Cols) error {
	m, ok := it.(*masterIter)
	if !ok {
		return pgerror.Newf(pgerror.Internal, "index.FillRow: %T is not a master scan", it)
	}
	return decodeValue(m.t, m.it.Value(), m.row, cols)
}

// ScanIndex returns, in index order (reverse: descending), a full-width
// row per entry of idx whose indexed values lie in sp, with only the
// indexed, primary-key and INCLUDE columns filled (the rest NULL):
// enough for an index-only scan or a following Get. Within one search value of a
// non-unique index rows come in primary-key order, whatever the form.
func ScanIndex(r kv.Reader, t *catalog.Table, idx *catalog.Index, sp Span, reverse bool) (RowIter, error) {
	lo, hi := spanBounds(idx.ID, sp, idx.Desc)
	it, err := r.NewIter(kv.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return nil, err
	}
	row := make([]types.Datum, len(t.Columns))
	if idx.Form == catalog.FormInverted {
		return &invIter{it: it, reverse: reverse, t: t, idx: idx, row: row}, nil
	}
	return &kvIter{it: it, reverse: reverse, row: row, decode: func(key, value []byte, row []types.Datum) error {
		return decodeEntry(t, idx, key, value, row)
	}}, nil
}

// decodeEntry fills row's indexed, primary-key and included columns
// from a unique or key+id entry.
func decodeEntry(t *catalog.Table, idx *catalog.Index, key, value []byte, row []types.Datum) error {
	for i := range row {
		row[i] = types.Null
	}
	rest, _, err := encoding.DecodeUvarintAsc(key)
	if err != nil {
		return err
	}
	for _, o := range idx.Columns {
		if rest, row[o], _, err = encoding.DecodeKeyDatum(rest); err != nil {
			return err
		}
		markJSONB(t, o, row)
	}
	pk, inc := rest, value // key+id form, or a unique entry with a NULL
	if idx.Form == catalog.FormUnique {
		if pk, inc, err = splitUniqueValue(t, idx, value); err != nil {
			return err
		}
	}
	if err := decodePKInto(t, pk, row); err != nil {
		return err
	}
	return decodeIncluded(t, idx, inc, row)
}

func decodePKInto(t *catalog.Table, pk []byte, row []types.Datum) error {
	var err error
	for _, o := range t.PrimaryKey {
		if pk, row[o], _, err = encoding.DecodeKeyDatum(pk); err != nil {
			return err
		}
		markJSONB(t, o, row)
	}
	if len(pk) != 0 {
		return pgerror.New(pgerror.DataCorrupted, "index: primary key in index entry has trailing bytes")
	}
	return nil
}

// markJSONB gives a jsonb column read from a key the jsonb mark its row
// value would carry (types.TextJSONB): keys hold only the text.
func markJSONB(t *catalog.Table, o int, row []types.Datum) {
	if row[o].Kind == types.KindText && t.Columns[o].Type.Family == types.JSONB {
		row[o].I = types.TextJSONB
	}
}
