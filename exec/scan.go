package exec

import (
	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
	"slices"
)

// scanOp reads one table through the access path the planner chose and
// produces full-width rows (see planner.Scan): only the columns of
// planner.Scan.Needed are decoded, the others stay NULL in row buffers
// that are reused from row to row. Span bounds are evaluated into key
// bounds when the scan opens (keySpan); spans are
// read one after the other (in reverse order for a Reverse scan), so an
// IN list's spans come out in key order.
type scanOp struct {
	rs   *runState
	env  *eval.Env
	node *planner.Scan
	t    ticker

	opened  bool
	spans   []index.Span
	spanBuf [1]index.Span // spans' storage for the common single span
	si      int
	it      index.RowIter
	cols    *index.Cols // the columns decoded (nil: all)
	// A master scan with a filter decodes early (the filter's columns)
	// for every row and late (the other needed ones) only for the rows
	// that pass: late materialization. Both nil when it does not apply.
	early, late *index.Cols
	itEarly     bool // s.it is a master scan decoding early
	// An index scan of a read-only statement reads its master rows a
	// batch at a time in key order (scanbatch.go); itDone: s.it is used
	// up, only the batch's rows are left.
	// batch is made when the first index iterator opens (batchable): a
	// unique get (chat's "find a user by name") never needs one.
	batch     *masterBatch
	batchable bool
	itDone    bool
	master    *index.MasterReader // master gets after an index scan, read-only statements
	gets      int                 // master gets so far
	row       []types.Datum       // master row buffer for gets
	pk        []types.Datum
	getKey    []byte // master key buffer for gets, kept across reruns
	// lo0 and hi0 hold the bound values of the first span, kept for the
	// next open of a tree that reruns (reuse.go).
	lo0, hi0 []types.Datum
}

var _ Operator = (*scanOp)(nil)

func newScan(rs *runState, env *eval.Env, n *planner.Scan) (Operator, error) {
	if n.Table == nil {
		return nil, pgerror.New(pgerror.Internal, "exec: scan without a table")
	}
	if n.Foreign != nil {
		return newForeignScan(rs, env, n) // foreign.go
	}
	switch n.Access {
	case planner.FullScan, planner.PKGet, planner.PKRange:
	case planner.UniqueGet, planner.IndexRange, planner.InvertedGet:
		if n.Index == nil {
			return nil, pgerror.New(pgerror.Internal, "exec: index scan without an index")
		}
	default:
		return nil, pgerror.Newf(pgerror.Internal, "exec: unknown access kind %d", n.Access)
	}
	// One allocation for both row buffers.
	nc := len(n.Table.Columns)
	bufs := make([]types.Datum, nc+len(n.Table.PrimaryKey))
	sh := rs.ctx.Shapes.shape(n)
	s := &scanOp{rs: rs, env: env, node: n, t: ticker{rs: rs}, cols: sh.cols, early: sh.early, late: sh.late, row: bufs[:nc:nc], pk: bufs[nc:]}
	s.batchable = rs.ctx.ReadOnly && s.usesIndex() && !n.IndexOnly && batchedMasterReads
	return s, nil
}

// lateColumns splits the columns a filtered master scan decodes into those
// its filter reads and the rest, or returns nils when nothing would be
// left for later (or the filter holds a subquery).
func lateColumns(n *planner.Scan) (early, late *index.Cols) {
	if n.Filter == nil || n.Access == planner.UniqueGet || n.Access == planner.IndexRange || n.Access == planner.InvertedGet {
		return nil, nil
	}
	fcols, ok := planner.ColumnsRead(n.Filter)
	if !ok {
		return nil, nil
	}
	needed := n.Needed
	if needed == nil {
		needed = make([]int, len(n.Table.Columns))
		for i := range needed {
			needed[i] = i
		}
	}
	var rest []int
	for _, c := range needed {
		if !slices.Contains(fcols, c) && !slices.Contains(n.Table.PrimaryKey, c) {
			rest = append(rest, c)
		}
	}
	if len(rest) == 0 {
		return nil, nil
	}
	if fcols == nil {
		fcols = []int{} // only the key: a nil read set would mean every column
	}
	return index.NewCols(n.Table, fcols), index.NewCols(n.Table, rest)
}

