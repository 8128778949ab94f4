package exec

import (
	"testing"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

func TestFilterProjectLimit(t *testing.T) {
	ctx := testCtx(t, 0)
	in := values([]any{1, 10}, []any{2, nil}, []any{3, 30}, []any{4, 40})
	f := &planner.Filter{Input: in, Pred: bin(">", col(1), cint(15))} // NULL filtered out
	p := &planner.Project{Input: f, Exprs: []planner.Expr{bin("+", col(0), col(1))}, Cols: cols(1)}
	expectRows(t, collect(t, ctx, p), "33\n44")
	l := &planner.Limit{Input: in, Count: cint(2), Offset: cint(1)}
	expectRows(t, collect(t, ctx, l), "2 NULL\n3 30\n4 40"[:len("2 NULL\n3 30")])
	expectRows(t, collect(t, ctx, &planner.Limit{Input: in, Offset: cint(3)}), "4 40")
	expectRows(t, collect(t, ctx, &planner.Limit{Input: in, Count: cnull()}), "1 10\n2 NULL\n3 30\n4 40")
	_, err := tryCollect(ctx, &planner.Limit{Input: in, Count: cint(-1)})
	if !pgerror.HasCode(err, "2201W") {
		t.Errorf("negative LIMIT: %v", err)
	}
}

func TestSortNullsAndDesc(t *testing.T) {
	ctx := testCtx(t, 0)
	in := values([]any{3, "a"}, []any{nil, "b"}, []any{1, "c"}, []any{3, "d"}, []any{2, "e"})
	asc := &planner.Sort{Input: in, Keys: []planner.SortKey{{Expr: col(0)}}}
	expectRows(t, collect(t, ctx, asc), `1 "c"
2 "e"
3 "a"
3 "d"
NULL "b"`)
	desc := &planner.Sort{Input: in, Keys: []planner.SortKey{{Expr: col(0), Desc: true, NullsFirst: true}}}
	expectRows(t, collect(t, ctx, desc), `NULL "b"
3 "a"
3 "d"
2 "e"
1 "c"`)
	top := &planner.TopN{Input: in, Keys: []planner.SortKey{{Expr: col(0), Desc: true}}, Count: cint(2), Offset: cint(1)}
	expectRows(t, collect(t, ctx, top), `3 "d"
2 "e"`)
}

func TestDistinctAndSetOps(t *testing.T) {
	ctx := testCtx(t, 0)
	l := values([]any{1}, []any{1}, []any{1}, []any{2}, []any{nil}, []any{nil}, []any{3})
	r := values([]any{1}, []any{1}, []any{nil}, []any{4})
	expectRows(t, collect(t, ctx, &planner.Distinct{Input: l}), "1\n2\nNULL\n3")
	cases := []struct {
		op   planner.SetOpKind
		all  bool
		want string
	}{
		{planner.Union, false, "1\n2\n3\n4\nNULL"},
		{planner.Union, true, "1\n1\n1\n1\n1\n2\n3\n4\nNULL\nNULL\nNULL"},
		{planner.Intersect, false, "1\nNULL"},
		{planner.Intersect, true, "1\n1\nNULL"},
		{planner.Except, false, "2\n3"},
		{planner.Except, true, "1\n2\n3\nNULL"},
	}
	for _, c := range cases {
		got := collect(t, ctx, &planner.SetOp{Op: c.op, All: c.all, Left: l, Right: r, Cols: cols(1)})
		if g := sorted(got); g != c.want {
			t.Errorf("setop %d all=%v:\n%s\nwant\n%s", c.op, c.all, g, c.want)
		}
	}
}

func joinNode(typ planner.JoinType, algo planner.JoinAlgo, buildRight bool, l, r planner.Node) *planner.Join {
	n := &planner.Join{Type: typ, Algo: algo, Left: l, Right: r, BuildRight: buildRight}
	lw, rw := len(l.Columns()), len(r.Columns())
	if algo == planner.HashJoin {
		n.LeftKeys = []planner.Expr{col(0)}
		n.RightKeys = []planner.Expr{col(0)}
	} else {
		n.On = bin("=", col(0), col(lw))
	}
	if typ == planner.SemiJoin || typ == planner.AntiJoin {
		n.Cols = cols(lw)
	} else {
		n.Cols = cols(lw + rw)
	}
	return n
}

func TestJoins(t *testing.T) {
	ctx := testCtx(t, 0)
	l := values([]any{1, 10}, []any{2, 20}, []any{nil, 30}, []any{4, 40}, []any{1, 11})
	r := values([]any{1, 100}, []any{1, 101}, []any{nil, 102}, []any{3, 103}, []any{4, 104})
	want := map[planner.JoinType]string{
		planner.InnerJoin: "1 10 1 100\n1 10 1 101\n1 11 1 100\n1 11 1 101\n4 40 4 104",
		planner.LeftJoin:  "1 10 1 100\n1 10 1 101\n1 11 1 100\n1 11 1 101\n2 20 NULL NULL\n4 40 4 104\nNULL 30 NULL NULL",
		planner.SemiJoin:  "1 10\n1 11\n4 40",
		planner.AntiJoin:  "2 20\nNULL 30",
	}
	for typ, w := range want {
		for _, algo := range []planner.JoinAlgo{planner.NestedLoop, planner.HashJoin} {
			for _, br := range []bool{false, true} {
				got := sorted(collect(t, ctx, joinNode(typ, algo, br, l, r)))
				if got != w {
					t.Errorf("join type %d algo %d buildRight %v:\n%s\nwant\n%s", typ, algo, br, got, w)
				}
			}
		}
	}
	// A residual On condition applies to hash joins too.
	j := joinNode(planner.LeftJoin, planner.HashJoin, true, l, r)
	j.On = bin(">", col(3), cint(100))
	if got := sorted(collect(t, ctx, j)); got != "1 10 1 101\n1 11 1 101\n2 20 NULL NULL\n4 40 4 104\nNULL 30 NULL NULL" {
		t.Errorf("hash join with On:\n%s", got)
	}
}

func agg(fn string, distinct bool, args ...planner.Expr) planner.AggCall {
	return planner.AggCall{Func: fn, Args: args, Distinct: distinct}
}

func TestAggregates(t *testing.T) {
	ctx := testCtx(t, 0)
	in := values([]any{1, 10}, []any{2, 5}, []any{1, nil}, []any{1, 10}, []any{2, 7}, []any{nil, 1})
	aggs := []planner.AggCall{
		agg("count_star", false), agg("count", false, col(1)), agg("sum", false, col(1)),
		agg("min", false, col(1)), agg("max", false, col(1)), agg("count", true, col(1)), agg("sum", true, col(1)),
	}
	want := "1 3 2 20 10 10 1 10\n2 2 2 12 5 7 2 12\nNULL 1 1 1 1 1 1 1"
	for _, st := range []planner.AggStrategy{planner.HashAgg, planner.StreamAgg} {
		var input planner.Node = in
		if st == planner.StreamAgg {
			input = &planner.Sort{Input: in, Keys: []planner.SortKey{{Expr: col(0)}}}
		}
		n := &planner.Aggregate{Input: input, GroupBy: []planner.Expr{col(0)}, Aggs: aggs, Strategy: st, Cols: cols(8)}
		if got := sorted(collect(t, ctx, n)); got != want {
			t.Errorf("strategy %d:\n%s\nwant\n%s", st, got, want)
		}
	}
	// ScalarAgg over an empty input: one row, count 0, the rest NULL.
	empty := &planner.Filter{Input: in, Pred: &planner.Const{Value: datum(false), T: boolT}}
	n := &planner.Aggregate{Input: empty, Aggs: []planner.AggCall{agg("count_star", false), agg("count", false, col(1)), agg("sum", false, col(1)), agg("avg", false, col(1)), agg("max", false, col(1))}, Strategy: planner.ScalarAgg, Cols: cols(5)}
	expectRows(t, collect(t, ctx, n), "0 0 NULL NULL NULL")
	// HashAgg over an empty input: no groups.
	n = &planner.Aggregate{Input: empty, GroupBy: []planner.Expr{col(0)}, Aggs: []planner.AggCall{agg("count_star", false)}, Strategy: planner.HashAgg, Cols: cols(2)}
	expectRows(t, collect(t, ctx, n), "")
	// avg of ints is a numeric (16 significant digits); bool_and / bool_or.
	n = &planner.Aggregate{Input: in, Aggs: []planner.AggCall{agg("avg", false, col(1)), agg("bool_and", false, bin(">", col(1), cint(4))), agg("bool_or", false, bin(">", col(1), cint(9)))}, Strategy: planner.ScalarAgg, Cols: cols(3)}
	expectRows(t, collect(t, ctx, n), "6.6000000000000000 false true")
}

func TestSumOverflow(t *testing.T) {
	ctx := testCtx(t, 0)
	in := values([]any{int64(1) << 62}, []any{int64(1) << 62})
	n := &planner.Aggregate{Input: in, Aggs: []planner.AggCall{agg("sum", false, col(0))}, Strategy: planner.ScalarAgg, Cols: cols(1)}
	if _, err := tryCollect(ctx, n); !pgerror.HasCode(err, pgerror.NumericValueOutOfRange) {
		t.Fatalf("want 22003, got %v", err)
	}
}

func TestStringAgg(t *testing.T) {
	ctx := testCtx(t, 0)
	in := values([]any{"b", 2}, []any{"a", 3}, []any{nil, 0}, []any{"c", 1}, []any{"a", 4})
	sep := &planner.Const{Value: datum(","), T: textT}
	call := planner.AggCall{Func: "string_agg", Args: []planner.Expr{tcol(0), sep}, OrderBy: []planner.SortKey{{Expr: col(1)}}, T: textT}
	dcall := planner.AggCall{Func: "string_agg", Args: []planner.Expr{tcol(0), sep}, Distinct: true, OrderBy: []planner.SortKey{{Expr: tcol(0), Desc: true}}, T: textT}
	n := &planner.Aggregate{Input: in, Aggs: []planner.AggCall{call, dcall}, Strategy: planner.ScalarAgg, Cols: cols(2)}
	expectRows(t, collect(t, ctx, n), `"c,b,a,a" "c,b,a"`)
}

func TestUnknownAggregate(t *testing.T) {
	ctx := testCtx(t, 0)
	n := &planner.Aggregate{Input: values([]any{1}), Aggs: []planner.AggCall{agg("median", false, col(0))}, Strategy: planner.ScalarAgg, Cols: cols(1)}
	if _, err := Build(ctx, n); !pgerror.HasCode(err, pgerror.UndefinedFunction) {
		t.Fatalf("want 42883, got %v", err)
	}
}

// TestNumericSumFastPath: the integer running sum of numerics gives the
// exact decimal answer across scales and past int64, where it hands over
// to apd.
func TestNumericSumFastPath(t *testing.T) {
	dec := func(s string) types.Datum { return types.Datum{Kind: types.KindDecimal, S: s} }
	for _, c := range []struct {
		in   []types.Datum
		want string
	}{
		{[]types.Datum{dec("1.5"), dec("2.25"), dec("-0.75")}, "3.00"},
		{[]types.Datum{dec("0"), dec("1.50"), types.NewInt(2)}, "3.50"},
		{[]types.Datum{dec("999999999999999999"), dec("999999999999999999"), dec("0.1")}, "1999999999999999998.1"},
		{[]types.Datum{dec("12345678901234567890.5"), dec("0.25")}, "12345678901234567890.75"},
		{[]types.Datum{dec("1.5"), dec("NaN")}, "NaN"},
	} {
		s := &sumState{numeric: true}
		for _, d := range c.in {
			if _, err := s.add([]types.Datum{d}); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.result()
		if err != nil || got.S != c.want {
			t.Errorf("sum%v = %v, %v; want %s", c.in, got, err, c.want)
		}
	}
}
