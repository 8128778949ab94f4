package exec

import (
	"container/heap"
	"slices"

	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// maxFanIn bounds how many sorted runs one merge pass reads at once (each
// open run costs a spillBufSize read buffer).
const maxFanIn = 64

// sortKeys orders "extended" rows: the input row's width columns followed
// by one evaluated value per key. Evaluating keys once per row keeps
// expression evaluation out of the comparison loop, and lets spilled runs
// carry their keys.
type sortKeys struct {
	keys  []planner.SortKey
	width int
	// seq reserves one more column after the keys for the row's input
	// position, which compareSeq uses to break ties (a stable order from
	// an unstable, faster sort).
	seq bool
}

// extendedWidth is the length of an extended row.
func (s *sortKeys) extendedWidth() int {
	n := s.width + len(s.keys)
	if s.seq {
		n++
	}
	return n
}

// extendInto fills ext (extendedWidth long) with row and its sort keys.
func (s *sortKeys) extendInto(env *eval.Env, row []types.Datum, ext []types.Datum) error {
	copy(ext[:s.width], row)
	for i, k := range s.keys {
		// A plain column (the common key) is copied without the
		// evaluator's dispatch: evalColRef's answer.
		if c, ok := k.Expr.(*planner.ColRef); ok && c.Outer == 0 && c.Index >= 0 && c.Index < len(row) {
			ext[s.width+i] = row[c.Index]
			continue
		}
		d, err := eval.Eval(env, k.Expr, row)
		if err != nil {
			return err
		}
		ext[s.width+i] = d
	}
	return nil
}

// rowSlab hands out rows of one width carved from blocks, one allocation
// per block instead of one per row, for operators that keep many rows
// (sort). Blocks start at 8 rows and double up to 256, so a sort of a few
// rows allocates little.
type rowSlab struct {
	width int
	block int // rows in the last block allocated
	free  []types.Datum
}

func (a *rowSlab) row() []types.Datum {
	if len(a.free) < a.width {
		a.block = min(max(2*a.block, 8), 256)
		a.free = make([]types.Datum, a.width*a.block)
	}
	r := a.free[:a.width:a.width]
	a.free = a.free[a.width:]
	return r
}

// compare orders two extended rows by the keys: Desc reverses the order of
// non-NULL values; NullsFirst puts NULLs before every value, otherwise
// after.
func (s *sortKeys) compare(a, b []types.Datum) int {
	for i, k := range s.keys {
		x, y := a[s.width+i], b[s.width+i]
		xn, yn := x.IsNull(), y.IsNull()
		var c int
		switch {
		case xn && yn:
			c = 0
		case xn:
			c = 1
			if k.NullsFirst {
				c = -1
			}
		case yn:
			c = -1
			if k.NullsFirst {
				c = 1
			}
		default:
			c = eval.Compare(x, y)
			if k.Desc {
				c = -c
			}
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// compareSeq is compare with ties broken by input position.
func (s *sortKeys) compareSeq(a, b []types.Datum) int {
	if c := s.compare(a, b); c != 0 {
		return c
	}
	i := s.width + len(s.keys)
	return cmpInt64(a[i].I, b[i].I)
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// sortOp orders its input. It keeps rows in memory up to the work-memory
// budget; past it, it sorts what it holds into a run in a spill file and
// starts over, and finally merges the runs (an external merge sort). The
// sort is stable: rows with equal keys keep their input order.
type sortOp struct {
	rs    *runState
	env   *eval.Env
	input sortSource
	sk    sortKeys
	t     ticker

	opened bool
	mem    memAccount
	slab   rowSlab
	rows   [][]types.Datum // in-memory rows (the last run when spilled)
	norm   normKeys        // the rows' normalized keys (sortnorm.go)
	runs   []*spillFile    // Datum runs, and encoded ones after a demotion
	pos    int
	merge  *mergeIter

	// The encoded sort (sortenc.go): enc holds the records while encOn;
	// out is the row a record decodes into.
	enc    *encSorter
	encOn  bool
	emerge *encMerge
	scr    []types.Datum // the extended row being added
	out    []types.Datum
}

var _ Operator = (*sortOp)(nil)

func newSort(rs *runState, env *eval.Env, in Operator, keys []planner.SortKey, width int) *sortOp {
	return newSortFrom(rs, env, &rowOpSource{op: in}, keys, width)
}

// newSortFrom is newSort over a sortSource (a batch input: sortvec.go).
func newSortFrom(rs *runState, env *eval.Env, in sortSource, keys []planner.SortKey, width int) *sortOp {
	s := &sortOp{rs: rs, env: env, input: in, sk: sortKeys{keys: keys, width: width, seq: true},
		t: ticker{rs: rs}, mem: rs.memAccount(rs.workMem)}
	s.norm = newNormKeys(&s.sk)
	s.norm.off = !normalizedSort
	if normalizedSort {
		s.enc, s.encOn = newEncSorter(&s.sk), true
	}
	return s
}

// sortRows orders the in-memory rows: by their normalized keys when every
// key has one, else with the Datum comparator. Equal keys keep input
// order, or with pg (the whole input is in memory) take PostgreSQL's
// order (pgsort.go).
func (s *sortOp) sortRows(pg bool) {
	var ok bool
	if s.rows, ok = s.norm.sortRows(s.rows, pg); ok {
		return
	}
	if pg {
		i := s.sk.width + len(s.sk.keys) // the input position
		sortLikePG(s.rows, s.sk.compareSeq, s.sk.compare, func(a, b []types.Datum) int { return cmpInt64(a[i].I, b[i].I) })
	} else {
		slices.SortFunc(s.rows, s.sk.compareSeq)
	}
}

func (s *sortOp) Next() ([]types.Datum, error) {
	if !s.opened {
		s.opened = true
		if err := s.consume(); err != nil {
			return nil, err
		}
	}
	if s.encOn {
		var row []byte
		if s.emerge != nil {
			_, r, err := s.emerge.next()
			if r == nil || err != nil {
				return nil, err
			}
			row = r
		} else {
			if s.pos >= len(s.enc.ents) {
				s.enc.release()
				return nil, nil
			}
			if s.pos%touchBatch == 0 {
				s.enc.touch(s.enc.ents[s.pos:min(s.pos+touchBatch, len(s.enc.ents))])
			}
			row = s.enc.row(s.enc.ents[s.pos])
			s.pos++
		}
		out, err := decodePayload(row, s.out)
		if err != nil {
			return nil, err
		}
		s.out = out
		return out[:s.sk.width], nil
	}
	if s.merge != nil {
		row, err := s.merge.next()
		if row == nil || err != nil {
			return nil, err
		}
		return row[:s.sk.width], nil
	}
	if s.pos >= len(s.rows) {
		s.rows = nil
		return nil, nil
	}
	row := s.rows[s.pos]
	s.rows[s.pos] = nil
	s.pos++
	return row[:s.sk.width], nil
}

// consume reads the whole input into memory and runs.
func (s *sortOp) consume() error {
	for {
		row, seq, err := s.input.next()
		if err != nil {
			return err
		}
		if row == nil {
			break
		}
		if err := s.t.tick(); err != nil {
			return err
		}
		if s.slab.width == 0 {
			s.slab.width = s.sk.extendedWidth()
			s.scr = make([]types.Datum, s.slab.width)
		}
		if s.encOn {
			if err := s.sk.extendInto(s.env, row, s.scr); err != nil {
				return err
			}
			s.scr[len(s.scr)-1] = types.NewInt(seq)
			if s.enc.encodable(s.scr) {
				if err := s.addEncoded(seq); err != nil {
					return err
				}
				continue
			}
			if err := s.demote(); err != nil {
				return err
			}
			ext := s.slab.row()
			copy(ext, s.scr)
			if err := s.addDatum(ext, seq); err != nil {
				return err
			}
			continue
		}
		ext := s.slab.row()
		if err := s.sk.extendInto(s.env, row, ext); err != nil {
			return err
		}
		ext[len(ext)-1] = types.NewInt(seq)
		if err := s.addDatum(ext, seq); err != nil {
			return err
		}
	}
	if s.encOn {
		return s.finishEncoded()
	}
	s.sortRows(len(s.runs) == 0)
	if len(s.runs) == 0 {
		return nil
	}
	for len(s.runs) >= maxFanIn {
		if err := s.mergeRuns(); err != nil {
			return err
		}
	}
	srcs := make([]rowSource, 0, len(s.runs)+1)
	for _, f := range s.runs {
		r, err := s.runReader(f)
		if err != nil {
			return err
		}
		srcs = append(srcs, r)
	}
	srcs = append(srcs, &sliceSource{rows: s.rows})
	s.rows = nil
	m, err := newMergeIter(srcs, s.sk.compareSeq)
	s.merge = m
	return err
}

// addDatum adds an extended row to the Datum sort, spilling the rows
// held first when it does not fit.
func (s *sortOp) addDatum(ext []types.Datum, seq int64) error {
	sz := rowSize(ext)
	nk := s.norm.add(ext, seq) // the row's normalized key counts too
	if !s.mem.fits(sz+nk) && len(s.rows) > 0 {
		s.norm.pop()
		if err := s.spillRun(); err != nil {
			return err
		}
		nk = s.norm.add(ext, seq)
	}
	sz += nk
	if err := s.mem.grow(sz); err != nil {
		return err
	}
	s.rows = append(s.rows, ext)
	return nil
}

// addEncoded adds s.scr (encodable) as a record, spilling the records
// held first when it does not fit.
func (s *sortOp) addEncoded(seq int64) error {
	sz := s.enc.add(s.scr, seq)
	if (!s.mem.fits(sz) || s.enc.full()) && len(s.enc.ents) > 1 {
		rec, klen := s.enc.takeLast()
		if err := s.enc.spill(s.rs.ctx.TempDir); err != nil {
			return err
		}
		s.mem.reset()
		s.enc.putBack(rec, klen)
	}
	return s.mem.grow(sz)
}

// demote turns an encoded sort into a Datum sort (see sortenc.go): the
// records held become extended rows, the runs written stay.
func (s *sortOp) demote() error {
	ents := s.enc.ents
	s.enc.ents, s.encOn = nil, false
	s.runs = append(s.runs, s.enc.runs...)
	s.enc.runs = nil
	s.mem.reset()
	for _, ent := range ents {
		ext := s.slab.row()
		if err := s.enc.ext(s.enc.key(ent), s.enc.row(ent), ext); err != nil {
			return err
		}
		if err := s.addDatum(ext, ext[len(ext)-1].I); err != nil {
			return err
		}
	}
	s.enc.arena = nil
	return nil
}

// finishEncoded sorts the records held and, when runs were written,
// starts the merge of the runs and the records held.
func (s *sortOp) finishEncoded() error {
	if len(s.enc.runs) == 0 {
		s.enc.sortPG()
		return nil
	}
	s.enc.sort()
	for len(s.enc.runs) >= maxFanIn {
		if err := s.enc.mergeRuns(s.rs.ctx.TempDir, &s.t); err != nil {
			return err
		}
	}
	srcs := make([]*encSource, 0, len(s.enc.runs)+1)
	for _, f := range s.enc.runs {
		r, err := f.encReader()
		if err != nil {
			return err
		}
		srcs = append(srcs, &encSource{r: r})
	}
	srcs = append(srcs, &encSource{mem: s.enc, ents: s.enc.ents})
	m, err := newEncMerge(srcs)
	s.emerge = m
	return err
}

// runReader reads a run as extended rows, whichever its format.
func (s *sortOp) runReader(f *spillFile) (rowSource, error) {
	if !f.encoded {
		return f.reader()
	}
	r, err := f.encReader()
	if err != nil {
		return nil, err
	}
	return &encRunExt{e: s.enc, r: r, ext: make([]types.Datum, s.sk.extendedWidth())}, nil
}

// spillRun sorts the in-memory rows and writes them as a run.
func (s *sortOp) spillRun() error {
	s.sortRows(false)
	f, err := newSpillFile(s.rs.ctx.TempDir)
	if err != nil {
		return err
	}
	s.runs = append(s.runs, f)
	for _, r := range s.rows {
		if err := f.write(r); err != nil {
			return err
		}
	}
	clear(s.rows)
	s.rows = s.rows[:0]
	s.norm.reset()
	s.mem.reset()
	return nil
}

// mergeRuns merges the first maxFanIn runs into one new run (a pass of a
// multi-pass merge), keeping run order so the sort stays stable.
func (s *sortOp) mergeRuns() error {
	group := s.runs[:maxFanIn]
	srcs := make([]rowSource, len(group))
	for i, f := range group {
		r, err := s.runReader(f)
		if err != nil {
			return err
		}
		srcs[i] = r
	}
	out, err := newSpillFile(s.rs.ctx.TempDir)
	if err != nil {
		return err
	}
	rest := append([]*spillFile{out}, s.runs[maxFanIn:]...)
	m, err := newMergeIter(srcs, s.sk.compareSeq)
	for err == nil {
		var row []types.Datum
		if row, err = m.next(); row == nil {
			break
		}
		if err = s.t.tick(); err == nil {
			err = out.write(row)
		}
	}
	for _, f := range group {
		_ = f.close()
	}
	s.runs = rest
	return err
}

func (s *sortOp) Close() error {
	err := s.input.close()
	for _, f := range s.runs {
		if cerr := f.close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	if s.enc != nil {
		if cerr := s.enc.close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	s.runs, s.rows, s.merge, s.emerge = nil, nil, nil, nil
	s.norm = normKeys{off: true, kinds: s.norm.kinds}
	s.mem.reset()
	return err
}

// rowSource yields rows valid until its next call, nil at the end.
type rowSource interface {
	next() ([]types.Datum, error)
}

type sliceSource struct {
	rows [][]types.Datum
	i    int
}

func (s *sliceSource) next() ([]types.Datum, error) {
	if s.i >= len(s.rows) {
		return nil, nil
	}
	s.i++
	return s.rows[s.i-1], nil
}

// mergeIter merges sorted sources; among equal rows the lower-numbered
// source comes first.
type mergeIter struct {
	h    mergeHeap
	last int // source whose row was returned last and must advance; -1 none
}

func newMergeIter(srcs []rowSource, cmp func(a, b []types.Datum) int) (*mergeIter, error) {
	m := &mergeIter{h: mergeHeap{cmp: cmp}, last: -1}
	for i, src := range srcs {
		row, err := src.next()
		if err != nil {
			return nil, err
		}
		if row != nil {
			m.h.items = append(m.h.items, mergeItem{row: row, src: src, idx: i})
		}
	}
	heap.Init(&m.h)
	return m, nil
}

func (m *mergeIter) next() ([]types.Datum, error) {
	if m.last >= 0 {
		m.last = -1
		top := &m.h.items[0]
		row, err := top.src.next()
		if err != nil {
			return nil, err
		}
		if row == nil {
			heap.Pop(&m.h)
		} else {
			top.row = row
			heap.Fix(&m.h, 0)
		}
	}
	if len(m.h.items) == 0 {
		return nil, nil
	}
	m.last = m.h.items[0].idx
	return m.h.items[0].row, nil
}

type mergeItem struct {
	row []types.Datum
	src rowSource
	idx int
}

type mergeHeap struct {
	items []mergeItem
	cmp   func(a, b []types.Datum) int
}

func (h *mergeHeap) Len() int { return len(h.items) }
func (h *mergeHeap) Less(i, j int) bool {
	if c := h.cmp(h.items[i].row, h.items[j].row); c != 0 {
		return c < 0
	}
	return h.items[i].idx < h.items[j].idx
}
func (h *mergeHeap) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *mergeHeap) Push(x any)    { h.items = append(h.items, x.(mergeItem)) }
func (h *mergeHeap) Pop() any {
	it := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return it
}