// usesIndex reports whether the scan reads an index file.
func (s *scanOp) usesIndex() bool {
	a := s.node.Access
	return a == planner.UniqueGet || a == planner.IndexRange || a == planner.InvertedGet
}

func (s *scanOp) open() error {
	s.spans = s.spanBuf[:0]
	if s.node.Access == planner.FullScan {
		s.spans = append(s.spans, index.Span{})
		return nil
	}
	keyCols := s.node.Table.PrimaryKey
	if s.usesIndex() {
		keyCols = s.node.Index.Columns
	}
	desc := s.keyDesc(keyCols)
	spans, err := eachElementSpans(s.env, s.node.Spans)
	if err != nil {
		return err
	}
	for i, sp := range spans {
		var ks index.Span
		var ok bool
		var err error
		if i == 0 {
			ks, _, ok, err = keySpanInto(s.env, sp, s.node.Table, keyCols, desc, nil, s.lo0, s.hi0)
			if ks.Lo != nil {
				s.lo0 = ks.Lo
			}
			if ks.Hi != nil {
				s.hi0 = ks.Hi
			}
		} else {
			ks, _, ok, err = keySpan(s.env, sp, s.node.Table, keyCols, desc, nil)
		}
		if err != nil {
			return err
		}
		if ok {
			s.spans = append(s.spans, ks)
		}
	}
	s.spans = sortSpans(s.spans, desc)
	if s.node.Reverse {
		for i, j := 0, len(s.spans)-1; i < j; i, j = i+1, j-1 {
			s.spans[i], s.spans[j] = s.spans[j], s.spans[i]
		}
	}
	return nil
}

func (s *scanOp) Next() ([]types.Datum, error) {
	if !s.opened {
		s.opened = true
		if err := s.open(); err != nil {
			return nil, err
		}
	}
	for {
		if err := s.t.tick(); err != nil {
			return nil, err
		}
		row, err := s.nextRow()
		if row == nil || err != nil {
			return nil, err
		}
		ok, err := passes(s.env, s.node.Filter, row)
		if err != nil {
			return nil, err
		}
		if ok && s.itEarly && s.it != nil {
			if err := index.FillRow(s.it, s.late); err != nil {
				return nil, err
			}
		}
		if ok {
			return row, nil
		}
	}
}

// nextRow produces the next row of the access path before the filter.
func (s *scanOp) nextRow() ([]types.Datum, error) {
	t := s.node.Table
	for {
		if s.it != nil {
			if s.batch != nil {
				row, err := s.batch.next(s.node.Index)
				if row != nil || err != nil {
					return row, err
				}
				if !s.itDone {
					if s.itDone, err = s.batch.fill(s.it, s.rs.reader(), s.masterReader); err != nil {
						return nil, err
					}
					continue
				}
			} else if s.it.Next() {
				row := s.it.Row()
				if !s.usesIndex() || s.node.IndexOnly {
					return row, nil
				}
				for i, o := range t.PrimaryKey {
					s.pk[i] = row[o]
				}
				found, err := s.masterGet(t)
				if err != nil {
					return nil, err
				}
				if !found {
					return nil, pgerror.Newf(pgerror.DataCorrupted, "index %q of table %q points at a missing row", s.node.Index.Name, t.Name)
				}
				return s.row, nil
			}
			err := s.it.Err()
			cerr := s.it.Close()
			s.it, s.itEarly, s.itDone = nil, false, false
			if err != nil {
				return nil, err
			}
			if cerr != nil {
				return nil, cerr
			}
		}
		if s.si >= len(s.spans) {
			return nil, nil
		}
		sp := s.spans[s.si]
		s.si++
		var err error
		switch {
		case s.node.Access == planner.PKGet && len(sp.Lo) == len(t.PrimaryKey) && isPoint(sp):
			var found bool
			s.getKey, found, err = index.GetColsKey(s.rs.reader(), t, sp.Lo, s.row, s.cols, s.getKey)
			if err != nil {
				return nil, err
			}
			if found {
				return s.row, nil
			}
			continue
		case s.node.Access == planner.UniqueGet && len(sp.Lo) == len(s.node.Index.Columns) && isPoint(sp):
			// keySpan dropped spans with a NULL bound, so every value is
			// non-NULL: one index get, one master get.
			var found bool
			if s.node.IndexOnly {
				found, err = index.GetUniqueEntry(s.rs.reader(), t, s.node.Index, sp.Lo, s.row)
			} else {
				found, err = index.GetUniqueCols(s.rs.reader(), t, s.node.Index, sp.Lo, s.row, s.cols)
			}
			if err != nil {
				return nil, err
			}
			if found {
				return s.row, nil
			}
			continue
		case s.usesIndex():
			s.it, err = index.ScanIndex(s.rs.reader(), t, s.node.Index, sp, s.node.Reverse)
			if s.batchable && s.batch == nil {
				s.batch = newMasterBatch(t, s.cols)
				s.batch.split = splitMasterReads
			}
		default:
			cols := s.cols
			if s.itEarly = s.early != nil; s.itEarly {
				cols = s.early
			}
			s.it, err = index.ScanMasterCols(s.rs.reader(), t, sp, s.node.Reverse, cols)
		}
		if err != nil {
			return nil, err
		}
	}
}

