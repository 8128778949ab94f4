package kv

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cockroachdb/pebble/v2"
)

// seekBenchKeys is the size of the store BenchmarkSortedSeek reads: the
// shape of kvsql bench's index lookup table (a million rows of about 70
// bytes, compacted), so the seeks cross as many levels and blocks as
// there.
const seekBenchKeys = 1_000_000

func seekBenchKey(i int) []byte { return fmt.Appendf(nil, "\x89row%08d", i) }

// seekBenchPebble returns a Pebble engine holding seekBenchKeys keys with
// 60-byte values, and its *pebble.DB: written in key order and compacted
// (a bulk-loaded table after VACUUM), or with layered written in random
// order and left as Pebble's own compactions leave it (a table written
// over time, its files overlapping across levels).
func seekBenchPebble(b *testing.B, layered bool) (Engine, *pebble.DB) {
	b.Helper()
	e, err := OpenPebble(b.TempDir(), PebbleOptions{MemTableSize: 4 << 20})
	must(b, err)
	val := make([]byte, 60)
	order := rand.New(rand.NewPCG(1, 2)).Perm(seekBenchKeys)
	for i := 0; i < seekBenchKeys; i += 10_000 {
		batch := e.NewBatch()
		for j := i; j < i+10_000; j++ {
			k := j
			if layered {
				k = order[j]
			}
			must(b, batch.Set(seekBenchKey(k), val))
		}
		must(b, batch.Commit(false))
		must(b, batch.Close())
	}
	if !layered {
		must(b, e.Compact([]byte{0}, []byte{0xff}))
	}
	return e, e.(*pebbleEngine).db
}

// BenchmarkSortedSeek is the cost of one seek in an ascending run of
// exact-key seeks, every 10th and every 100th key of a compacted store (a
// 10% and a 1% index lookup's master reads): through Pebble's iterator
// (SeekGE, SeekGE with SetBounds before each, SeekPrefixGE, and Next
// steps to the key), and through the kv iterators of an engine, a
// snapshot and a read-only Txn. ns/op is per seek.
func BenchmarkSortedSeek(b *testing.B) {
	for _, layered := range []bool{false, true} {
		name := "compacted"
		if layered {
			name = "layered"
		}
		b.Run(name, func(b *testing.B) { benchSortedSeek(b, layered) })
	}
}

