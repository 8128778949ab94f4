package kv

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
)

// BenchmarkTxnBulkCommitSpans is a bulk load's write buffer and the key
// spans a SERIALIZABLE commit builds from it: 100,000 master keys in
// ascending order by SetIfNew (as COPY writes them), then the write set
// for the commit log and the read set, copied and checked for order as
// the session's validation merges it.
func BenchmarkTxnBulkCommitSpans(b *testing.B) {
	const rows = 100_000
	val := make([]byte, 40)
	b.ReportAllocs()
	var key []byte
	start := cpuTime()
	for b.Loop() {
		x := NewTxn(NewMemory())
		for i := range rows {
			key = fmt.Appendf(key[:0], "m%08d", i)
			if _, err := x.SetIfNew(key, val); err != nil {
				b.Fatal(err)
			}
		}
		writes := x.WriteSet()
		reads := slices.Clone(benchValidationReads(x))
		if !slices.IsSortedFunc(reads, func(a, b KeySpan) int { return bytes.Compare(a.Start, b.Start) }) {
			b.Fatal("reads out of order")
		}
		if len(writes) != rows {
			b.Fatalf("%d writes", len(writes))
		}
		x.Rollback()
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// benchValidationReads is what the session merges for validation (the
// keys SetIfNew checked are marks on its writes, not spans).
func benchValidationReads(x *Txn) []KeySpan { return x.ReadSpans() }
