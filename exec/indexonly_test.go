package exec

import (
	"testing"

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
