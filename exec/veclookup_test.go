package exec

import (
	"math/rand/v2"
	"testing"

	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// TestVecLookupMissingRow: an index entry whose master row is gone (a
// damaged store) fails a lookup through a key+id or an inverted-list
// index with data_corrupted (XX001), row by row,
// in batches and in parallel parts, in an autocommit query (MasterReader)
// and in a transaction (a Get per row), rather than returning the
// entry's row with its master columns unset.
func TestVecLookupMissingRow(t *testing.T) {
	e := kv.NewMemory()
	txn := kv.NewTxn(e)
	tbl := vecIndexTable(t, txn, 3000, rand.New(rand.NewPCG(1, 2)), false)
	if err := txn.Commit(false); err != nil {
		t.Fatal(err)
	}
	// The rows with a = 7: delete the master row of one of them, behind
	// the indexes' backs.
	find := testCtx(t, 0)
	find.Read, find.ReadOnly = e, true
	lookup := func(inverted bool) *planner.Scan {
		v := cint(7)
		s := &planner.Scan{Table: tbl, Access: planner.IndexRange, Index: tbl.Indexes[0], Rows: 50_000,
			Spans: []planner.Span{{Lo: []planner.Expr{v}, Hi: []planner.Expr{v}}}, Needed: []int{0, 4, 5}}
		if inverted {
			s.Access, s.Index = planner.InvertedGet, tbl.Indexes[5]
		}
		for _, c := range tbl.Columns {
			s.Cols = append(s.Cols, planner.Column{Name: c.Name, T: c.Type})
		}
		return s
	}
	rows, err := tryCollect(find, lookup(false))
	if err != nil || len(rows) < 20 {
		t.Fatalf("a = 7: %d rows, %v", len(rows), err)
	}
	victim := rows[len(rows)/2]
	w := kv.NewTxn(e)
	if err := w.Delete(index.MasterKey(nil, tbl, []types.Datum{victim[0]})); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(false); err != nil {
		t.Fatal(err)
	}
	auto := testCtx(t, 0)
	auto.Read, auto.ReadOnly = e, true
	inTxn := testCtx(t, 0)
	inTxn.RW = kv.NewTxn(e)
	defer inTxn.RW.(*kv.Txn).Rollback()
	defer func(m int) { listPartMin = m }(listPartMin)
	listPartMin = 2
	for _, c := range []struct {
		name               string
		ctx                *Ctx
		vec, par, inverted bool
	}{
		{"rows", auto, false, false, false}, {"batches", auto, true, false, false}, {"parallel", auto, true, true, false},
		{"transaction rows", inTxn, false, false, false}, {"transaction batches", inTxn, true, false, false},
		{"inverted rows", auto, false, false, true}, {"inverted parallel", auto, true, true, true},
		{"inverted transaction batches", inTxn, true, false, true},
	} {
		s := lookup(c.inverted)
		s.Vectorized, s.Parallel = c.vec, c.par
		op, err := Build(c.ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := op.(*vecToRows); c.vec && (!ok || c.par != isParallel(v.input)) {
			t.Fatalf("%s: the scan runs as %T", c.name, op)
		}
		_ = op.Close()
		_, err = tryCollect(c.ctx, s)
		if pgerror.CodeOf(err) != pgerror.DataCorrupted {
			t.Errorf("%s: got %v, want data_corrupted", c.name, err)
		}
	}
}

func isParallel(op vecOp) bool {
	_, ok := op.(*vecIndexParallel)
	return ok
}
