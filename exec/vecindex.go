package exec

import (
	"slices"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// vecIndexScan is the batch form of an index scan (planner.VecIndexScan,
// marked Vectorized) of a unique or key+id index — or of an inverted-list
// index, whose folded list it reads instead of entries (veclookup.go): it
// walks the index entries of each span — in the spans' order, forward or
// in reverse, as scanOp reads them — and decodes each entry straight into
// the batch's vectors: the indexed columns and the primary key from the
// key (or, for a unique entry, the value), the INCLUDE columns from the
// value; only the columns something reads get a vector. A scan that is
// not index-only then reads the batch's master rows for the other
// columns (master, veclookup.go). The scan's filter, if any, narrows the
// batch's selection (vecPred). Rows come in exactly the order, and with
// exactly the values, of scanOp's index scan; the differential test
// TestVecIndexScanAgrees holds it to that.
type vecIndexScan struct {
	rs   *runState
	env  *eval.Env
	node *planner.Scan

	opened bool
	spans  []index.Span
	si     int         // the next span to open
	it     kv.Iterator // the current span's entries; nil between spans
	fresh  bool        // it is not positioned yet
	done   bool
	// keepIt: it belongs to the caller (a parallel scan's part), which
	// closes it; the scan only reads it to the end.
	keepIt bool

	b    batch
	pred *vecPred
	sel  []int
	inc  valueCols // the included columns read (ordinals, IDs)
	// intKey marks, by table ordinal, the key columns holding integers:
	// their key values are decoded (or skipped) without a Datum.
	intKey []bool
	// master reads the master rows of a scan that is not index-only;
	// nil for an index-only one.
	master *vecMasterReads
	// inv, for an inverted-list index, is the part of the spans' folded
	// list the scan reads instead of an iterator (veclookup.go).
	inv *invCursor
	// runs is the one search value of an inverted-list index in the
	// spans, before the fold: the serial scan folds all of it, each
	// worker of a parallel scan a range of primary keys (fold).
	runs *index.InvertedRuns
	fold invFold
}

// newVecIndexScan builds the batch index-only scan of n.
func newVecIndexScan(rs *runState, env *eval.Env, n *planner.Scan) (*vecIndexScan, error) {
	t := n.Table
	if !planner.VecIndexScan(n) {
		return nil, pgerror.Newf(pgerror.Internal, "exec: batch index scan of %q: only index-only scans and lookups run in batches", t.Name)
	}
	s := &vecIndexScan{rs: rs, env: env, node: n}
	s.b.cols = make([]*vec, len(t.Columns))
	needed := n.Needed
	if needed == nil {
		needed = make([]int, len(t.Columns))
		for i := range needed {
			needed[i] = i
		}
	}
	for _, o := range needed {
		if _, ok := vecClassOf(t.Columns[o].Type); !ok {
			return nil, pgerror.Newf(pgerror.Internal, "exec: batch index scan of %q: column %q of type %s has no vector", t.Name, t.Columns[o].Name, t.Columns[o].Type)
		}
		s.b.cols[o] = newVec(t.Columns[o].Type)
	}
	// Only the needed columns get vectors (Needed holds every column
	// the filter or a node above reads); the others' key values are
	// skipped and their included values not decoded.
	ords, ids := index.IncludedLayout(t, n.Index)
	var io []int
	var ii []uint32
	for j, o := range ords {
		if s.b.cols[o] != nil {
			io, ii = append(io, o), append(ii, ids[j])
		}
	}
	s.inc = newValueCols(io, ii)
	s.intKey = make([]bool, len(t.Columns))
	for _, o := range slices.Concat(n.Index.Columns, t.PrimaryKey) {
		s.intKey[o] = t.Columns[o].Type.Kind() == types.KindInt
	}
	if !n.IndexOnly {
		s.master = newVecMasterReads(t, n.Index, s.b.cols)
	}
	if n.Filter != nil {
		p, err := compileVecPred(env, n.Filter, columnTypes(n.Cols))
		if err != nil {
			return nil, err
		}
		s.pred = p
	}
	return s, nil
}

// open evaluates the node's spans into index key spans, as scanOp does;
// an inverted-list index's spans are read into their folded list.
func (s *vecIndexScan) open() error {
	s.opened = true
	op := &scanOp{rs: s.rs, env: s.env, node: s.node}
	if err := op.open(); err != nil {
		return err
	}
	s.spans = append([]index.Span(nil), op.spans...)
	if s.node.Index.Form != catalog.FormInverted {
		return nil
	}
	return s.openInverted()
}

func (s *vecIndexScan) NextBatch() (*batch, error) {
	if !s.opened {
		if err := s.open(); err != nil {
			return nil, err
		}
	}
	ok, err := nextPassing(s.rs, &s.done, s.fill, &s.b, s.pred, &s.sel) // vecscan.go
	if !ok || err != nil {
		return nil, err
	}
	return &s.b, nil
}

// step moves to the next entry in scan order, opening the next span's
// iterator when the current one is used up; false at the end of the
// last span.
func (s *vecIndexScan) step() (bool, error) {
	for {
		if s.it != nil {
			var ok bool
			switch {
			case s.fresh && s.node.Reverse:
				ok = s.it.Last()
			case s.fresh:
				ok = s.it.First()
			case s.node.Reverse:
				ok = s.it.Prev()
			default:
				ok = s.it.Next()
			}
			s.fresh = false
			if ok {
				return true, nil
			}
			err := s.it.Error()
			var cerr error
			if !s.keepIt {
				cerr = s.it.Close()
			}
			s.it = nil
			if err != nil {
				return false, err
			}
			if cerr != nil {
				return false, cerr
			}
		}
		if s.si >= len(s.spans) {
			return false, nil
		}
		it, err := index.ScanIndexRaw(s.rs.reader(), s.node.Index, s.spans[s.si])
		if err != nil {
			return false, err
		}
		s.si++
		s.it, s.fresh = it, true
	}
}

// fill reads up to batchSize entries into the batch.
func (s *vecIndexScan) fill() error {
	s.b.n = 0
	for _, v := range s.b.cols {
		if v != nil {
			v.arena = v.arena[:0]
			v.clearNulls(batchSize)
		}
	}
	if s.master != nil {
		s.master.reset()
	}
	var err error
	if s.inv == nil && s.runs != nil {
		s.foldRange(nil, nil)
	}
	if s.inv != nil {
		err = s.fillFromList()
	} else {
		err = s.fillFromEntries()
	}
	if err != nil || s.master == nil || s.b.n == 0 {
		return err
	}
	return s.master.read(s.rs, &s.b)
}

// fillFromEntries decodes up to batchSize index entries into the batch.
func (s *vecIndexScan) fillFromEntries() error {
	for s.b.n < batchSize {
		ok, err := s.step()
		if err != nil {
			return err
		}
		if !ok {
			s.done = true
			return nil
		}
		if err := s.decode(s.b.n, s.it.Key(), s.it.Value()); err != nil {
			return err
		}
		s.b.n++
	}
	return nil
}

// decode fills row k of the batch from an index entry.
func (s *vecIndexScan) decode(k int, key, value []byte) error {
	t, idx := s.node.Table, s.node.Index
	rest, _, err := encoding.DecodeUvarintAsc(key)
	if err != nil {
		return err
	}
	for _, o := range idx.Columns {
		if rest, err = s.decodeKeyCol(k, o, rest); err != nil {
			return err
		}
	}
	pk, inc, err := index.EntryPK(t, idx, rest, value)
	if err != nil {
		return err
	}
	if s.master != nil {
		s.master.add(pk)
	}
	if err := s.decodePK(k, pk); err != nil {
		return err
	}
	if len(s.inc.ords) == 0 {
		return nil
	}
	if err := encoding.DecodeRowFields(inc, s.inc.ids, s.inc.fields, s.inc.present); err != nil {
		return err
	}
	for j, o := range s.inc.ords {
		v := s.b.cols[o]
		f := &s.inc.fields[j]
		if !s.inc.present[j] || f.Kind == types.KindNull {
			v.setNull(k) // an entry leaves a NULL out
			continue
		}
		if !v.setField(k, f) {
			return s.kindError(o, f.Kind)
		}
	}
	return nil
}

// decodePK decodes an entry's primary key (key encoding) into row k,
// the columns nothing reads skipped.
func (s *vecIndexScan) decodePK(k int, pk []byte) error {
	rest := pk
	var err error
	for _, o := range s.node.Table.PrimaryKey {
		if rest, err = s.decodeKeyCol(k, o, rest); err != nil {
			return err
		}
	}
	if len(rest) != 0 {
		return pgerror.Newf(pgerror.DataCorrupted, "exec: primary key %s in index %q has trailing bytes", encoding.Pretty(pk), s.node.Index.Name)
	}
	return nil
}

// decodeKeyCol decodes the key value of column o at the start of b into
// row k (skipping it when nothing reads o) and returns what follows.
func (s *vecIndexScan) decodeKeyCol(k, o int, b []byte) ([]byte, error) {
	v := s.b.cols[o]
	if s.intKey[o] && (v == nil || v.kind == types.KindInt) {
		// The common integer key, read or skipped: no Datum. A NULL
		// key value is not an integer's and takes the general path.
		rest, x, ok, err := encoding.DecodeKeyInt(b)
		if err != nil {
			return nil, err
		}
		if ok {
			if v != nil {
				v.i[k] = x
			}
			return rest, nil
		}
	}
	rest, d, _, err := encoding.DecodeKeyDatum(b)
	if err != nil || v == nil {
		return rest, err
	}
	if !d.IsNull() && d.Kind != v.kind {
		return nil, s.kindError(o, d.Kind)
	}
	v.set(k, d)
	return rest, nil
}

func (s *vecIndexScan) kindError(o int, k types.Kind) error {
	c := s.node.Table.Columns[o]
	return pgerror.Newf(pgerror.DataCorrupted, "exec: column %q of table %q holds a %s value in index %q, its type is %s", c.Name, s.node.Table.Name, k, s.node.Index.Name, c.Type)
}

func (s *vecIndexScan) Close() error {
	var err error
	if s.master != nil {
		err = s.master.close()
	}
	if s.it == nil {
		return err
	}
	if cerr := s.it.Close(); err == nil {
		err = cerr
	}
	s.it = nil
	return err
}
