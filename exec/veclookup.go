package exec

import (
	"bytes"
	"errors"
	"slices"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// vecMasterReads is the master half of a batch index scan that is not
// index-only (a lookup: SELECT id, pad FROM t WHERE k = $1 through a
// key+id index on k). The scan decodes a batch's entries as an
// index-only scan does — indexed, primary-key and included columns from
// the entry — and notes each entry's master key here; read then fetches
// the batch's master rows in ascending key order (one value of a key+id
// index yields its primary keys in that order already) and decodes the
// value columns the plan reads straight into the batch's vectors, each
// into its entry's row, so the rows keep the index's order.
//
// A read-only statement reads through one MasterReader, each seek
// starting where the last one stopped; a parallel scan gives each worker
// its own, opened on the consumer's goroutine (vecIndexParallel.start).
// A statement inside a transaction reads each row with Get, so that its
// read set holds the rows it read, not the whole table (as scanOp's
// master gets).
type vecMasterReads struct {
	t    *catalog.Table
	idx  *catalog.Index
	vals valueCols // value columns read: not key, indexed or included

	prefix []byte   // the master file's key prefix
	buf    []byte   // the batch's master keys, one after another
	ends   []int    // where each row's key ends in buf
	keys   [][]byte // the keys, sliced from buf by read
	order  []int    // rows in master key order

	mr  *index.MasterReader
	own bool // mr was opened here: close closes it
}

// newVecMasterReads returns the master reads of a batch scan of idx over
// t whose batch has the vectors vs: the columns with a vector that only
// the master row holds are read from it.
func newVecMasterReads(t *catalog.Table, idx *catalog.Index, vs []*vec) *vecMasterReads {
	var inc []int
	if idx.Form != catalog.FormInverted { // an inverted list holds keys only
		inc, _ = index.IncludedLayout(t, idx)
	}
	ords, ids := index.ValueLayout(t)
	var vo []int
	var vi []uint32
	for j, o := range ords {
		if vs[o] != nil && !slices.Contains(idx.Columns, o) && !slices.Contains(inc, o) {
			vo, vi = append(vo, o), append(vi, ids[j])
		}
	}
	return &vecMasterReads{t: t, idx: idx, vals: newValueCols(vo, vi), prefix: encoding.EncodeUvarintAsc(nil, t.ID)}
}

// reset empties the batch's keys.
func (m *vecMasterReads) reset() {
	m.buf, m.ends = m.buf[:0], m.ends[:0]
}

// add notes the master key of the next row: pk is an entry's primary key
// in key encoding (index.EntryPK), copied.
func (m *vecMasterReads) add(pk []byte) {
	m.buf = append(append(m.buf, m.prefix...), pk...)
	m.ends = append(m.ends, len(m.buf))
}

// read reads the master row of every key noted since reset into the rows
// of b (row k of b is the k-th key), through r.
func (m *vecMasterReads) read(rs *runState, b *batch) error {
	m.keys, m.order = m.keys[:0], m.order[:0]
	start := 0
	for i, end := range m.ends {
		m.keys = append(m.keys, m.buf[start:end:end])
		m.order = append(m.order, i)
		start = end
	}
	if !slices.IsSortedFunc(m.keys, bytes.Compare) {
		slices.SortFunc(m.order, func(x, y int) int { return bytes.Compare(m.keys[x], m.keys[y]) })
	}
	get, err := m.getter(rs)
	if err != nil {
		return err
	}
	for _, k := range m.order {
		v, found, err := get(m.keys[k])
		if err != nil {
			return err
		}
		if !found {
			return pgerror.Newf(pgerror.DataCorrupted, "index %q of table %q points at a missing row", m.idx.Name, m.t.Name)
		}
		if len(m.vals.ords) == 0 {
			continue
		}
		if err := encoding.DecodeRowFields(v, m.vals.ids, m.vals.fields, m.vals.present); err != nil {
			return err
		}
		if err := m.vals.store(b.cols, m.t, k, m.kindError); err != nil {
			return err
		}
	}
	return nil
}

func (m *vecMasterReads) kindError(o int, k types.Kind) error {
	c := m.t.Columns[o]
	return pgerror.Newf(pgerror.DataCorrupted, "exec: column %q of table %q holds a %s value, its type is %s", c.Name, m.t.Name, k, c.Type)
}

// getter returns how read fetches a master value: through the
// MasterReader of a read-only statement (opened on first use), else with
// a Get of the statement's reader.
func (m *vecMasterReads) getter(rs *runState) (func(key []byte) ([]byte, bool, error), error) {
	if m.mr == nil && rs.ctx.ReadOnly {
		mr, err := index.NewMasterReader(rs.reader(), m.t)
		if err != nil {
			return nil, err
		}
		m.mr, m.own = mr, true
	}
	if m.mr != nil {
		return m.mr.Value, nil
	}
	r := rs.reader()
	return func(key []byte) ([]byte, bool, error) {
		v, err := r.Get(key)
		if errors.Is(err, kv.ErrNotFound) {
			return nil, false, nil
		}
		return v, err == nil, err
	}, nil
}

// close releases the MasterReader read opened.
func (m *vecMasterReads) close() error {
	if m.mr == nil || !m.own {
		return nil
	}
	err := m.mr.Close()
	m.mr = nil
	return err
}

// invCursor is a batch scan's part of an inverted-list index's folded
// list: its keys pos to end-1 are left to read.
type invCursor struct {
	list     *index.InvertedList
	pos, end int
}

// invFold is a scan's folded range of an inverted list and the fold's
// buffers, reused from one part to the next.
type invFold struct {
	list index.InvertedList
	sc   index.InvertedScratch
}

// openInverted reads the inverted-list records of the scan's evaluated
// spans: one search value's runs, left to fold (foldRange), or else the
// folded list of every search value in order — the rows scanOp's
// inverted-list scan yields — which a parallel scan cuts by position.
func (s *vecIndexScan) openInverted() error {
	n := s.node
	if len(s.spans) == 1 {
		runs, ok, err := index.ReadInvertedRuns(s.rs.reader(), n.Table, n.Index, s.spans[0])
		if err != nil || ok {
			s.runs = runs
			return err
		}
	}
	l := &index.InvertedList{}
	for _, sp := range s.spans {
		if err := index.ReadInvertedList(s.rs.reader(), n.Table, n.Index, sp, l); err != nil {
			return err
		}
	}
	s.inv = &invCursor{list: l, end: l.Len()}
	return nil
}

// foldRange folds the primary keys in [lo, hi) (nil: unbounded) of the
// scan's runs into its list, to read next.
func (s *vecIndexScan) foldRange(lo, hi []byte) {
	s.runs.FoldRange(lo, hi, &s.fold.list, &s.fold.sc)
	s.inv = &invCursor{list: &s.fold.list, end: s.fold.list.Len()}
}

// fillFromList puts up to batchSize rows of the scan's inverted list into
// the batch: the search value's indexed columns and the primary key's,
// and the master key for read.
func (s *vecIndexScan) fillFromList() error {
	c := s.inv
	for ; s.b.n < batchSize && c.pos < c.end; c.pos++ {
		k := s.b.n
		vals := c.list.Value(c.pos)
		for i, o := range s.node.Index.Columns {
			if v := s.b.cols[o]; v != nil {
				if d := vals[i]; !d.IsNull() && d.Kind != v.kind {
					return s.kindError(o, d.Kind)
				}
				v.set(k, vals[i])
			}
		}
		pk := c.list.PK(c.pos)
		if err := s.decodePK(k, pk); err != nil {
			return err
		}
		s.master.add(pk)
		s.b.n++
	}
	s.done = c.pos >= c.end
	return nil
}
