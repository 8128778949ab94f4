package exec

import (
	"cmp"
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

// vecScan is the batch form of a full master scan (planner.Scan marked
// Vectorized): it walks the kv iterator and decodes each record straight
// into the batch's column vectors — the key into the primary-key columns,
// the value into the needed value columns — without building Datums.
// With a filter it decodes the filter's columns first, keeps a copy of
// each value, narrows the batch's selection with the vector filter, and
// decodes the other columns only for the rows that passed (late
// materialization, as scanOp does row by row); when the filter reads no
// primary-key column, the key too is copied and decoded only for those
// rows. When the filter begins with comparisons of integer value columns
// with constants (preFilter), those are tested on each record as Visit
// hands it over, before anything is copied: a record they reject never
// enters the batch, and one they keep is decoded whole on the spot from
// the iterator's own key and value, so nothing is copied to be decoded
// later.
type vecScan struct {
	rs   *runState
	env  *eval.Env
	node *planner.Scan
	sp   index.Span // the key range read (the whole table for a FullScan)
	it   kv.Iterator
	// fresh: it was opened by the caller (a parallel scan) and is not
	// positioned yet.
	fresh bool
	done  bool
	b     batch
	pred  *vecPred // nil: no filter

	// early are the value columns decoded for every row (all needed ones
	// without a filter), late those decoded after the filter.
	early, late valueCols
	// values holds copies of the batch's master values when late is not
	// empty; offs[k] is where row k's value starts.
	values []byte
	offs   []int
	sel    []int
	// lateKey: the key is decoded after the filter, from keys (row k's
	// at keys[koffs[k]:koffs[k+1]]).
	lateKey bool
	keys    []byte
	koffs   []int
	// noKey: nothing reads the primary-key columns (dropKeyColumns), so
	// keys are not decoded at all.
	noKey bool
	// pre: the filter's leading integer comparisons, tested per record
	// in addRow (nil: none, and the batch holds every record).
	pre []preCompare
	// addRowFn is addRow as the func value Visit takes, made once.
	addRowFn func(key, val []byte) error
}

// preCompare is a conjunct of a scan's filter tested on a record before it
// enters the batch: value column early.ords[j] op x, both of kind kind.
type preCompare struct {
	j    int
	op   cmpOp
	x    int64
	kind types.Kind
}

// valueCols are value columns of a master value: table ordinals and their
// column IDs (ascending), with reusable decode buffers.
type valueCols struct {
	ords    []int
	ids     []uint32
	fields  []encoding.RowField
	present []bool
}

func newValueCols(ords []int, ids []uint32) valueCols {
	return valueCols{ords: ords, ids: ids, fields: make([]encoding.RowField, len(ords)), present: make([]bool, len(ords))}
}

func newVecScan(rs *runState, env *eval.Env, n *planner.Scan) (*vecScan, error) {
	t := n.Table
	if n.Access != planner.FullScan || n.Reverse || n.Foreign != nil || n.Memo != nil {
		return nil, pgerror.Newf(pgerror.Internal, "exec: batch scan of %q: only forward full master scans run in batches", t.Name)
	}
	s := &vecScan{rs: rs, env: env, node: n}
	needed := n.Needed
	if needed == nil {
		needed = make([]int, len(t.Columns))
		for i := range needed {
			needed[i] = i
		}
	}
	s.b.cols = make([]*vec, len(t.Columns))
	for _, o := range needed {
		if _, ok := vecClassOf(t.Columns[o].Type); !ok {
			return nil, pgerror.Newf(pgerror.Internal, "exec: batch scan of %q: column %q of type %s has no vector", t.Name, t.Columns[o].Name, t.Columns[o].Type)
		}
		s.b.cols[o] = newVec(t.Columns[o].Type)
	}
	for _, o := range t.PrimaryKey {
		if s.b.cols[o] == nil {
			s.b.cols[o] = newVec(t.Columns[o].Type)
		}
	}
	var fcols []int
	if n.Filter != nil {
		p, err := compileVecPred(env, n.Filter, s.colTypes())
		if err != nil {
			return nil, err
		}
		s.pred = p
		fcols, _ = planner.ColumnsRead(n.Filter)
	}
	ords, ids := index.ValueLayout(t)
	var eo, lo []int
	var ei, li []uint32
	for i, o := range ords {
		switch {
		case s.b.cols[o] == nil:
		case s.pred == nil || slices.Contains(fcols, o):
			eo, ei = append(eo, o), append(ei, ids[i])
		default:
			lo, li = append(lo, o), append(li, ids[i])
		}
	}
	s.early, s.late = newValueCols(eo, ei), newValueCols(lo, li)
	s.lateKey = s.pred != nil && !slices.ContainsFunc(t.PrimaryKey, func(o int) bool { return slices.Contains(fcols, o) })
	if s.pre = preFilterOf(s.pred, &s.early, s.b.cols); s.pre != nil {
		// addRowPre decodes the key and the late columns of a record it
		// keeps from the iterator's key and value, without copies.
		s.lateKey = false
	}
	return s, nil
}

// preFilterOf returns the leading conjuncts of pred (a comparison, or a
// filter's list of conjuncts) that compare an integer value column of
// early with a constant of its kind: a record whose value fails one of
// them is not selected whatever the rest says, and the row evaluator
// would not evaluate the conjuncts after it. Only a prefix is taken, so a
// later conjunct that fails (a constant whose evaluation failed) fails
// at the same rows. Nil when the filter does not begin so.
func preFilterOf(pred *vecPred, early *valueCols, cols []*vec) []preCompare {
	if pred == nil {
		return nil
	}
	var conj []vecBool
	switch r := pred.root.(type) {
	case *vecCompare:
		conj = []vecBool{r}
	case *vecLogic:
		if !r.and {
			return nil
		}
		conj = r.args
	default:
		return nil
	}
	var out []preCompare
	for _, a := range conj {
		c, ok := a.(*vecCompare)
		if !ok || c.r >= 0 || c.kErr != nil || c.isNull {
			break
		}
		j := slices.Index(early.ords, c.l)
		v := cols[c.l]
		if j < 0 || v == nil || v.class != classInts || v.kind != c.k.Kind {
			break
		}
		out = append(out, preCompare{j: j, op: c.opc, x: c.k.I, kind: v.kind})
	}
	return out
}

// colTypes returns the types of the scan's row, for compiling the filter.
func (s *vecScan) colTypes() []types.T {
	out := make([]types.T, len(s.node.Table.Columns))
	for i, c := range s.node.Table.Columns {
		out[i] = c.Type
	}
	return out
}

func (s *vecScan) NextBatch() (*batch, error) {
	ok, err := nextPassing(s.rs, &s.done, s.fill, &s.b, s.pred, &s.sel)
	if !ok || err != nil {
		return nil, err
	}
	if len(s.late.ords) > 0 && s.pre == nil {
		for _, k := range s.b.sel {
			if err := s.decodeValue(k, s.values[s.offs[k]:s.offs[k+1]], &s.late); err != nil {
				return nil, err
			}
		}
	}
	if s.lateKey {
		for _, k := range s.b.sel {
			if err := s.decodeKey(k, s.keys[s.koffs[k]:s.koffs[k+1]]); err != nil {
				return nil, err
			}
		}
	}
	return &s.b, nil
}

// nextPassing fills a scan's batch b (fill, until it sets done) and
// filters it by pred (nil: none) until a batch has rows left, their
// positions in b.sel (and *sel, whose array it reuses); false when the
// scan ends first.
func nextPassing(rs *runState, done *bool, fill func() error, b *batch, pred *vecPred, sel *[]int) (bool, error) {
	for !*done {
		if err := rs.canceled(); err != nil {
			return false, err
		}
		if err := fill(); err != nil {
			return false, err
		}
		if b.n == 0 {
			break
		}
		b.sel = nil
		if pred != nil {
			kept, err := pred.filter(b, (*sel)[:0])
			if err != nil {
				return false, err
			}
			*sel, b.sel = kept, kept
			if len(kept) == 0 {
				continue
			}
		}
		return true, nil
	}
	return false, nil
}

// fill reads up to batchSize records into the batch: one Visit of the
// iterator, which hands each record to addRow without an interface call
// per Next, Key and Value. Visit leaves the iterator at the record after
// the batch's last, where the next fill starts.
func (s *vecScan) fill() error {
	s.b.n = 0
	for _, v := range s.b.cols {
		if v != nil {
			v.arena = v.arena[:0]
			v.clearNulls(batchSize)
		}
	}
	if len(s.late.ords) > 0 && s.pre == nil {
		s.values, s.offs = s.values[:0], append(s.offs[:0], 0)
	}
	if s.lateKey {
		s.keys, s.koffs = s.keys[:0], append(s.koffs[:0], 0)
	}
	if s.it == nil {
		it, err := index.ScanMasterRaw(s.rs.reader(), s.node.Table, s.sp)
		if err != nil {
			return err
		}
		s.it = it
		it.First()
	} else if s.fresh {
		s.fresh = false
		s.it.First()
	}
	if s.addRowFn == nil {
		s.addRowFn = s.addRow
		if s.pre != nil {
			s.addRowFn = s.addRowPre
		}
	}
	if s.pre == nil {
		n, err := s.it.Visit(batchSize, s.addRowFn)
		if err != nil {
			return err
		}
		if n < batchSize {
			s.done = true
			return s.it.Error()
		}
		return nil
	}
	// Records the pre-filter rejects leave no row: visit on until the
	// batch is a quarter full (a batch of none would end the scan).
	for s.b.n < batchSize/4 {
		if err := s.rs.canceled(); err != nil {
			return err
		}
		limit := batchSize - s.b.n
		n, err := s.it.Visit(limit, s.addRowFn)
		if err != nil {
			return err
		}
		if n < limit {
			s.done = true
			return s.it.Error()
		}
	}
	return nil
}

// addRowPre is addRow behind the pre-filter: it decodes the record's early
// (filter) columns, drops the record when a pre-filter conjunct is not
// true of them, and otherwise decodes the whole row into the batch, key
// and late columns straight from key and val (the vector filter then
// runs over the rows kept, the pre-filter's conjuncts again with the
// rest). A column the value lacks or whose kind is not the
// column's is left to the batch path, which gives it its default or
// reports it.
func (s *vecScan) addRowPre(key, val []byte) error {
	cols := &s.early
	if err := encoding.DecodeRowFields(val, cols.ids, cols.fields, cols.present); err != nil {
		return err
	}
	for i := range s.pre {
		c := &s.pre[i]
		if !cols.present[c.j] {
			continue
		}
		f := &cols.fields[c.j]
		if f.Kind == types.KindNull {
			return nil // NULL: not selected
		}
		if f.Kind != c.kind {
			continue
		}
		if opResult(c.op, cmp.Compare(f.I, c.x)) != vTrue {
			return nil
		}
	}
	k := s.b.n
	if !s.noKey {
		if err := s.decodeKey(k, key); err != nil {
			return err
		}
	}
	if err := s.storeFields(k, cols); err != nil {
		return err
	}
	if err := s.decodeValue(k, val, &s.late); err != nil {
		return err
	}
	s.b.n = k + 1
	return nil
}

// addRow decodes one master record into the batch's next row.
func (s *vecScan) addRow(key, val []byte) error {
	k := s.b.n
	switch {
	case s.noKey:
	case s.lateKey:
		s.keys = append(s.keys, key...)
		s.koffs = append(s.koffs, len(s.keys))
	default:
		if err := s.decodeKey(k, key); err != nil {
			return err
		}
	}
	if err := s.decodeValue(k, val, &s.early); err != nil {
		return err
	}
	if len(s.late.ords) > 0 {
		s.values = append(s.values, val...)
		s.offs = append(s.offs, len(s.values))
	}
	s.b.n = k + 1
	return nil
}

// decodeKey fills row k's primary-key columns from a master key.
func (s *vecScan) decodeKey(k int, key []byte) error {
	t := s.node.Table
	rest, _, err := encoding.DecodeUvarintAsc(key)
	if err != nil {
		return err
	}
	for _, o := range t.PrimaryKey {
		v := s.b.cols[o]
		if v.kind == types.KindInt {
			// The common integer key: no Datum.
			r, x, ok, err := encoding.DecodeKeyInt(rest)
			if err != nil {
				return err
			}
			if ok {
				v.null[k>>6] &^= 1 << (k & 63)
				v.i[k], rest = x, r
				continue
			}
		}
		var d types.Datum
		if rest, d, _, err = encoding.DecodeKeyDatum(rest); err != nil {
			return err
		}
		if !d.IsNull() && d.Kind != v.kind {
			return s.kindError(o, d.Kind)
		}
		v.set(k, d)
	}
	if len(rest) != 0 {
		return pgerror.Newf(pgerror.DataCorrupted, "exec: master key %s has trailing bytes", encoding.Pretty(key))
	}
	return nil
}

// decodeValue fills row k's columns of cols from a master value; a column
// the value lacks (added after the row was written) gets its default.
func (s *vecScan) decodeValue(k int, val []byte, cols *valueCols) error {
	if len(cols.ords) == 0 {
		return nil
	}
	if err := encoding.DecodeRowFields(val, cols.ids, cols.fields, cols.present); err != nil {
		return err
	}
	return s.storeFields(k, cols)
}

// storeFields sets row k's columns of cols from the fields last decoded
// into cols.
func (s *vecScan) storeFields(k int, cols *valueCols) error {
	return cols.store(s.b.cols, s.node.Table, k, s.kindError)
}

// store sets row k of the vectors vs (by table ordinal) from the fields
// last decoded into vc: a column the value lacks (added after the row
// was written) gets its default; a value of another kind than its
// vector's is kindErr's error.
func (vc *valueCols) store(vs []*vec, t *catalog.Table, k int, kindErr func(o int, k types.Kind) error) error {
	for j, o := range vc.ords {
		v := vs[o]
		if !vc.present[j] {
			v.set(k, t.Columns[o].DefaultValue)
			continue
		}
		f := &vc.fields[j]
		if f.Kind == types.KindNull {
			v.setNull(k)
			continue
		}
		if !v.setField(k, f) {
			return kindErr(o, f.Kind)
		}
	}
	return nil
}

// dropKeyColumns tells the scan that the operator above reads only the
// columns used (table ordinals): when no primary-key column is among
// them or in the filter, the scan stops decoding keys and drops the key
// columns from its batches (a Scan fills them for whoever reads them,
// which only the operator above can tell).
func (s *vecScan) dropKeyColumns(used []int) {
	if !s.keyDroppable(used) {
		return
	}
	s.noKey, s.lateKey = true, false
	for _, o := range s.node.Table.PrimaryKey {
		s.b.cols[o] = nil
	}
}

func (s *vecScan) keyDroppable(used []int) bool {
	var fcols []int
	if s.node.Filter != nil {
		var ok bool
		if fcols, ok = planner.ColumnsRead(s.node.Filter); !ok {
			return false
		}
	}
	for _, o := range s.node.Table.PrimaryKey {
		if slices.Contains(used, o) || slices.Contains(fcols, o) {
			return false
		}
	}
	return true
}

func (s *vecScan) kindError(o int, k types.Kind) error {
	c := s.node.Table.Columns[o]
	return pgerror.Newf(pgerror.DataCorrupted, "exec: column %q of table %q holds a %s value, its type is %s", c.Name, s.node.Table.Name, k, c.Type)
}

func (s *vecScan) Close() error {
	if s.it == nil {
		return nil
	}
	err := s.it.Close()
	s.it = nil
	return err
}
