package exec

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// batchTable is t(id INT8 PRIMARY KEY, c INT8, e INT8, pad TEXT) with
// key+id indexes on c (61) and e (62), and on c and e INCLUDE (pad) (63,
// 64), loaded with n rows: c scattered
// over 0..999 (its index order is random in the master file), e = id %
// 10 (one value's rows are in key order), pad NULL on every 7th row.
func batchTable(tb testing.TB, e kv.Engine, n int, r *rand.Rand) *catalog.Table {
	tbl := &catalog.Table{ID: 60, Name: "t", PrimaryKey: []int{0}, PrimaryKeyDesc: []bool{false}, PrimaryKeyName: "t_pkey",
		Columns: []catalog.Column{
			{ID: 1, Name: "id", Type: intT, NotNull: true},
			{ID: 2, Name: "c", Type: intT},
			{ID: 3, Name: "e", Type: intT},
			{ID: 4, Name: "pad", Type: textT},
		},
		Indexes: []*catalog.Index{
			{ID: 61, Name: "t_c", Columns: []int{1}, Desc: []bool{false}, Form: catalog.FormKeyID},
			{ID: 62, Name: "t_e", Columns: []int{2}, Desc: []bool{false}, Form: catalog.FormKeyID},
			// The same two keys covering pad (INCLUDE): index-only reads.
			{ID: 63, Name: "t_c_cov", Columns: []int{1}, Desc: []bool{false}, Form: catalog.FormKeyID, Include: []int{3}},
			{ID: 64, Name: "t_e_cov", Columns: []int{2}, Desc: []bool{false}, Form: catalog.FormKeyID, Include: []int{3}},
		},
		NextColumnID: 5}
	for id := 0; id < n; {
		txn := kv.NewTxn(e)
		for i := 0; i < 5000 && id < n; i, id = i+1, id+1 {
			pad := types.NewText(fmt.Sprintf("row %d padding", id))
			if id%7 == 0 {
				pad = types.Null
			}
			row := []types.Datum{types.NewInt(int64(id)), types.NewInt(int64(r.IntN(1000))), types.NewInt(int64(id % 10)), pad}
			if err := index.Insert(txn, tbl, row); err != nil {
				tb.Fatal(err)
			}
		}
		if err := txn.Commit(false); err != nil {
			tb.Fatal(err)
		}
	}
	return tbl
}

// indexRangeScan reads t through index ix over [lo, hi], as a read-only
// statement does.
func indexRangeScan(tbl *catalog.Table, ix int, lo, hi int64, reverse bool, needed []int) *planner.Scan {
	return &planner.Scan{Table: tbl, Access: planner.IndexRange, Index: tbl.Indexes[ix], Reverse: reverse,
		Spans: []planner.Span{{Lo: []planner.Expr{cint(lo)}, Hi: []planner.Expr{cint(hi)}}}, Needed: needed, Cols: cols(len(tbl.Columns))}
}

func runBatched(t testing.TB, ctx *Ctx, n planner.Node, batched bool) ([][]types.Datum, error) {
	return runReads(t, ctx, n, batched, true)
}

// runReads runs n with batched master reads on or off, and their loads
// split over two goroutines (masterBatch.split) or not.
func runReads(t testing.TB, ctx *Ctx, n planner.Node, batched, split bool) ([][]types.Datum, error) {
	defer func(v, s bool) { batchedMasterReads, splitMasterReads = v, s }(batchedMasterReads, splitMasterReads)
	batchedMasterReads, splitMasterReads = batched, split
	return tryCollect(ctx, n)
}

// TestIndexReadsAgree reads random index ranges (ascending and reverse,
// every column or some) four ways and wants the same rows in the same
// order: with one master get per entry, with batched master reads on one
// goroutine and split over two (masterBatch.split), and,
// when the covering index (INCLUDE (pad)) holds every needed column,
// index-only.
func TestIndexReadsAgree(t *testing.T) {
	r := testRand(t)
	e := kv.NewMemory()
	tbl := batchTable(t, e, 5000, r)
	ctx := testCtx(t, 0)
	ctx.Read, ctx.ReadOnly = e, true
	indexOnly, split := 0, 0
	for trial := range 150 {
		ix := r.IntN(2)
		top := int64(1000)
		if ix == 1 {
			top = 10
		}
		lo := r.Int64N(top)
		hi := lo + r.Int64N(top/4+1)
		needed := [][]int{nil, {0, 1 + r.IntN(3)}, {0, 3}, {3}, {0, 1 + ix, 3}}[r.IntN(5)]
		rev := r.IntN(2) == 0
		scan := indexRangeScan(tbl, ix, lo, hi, rev, needed)
		// The reference: a master get per entry, every one a seek (the
		// batches' MasterReaders step to near keys).
		steps := index.SetMasterSteps(0)
		want, err := runBatched(t, ctx, scan, false)
		index.SetMasterSteps(steps)
		if err != nil {
			t.Fatal(err)
		}
		got, err := runBatched(t, ctx, scan, true)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := render(got), render(want); g != w {
			t.Fatalf("trial %d (index %d, %d..%d, reverse %v, needed %v): batched reads differ:\n%.500s\nwant\n%.500s", trial, ix, lo, hi, rev, needed, g, w)
		}
		if got, err = runReads(t, ctx, scan, true, false); err != nil {
			t.Fatal(err)
		}
		if g, w := render(got), render(want); g != w {
			t.Fatalf("trial %d (index %d, %d..%d, reverse %v, needed %v): batched reads on one goroutine differ:\n%.500s\nwant\n%.500s", trial, ix, lo, hi, rev, needed, g, w)
		}
		if len(want) >= splitMin {
			split++
		}
		if !coveredBy(needed, 0, 1+ix, 3) {
			continue
		}
		indexOnly++
		only := indexRangeScan(tbl, ix+2, lo, hi, rev, needed)
		only.IndexOnly = true
		if got, err = runBatched(t, ctx, only, false); err != nil {
			t.Fatal(err)
		}
		// The index-only scan fills the key column too: compare the
		// needed ones.
		if g, w := render(project(got, needed)), render(project(want, needed)); g != w {
			t.Fatalf("trial %d (index %d, %d..%d, reverse %v, needed %v): index-only rows differ:\n%.500s\nwant\n%.500s", trial, ix, lo, hi, rev, needed, g, w)
		}
	}
	if indexOnly < 30 {
		t.Fatalf("only %d of 150 trials read index-only", indexOnly)
	}
	if split < 30 {
		t.Fatalf("only %d of 150 trials read enough rows to split the master reads", split)
	}
}

