package kv

import (
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/types"
)

// The scan floor: what one row of a full master scan costs at each layer
// between Pebble and the executor, over a compacted store shaped like the
// bench's lookup table (bench/indexwl.go: id INT PRIMARY KEY, nine INT
// columns, pad TEXT of 20 bytes; 1,000,000 rows, keys and values encoded
// as kvsql writes them). Compare with
//
//	go test ./kv -run '^$' -bench 'ScanFloor' -count 5 -cpu 1
//
// and exec's BenchmarkVecScanLookup for the batch scan on top.
const scanBenchRows = 1_000_000

// scanBenchTable is the table ID of the scan benchmarks' rows.
const scanBenchTable = 70

var scanBench struct {
	once sync.Once
	e    *pebbleEngine
	err  error
}

// scanBenchRow appends row i's master key and value to key and val.
func scanBenchRow(key, val []byte, i int64) ([]byte, []byte) {
	key = encoding.EncodeUvarintAsc(key, scanBenchTable)
	key = encoding.EncodeKeyDatum(key, types.NewInt(i), encoding.Ascending)
	var ids [10]uint32
	var vals [10]types.Datum
	for j, groups := range [9]int64{10_000, 10_000, 10_000, 100, 100, 100, 10, 10, 10} {
		ids[j], vals[j] = uint32(j+2), types.NewInt(i%groups)
	}
	ids[9], vals[9] = 11, types.NewText("padding twenty bytes")
	return key, encoding.EncodeRow(val, ids[:], vals[:])
}

// scanBenchBounds are the table's key range.
func scanBenchBounds() (lo, hi []byte) {
	lo = encoding.EncodeUvarintAsc(nil, scanBenchTable)
	return lo, encoding.PrefixEnd(lo)
}

// scanBenchEngine returns a Pebble engine (OpenPebble's production
// options, files in memory) holding the table, compacted as the bench's
// VACUUM ANALYZE leaves it.
func scanBenchEngine(b *testing.B) *pebbleEngine {
	scanBench.once.Do(func() {
		e, err := OpenPebble("scan", PebbleOptions{FS: vfs.NewMem()})
		if err != nil {
			scanBench.err = err
			return
		}
		var key, val []byte
		for i := int64(0); i < scanBenchRows; i += 10_000 {
			batch := e.NewBatch()
			for j := i; j < i+10_000; j++ {
				key, val = scanBenchRow(key[:0], val[:0], j)
				if err := batch.Set(key, val); err != nil {
					scanBench.err = err
					return
				}
			}
			if err := batch.Commit(false); err != nil {
				scanBench.err = err
				return
			}
			_ = batch.Close()
		}
		if scanBench.err = e.Compact([]byte{0}, []byte{0xff}); scanBench.err != nil {
			return
		}
		scanBench.e = e.(*pebbleEngine)
	})
	if scanBench.err != nil {
		b.Fatal(scanBench.err)
	}
	return scanBench.e
}

// reportRows reports the time per row of a benchmark that read
// scanBenchRows rows per iteration, in wall time and in the process's CPU
// time since cpu0 (steadier on a shared machine).
// endScan closes a benchmark's scan of the whole table, failing on an
// error or when n rows of size bytes are not all of it.
func endScan(b *testing.B, it Iterator, n, size int) {
	if err := it.Error(); err != nil {
		b.Fatal(err)
	}
	if err := it.Close(); err != nil {
		b.Fatal(err)
	}
	if n != scanBenchRows || size == 0 {
		b.Fatalf("%d rows", n)
	}
}

func reportRows(b *testing.B, cpu0 time.Duration) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/scanBenchRows, "ns/row")
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/scanBenchRows, "cpu-ns/row")
}

