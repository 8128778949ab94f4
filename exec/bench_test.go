package exec

import (
	"syscall"
	"testing"
	"time"

	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

func drain(b *testing.B, op Operator) int64 {
	var n int64
	for {
		row, err := op.Next()
		if err != nil {
			b.Fatal(err)
		}
		if row == nil {
			break
		}
		n++
	}
	if err := op.Close(); err != nil {
		b.Fatal(err)
	}
	return n
}

func BenchmarkHashJoin100kx10k(b *testing.B) {
	rs := newRunState(testCtx(b, 0))
	jn := &planner.Join{Type: planner.InnerJoin, Algo: planner.HashJoin, BuildRight: true,
		LeftKeys: []planner.Expr{col(1)}, RightKeys: []planner.Expr{col(0)}}
	for b.Loop() {
		j := newHashJoin(rs, rs.env, jn, &genOp{n: 100_000, m: 10_000}, &genOp{n: 10_000, m: 10_000}, 2, 2)
		if n := drain(b, j); n != 100_000 {
			b.Fatalf("%d rows", n)
		}
	}
}

func BenchmarkAggregate1Mx1000(b *testing.B) {
	rs := newRunState(testCtx(b, 0))
	an := &planner.Aggregate{GroupBy: []planner.Expr{col(1)},
		Aggs: []planner.AggCall{agg("count_star", false), agg("sum", false, col(0))}, Strategy: planner.HashAgg}
	for b.Loop() {
		a := &aggregateOp{rs: rs, env: rs.env, node: an, input: &genOp{n: 1_000_000, m: 1000}, t: ticker{rs: rs},
			mem: memAccount{limit: rs.workMem}, out: make([]types.Datum, 3), args: make([][]types.Datum, 2)}
		if n := drain(b, a); n != 1000 {
			b.Fatalf("%d groups", n)
		}
	}
}

// BenchmarkSort1M sorts 1M rows by one int key, in memory (work_mem
// 1 GB) and spilling (the default 4 MB), with the Datum comparator and with
// normalized keys.
func BenchmarkSort1M(b *testing.B) {
	for _, mem := range []struct {
		name string
		size int64
	}{{"mem", 1 << 30}, {"spill", 0}} {
		for _, norm := range []bool{false, true} {
			name := mem.name + "/datum"
			if norm {
				name = mem.name + "/normalized"
			}
			b.Run(name, func(b *testing.B) {
				defer func(v bool) { normalizedSort = v }(normalizedSort)
				normalizedSort = norm
				rs := newRunState(testCtx(b, mem.size))
				start := cpuTime(b)
				for b.Loop() {
					s := newSort(rs, rs.env, &genOp{n: 1_000_000, m: 1_000_000}, []planner.SortKey{{Expr: col(1)}}, 2)
					if n := drain(b, s); n != 1_000_000 {
						b.Fatalf("%d rows", n)
					}
				}
				reportCPU(b, start)
			})
		}
	}
}

// padOp is genOp with a third, text column: its rows make an arena of
// records larger than the CPU's caches, as the bench's ORDER BY does.
type padOp struct {
	genOp
	row [3]types.Datum
}

func (p *padOp) Next() ([]types.Datum, error) {
	r, err := p.genOp.Next()
	if r == nil || err != nil {
		return r, err
	}
	p.row[0], p.row[1], p.row[2] = r[0], r[1], types.NewText("fact row padding, forty bytes long......")
	return p.row[:], nil
}

// BenchmarkSort1MWide sorts 1M rows of three columns by two int keys in
// memory: the output reads about 80 MB of records in sorted order, at
// random places (encSorter.touch).
func BenchmarkSort1MWide(b *testing.B) {
	rs := newRunState(testCtx(b, 1<<30))
	start := cpuTime(b)
	for b.Loop() {
		s := newSort(rs, rs.env, &padOp{genOp: genOp{n: 1_000_000, m: 1_000_003}}, []planner.SortKey{{Expr: col(1)}, {Expr: col(0)}}, 3)
		if n := drain(b, s); n != 1_000_000 {
			b.Fatalf("%d rows", n)
		}
	}
	reportCPU(b, start)
}

func BenchmarkTop10Of1M(b *testing.B) {
	rs := newRunState(testCtx(b, 0))
	n := &planner.TopN{Keys: []planner.SortKey{{Expr: col(1), Desc: true}}, Count: cint(10)}
	defer reportCPU(b, cpuTime(b))
	for b.Loop() {
		t := &topNOp{rs: rs, env: rs.env, input: &rowOpSource{op: &genOp{n: 1_000_000, m: 1_000_000}}, node: n, width: 2}
		if got := drain(b, t); got != 10 {
			b.Fatalf("%d rows", got)
		}
	}
}

// cpuTime is the process's user+system CPU time so far. On a machine
// shared with other loads wall time per op is mostly waiting; benchmarks
// report the CPU time of their loop as well (reportCPU).
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per op since start (cpuTime) as cpu-ns/op.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op")
}