// coveredBy reports whether needed names only columns of cols (nil
// needs every column).
func coveredBy(needed []int, cols ...int) bool {
	if needed == nil {
		return false
	}
	for _, c := range needed {
		if !slices.Contains(cols, c) {
			return false
		}
	}
	return true
}

// TestBatchedMasterReadsMissingRow: an index entry without its master row
// is reported (XX001), not skipped.
func TestBatchedMasterReadsMissingRow(t *testing.T) {
	r := testRand(t)
	e := kv.NewMemory()
	tbl := batchTable(t, e, 3000, r)
	txn := kv.NewTxn(e)
	if err := txn.Delete(index.MasterKey(nil, tbl, []types.Datum{types.NewInt(1234)})); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(false); err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t, 0)
	ctx.Read, ctx.ReadOnly = e, true
	for _, batched := range []bool{true, false} {
		_, err := runBatched(t, ctx, indexRangeScan(tbl, 1, 4, 4, false, nil), batched)
		if !pgerror.HasCode(err, pgerror.DataCorrupted) {
			t.Errorf("batched %v: %v, want a data-corrupted error", batched, err)
		}
	}
}

// compactedBatchTable returns batchTable's 200,000 rows in a compacted
// Pebble store, closed when b ends, and a read-only Ctx reading it.
func compactedBatchTable(b *testing.B) (*catalog.Table, *Ctx) {
	e, err := kv.OpenPebble(b.TempDir(), kv.PebbleOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = e.Close() })
	tbl := batchTable(b, e, 200_000, rand.New(rand.NewPCG(1, 2)))
	if err := e.Compact([]byte{0}, []byte{0xff}); err != nil {
		b.Fatal(err)
	}
	ctx := testCtx(b, 0)
	ctx.Read, ctx.ReadOnly = e, true
	return tbl, ctx
}

// BenchmarkIndexRangeRead reads 1% and 10% of 200,000 rows in a Pebble
// store through a key+id index, with batched master reads and with one
// master get per index entry: a range of a column scattered over the
// master file (c BETWEEN 0 AND 9 / 99), and one value of a column whose
// rows are in key order (e = 7, 10%: the index lookup workload of kvsql
// bench); batched reads load on one goroutine or split over two. The
// one value also runs as the planner runs it, a batch lookup read in
// parallel parts (veclookup.go), its rows lent as the wire takes them.
func BenchmarkIndexRangeRead(b *testing.B) {
	tbl, ctx := compactedBatchTable(b)
	for _, c := range []struct {
		name   string
		ix     int
		lo, hi int64
		rows   int
	}{{"scattered-1%", 0, 0, 9, 0}, {"scattered-10%", 0, 0, 99, 0}, {"ordered-10%", 1, 7, 7, 20_000}} {
		for _, m := range []struct {
			name           string
			batched, split bool
		}{{"get-per-entry", false, false}, {"batched", true, false}, {"batched-split", true, true}} {
			b.Run(c.name+"/"+m.name, func(b *testing.B) {
				scan := indexRangeScan(tbl, c.ix, c.lo, c.hi, false, []int{0, 3})
				defer reportCPU(b, cpuTime(b))
				for b.Loop() {
					rows, err := runReads(b, ctx, scan, m.batched, m.split)
					if err != nil {
						b.Fatal(err)
					}
					if c.rows > 0 && len(rows) != c.rows || len(rows) == 0 {
						b.Fatalf("%d rows", len(rows))
					}
				}
			})
		}
		if c.lo != c.hi {
			continue
		}
		b.Run(c.name+"/batch-lookup-parallel", func(b *testing.B) {
			scan := indexRangeScan(tbl, c.ix, c.lo, c.hi, false, []int{0, 3})
			scan.Spans[0].Hi = scan.Spans[0].Lo // an equality: one Expr both ends
			scan.Vectorized, scan.Parallel, scan.Rows = true, true, float64(c.rows)
			if !planner.VecIndexScan(scan) {
				b.Fatal("the lookup has no batch form")
			}
			defer reportCPU(b, cpuTime(b))
			for b.Loop() {
				op, err := Build(ctx, scan)
				if err != nil {
					b.Fatal(err)
				}
				if n := drain(b, LendRows(op)); n != int64(c.rows) {
					b.Fatalf("%d rows", n)
				}
			}
		})
	}
}