func benchSortedSeek(b *testing.B, layered bool) {
	e, db := seekBenchPebble(b, layered)
	defer e.Close()
	lo, hi := []byte("\x89"), []byte("\x8a")
	for _, stride := range []int{10, 100} {
		keys := make([][]byte, 0, seekBenchKeys/stride)
		for i := 0; i < seekBenchKeys; i += stride {
			keys = append(keys, seekBenchKey(i))
		}
		// run seeks through the keys in order, starting over with a fresh
		// iterator from open when they are used up.
		// A first pass, untimed, brings the blocks into the cache. The
		// CPU time per seek (cpu-ns/op) swings less than wall time on a
		// shared machine.
		run := func(b *testing.B, open func() (seek func([]byte) bool, close func())) {
			b.ReportAllocs()
			seek, closeIt := open()
			for _, k := range keys {
				if !seek(k) {
					b.Fatalf("key %q not found", k)
				}
			}
			closeIt()
			seek, closeIt = open()
			n := 0
			start := cpuTime()
			for b.Loop() {
				if n == len(keys) {
					closeIt()
					seek, closeIt = open()
					n = 0
				}
				if !seek(keys[n]) {
					b.Fatalf("key %q not found", keys[n])
				}
				n++
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
			closeIt()
		}
		pebbleIter := func(b *testing.B) *pebble.Iterator {
			it, err := db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
			must(b, err)
			return it
		}
		name := func(s string) string { return fmt.Sprintf("every-%d/%s", stride, s) }
		b.Run(name("pebble-seekge"), func(b *testing.B) {
			run(b, func() (func([]byte) bool, func()) {
				it := pebbleIter(b)
				return func(k []byte) bool { return it.SeekGE(k) && string(it.Key()) == string(k) }, func() { it.Close() }
			})
		})
		b.Run(name("pebble-setbounds-seekge"), func(b *testing.B) {
			run(b, func() (func([]byte) bool, func()) {
				it := pebbleIter(b)
				return func(k []byte) bool {
					it.SetBounds(lo, hi)
					return it.SeekGE(k) && string(it.Key()) == string(k)
				}, func() { it.Close() }
			})
		})
		b.Run(name("pebble-setlower-seekge"), func(b *testing.B) {
			run(b, func() (func([]byte) bool, func()) {
				it := pebbleIter(b)
				return func(k []byte) bool {
					it.SetBounds(k, hi)
					return it.SeekGE(k) && string(it.Key()) == string(k)
				}, func() { it.Close() }
			})
		})
		b.Run(name("pebble-setspan-seekge"), func(b *testing.B) {
			run(b, func() (func([]byte) bool, func()) {
				it := pebbleIter(b)
				var end []byte
				return func(k []byte) bool {
					end = append(append(end[:0], k...), 0)
					it.SetBounds(k, end)
					return it.SeekGE(k) && string(it.Key()) == string(k)
				}, func() { it.Close() }
			})
		})
		// pebble-fresh-seekge: changing the bounds (to equivalent ones)
		// drops the seek-using-next state, so each SeekGE seeks the
		// sstable's index directly instead of trying 4 Nexts first.
		b.Run(name("pebble-fresh-seekge"), func(b *testing.B) {
			run(b, func() (func([]byte) bool, func()) {
				it := pebbleIter(b)
				his := [2][]byte{hi, append(append([]byte(nil), lo...), 0xff)}
				flip := 0
				return func(k []byte) bool {
					flip ^= 1
					it.SetBounds(lo, his[flip])
					return it.SeekGE(k) && string(it.Key()) == string(k)
				}, func() { it.Close() }
			})
		})
		b.Run(name("pebble-seekprefixge"), func(b *testing.B) {
			run(b, func() (func([]byte) bool, func()) {
				it := pebbleIter(b)
				return func(k []byte) bool { return it.SeekPrefixGE(k) && string(it.Key()) == string(k) }, func() { it.Close() }
			})
		})
		b.Run(name("pebble-next"), func(b *testing.B) {
			run(b, func() (func([]byte) bool, func()) {
				it := pebbleIter(b)
				started := false
				return func(k []byte) bool {
					if !started {
						started = true
						return it.SeekGE(k) && string(it.Key()) == string(k)
					}
					for it.Next() {
						if string(it.Key()) >= string(k) {
							return string(it.Key()) == string(k)
						}
					}
					return false
				}, func() { it.Close() }
			})
		})
		b.Run(name("pebble-fresh-iter-get"), func(b *testing.B) {
			run(b, func() (func([]byte) bool, func()) {
				return func(k []byte) bool {
					_, err := e.Get(k)
					return err == nil
				}, func() {}
			})
		})
		kvIter := func(b *testing.B, r Reader) func() (func([]byte) bool, func()) {
			return func() (func([]byte) bool, func()) {
				it, err := r.NewIter(IterOptions{LowerBound: lo, UpperBound: hi})
				must(b, err)
				return func(k []byte) bool { return it.SeekGE(k) && string(it.Key()) == string(k) }, func() { it.Close() }
			}
		}
		b.Run(name("kv-engine-seekge"), func(b *testing.B) { run(b, kvIter(b, e)) })
		b.Run(name("kv-snapshot-seekge"), func(b *testing.B) {
			s := e.NewSnapshot()
			defer s.Close()
			run(b, kvIter(b, s))
		})
		b.Run(name("kv-txn-seekge"), func(b *testing.B) {
			txn := NewTxn(e)
			defer txn.Rollback()
			run(b, kvIter(b, txn))
		})
	}
}
