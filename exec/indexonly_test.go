package exec

import (
	"testing"

	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/types"
)

// project keeps the columns cols of each row.
func project(rows [][]types.Datum, cols []int) [][]types.Datum {
	out := make([][]types.Datum, len(rows))
	for i, r := range rows {
		for _, c := range cols {
			out[i] = append(out[i], r[c])
		}
	}
	return out
}

// TestIndexOnlyMatchesMasterReads reads random ranges through the
// covering indexes (INCLUDE (pad)) index-only and through the plain ones
// with master reads (batched and one get per entry), ascending and
// reverse, and wants the same rows in the same order.
func TestIndexOnlyMatchesMasterReads(t *testing.T) {
	r := testRand(t)
	e := kv.NewMemory()
	tbl := batchTable(t, e, 5000, r)
	ctx := testCtx(t, 0)
	ctx.Read, ctx.ReadOnly = e, true
	for trial := range 100 {
		ix := r.IntN(2)
		top := int64(1000)
		if ix == 1 {
			top = 10
		}
		lo := r.Int64N(top)
		hi := lo + r.Int64N(top/4+1)
		needed := [][]int{{0, 3}, {3}, {0, 1 + ix, 3}}[r.IntN(3)]
		rev := r.IntN(2) == 0
		only := indexRangeScan(tbl, ix+2, lo, hi, rev, needed)
		only.IndexOnly = true
		got, err := runBatched(t, ctx, only, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, batched := range []bool{false, true} {
			want, err := runBatched(t, ctx, indexRangeScan(tbl, ix, lo, hi, rev, needed), batched)
			if err != nil {
				t.Fatal(err)
			}
			// Both fill every needed column; the index-only scan fills
			// the key column too, so compare the needed ones.
			if g, w := render(project(got, needed)), render(project(want, needed)); g != w {
				t.Fatalf("trial %d (index %d, %d..%d, reverse %v, needed %v, batched %v): index-only rows differ:\n%.500s\nwant\n%.500s", trial, ix, lo, hi, rev, needed, batched, g, w)
			}
		}
	}
}

// BenchmarkIndexOnlyRead reads 1% and 10% of 200,000 rows of a compacted
// Pebble store for (id, pad): through a key+id index with batched master
// reads (the plan without INCLUDE), and index-only through the same key
// with INCLUDE (pad).
func BenchmarkIndexOnlyRead(b *testing.B) {
	tbl, ctx := compactedBatchTable(b)
	for _, c := range []struct {
		name   string
		ix     int
		lo, hi int64
	}{{"scattered-1%", 0, 0, 9}, {"ordered-10%", 1, 7, 7}} {
		for _, only := range []bool{false, true} {
			name := c.name + "/master-reads"
			ix := c.ix
			if only {
				name, ix = c.name+"/index-only", c.ix+2
			}
			b.Run(name, func(b *testing.B) {
				scan := indexRangeScan(tbl, ix, c.lo, c.hi, false, []int{0, 3})
				scan.IndexOnly = only
				defer reportCPU(b, cpuTime(b))
				for b.Loop() {
					rows, err := runBatched(b, ctx, scan, true)
					if err != nil {
						b.Fatal(err)
					}
					if len(rows) == 0 {
						b.Fatal("no rows")
					}
				}
			})
		}
	}
}
