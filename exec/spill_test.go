package exec

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

const tinyWorkMem = 64 << 10

// randomRows returns n rows (key in [0, keys) or NULL about 2% of the time,
// a text payload, a row number).
func randomRows(rng *rand.Rand, n, keys int) [][]types.Datum {
	rows := make([][]types.Datum, n)
	for i := range rows {
		k := types.NewInt(int64(rng.IntN(keys)))
		if rng.IntN(50) == 0 {
			k = types.Null
		}
		rows[i] = []types.Datum{k, types.NewText(fmt.Sprintf("payload-%d-%d", rng.IntN(1000), i%7)), types.NewInt(int64(i))}
	}
	return rows
}

func openFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(ents)
}

// spillCompare runs n with the default budget and with a tiny one, checks
// the rows are identical as r renders them (sorted: in any order;
// tiesIn(cols): in order but for rows equal in cols, which an in-memory
// sort leaves in PostgreSQL's order and a spilled one in input order),
// that the tiny run really spilled, and that no file or descriptor is
// left behind.
func spillCompare(t *testing.T, name string, n planner.Node, r func([][]types.Datum) string) {
	t.Helper()
	big := testCtx(t, 0)
	want := collect(t, big, n)
	small := testCtx(t, tinyWorkMem)
	fds := openFDs(t)
	before := spillFilesCreated.Load()
	got := collect(t, small, n)
	if spillFilesCreated.Load() == before {
		t.Errorf("%s: did not spill with a %d-byte budget", name, tinyWorkMem)
	}
	if g, w := r(got), r(want); g != w {
		t.Errorf("%s: spilled result differs (%d rows vs %d)", name, len(got), len(want))
	}
	if len(want) == 0 {
		t.Errorf("%s: empty result proves nothing", name)
	}
	assertEmptyDir(t, small.TempDir)
	if after := openFDs(t); after != fds {
		t.Errorf("%s: %d file descriptors before, %d after", name, fds, after)
	}
}

func TestSpillSort(t *testing.T) {
	rng := testRand(t)
	in := valuesD(3, randomRows(rng, 30000, 500))
	spillCompare(t, "sort", &planner.Sort{Input: in, Keys: []planner.SortKey{{Expr: col(0), Desc: true}, {Expr: tcol(1)}}}, tiesIn(0, 1))
	// Many runs force multi-pass merging (more than maxFanIn runs).
	s := &planner.Sort{Input: valuesD(3, randomRows(rng, 60000, 1<<30)), Keys: []planner.SortKey{{Expr: col(0)}}}
	spillCompare(t, "sort-multipass", s, tiesIn(0))
}

func TestSpillHashJoin(t *testing.T) {
	rng := testRand(t)
	l := valuesD(3, randomRows(rng, 4000, 1500))
	r := valuesD(3, randomRows(rng, 6000, 1500))
	// Each join type once with each build side, across the four types.
	for i, typ := range []planner.JoinType{planner.InnerJoin, planner.LeftJoin, planner.SemiJoin, planner.AntiJoin, planner.LeftJoin, planner.AntiJoin, planner.FullJoin, planner.FullJoin} {
		br := i%2 == 0
		spillCompare(t, fmt.Sprintf("hashjoin-%d-%v", typ, br), joinNode(typ, planner.HashJoin, br, l, r), sorted)
	}
	// The hash join agrees with the nested loop join (small inputs).
	ls, rs := valuesD(3, randomRows(rng, 300, 50)), valuesD(3, randomRows(rng, 200, 50))
	for _, typ := range []planner.JoinType{planner.InnerJoin, planner.LeftJoin, planner.SemiJoin, planner.AntiJoin} {
		ctx := testCtx(t, tinyWorkMem/16)
		h := sorted(collect(t, ctx, joinNode(typ, planner.HashJoin, typ%2 == 0, ls, rs)))
		nl := sorted(collect(t, ctx, joinNode(typ, planner.NestedLoop, false, ls, rs)))
		if h != nl {
			t.Errorf("join type %d: hash and nested loop differ", typ)
		}
	}
	// A FULL join is the LEFT join plus the right rows without a match
	// (the ANTI join of right against left), padded with NULLs on the left.
	ctx := testCtx(t, tinyWorkMem/16)
	want := collect(t, ctx, joinNode(planner.LeftJoin, planner.NestedLoop, false, ls, rs))
	for _, r := range collect(t, ctx, joinNode(planner.AntiJoin, planner.NestedLoop, false, rs, ls)) {
		want = append(want, append(make([]types.Datum, 3), r...))
	}
	for _, br := range []bool{false, true} {
		if got := sorted(collect(t, ctx, joinNode(planner.FullJoin, planner.HashJoin, br, ls, rs))); got != sorted(want) {
			t.Errorf("full join (build right %v) is not the left join plus the unmatched right rows", br)
		}
	}
}

