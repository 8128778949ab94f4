package kv

import (
	"fmt"
	"testing"
)

// BenchmarkWriteSetsSmall is WriteSets of a short OLTP transaction (four
// keys, as pgbench's TPC-B writes), which every commit computes for the
// commit log.
func BenchmarkWriteSetsSmall(b *testing.B) {
	x := NewTxn(NewMemory())
	defer x.Rollback()
	for i := range 4 {
		must(b, x.Set([]byte(fmt.Sprintf("/Table/%d/1/%d", 100+i, 12345*i)), make([]byte, 90)))
	}
	b.ReportAllocs()
	for b.Loop() {
		w, o := x.WriteSets()
		if len(w) != 4 || len(o) != 4 {
			b.Fatalf("%d writes, %d overwrites", len(w), len(o))
		}
	}
}
