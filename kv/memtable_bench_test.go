package kv

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkUpdateMix is kvsql bench's YCSB 70/30 mix on the engine alone,
// by memtable size: 100,000 rows of 1 KiB written in key order and
// compacted, then random operations, 7 in 10 a point read and 3 in 10 a
// one-row write of 1 KiB. It measures the price of a small memtable:
// more flushes and compactions, whose CPU is in cpu-ns/op (the whole
// process's CPU time per operation). What a small memtable buys shows in
// the server, not here: a memtable has no bloom filter, so every read
// searches each memtable's skiplist, a cache miss per level once the
// skiplist has left the CPU's caches, which a server with eight busy
// connections evicts and this one loop keeps warm
// (docs/benchmarks-history.md, "The memtable round", has both sides'
// numbers). A warm-up of 100,000 operations, untimed, fills the memtables and reads
// every block once.
func BenchmarkUpdateMix(b *testing.B) {
	const rows = 100_000
	keys := make([][]byte, rows)
	for i := range keys {
		keys[i] = fmt.Appendf(nil, "\x89row%08d", i)
	}
	val := make([]byte, 1024)
	for _, mt := range []uint64{64 << 20, 16 << 20, 8 << 20, 4 << 20} {
		b.Run(fmt.Sprintf("memtable-%dMiB", mt>>20), func(b *testing.B) {
			e, err := OpenPebble(b.TempDir(), PebbleOptions{MemTableSize: mt})
			must(b, err)
			defer e.Close()
			for i := 0; i < rows; i += 1000 {
				batch := e.NewBatch()
				for _, k := range keys[i : i+1000] {
					must(b, batch.Set(k, val))
				}
				must(b, batch.Commit(false))
				must(b, batch.Close())
			}
			must(b, e.Compact([]byte{0}, []byte{0xff}))
			r := rand.New(rand.NewPCG(1, 2))
			// Reads share a snapshot, taken again every 64 operations, as
			// kvsql's autocommit reads share the last published one.
			s, n := e.NewSnapshot(), 0
			defer func() { must(b, s.Close()) }()
			op := func() {
				if n++; n%64 == 0 {
					must(b, s.Close())
					s = e.NewSnapshot()
				}
				k := keys[r.IntN(rows)]
				if r.IntN(10) < 3 {
					batch := e.NewBatch()
					must(b, batch.Set(k, val))
					must(b, batch.Commit(false))
					must(b, batch.Close())
					return
				}
				if _, err := s.Get(k); err != nil {
					b.Fatal(err)
				}
			}
			for range rows {
				op()
			}
			b.ReportAllocs()
			start := cpuTime()
			for b.Loop() {
				op()
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}