func TestSpillAggregateAndDistinct(t *testing.T) {
	rng := testRand(t)
	in := valuesD(3, randomRows(rng, 30000, 8000))
	n := &planner.Aggregate{Input: in, GroupBy: []planner.Expr{col(0)}, Strategy: planner.HashAgg, Cols: cols(5),
		Aggs: []planner.AggCall{agg("count_star", false), agg("sum", false, col(2)), agg("max", false, tcol(1)), agg("count", true, tcol(1))}}
	spillCompare(t, "hashagg", n, sorted)
	d := &planner.Distinct{Input: &planner.Project{Input: in, Exprs: []planner.Expr{col(0), &planner.BinOp{Op: "%", L: col(2), R: cint(3), T: intT}}, Cols: cols(2)}}
	spillCompare(t, "distinct", d, sorted)
	u := &planner.SetOp{Op: planner.Union, Left: d.Input, Right: d.Input, Cols: cols(2)}
	spillCompare(t, "union", u, sorted)
}

// TestSpillCleanupOnErrorAndCancel checks that spill files and their
// descriptors are released when a spilling operator fails or is
// cancelled mid-way.
func TestSpillCleanupOnErrorAndCancel(t *testing.T) {
	rng := testRand(t)
	rows := randomRows(rng, 20000, 1000)
	// Row 15000 divides by zero in the key; the earlier rows spill.
	for i := range rows {
		rows[i][2] = types.NewInt(int64(i + 1))
	}
	rows[15000][2] = types.NewInt(0)
	in := valuesD(3, rows)
	key := &planner.BinOp{Op: "/", L: cint(1), R: col(2), T: intT}
	for _, typ := range []string{"sort", "hashjoin", "hashagg"} {
		var n planner.Node
		switch typ {
		case "sort":
			n = &planner.Sort{Input: in, Keys: []planner.SortKey{{Expr: key}}}
		case "hashjoin":
			j := joinNode(planner.InnerJoin, planner.HashJoin, true, in, in)
			j.RightKeys = []planner.Expr{key}
			n = j
		case "hashagg":
			n = &planner.Aggregate{Input: in, GroupBy: []planner.Expr{col(2)}, Aggs: []planner.AggCall{agg("sum", false, key)}, Strategy: planner.HashAgg, Cols: cols(2)}
		}
		fds := openFDs(t)
		ctx := testCtx(t, tinyWorkMem)
		if _, err := tryCollect(ctx, n); !pgerror.HasCode(err, pgerror.DivisionByZero) {
			t.Errorf("%s: want 22012, got %v", typ, err)
		}
		assertEmptyDir(t, ctx.TempDir)
		if openFDs(t) != fds {
			t.Errorf("%s: descriptors leaked after an error", typ)
		}

		ctx = testCtx(t, tinyWorkMem)
		cctx, cancel := context.WithCancel(context.Background())
		ctx.Context = cctx
		op, err := Build(ctx, &planner.Sort{Input: n, Keys: []planner.SortKey{{Expr: col(0)}}})
		if err != nil {
			t.Fatal(err)
		}
		cancel()
		if _, err := op.Next(); !pgerror.HasCode(err, pgerror.QueryCanceled) {
			t.Errorf("%s: want 57014 after cancel, got %v", typ, err)
		}
		if err := op.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		assertEmptyDir(t, ctx.TempDir)
		if openFDs(t) != fds {
			t.Errorf("%s: descriptors leaked after cancel", typ)
		}
	}
}
