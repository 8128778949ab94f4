package exec

import (
	"strings"
	"sync"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// lookupBenchRows is the size of the bench's lookup table
// (bench/indexwl.go), whose "index lookup X full scan" workloads
// BenchmarkVecScanLookup runs; kv's BenchmarkScanFloor times the raw
// iteration under it over the same rows.
const lookupBenchRows = 1_000_000

var lookupBench struct {
	once sync.Once
	e    kv.Engine
	t    *catalog.Table
	err  error
}

// lookupBenchTable returns lookup(id INT PRIMARY KEY, s0001_k, s0001_i,
// s0001_n, s1_k, s1_i, s1_n, s10_k, s10_i, s10_n INT, pad TEXT) with the
// bench's rows, written straight to the master file and compacted as the
// bench's VACUUM ANALYZE leaves them.
func lookupBenchTable(b *testing.B) (kv.Engine, *catalog.Table) {
	lookupBench.once.Do(func() {
		e, err := kv.OpenPebble("lookup", kv.PebbleOptions{FS: vfs.NewMem()})
		if err != nil {
			lookupBench.err = err
			return
		}
		t := &catalog.Table{ID: 63, Name: "lookup", PrimaryKey: []int{0}, PrimaryKeyDesc: []bool{false}, NextColumnID: 12}
		t.Columns = append(t.Columns, catalog.Column{ID: 1, Name: "id", Type: intT})
		for i, name := range []string{"s0001_k", "s0001_i", "s0001_n", "s1_k", "s1_i", "s1_n", "s10_k", "s10_i", "s10_n"} {
			t.Columns = append(t.Columns, catalog.Column{ID: uint32(i + 2), Name: name, Type: intT})
		}
		t.Columns = append(t.Columns, catalog.Column{ID: 11, Name: "pad", Type: textT})
		ords, ids := index.ValueLayout(t)
		row := make([]types.Datum, len(t.Columns))
		vals := make([]types.Datum, len(ords))
		var key, val []byte
		for i := 0; i < lookupBenchRows; i += 10_000 {
			batch := e.NewBatch()
			for r := i; r < i+10_000; r++ {
				lookupBenchRow(row, r)
				for j, o := range ords {
					vals[j] = row[o]
				}
				key = index.MasterKeyOfRow(key[:0], t, row)
				val = encoding.EncodeRow(val[:0], ids, vals)
				if err := batch.Set(key, val); err != nil {
					lookupBench.err = err
					return
				}
			}
			if lookupBench.err = batch.Commit(false); lookupBench.err != nil {
				return
			}
			_ = batch.Close()
		}
		if lookupBench.err = e.Compact([]byte{0}, []byte{0xff}); lookupBench.err != nil {
			return
		}
		lookupBench.e, lookupBench.t = e, t
	})
	if lookupBench.err != nil {
		b.Fatal(lookupBench.err)
	}
	return lookupBench.e, lookupBench.t
}

// wrappedReader reads r through iterators that wrap r's own by embedding
// kv.Iterator, as the session's reader of an autocommit query's snapshot
// does (session/snapread.go): the path a bench query's scan takes.
type wrappedReader struct{ r kv.Reader }

func (w wrappedReader) Get(key []byte) ([]byte, error) { return w.r.Get(key) }

func (w wrappedReader) NewIter(opts kv.IterOptions) (kv.Iterator, error) {
	it, err := w.r.NewIter(opts)
	if err != nil {
		return nil, err
	}
	return wrappedIter{it}, nil
}

type wrappedIter struct{ kv.Iterator }

// lookupBenchRow sets row to the bench's row r.
func lookupBenchRow(row []types.Datum, r int) {
	row[0] = types.NewInt(int64(r))
	for j, groups := range []int{10_000, 10_000, 10_000, 100, 100, 100, 10, 10, 10} {
		row[j+1] = types.NewInt(int64(r % groups))
	}
	row[10] = types.NewText("padding twenty bytes")
}

// BenchmarkVecScanLookup: SELECT id, pad FROM lookup WHERE s1_n = 7
// (10,000 rows of 1,000,000), the bench's "index lookup 1% full scan",
// as a serial batch scan ("batches") and as the planner runs it, a
// parallel one keeping key order ("parallel"); and the parallel one
// returning 0.01% and 10% of the rows (s0001_n, s10_n), the bench's
// other two full scans, whose difference is what returned rows cost;
// "lend" reads the 10% as the wire server does (LendRows).
// cpu-ns/row is the process's CPU time per table row.
func BenchmarkVecScanLookup(b *testing.B) {
	e, t := lookupBenchTable(b)
	for _, c := range []struct {
		name   string
		mode   string
		col    int
		groups int
	}{
		{"batches", "batches", 6, 100},
		{"parallel", "parallel", 6, 100},
		{"parallel/0.01pct", "parallel", 3, 10_000},
		{"parallel/10pct", "parallel", 9, 10},
		{"parallel/10pct/lend", "parallel", 9, 10},
		{"batches/snapshot", "batches", 6, 100},
		{"parallel/snapshot", "parallel", 6, 100},
		{"parallel/0.01pct/snapshot", "parallel", 3, 10_000},
	} {
		b.Run(c.name, func(b *testing.B) {
			sc := &planner.Scan{Table: t, Access: planner.FullScan, Needed: []int{0, c.col, 10}, Cols: tableCols(t),
				Filter: bin("=", col(c.col), cint(7)), Vectorized: true, Parallel: c.mode == "parallel"}
			n := &planner.Project{Input: sc, Exprs: []planner.Expr{col(0), tcol(10)}, Cols: cols(2), Vectorized: true}
			start := cpuTime(b)
			for b.Loop() {
				ctx := testCtx(b, 0)
				ctx.RW, ctx.ReadOnly = kv.NewTxn(e), true
				var snap kv.Snapshot
				if strings.HasSuffix(c.name, "/snapshot") {
					snap = e.NewSnapshot()
					ctx.Read = wrappedReader{snap}
				}
				op, err := Build(ctx, n)
				if err != nil {
					b.Fatal(err)
				}
				if strings.HasSuffix(c.name, "/lend") {
					op = LendRows(op)
				}
				if got := drain(b, op); got != int64(lookupBenchRows/c.groups) {
					b.Fatalf("%d rows, want %d", got, lookupBenchRows/c.groups)
				}
				if snap != nil {
					_ = snap.Close()
				}
			}
			b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N)/lookupBenchRows, "cpu-ns/row")
		})
	}
}