// isPoint reports whether sp is one key prefix: Lo equals Hi, both ends
// included. (An equality whose values form a range, see keySpan, is not.)
func isPoint(sp index.Span) bool {
	if sp.LoExcl || sp.HiExcl || len(sp.Lo) != len(sp.Hi) {
		return false
	}
	for i := range sp.Lo {
		if eval.Compare(sp.Lo[i], sp.Hi[i]) != 0 {
			return false
		}
	}
	return true
}

func (s *scanOp) Close() error {
	var err error
	if s.batch != nil {
		err = s.batch.close()
	}
	if s.master != nil {
		if cerr := s.master.Close(); err == nil {
			err = cerr
		}
		s.master = nil
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

// masterGet reads the master row of s.pk after an index entry: through
// one kept iterator in read-only statements, else with a Get (recorded
// as a point read for validation).
func (s *scanOp) masterGet(t *catalog.Table) (bool, error) {
	// The first get of a scan stays a Get: a lookup that finds one row
	// would pay more for opening an iterator than it saves.
	if s.gets++; !s.rs.ctx.ReadOnly || s.gets < 2 {
		var found bool
		var err error
		s.getKey, found, err = index.GetColsKey(s.rs.reader(), t, s.pk, s.row, s.cols, s.getKey)
		return found, err
	}
	if s.master == nil {
		m, err := index.NewMasterReader(s.rs.reader(), t)
		if err != nil {
			return false, err
		}
		s.master = m
	}
	return s.master.Get(s.pk, s.row, s.cols)
}

// masterReader returns the scan's MasterReader, opening it on first use.
func (s *scanOp) masterReader() (*index.MasterReader, error) {
	if s.master == nil {
		m, err := index.NewMasterReader(s.rs.reader(), s.node.Table)
		if err != nil {
			return nil, err
		}
		s.master = m
	}
	return s.master, nil
}

// keyDesc returns the direction of each key column of the scan.
func (s *scanOp) keyDesc(keyCols []int) []bool {
	if s.usesIndex() {
		return s.node.Index.Desc
	}
	return s.node.Table.PrimaryKeyDesc
}

// sortSpans orders spans by their lower bounds in key order and drops
// duplicates, so an IN list with repeated values (x IN (1, 1)) reads each
// key once and the rows come out in key order. The planner's spans are
// disjoint or identical.
func sortSpans(spans []index.Span, desc []bool) []index.Span {
	if len(spans) < 2 {
		return spans
	}
	cmp := func(a, b []types.Datum) int {
		for i := 0; i < len(a) && i < len(b); i++ {
			c := eval.Compare(a[i], b[i])
			if i < len(desc) && desc[i] {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return len(a) - len(b)
	}
	slices.SortStableFunc(spans, func(x, y index.Span) int { return cmp(x.Lo, y.Lo) })
	out := spans[:1]
	for _, sp := range spans[1:] {
		last := out[len(out)-1]
		if cmp(sp.Lo, last.Lo) == 0 && cmp(sp.Hi, last.Hi) == 0 && sp.LoExcl == last.LoExcl && sp.HiExcl == last.HiExcl {
			continue
		}
		out = append(out, sp)
	}
	return out
}
