package kv

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
)

// BenchmarkTxnBulkCommitSpans is a bulk load's write buffer and the key
// spans its commit builds: 100,000 master keys in ascending order by
// SetIfNew (as COPY writes them), then the write set for the commit log
// and what validation needs:
//   - serializable: the read spans, copied and checked for order as the
//     session merges them (the keys SetIfNew checked are marks on its
//     writes, not spans);
//   - read-committed: nothing more (validation asks the write buffer,
//     OverwritesIn, here for one commit of ten keys);
//   - read-committed-spans: what READ COMMITTED built before
//     OverwritesIn: the overwrite set too, copied and checked for order.
func BenchmarkTxnBulkCommitSpans(b *testing.B) {
	const rows = 100_000
	val := make([]byte, 40)
	byStart := func(a, b KeySpan) int { return bytes.Compare(a.Start, b.Start) }
	other := make([]KeySpan, 10)
	for i := range other {
		other[i] = pointSpan(fmt.Appendf(nil, "n%08d", i))
	}
	for _, mode := range []string{"serializable", "read-committed", "read-committed-spans"} {
		b.Run(mode, func(b *testing.B) {
			b.ReportAllocs()
			var key []byte
			start := cpuTime()
			for b.Loop() {
				x := NewTxn(NewMemory())
				x.DiscardReads(mode != "serializable")
				for i := range rows {
					key = fmt.Appendf(key[:0], "m%08d", i)
					if _, err := x.SetIfNew(key, val); err != nil {
						b.Fatal(err)
					}
				}
				var writes, check []KeySpan
				switch mode {
				case "serializable":
					writes, check = x.WriteSet(), slices.Clone(x.ReadSpans())
				case "read-committed":
					writes = x.WriteSet()
					if x.OverwritesIn(other) {
						b.Fatal("a conflict")
					}
				default:
					var over []KeySpan
					writes, over = x.WriteSets()
					check = slices.Clone(over)
				}
				if !slices.IsSortedFunc(check, byStart) {
					b.Fatal("spans out of order")
				}
				if len(writes) != rows {
					b.Fatalf("%d writes", len(writes))
				}
				x.Rollback()
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}