// BenchmarkScanFloor times one full pass over the table, touching every
// key and value: (raw) Pebble's own iterator on the DB, (raw-snapshot) on
// a snapshot; (engine) kvsql's Iterator on the engine, (snapshot) on a
// snapshot, (txn) through a read-only Txn on a snapshot, which is what
// a statement's scan reads.
func BenchmarkScanFloor(b *testing.B) {
	e := scanBenchEngine(b)
	lo, hi := scanBenchBounds()
	b.Logf("LSM after the load and compaction:\n%s", e.db.Metrics().String())
	raw := func(b *testing.B, r pebble.Reader) {
		cpu0 := cpuTime()
		for b.Loop() {
			it, err := r.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
			if err != nil {
				b.Fatal(err)
			}
			n, size := 0, 0
			for ok := it.First(); ok; ok = it.Next() {
				size += len(it.Key()) + len(it.Value())
				n++
			}
			if err := it.Close(); err != nil {
				b.Fatal(err)
			}
			if n != scanBenchRows || size == 0 {
				b.Fatalf("%d rows", n)
			}
		}
		reportRows(b, cpu0)
	}
	wrapped := func(b *testing.B, r Reader) {
		cpu0 := cpuTime()
		for b.Loop() {
			it, err := r.NewIter(IterOptions{LowerBound: lo, UpperBound: hi})
			if err != nil {
				b.Fatal(err)
			}
			n, size := 0, 0
			for ok := it.First(); ok; ok = it.Next() {
				size += len(it.Key()) + len(it.Value())
				n++
			}
			endScan(b, it, n, size)
		}
		reportRows(b, cpu0)
	}
	// visited is wrapped stepping with Visit, a batch at a time, as the
	// batch scan does.
	visited := func(b *testing.B, r Reader) {
		cpu0 := cpuTime()
		for b.Loop() {
			it, err := r.NewIter(IterOptions{LowerBound: lo, UpperBound: hi})
			if err != nil {
				b.Fatal(err)
			}
			n, size := 0, 0
			add := func(key, value []byte) error {
				size += len(key) + len(value)
				return nil
			}
			it.First()
			for {
				k, err := it.Visit(1024, add)
				if err != nil {
					b.Fatal(err)
				}
				n += k
				if k < 1024 {
					break
				}
			}
			endScan(b, it, n, size)
		}
		reportRows(b, cpu0)
	}
	b.Run("raw", func(b *testing.B) { raw(b, e.db) })
	b.Run("raw-snapshot", func(b *testing.B) {
		s := e.db.NewSnapshot()
		defer s.Close()
		raw(b, s)
	})
	b.Run("engine", func(b *testing.B) { wrapped(b, e) })
	b.Run("snapshot", func(b *testing.B) {
		s := e.NewSnapshot()
		defer s.Close()
		wrapped(b, s)
	})
	b.Run("txn", func(b *testing.B) {
		x := NewTxn(e)
		defer x.Rollback()
		wrapped(b, x)
	})
	// An autocommit query reads the snapshot through the session's
	// iterators, which embed kv.Iterator (session/snapread.go).
	b.Run("snapshot-embedded", func(b *testing.B) {
		s := e.NewSnapshot()
		defer s.Close()
		wrapped(b, embeddingReader{s})
	})
	b.Run("snapshot-embedded-visit", func(b *testing.B) {
		s := e.NewSnapshot()
		defer s.Close()
		visited(b, embeddingReader{s})
	})
	b.Run("txn-visit", func(b *testing.B) {
		x := NewTxn(e)
		defer x.Rollback()
		visited(b, x)
	})
}

// embeddingReader hands out r's iterators wrapped in a type that embeds
// Iterator, as the session's snapshot reader does.
type embeddingReader struct{ r Reader }

func (w embeddingReader) Get(key []byte) ([]byte, error) { return w.r.Get(key) }

func (w embeddingReader) NewIter(opts IterOptions) (Iterator, error) {
	it, err := w.r.NewIter(opts)
	if err != nil {
		return nil, err
	}
	return embeddingIter{it}, nil
}

type embeddingIter struct{ Iterator }

// BenchmarkScanTableGet reads single rows of the scan benchmarks' table
// by key, in a scattered order: what a change of block size or format
// for the scans costs point reads.
func BenchmarkScanTableGet(b *testing.B) {
	e := scanBenchEngine(b)
	keys := make([][]byte, 4096)
	for i := range keys {
		keys[i], _ = scanBenchRow(nil, nil, int64(i)*7919%scanBenchRows)
	}
	for i := 0; b.Loop(); i++ {
		if _, err := e.Get(keys[i%len(keys)]); err != nil {
			b.Fatal(err)
		}
	}
}
