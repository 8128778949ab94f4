package exec

import (
	"flag"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

var parallelSeed = flag.Uint64("parallel-seed", 0, "seed of TestOrderedParallelScanDifferential (0: random)")

// TestOrderedParallelScanDifferential runs SELECT <columns> FROM t [WHERE
// ...] [LIMIT n] over random tables — dense, sparse and negative integer
// keys, keys at both ends of int64, NULLs in every value column, text of
// many lengths — with the row operators and with an ordered parallel
// batch scan: the rows must be the same, in key order. The large table
// makes parts queue more batches than a part's queue holds, so workers
// wait for the consumer; LIMIT stops the scan while workers are busy.
func TestOrderedParallelScanDifferential(t *testing.T) {
	rng := testRNG(t, *parallelSeed, "parallel-seed", 2)
	e := memPebble(t, "parallel")
	colTypes := []types.T{intT, intT, floatT, textT}
	keys := map[string]func(i int64) int64{
		"dense":    func(i int64) int64 { return i },
		"sparse":   func(i int64) int64 { return i*7919 - 50_000_000 },
		"extremes": func(i int64) int64 { return math.MinInt64 + i*(math.MaxInt64/30_000)*2 },
	}
	texts := []string{"", "a", "padding twenty bytes", string(make([]byte, 300)), "ä€"}
	id := uint64(80)
	for _, shape := range []struct {
		name string
		rows int64
	}{{"dense", 120_000}, {"sparse", 20_000}, {"extremes", 30_000}, {"dense", 3}} {
		id++
		tbl := &catalog.Table{ID: id, Name: fmt.Sprintf("p%d", id), PrimaryKey: []int{0}, PrimaryKeyDesc: []bool{false}, NextColumnID: 5,
			Columns: []catalog.Column{{ID: 1, Name: "id", Type: intT}, {ID: 2, Name: "a", Type: intT},
				{ID: 3, Name: "b", Type: floatT}, {ID: 4, Name: "c", Type: textT}}}
		txn := kv.NewTxn(e)
		for i := range shape.rows {
			row := []types.Datum{types.NewInt(keys[shape.name](i)), types.NewInt(int64(rng.IntN(100))), types.Null, types.Null}
			if rng.IntN(10) == 0 {
				row[1] = types.Null
			}
			if rng.IntN(4) != 0 {
				row[2] = types.NewFloat(rng.NormFloat64())
			}
			if rng.IntN(4) != 0 {
				row[3] = types.NewText(texts[rng.IntN(len(texts))])
			}
			if err := index.Insert(txn, tbl, row); err != nil {
				t.Fatal(err)
			}
		}
		if err := txn.Commit(false); err != nil {
			t.Fatal(err)
		}
		for iter := range 12 {
			perm := rng.Perm(4)[:1+rng.IntN(4)]
			exprs := make([]planner.Expr, len(perm))
			pcols := make([]planner.Column, len(perm))
			for i, c := range perm {
				exprs[i] = &planner.ColRef{Index: c, T: colTypes[c]}
				pcols[i] = planner.Column{Name: tbl.Columns[c].Name, T: colTypes[c]}
			}
			// a < k keeps k% of the rows: none, few, a tenth, most, all.
			keep := []int64{-1, 0, 1, 10, 60, 100, 100}[rng.IntN(7)]
			limit := []int64{-1, -1, 0, 1, 5000}[rng.IntN(5)]
			plan := func() planner.Node {
				sc := &planner.Scan{Table: tbl, Access: planner.FullScan, Cols: tableCols(tbl)}
				if keep >= 0 {
					sc.Filter = bin("<", &planner.ColRef{Index: 1, T: intT}, cint(keep))
				}
				var n planner.Node = &planner.Project{Input: sc, Exprs: exprs, Cols: pcols}
				if limit >= 0 {
					n = &planner.Limit{Input: n, Count: cint(limit)}
				}
				return n
			}
			name := fmt.Sprintf("%s %d rows, iter %d: columns %v, a < %d, limit %d", shape.name, shape.rows, iter, perm, keep, limit)
			var want [][]types.Datum
			for _, mode := range []string{"rows", "parallel"} {
				n := plan()
				markVec(n, mode == "parallel", mode == "parallel")
				ctx := testCtx(t, 1<<30)
				ctx.RW, ctx.ReadOnly = kv.NewTxn(e), true
				got := collect(t, ctx, n)
				if mode == "rows" {
					want = got
					continue
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: parallel gives %d rows, rows gives %d; first difference at %d", name, len(got), len(want), firstDiff(got, want))
				}
			}
		}
	}
}

// TestOrderedParallelScanParts checks that an ordered parallel scan of a
// large table is built as one, with many parts of about orderedPartKeys
// keys, and that it hands out no more than partWindow parts at a time.
func TestOrderedParallelScanParts(t *testing.T) {
	e := memPebble(t, "parts")
	tbl := &catalog.Table{ID: 90, Name: "parts", PrimaryKey: []int{0}, PrimaryKeyDesc: []bool{false}, NextColumnID: 3,
		Columns: []catalog.Column{{ID: 1, Name: "id", Type: intT}, {ID: 2, Name: "a", Type: intT}}}
	txn := kv.NewTxn(e)
	const n = 40 * orderedPartKeys
	for i := range int64(n / 64) {
		if err := index.Insert(txn, tbl, []types.Datum{types.NewInt(i * 64), types.NewInt(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := txn.Commit(false); err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t, 1<<30)
	ctx.RW, ctx.ReadOnly = kv.NewTxn(e), true
	sc := &planner.Scan{Table: tbl, Access: planner.FullScan, Cols: tableCols(tbl), Vectorized: true, Parallel: true}
	op, err := Build(ctx, sc)
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	p, ok := op.(*vecToRows).input.(*vecParallelScan)
	if !ok || !p.ordered {
		t.Fatalf("built %T, want an ordered parallel scan", op.(*vecToRows).input)
	}
	if len(p.parts) != 39 {
		t.Fatalf("%d parts, want 39 (keys 0..%d in parts of %d)", len(p.parts), n-64, orderedPartKeys)
	}
	var prev int64 = -1
	for i := 0; ; i++ {
		row, err := op.Next()
		if err != nil {
			t.Fatal(err)
		}
		if row == nil {
			if i != n/64 {
				t.Fatalf("%d rows, want %d", i, n/64)
			}
			break
		}
		if row[0].I <= prev {
			t.Fatalf("row %d: key %d after %d", i, row[0].I, prev)
		}
		prev = row[0].I
		if ahead := p.next - p.cur; ahead > partWindow {
			t.Fatalf("row %d: %d parts handed out past the one delivered, want at most %d", i, ahead, partWindow)
		}
	}
}
