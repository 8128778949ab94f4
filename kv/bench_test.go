package kv

import (
	"fmt"
	"syscall"
	"testing"
	"time"
)

const benchKeys = 100_000

func benchKey(i int) []byte { return fmt.Appendf(nil, "key%08d", i) }

// benchKinds are the engines benchmarked, Pebble with its production
// defaults (OpenPebble's zero options) rather than the small test sizes.
func benchKinds() []engineKind {
	ks := engineKinds()
	ks[1].open = func(t testing.TB, dir string) Engine {
		e, err := OpenPebble(dir, PebbleOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	return ks
}

// loadedEngine returns an engine of kind k holding benchKeys keys with
// 100-byte values, loaded in batches.
func loadedEngine(b *testing.B, k engineKind) Engine {
	b.Helper()
	e := openEngine(b, k)
	val := make([]byte, 100)
	for i := 0; i < benchKeys; i += 1000 {
		batch := e.NewBatch()
		for j := i; j < i+1000; j++ {
			must(b, batch.Set(benchKey(j), val))
		}
		must(b, batch.Commit(false))
		must(b, batch.Close())
	}
	return e
}

func BenchmarkGet(b *testing.B) {
	for _, k := range benchKinds() {
		b.Run(k.name, func(b *testing.B) {
			e := loadedEngine(b, k)
			keys := make([][]byte, 1024)
			for i := range keys {
				keys[i] = benchKey((i * 7919) % benchKeys)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if _, err := e.Get(keys[i%len(keys)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkBatchCommit1000(b *testing.B) {
	for _, k := range benchKinds() {
		for _, sync := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/sync=%v", k.name, sync), func(b *testing.B) {
				e := openEngine(b, k)
				keys := make([][]byte, 1000)
				for i := range keys {
					keys[i] = benchKey(i)
				}
				val := make([]byte, 100)
				b.ReportAllocs()
				for b.Loop() {
					batch := e.NewBatch()
					for _, key := range keys {
						_ = batch.Set(key, val)
					}
					if err := batch.Commit(sync); err != nil {
						b.Fatal(err)
					}
					_ = batch.Close()
				}
			})
		}
	}
}

func BenchmarkIterate1000(b *testing.B) {
	for _, k := range benchKinds() {
		e := loadedEngine(b, k)
		readers := []struct {
			name string
			r    func() (Reader, func())
		}{
			{"engine", func() (Reader, func()) { return e, func() {} }},
			{"txn", func() (Reader, func()) {
				x := NewTxn(e)
				for i := 0; i < 1000; i += 10 {
					_ = x.Set(benchKey(50_000+i), []byte("txn"))
				}
				return x, x.Rollback
			}},
		}
		for _, rd := range readers {
			b.Run(k.name+"/"+rd.name, func(b *testing.B) {
				r, done := rd.r()
				defer done()
				lo, hi := benchKey(50_000), benchKey(51_000)
				b.ReportAllocs()
				for b.Loop() {
					it, err := r.NewIter(IterOptions{LowerBound: lo, UpperBound: hi})
					if err != nil {
						b.Fatal(err)
					}
					n := 0
					for ok := it.First(); ok; ok = it.Next() {
						n++
					}
					if n != 1000 {
						b.Fatalf("iterated %d keys", n)
					}
					_ = it.Close()
				}
			})
		}
	}
}

func BenchmarkTxnGet(b *testing.B) {
	e := loadedEngine(b, benchKinds()[0])
	x := NewTxn(e)
	defer x.Rollback()
	for i := 0; i < benchKeys; i += 100 {
		_ = x.Set(benchKey(i), []byte("txn"))
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_, _ = x.Get(benchKey((i * 7919) % benchKeys))
	}
}

// keptSnapshot is a Snapshot whose Close does nothing (a shared one).
type keptSnapshot struct{ Snapshot }

func (keptSnapshot) Close() error { return nil }

// BenchmarkTxnPointRead is a read-only autocommit point query's life in
// the Txn: start on a shared snapshot, one Get, Rollback.
func BenchmarkTxnPointRead(b *testing.B) {
	e := loadedEngine(b, benchKinds()[0])
	snap := e.NewSnapshot()
	defer snap.Close()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		x := NewTxnOn(e, keptSnapshot{snap})
		_, _ = x.Get(benchKey((i * 7919) % benchKeys))
		x.Rollback()
	}
}

// BenchmarkTxnCommitBulk buffers benchKeys keys with 60-byte values in a
// Txn (a bulk load's chunk: SetIfNew in key order) and commits it to
// Pebble, by Batch (the Txn under IngestThreshold) and by Ingest; the
// figure is keys per second of buffering plus commit, with a WAL sync
// (Commit(true) for the batch; an ingest syncs itself); commit-keys/s
// counts the commit's time alone.
func BenchmarkTxnCommitBulk(b *testing.B) {
	val := make([]byte, 60)
	for _, mode := range []struct {
		name      string
		threshold int64
	}{{"batch", 1 << 62}, {"ingest", 1}} {
		b.Run(mode.name, func(b *testing.B) {
			old := IngestThreshold
			IngestThreshold = mode.threshold
			defer func() { IngestThreshold = old }()
			e := openEngine(b, benchKinds()[1])
			n := 0
			var commit time.Duration
			for b.Loop() {
				x := NewTxn(e)
				for range benchKeys {
					if _, err := x.SetIfNew(benchKey(n), val); err != nil {
						b.Fatal(err)
					}
					n++
				}
				t0 := time.Now()
				must(b, x.Commit(true))
				commit += time.Since(t0)
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "keys/s")
			b.ReportMetric(float64(n)/commit.Seconds(), "commit-keys/s")
		})
	}
}

// BenchmarkSnapshotGet is a point read of a random key among a million in
// sstables (flushed), through a snapshot: "pebble-get" is pebble's
// Snapshot.Get, which opens an iterator stack per call (what
// pebbleSnapshot.Get did); "snapshot" is pebbleSnapshot.Get, which seeks
// an iterator it keeps open.
func BenchmarkSnapshotGet(b *testing.B) {
	e, err := OpenPebble(b.TempDir(), PebbleOptions{})
	must(b, err)
	defer e.Close()
	const n = 1_000_000
	val := make([]byte, 100)
	for i := 0; i < n; i += 10_000 {
		batch := e.NewBatch()
		for j := i; j < i+10_000; j++ {
			must(b, batch.Set(benchKey(j), val))
		}
		must(b, batch.Commit(false))
		must(b, batch.Close())
	}
	must(b, e.(*pebbleEngine).db.Flush())
	snap := e.NewSnapshot().(*pebbleSnapshot)
	defer snap.Close()
	keys := make([][]byte, 4096)
	for i := range keys {
		keys[i] = benchKey((i * 7919) % n)
	}
	for _, c := range []struct {
		name string
		get  func([]byte) ([]byte, error)
	}{
		{"pebble-get", func(k []byte) ([]byte, error) { return pebbleGet(snap.s, k) }},
		{"snapshot", snap.Get},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			start := cpuTime()
			for i := 0; b.Loop(); i++ {
				if v, err := c.get(keys[i%len(keys)]); err != nil || len(v) != len(val) {
					b.Fatal(len(v), err)
				}
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpuTime is the CPU time (user and system) this process has used: on a
// shared machine it swings less with the load than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkTxnBufferBulk buffers a bulk load's writes in a Txn and walks
// them as commit does (WriteSets, then the ordered writes into a Batch
// of the memory engine): 100,000 rows in key order, each a master key
// by SetIfNew, and with "index" also a key+id index entry (Set) in a
// second key space in scattered order (the engine's own commit is left
// out: the writes go to a counting SortedWriter). "btree" is the same with the
// ascending tail off (every write a B-tree insert).
func BenchmarkTxnBufferBulk(b *testing.B) {
	const rows = 100_000
	val := make([]byte, 40)
	for _, index := range []bool{false, true} {
		for _, noTail := range []bool{false, true} {
			name := map[bool]string{false: "tail", true: "btree"}[noTail]
			if index {
				name += "/index"
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				var key, ikey []byte
				start := cpuTime()
				for b.Loop() {
					e := NewMemory()
					x := NewTxn(e)
					x.noTail = noTail
					for i := range rows {
						key = fmt.Appendf(key[:0], "m%08d", i)
						if _, err := x.SetIfNew(key, val); err != nil {
							b.Fatal(err)
						}
						if index {
							ikey = fmt.Appendf(ikey[:0], "x%04d%08d", (i*7919)%1000, i)
							must(b, x.Set(ikey, nil))
						}
					}
					x.WriteSets()
					var w countWriter
					must(b, x.ingestInto(&w))
					if want := map[bool]int{false: rows, true: 2 * rows}[index]; w.n != want {
						b.Fatalf("%d writes", w.n)
					}
					x.Rollback()
					must(b, e.Close())
				}
				b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// countWriter is a SortedWriter that counts.
type countWriter struct{ n int }

func (w *countWriter) Set(key, value []byte) error     { w.n++; return nil }
func (w *countWriter) Delete(key []byte) error         { w.n++; return nil }
func (w *countWriter) Merge(key, operand []byte) error { w.n++; return nil }
