package exec

import (
	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// lookupJoinOp joins each left row with the rows of a table found by key
// (keySpan turns the left values into key bounds without casting them):
// a master get when Keys fix the whole primary key, an index get then a
// master get when they fix every column of a unique Index, otherwise a
// scan of the primary key or Index over the span Keys = left values (then
// a master get per index entry). A left row with a NULL key matches
// nothing. Filter tests the table row; On the combined row.
type lookupJoinOp struct {
	rs   *runState
	env  *eval.Env
	node *planner.LookupJoin
	left Operator
	lw   int
	t    ticker

	keyCols []int
	lrow    []types.Datum
	matched bool
	it      index.RowIter
	getDone bool // the single get of the current left row was made
	// fl, for a foreign table, replaces the gets and scans of kvsql's
	// own layout with prefix scans of the application's keys.
	fl     *foreignLookup
	unique bool // Keys fix every column of a unique Index: one GetUnique
	keys   []types.Datum
	// lb, in read-only statements whose lookups are master gets, reads
	// the gets of a batch of left rows together (lookupbatch.go); slot
	// is the current left row's entry in it, or -1. batchable says the
	// join may batch: lb is made once seen left rows have been joined a
	// row at a time (lookupBatchAfter), so a short left allocates none.
	lb        *lookupBatch
	batchable bool
	seen      int
	slot      int
	trow      []types.Datum
	pk        []types.Datum
	out       []types.Datum
	// lo and hi are the probe's key bounds, reused from one left row to
	// the next: a span is used up (encoded or copied) before the next
	// probe.
	lo, hi []types.Datum
	key    []byte // the master key of the last get (index.GetColsKey)
}

var _ Operator = (*lookupJoinOp)(nil)

func newLookupJoin(rs *runState, env *eval.Env, n *planner.LookupJoin) (Operator, error) {
	if n.Table == nil {
		return nil, pgerror.New(pgerror.Internal, "exec: lookup join without a table")
	}
	keyCols := n.Table.PrimaryKey
	if n.Index != nil {
		keyCols = n.Index.Columns
	}
	if len(n.Keys) == 0 || len(n.Keys) > len(keyCols) {
		return nil, pgerror.Newf(pgerror.Internal, "exec: lookup join with %d keys over %d key columns", len(n.Keys), len(keyCols))
	}
	left, err := rs.build(env, n.Left)
	if err != nil {
		return nil, err
	}
	lw := len(n.Left.Columns())
	tw := len(n.Table.Columns)
	unique := n.Index != nil && n.Index.Form == catalog.FormUnique && len(n.Keys) == len(n.Index.Columns)
	j := &lookupJoinOp{rs: rs, env: env, node: n, left: left, lw: lw, t: ticker{rs: rs}, keyCols: keyCols,
		unique: unique, trow: make([]types.Datum, tw), pk: make([]types.Datum, len(n.Table.PrimaryKey)),
		out: make([]types.Datum, lw+tw), slot: -1}
	if n.Table.Foreign != nil {
		if j.fl, err = newForeignLookup(rs, j); err != nil {
			left.Close()
			return nil, err
		}
	} else {
		j.batchable = j.mayBatch()
	}
	return j, nil
}

// mayBatch reports whether the join may read its master gets in batches
// (lookupbatch.go): in a read-only execution, when Keys fix the whole
// primary key.
func (j *lookupJoinOp) mayBatch() bool {
	n := j.node
	return j.rs.ctx.ReadOnly && batchedLookups && n.Index == nil && len(n.Keys) == len(n.Table.PrimaryKey)
}

func (j *lookupJoinOp) Next() ([]types.Datum, error) {
	typ := j.node.Type
	for {
		if j.lrow == nil && j.batchable && j.seen >= lookupBatchAfter {
			if j.lb == nil {
				j.lb = newLookupBatch(j.node.Table, j.lw)
			}
			if err := j.nextBatched(); err != nil || j.lrow == nil {
				return nil, err
			}
		} else if j.lrow == nil {
			row, err := j.left.Next()
			if row == nil || err != nil {
				if row == nil && err == nil && j.fl != nil {
					j.fl.finish(j.rs, j)
				}
				return nil, err
			}
			j.seen++
			if err := j.startLookup(row); err != nil {
				return nil, err
			}
		}
		for {
			if err := j.t.tick(); err != nil {
				return nil, err
			}
			trow, err := j.nextMatch()
			if err != nil {
				return nil, err
			}
			if trow == nil {
				break
			}
			ok, err := passes(j.env, j.node.Filter, trow)
			if err != nil || !ok {
				if err != nil {
					return nil, err
				}
				continue
			}
			copy(j.out[j.lw:], trow)
			if ok, err = passes(j.env, j.node.On, j.out); err != nil {
				return nil, err
			} else if !ok {
				continue
			}
			j.matched = true
			if typ == planner.InnerJoin || typ == planner.LeftJoin {
				return j.out, nil
			}
			break // Semi and Anti need only the first match
		}
		matched := j.matched
		j.lrow = nil
		if err := j.closeIter(); err != nil {
			return nil, err
		}
		switch {
		case typ == planner.SemiJoin && matched, typ == planner.AntiJoin && !matched:
			return j.out[:j.lw], nil
		case typ == planner.LeftJoin && !matched:
			clear(j.out[j.lw:])
			return j.out, nil
		}
	}
}

// startLookup evaluates the keys of a new left row and positions the
// lookup: a pending master get, an iterator, or nothing (NULL key).
func (j *lookupJoinOp) startLookup(row []types.Datum) error {
	j.lrow, j.matched, j.getDone, j.slot = row, false, true, -1
	copy(j.out, row)
	if j.fl != nil {
		return j.fl.start(j.env, j, row)
	}
	t := j.node.Table
	sp, get, point, ok, err := j.probe(row)
	if err != nil || !ok {
		return err // !ok: a NULL or unmatched key matches nothing
	}
	j.keys = sp.Lo
	if get {
		j.getDone = false
		return nil
	}
	if j.node.Index == nil {
		j.it, err = index.ScanMaster(j.rs.reader(), t, sp, false)
		return err
	}
	if j.node.Index.Form == catalog.FormInverted && !point {
		return pgerror.Newf(pgerror.Internal, "exec: lookup join through inverted index %q with a range of keys", j.node.Index.Name)
	}
	j.it, err = index.ScanIndex(j.rs.reader(), t, j.node.Index, sp, false)
	return err
}

// probe evaluates the keys of left row row: the span of keys it matches,
// whether that is one get (a whole primary key, or every column of a
// unique Index), whether it is one key value, and !ok when it matches nothing (a NULL key).
func (j *lookupJoinOp) probe(row []types.Datum) (sp index.Span, get, point, ok bool, err error) {
	t := j.node.Table
	desc := t.PrimaryKeyDesc
	if j.node.Index != nil {
		desc = j.node.Index.Desc
	}
	// The keys are the probe values as they are, not cast to the key
	// columns' types: keySpan finds the key values that equal them.
	sp, point, ok, err = keySpanInto(j.env, planner.Span{Lo: j.node.Keys, Hi: j.node.Keys}, t, j.keyCols, desc, row, j.lo, j.hi)
	if cap(sp.Lo) > cap(j.lo) {
		j.lo = sp.Lo[:0]
	}
	if cap(sp.Hi) > cap(j.hi) {
		j.hi = sp.Hi[:0]
	}
	if err != nil || !ok {
		return sp, false, false, false, err
	}
	get = point && ((j.node.Index == nil && len(sp.Lo) == len(t.PrimaryKey)) || j.unique)
	return sp, get, point, true, nil
}

// nextMatch returns the next table row for the current left row, or nil.
func (j *lookupJoinOp) nextMatch() ([]types.Datum, error) {
	if j.fl != nil {
		return j.fl.next()
	}
	t := j.node.Table
	if !j.getDone && j.slot >= 0 {
		j.getDone = true
		row, found := j.lb.mb.at(j.slot)
		if !found {
			return nil, nil
		}
		return row, nil
	}
	if !j.getDone {
		j.getDone = true
		var found bool
		var err error
		if j.unique {
			found, err = index.GetUnique(j.rs.reader(), t, j.node.Index, j.keys, j.trow)
		} else {
			j.key, found, err = index.GetColsKey(j.rs.reader(), t, j.keys, j.trow, nil, j.key)
		}
		if err != nil || !found {
			return nil, err
		}
		return j.trow, nil
	}
	if j.it == nil {
		return nil, nil
	}
	if !j.it.Next() {
		return nil, j.it.Err()
	}
	row := j.it.Row()
	if j.node.Index == nil {
		return row, nil
	}
	for i, o := range t.PrimaryKey {
		j.pk[i] = row[o]
	}
	var found bool
	var err error
	j.key, found, err = index.GetColsKey(j.rs.reader(), t, j.pk, j.trow, nil, j.key)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, pgerror.Newf(pgerror.DataCorrupted, "index %q of table %q points at a missing row", j.node.Index.Name, t.Name)
	}
	return j.trow, nil
}

func (j *lookupJoinOp) closeIter() error {
	if j.fl != nil {
		return j.fl.stop()
	}
	if j.it == nil {
		return nil
	}
	err := j.it.Close()
	j.it = nil
	return err
}

// Close closes the left, then the lookup's iterator and batch reader,
// and returns the first error. (Not closeAll over closerOps: the method
// values would be two allocations per statement.)
func (j *lookupJoinOp) Close() error {
	err := j.left.Close()
	if e := j.closeIter(); err == nil {
		err = e
	}
	if e := j.closeBatch(); err == nil {
		err = e
	}
	return err
}
