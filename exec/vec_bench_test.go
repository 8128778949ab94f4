package exec

import (
	"fmt"
	"sync"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// The batch engine's micro-benchmarks run the bench's analytic shapes
// (bench/analytic.go, bench/indexwl.go) over a Pebble store in memory,
// each twice: "rows" with the row operators, "batches" with the same plan
// marked Vectorized, and for aggregations "parallel" with its scans
// marked Parallel too. Compare with
//
//	go test ./exec -run '^$' -bench 'Vec' -count 5 -cpu 1
const (
	vecBenchFact = 200_000
	vecBenchDim  = vecBenchFact / 10
)

// numT is NUMERIC(12,2).
var numT = types.T{Family: types.Numeric, Width: 12, Scale: 2}

var vecBench struct {
	once      sync.Once
	e         kv.Engine
	fact, dim *catalog.Table
	ledger    *catalog.Table // ledger(id, amt NUMERIC(12,2)), as bench/numeric.go
	err       error
}

// vecBenchTables returns fact(id, dkey, grp, val, pad) and dim(id, dkey,
// name) loaded as the bench loads them.
func vecBenchTables(b *testing.B) (kv.Engine, *catalog.Table, *catalog.Table) {
	vecBench.once.Do(func() {
		e, err := kv.OpenPebble("bench", kv.PebbleOptions{FS: vfs.NewMem()})
		if err != nil {
			vecBench.err = err
			return
		}
		fact := &catalog.Table{ID: 60, Name: "fact", PrimaryKey: []int{0}, PrimaryKeyDesc: []bool{false}, NextColumnID: 6,
			Columns: []catalog.Column{{ID: 1, Name: "id", Type: intT}, {ID: 2, Name: "dkey", Type: intT},
				{ID: 3, Name: "grp", Type: intT}, {ID: 4, Name: "val", Type: intT}, {ID: 5, Name: "pad", Type: textT}}}
		dim := &catalog.Table{ID: 61, Name: "dim", PrimaryKey: []int{0}, PrimaryKeyDesc: []bool{false}, NextColumnID: 4,
			Columns: []catalog.Column{{ID: 1, Name: "id", Type: intT}, {ID: 2, Name: "dkey", Type: intT}, {ID: 3, Name: "name", Type: textT}}}
		txn := kv.NewTxn(e)
		for i := range int64(vecBenchFact) {
			row := []types.Datum{types.NewInt(i), types.NewInt(i * 7919 % vecBenchDim), types.NewInt(i % 1000),
				types.NewInt(int64(uint64(i) * 2654435761 % 1_000_003)), types.NewText("fact row padding")}
			if err := index.Insert(txn, fact, row); err != nil {
				vecBench.err = err
				return
			}
		}
		for i := range int64(vecBenchDim) {
			if err := index.Insert(txn, dim, []types.Datum{types.NewInt(i), types.NewInt(i), types.NewText(fmt.Sprintf("dim %d", i))}); err != nil {
				vecBench.err = err
				return
			}
		}
		ledger := &catalog.Table{ID: 62, Name: "ledger", PrimaryKey: []int{0}, PrimaryKeyDesc: []bool{false}, NextColumnID: 3,
			Columns: []catalog.Column{{ID: 1, Name: "id", Type: intT}, {ID: 2, Name: "amt", Type: numT}}}
		for i := range int64(vecBenchFact) {
			cents := int64(uint64(i) * 2654435761 % 10_000_000)
			amt := types.Datum{Kind: types.KindDecimal, S: fmt.Sprintf("%d.%02d", cents/100, cents%100)}
			if err := index.Insert(txn, ledger, []types.Datum{types.NewInt(i), amt}); err != nil {
				vecBench.err = err
				return
			}
		}
		vecBench.ledger = ledger
		if vecBench.err = txn.Commit(false); vecBench.err != nil {
			return
		}
		// As the bench's ANALYZE does: reads meet sstables, not the memtable.
		if vecBench.err = e.Compact([]byte{0}, []byte{0xff}); vecBench.err != nil {
			return
		}
		vecBench.e, vecBench.fact, vecBench.dim = e, fact, dim
	})
	if vecBench.err != nil {
		b.Fatal(vecBench.err)
	}
	return vecBench.e, vecBench.fact, vecBench.dim
}

// markVec sets or clears Vectorized (and Parallel) on every node of n;
// under an aggregation a parallel scan is Unordered, as the planner
// marks it.
func markVec(n planner.Node, on, parallel bool) {
	_, agg := n.(*planner.Aggregate)
	markVecUnder(n, on, parallel, agg)
}

func markVecUnder(n planner.Node, on, parallel, unordered bool) {
	switch n := n.(type) {
	case *planner.Scan:
		n.Vectorized, n.Parallel, n.Unordered = on, parallel, unordered
	case *planner.Filter:
		n.Vectorized = on
	case *planner.Project:
		n.Vectorized = on
	case *planner.Join:
		n.Vectorized = on
	case *planner.Aggregate:
		n.Vectorized = on
	}
	for _, c := range n.Children() {
		markVecUnder(c, on, parallel, unordered)
	}
}

func tableCols(t *catalog.Table) []planner.Column {
	out := make([]planner.Column, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = planner.Column{Name: c.Name, T: c.Type}
	}
	return out
}

func runVecBench(b *testing.B, plan func(fact, dim *catalog.Table) planner.Node, want int64) {
	e, fact, dim := vecBenchTables(b)
	modes := []string{"rows", "batches"}
	if _, ok := plan(fact, dim).(*planner.Aggregate); ok {
		modes = append(modes, "parallel") // only aggregations read in parallel
	}
	for _, mode := range modes {
		b.Run(mode, func(b *testing.B) {
			n := plan(fact, dim)
			markVec(n, mode != "rows", mode == "parallel")
			for b.Loop() {
				ctx := testCtx(b, 0)
				ctx.RW, ctx.ReadOnly = kv.NewTxn(e), true
				op, err := Build(ctx, n)
				if err != nil {
					b.Fatal(err)
				}
				if got := drain(b, op); got != want {
					b.Fatalf("%d rows, want %d", got, want)
				}
			}
		})
	}
}

// BenchmarkVecScanFilter: SELECT id, pad FROM fact WHERE val = 5 (one
// row in 200,000 has it... or none: the count is checked below).
func BenchmarkVecScanFilter(b *testing.B) {
	runVecBench(b, func(fact, _ *catalog.Table) planner.Node {
		sc := &planner.Scan{Table: fact, Access: planner.FullScan, Needed: []int{0, 3, 4}, Cols: tableCols(fact),
			Filter: bin("<", &planner.ColRef{Index: 3, T: intT}, cint(100))}
		return &planner.Project{Input: sc, Exprs: []planner.Expr{col(0), tcol(4)}, Cols: cols(2)}
	}, vecBenchCount(func(i int64) bool { return int64(uint64(i)*2654435761%1_000_003) < 100 }))
}

// BenchmarkVecScan: SELECT count(*), sum(val) FROM fact.
func BenchmarkVecScan(b *testing.B) {
	runVecBench(b, func(fact, _ *catalog.Table) planner.Node {
		sc := &planner.Scan{Table: fact, Access: planner.FullScan, Needed: []int{3}, Cols: tableCols(fact)}
		return &planner.Aggregate{Input: sc, Strategy: planner.ScalarAgg,
			Aggs: []planner.AggCall{{Func: "count_star", T: intT}, {Func: "sum", Args: []planner.Expr{col(3)}, T: types.T{Family: types.Numeric}}}}
	}, 1)
}

// BenchmarkVecGroupBy: SELECT grp, count(*), sum(val) FROM fact GROUP BY grp.
func BenchmarkVecGroupBy(b *testing.B) {
	runVecBench(b, func(fact, _ *catalog.Table) planner.Node {
		sc := &planner.Scan{Table: fact, Access: planner.FullScan, Needed: []int{2, 3}, Cols: tableCols(fact)}
		return &planner.Aggregate{Input: sc, Strategy: planner.HashAgg, GroupBy: []planner.Expr{col(2)},
			Aggs: []planner.AggCall{{Func: "count_star", T: intT}, {Func: "sum", Args: []planner.Expr{col(3)}, T: types.T{Family: types.Numeric}}}}
	}, 1000)
}

// BenchmarkVecHashJoin: SELECT count(*), sum(f.val) FROM fact f JOIN dim d
// ON f.dkey = d.dkey, building on dim.
func BenchmarkVecHashJoin(b *testing.B) {
	runVecBench(b, func(fact, dim *catalog.Table) planner.Node {
		d := &planner.Project{Input: &planner.Scan{Table: dim, Access: planner.FullScan, Needed: []int{1}, Cols: tableCols(dim)},
			Exprs: []planner.Expr{col(1)}, Cols: cols(1)}
		f := &planner.Project{Input: &planner.Scan{Table: fact, Access: planner.FullScan, Needed: []int{1, 3}, Cols: tableCols(fact)},
			Exprs: []planner.Expr{col(1), col(3)}, Cols: cols(2)}
		j := &planner.Join{Type: planner.InnerJoin, Algo: planner.HashJoin, Left: d, Right: f,
			LeftKeys: []planner.Expr{col(0)}, RightKeys: []planner.Expr{col(0)}, Cols: cols(3)}
		return &planner.Aggregate{Input: j, Strategy: planner.ScalarAgg,
			Aggs: []planner.AggCall{{Func: "count_star", T: intT}, {Func: "sum", Args: []planner.Expr{col(2)}, T: types.T{Family: types.Numeric}}}}
	}, 1)
}

func vecBenchCount(f func(i int64) bool) int64 {
	var n int64
	for i := range int64(vecBenchFact) {
		if f(i) {
			n++
		}
	}
	return n
}

// BenchmarkVecNumericSum: SELECT sum(amt) FROM ledger, amt NUMERIC(12,2)
// (bench/numeric.go's "NUMERIC sum").
func BenchmarkVecNumericSum(b *testing.B) {
	runVecBench(b, func(_, _ *catalog.Table) planner.Node {
		l := vecBench.ledger
		sc := &planner.Scan{Table: l, Access: planner.FullScan, Needed: []int{1}, Cols: tableCols(l)}
		return &planner.Aggregate{Input: sc, Strategy: planner.ScalarAgg,
			Aggs: []planner.AggCall{{Func: "sum", Args: []planner.Expr{&planner.ColRef{Index: 1, T: numT}}, T: numT}}}
	}, 1)
}
