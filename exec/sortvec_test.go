package exec

import (
	"flag"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

var sortVecSeed = flag.Uint64("sortvec-seed", 0, "seed of TestSortBatchesDifferential (0: a fresh one)")

var floatT = types.T{Family: types.Float8}

// TestSortBatchesDifferential runs random Sort and TopN plans over a
// random table (NULLs, many ties, -0 beside 0, text) three ways: with the
// row operators, with the sort reading a serial scan's batches, and with
// it reading an unordered parallel scan's batches; the rows must be the
// same and in the same order (ties keep the serial scan's order in all
// three). Small work memory makes some sorts spill.
func TestSortBatchesDifferential(t *testing.T) {
	rng := testRNG(t, *sortVecSeed, "sortvec-seed", 1)
	e := memPebble(t, "sortvec")
	tbl := &catalog.Table{ID: 70, Name: "r", PrimaryKey: []int{0}, PrimaryKeyDesc: []bool{false}, NextColumnID: 5,
		Columns: []catalog.Column{{ID: 1, Name: "id", Type: intT}, {ID: 2, Name: "a", Type: intT},
			{ID: 3, Name: "b", Type: floatT}, {ID: 4, Name: "c", Type: textT}}}
	txn := kv.NewTxn(e)
	const n = 3000
	floats := []float64{0, math.Copysign(0, -1), 1.5, -2.25, math.Inf(1), math.Inf(-1), 1e300}
	texts := []string{"", "a", "ab", "b", "a\x00", "ä", "Z"}
	for i := range int64(n) {
		row := []types.Datum{types.NewInt(i), types.Null, types.Null, types.Null}
		if rng.IntN(8) != 0 {
			row[1] = types.NewInt(int64(rng.IntN(20)) - 10)
		}
		if rng.IntN(8) != 0 {
			row[2] = types.NewFloat(floats[rng.IntN(len(floats))])
		}
		if rng.IntN(8) != 0 {
			row[3] = types.NewText(texts[rng.IntN(len(texts))])
		}
		if err := index.Insert(txn, tbl, row); err != nil {
			t.Fatal(err)
		}
	}
	if err := txn.Commit(false); err != nil {
		t.Fatal(err)
	}
	colTypes := []types.T{intT, intT, floatT, textT}
	ref := func(i int) *planner.ColRef { return &planner.ColRef{Index: i, T: colTypes[i]} }

	for iter := range 60 {
		// SELECT <all columns, shuffled> FROM r [WHERE a > k] ORDER BY ...
		perm := rng.Perm(4)
		exprs := make([]planner.Expr, 4)
		pcols := make([]planner.Column, 4)
		for i, c := range perm {
			exprs[i] = ref(c)
			pcols[i] = planner.Column{Name: tbl.Columns[c].Name, T: colTypes[c]}
		}
		var keys []planner.SortKey
		for _, i := range rng.Perm(4)[:1+rng.IntN(3)] {
			k := planner.SortKey{Expr: &planner.ColRef{Index: i, T: colTypes[perm[i]]}, Desc: rng.IntN(2) == 0, NullsFirst: rng.IntN(2) == 0}
			keys = append(keys, k)
		}
		if rng.IntN(4) == 0 {
			// A key that is not a column: top-N takes the Datum path.
			for i, c := range perm {
				if c == 1 {
					keys = append([]planner.SortKey{{Expr: bin("+", &planner.ColRef{Index: i, T: intT}, cint(1))}}, keys...)
				}
			}
		}
		filtered := rng.IntN(3) == 0
		workMem := int64(1 << 30)
		if rng.IntN(3) == 0 {
			workMem = 64 << 10 // spills
		}
		count := []int64{0, 1, 7, 100, 2500, 5000}[rng.IntN(6)]
		offset := []int64{0, 0, 3, 50}[rng.IntN(4)]
		top := rng.IntN(2) == 0
		plan := func() planner.Node {
			sc := &planner.Scan{Table: tbl, Access: planner.FullScan, Cols: tableCols(tbl)}
			if filtered {
				sc.Filter = bin(">", &planner.ColRef{Index: 1, T: intT}, cint(-3))
			}
			p := &planner.Project{Input: sc, Exprs: exprs, Cols: pcols}
			if top {
				return &planner.TopN{Input: p, Keys: keys, Count: cint(count), Offset: cint(offset)}
			}
			return &planner.Sort{Input: p, Keys: keys}
		}
		name := fmt.Sprintf("iter %d: top=%v count=%d offset=%d filtered=%v workMem=%d keys=%v", iter, top, count, offset, filtered, workMem, keys)
		var want [][]types.Datum
		for _, mode := range []string{"rows", "batches", "parallel"} {
			n := plan()
			markVec(n, mode != "rows", mode == "parallel")
			if mode == "parallel" {
				n.Children()[0].Children()[0].(*planner.Scan).Unordered = true
			}
			if got := planner.BatchSortInput(n); got != (mode != "rows") {
				t.Fatalf("%s: %s: BatchSortInput = %v", name, mode, got)
			}
			ctx := testCtx(t, workMem)
			ctx.RW, ctx.ReadOnly = kv.NewTxn(e), true
			got := collect(t, ctx, n)
			if mode == "rows" {
				want = got
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: %s gives %d rows, rows gives %d; first difference at %d", name, mode, len(got), len(want), firstDiff(got, want))
			}
		}
	}
}

func firstDiff(a, b [][]types.Datum) int {
	for i := range min(len(a), len(b)) {
		if !reflect.DeepEqual(a[i], b[i]) {
			return i
		}
	}
	return min(len(a), len(b))
}

// BenchmarkSortBatches: the bench's ORDER BY pair (SELECT id, val FROM
// fact ORDER BY val, id [LIMIT 10]) over vecBenchFact rows with the row
// operators, over a serial scan's batches and over a parallel scan's.
//
//	go test ./exec -run '^$' -bench SortBatches -count 5 -cpu 1
func BenchmarkSortBatches(b *testing.B) {
	e, fact, _ := vecBenchTables(b)
	for _, limit := range []bool{false, true} {
		for _, mode := range []string{"rows", "batches", "parallel", "parallel/snapshot"} {
			name := "all/" + mode
			want := int64(vecBenchFact)
			if limit {
				name, want = "limit10/"+mode, 10
			}
			b.Run(name, func(b *testing.B) {
				parallel := strings.HasPrefix(mode, "parallel")
				sc := &planner.Scan{Table: fact, Access: planner.FullScan, Needed: []int{0, 3}, Cols: tableCols(fact), Unordered: parallel}
				p := &planner.Project{Input: sc, Exprs: []planner.Expr{col(0), col(3)}, Cols: cols(2)}
				keys := []planner.SortKey{{Expr: col(1)}, {Expr: col(0)}}
				var n planner.Node = &planner.Sort{Input: p, Keys: keys}
				if limit {
					n = &planner.TopN{Input: p, Keys: keys, Count: cint(10)}
				}
				markVec(n, mode != "rows", parallel)
				start := cpuTime(b)
				for b.Loop() {
					ctx := testCtx(b, 4<<20)
					ctx.RW, ctx.ReadOnly = kv.NewTxn(e), true
					var snap kv.Snapshot
					if mode == "parallel/snapshot" {
						// The autocommit query's path (wrappedReader).
						snap = e.NewSnapshot()
						ctx.Read = wrappedReader{snap}
					}
					op, err := Build(ctx, n)
					if err != nil {
						b.Fatal(err)
					}
					if got := drain(b, op); got != want {
						b.Fatalf("%d rows, want %d", got, want)
					}
					if snap != nil {
						_ = snap.Close()
					}
				}
				reportCPU(b, start)
			})
		}
	}
}
