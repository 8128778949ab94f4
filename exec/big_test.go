package exec

import (
	"os"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// genOp produces n rows (i, i*7919 mod m) without holding them: a test
// input too large for a Values node.
type genOp struct {
	i, n, m int64
	row     [2]types.Datum
}

func (g *genOp) Next() ([]types.Datum, error) {
	if g.i >= g.n {
		return nil, nil
	}
	g.row[0] = types.NewInt(g.i)
	g.row[1] = types.NewInt(g.i * 7919 % g.m)
	g.i++
	return g.row[:], nil
}
func (g *genOp) Close() error { return nil }

// peakHeap samples HeapInuse until stop is closed.
func peakHeap(stop chan struct{}) *atomic.Uint64 {
	var peak atomic.Uint64
	go func() {
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	return &peak
}

// TestBig runs a 2,000,000-row sort, a 1,000,000 x 1,000,000 hash join and
// a 1,000,000-group aggregation with a 16 MiB budget. It takes a while on
// a small machine: set KVSQL_BIG=1.
func TestBig(t *testing.T) {
	if os.Getenv("KVSQL_BIG") == "" {
		t.Skip("set KVSQL_BIG=1 to run the large spilling tests")
	}
	const workMem = 16 << 20
	run := func(name string, op Operator, check func(row []types.Datum, i int64)) {
		stop := make(chan struct{})
		peak := peakHeap(stop)
		start := time.Now()
		var i int64
		for {
			row, err := op.Next()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if row == nil {
				break
			}
			check(row, i)
			i++
		}
		if err := op.Close(); err != nil {
			t.Fatal(err)
		}
		close(stop)
		t.Logf("%s: %d rows in %v, peak heap in use %d MiB", name, i, time.Since(start).Round(time.Millisecond), peak.Load()>>20)
		if peak.Load() > 1<<30 {
			t.Errorf("%s: peak heap %d MiB", name, peak.Load()>>20)
		}
	}
	ctx := testCtx(t, workMem)
	rs := newRunState(ctx)

	// Sort 2M rows by a permutation of 0..2M-1: row i must carry key i.
	const n = 2_000_000
	s := newSort(rs, rs.env, &genOp{n: n, m: n}, []planner.SortKey{{Expr: col(1)}}, 2)
	run("sort 2M", s, func(row []types.Datum, i int64) {
		if row[1].I != i {
			t.Fatalf("sort: row %d has key %d", i, row[1].I)
		}
	})

	// Join 1M x 1M on a unique key: every left row matches exactly once.
	const m = 1_000_000
	jn := &planner.Join{Type: planner.InnerJoin, Algo: planner.HashJoin, BuildRight: true,
		LeftKeys: []planner.Expr{col(0)}, RightKeys: []planner.Expr{col(1)}}
	j := newHashJoin(rs, rs.env, jn, &genOp{n: m, m: m}, &genOp{n: m, m: m}, 2, 2)
	var sum int64
	run("hash join 1M x 1M", j, func(row []types.Datum, i int64) {
		if row[0].I != row[3].I {
			t.Fatalf("join: %v", row)
		}
		sum += row[0].I
	})
	if sum != m*(m-1)/2 {
		t.Errorf("join: key sum %d", sum)
	}

	// Aggregate 2M rows into 1M groups of two.
	an := &planner.Aggregate{GroupBy: []planner.Expr{&planner.BinOp{Op: "%", L: col(0), R: cint(m), T: intT}},
		Aggs: []planner.AggCall{agg("count_star", false), agg("sum", false, col(0))}, Strategy: planner.HashAgg}
	a := &aggregateOp{rs: rs, env: rs.env, node: an, input: &genOp{n: 2 * m, m: m}, t: ticker{rs: rs},
		mem: memAccount{limit: workMem}, out: make([]types.Datum, 3), args: make([][]types.Datum, 2)}
	var groups int64
	run("hash agg 1M groups", a, func(row []types.Datum, i int64) {
		if row[1].I != 2 || row[2].I != 2*row[0].I+m {
			t.Fatalf("agg: %v", row)
		}
		groups++
	})
	if groups != m {
		t.Errorf("agg: %d groups", groups)
	}
	assertEmptyDir(t, ctx.TempDir)
}
