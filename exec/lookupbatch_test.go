package exec

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

func runLookupBatched(ctx *Ctx, n planner.Node, batched bool) ([][]types.Datum, error) {
	defer func(v bool) { batchedLookups = v }(batchedLookups)
	batchedLookups = batched
	return tryCollect(ctx, n)
}

// randomLookupJoin builds a lookup join of t's primary key under a left of
// random keys: ids in and out of the table, duplicates, NULLs, and a
// column 1000/k that fails (22012) where k = 0. Random join type, ON
// condition, and LIMIT above.
func randomLookupJoin(r *rand.Rand, tbl *planner.LookupJoin, rows int) (planner.Node, string) {
	var left [][]any
	zeroAt := -1 // a third of the joins fail at a random row
	if r.IntN(3) == 0 {
		zeroAt = r.IntN(rows + 1)
	}
	for i := range rows {
		var k any
		switch x := r.IntN(20); {
		case i == zeroAt:
			k = 0 // the division fails
		case x == 0:
			k = nil
		case x < 5 && len(left) > 0:
			k = left[r.IntN(len(left))][0] // a duplicate
		default:
			k = 1 + r.IntN(6000) // some beyond the table's 5000 rows
		}
		left = append(left, []any{k})
	}
	lv := values(left...)
	proj := &planner.Project{Input: lv, Exprs: []planner.Expr{col(0), bin("/", cint(1000), col(0))}, Cols: cols(2)}
	j := *tbl
	j.Left = proj
	j.Type = []planner.JoinType{planner.InnerJoin, planner.LeftJoin, planner.SemiJoin, planner.AntiJoin}[r.IntN(4)]
	j.Cols = cols(6)
	if j.Type == planner.SemiJoin || j.Type == planner.AntiJoin {
		j.Cols = cols(2)
	}
	if r.IntN(2) == 0 {
		j.On = bin("<", col(3), cint(int64(r.IntN(1000))))
	}
	desc := fmt.Sprintf("type %v, on %v, %d left rows", j.Type, j.On != nil, rows)
	if r.IntN(3) == 0 {
		lim := int64(r.IntN(rows + 2))
		desc += fmt.Sprintf(", limit %d", lim)
		return &planner.Limit{Input: &j, Count: cint(lim)}, desc
	}
	return &j, desc
}

// TestBatchedLookupsMatchGets runs random lookup joins through the
// primary key with batched master reads and with a get per left row, and
// wants the same rows in the same order and the same error after them.
func TestBatchedLookupsMatchGets(t *testing.T) {
	r := testRand(t)
	e := kv.NewMemory()
	tbl := batchTable(t, e, 5000, r)
	ctx := testCtx(t, 0)
	ctx.Read, ctx.ReadOnly = e, true
	base := &planner.LookupJoin{Table: tbl, Keys: []planner.Expr{col(0)}}
	errs := 0
	for trial := range 300 {
		n, desc := randomLookupJoin(r, base, r.IntN(700))
		got, gerr := runLookupBatched(ctx, n, true)
		want, werr := runLookupBatched(ctx, n, false)
		if fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Fatalf("trial %d (%s): error %v, want %v", trial, desc, gerr, werr)
		}
		if werr != nil {
			errs++
		}
		if g, w := render(got), render(want); g != w {
			t.Fatalf("trial %d (%s): batched lookups differ:\n%.500s\nwant\n%.500s", trial, desc, g, w)
		}
	}
	t.Logf("%d of 300 trials ended in an error", errs)
}

// BenchmarkLookupJoinPK joins 5, 50 and 1,000 random left keys with a
// 200,000-row Pebble table through its primary key (the chat list: a
// user's memberships, then each chat's row), with batched master reads
// and with one get per left row.
func BenchmarkLookupJoinPK(b *testing.B) {
	e, err := kv.OpenPebble(b.TempDir(), kv.PebbleOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	r := rand.New(rand.NewPCG(1, 2))
	tbl := batchTable(b, e, 200_000, r) // not compacted: several levels, as after a bulk load
	ctx := testCtx(b, 0)
	ctx.Read, ctx.ReadOnly = e, true
	for _, rows := range []int{5, 50, 1000} {
		var left [][]any
		for range rows {
			left = append(left, []any{r.IntN(200_000)})
		}
		j := &planner.LookupJoin{Type: planner.InnerJoin, Left: values(left...), Table: tbl, Keys: []planner.Expr{col(0)}, Cols: cols(5)}
		for _, batched := range []bool{false, true} {
			name := fmt.Sprintf("rows-%d/get-per-row", rows)
			if batched {
				name = fmt.Sprintf("rows-%d/batched", rows)
			}
			b.Run(name, func(b *testing.B) {
				for b.Loop() {
					out, err := runLookupBatched(ctx, j, batched)
					if err != nil {
						b.Fatal(err)
					}
					if len(out) != rows {
						b.Fatalf("%d rows, want %d", len(out), rows)
					}
				}
			})
		}
	}
}
