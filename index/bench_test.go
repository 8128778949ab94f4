package index

import (
	"fmt"
	"testing"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/types"
)

// benchStore fills the test table with 10,101 rows: c=0 on 10,000 of
// them, c=1 on 100 and c=2 on one; d is unique.
func benchStore(b *testing.B, open func(testing.TB) kv.Engine) (kv.Engine, *catalog.Table) {
	e := open(b)
	_, tb := newTable(b, e)
	groups := []struct{ c, n int }{{0, 10000}, {1, 100}, {2, 1}}
	id := 0
	for _, g := range groups {
		for done := 0; done < g.n; {
			txn := kv.NewTxn(e)
			for i := 0; i < 1000 && done < g.n; i, done = i+1, done+1 {
				if err := Insert(txn, tb, row(int64(id), "k", g.c, fmt.Sprint("u", id))); err != nil {
					b.Fatal(err)
				}
				id++
			}
			if err := txn.Commit(false); err != nil {
				b.Fatal(err)
			}
		}
	}
	return e, tb
}

func BenchmarkLookups(b *testing.B) {
	for _, eng := range engines {
		b.Run(eng.name, func(b *testing.B) {
			e, tb := benchStore(b, eng.open)
			defer e.Close()
			pk := []types.Datum{types.NewInt(5000), types.NewText("k")}
			key := MasterKey(nil, tb, pk)
			out := make([]types.Datum, len(tb.Columns))
			b.Run("bare-engine-get", func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if _, err := e.Get(key); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("master-get", func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if ok, err := Get(e, tb, pk, out); !ok || err != nil {
						b.Fatal(ok, err)
					}
				}
			})
			b.Run("unique-get", func(b *testing.B) {
				b.ReportAllocs()
				d := []types.Datum{types.NewText("u5000")}
				for i := 0; i < b.N; i++ {
					if ok, err := GetUnique(e, tb, tb.Indexes[0], d, out); !ok || err != nil {
						b.Fatal(ok, err)
					}
				}
			})
			b.Run("unique-index-scan-then-get", func(b *testing.B) {
				b.ReportAllocs()
				d := []types.Datum{types.NewText("u5000")}
				for i := 0; i < b.N; i++ {
					it, err := ScanIndex(e, tb, tb.Indexes[0], Span{Lo: d, Hi: d}, false)
					if err != nil || !it.Next() {
						b.Fatal(err, it.Err())
					}
					r := it.Row()
					if ok, err := Get(e, tb, []types.Datum{r[0], r[1]}, out); !ok || err != nil {
						b.Fatal(ok, err)
					}
					it.Close()
				}
			})
			for _, idx := range tb.Indexes[1:] {
				for _, g := range []struct{ c, n int }{{2, 1}, {1, 100}, {0, 10000}} {
					b.Run(fmt.Sprintf("%s-eq-%d", idx.Form, g.n), func(b *testing.B) {
						b.ReportAllocs()
						v := []types.Datum{types.NewInt(int64(g.c))}
						for i := 0; i < b.N; i++ {
							it, err := ScanIndex(e, tb, idx, Span{Lo: v, Hi: v}, false)
							if err != nil {
								b.Fatal(err)
							}
							n := 0
							for it.Next() {
								n++
							}
							if it.Err() != nil || n != g.n {
								b.Fatal(n, it.Err())
							}
							it.Close()
						}
					})
				}
			}
		})
	}
}

// BenchmarkMasterReaderSorted is the cost of one master read in an
// ascending run, every 10th and every 100th row of 200,000 in a compacted
// Pebble store (the master reads of a 10% and a 1% index lookup): through
// a MasterReader (one iterator, SeekGE forward) and with a Get each.
// cpu-ns/op is the CPU time per row (the machine is shared).
func BenchmarkMasterReaderSorted(b *testing.B) {
	const n = 200_000
	e, err := kv.OpenPebble(b.TempDir(), kv.PebbleOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	_, tb := newTable(b, e)
	for i := 0; i < n; {
		txn := kv.NewTxn(e)
		for end := i + 5000; i < end; i++ {
			if err := Insert(txn, tb, row(int64(i), "k", i%10, fmt.Sprint("padding twenty bytes", i))); err != nil {
				b.Fatal(err)
			}
		}
		if err := txn.Commit(false); err != nil {
			b.Fatal(err)
		}
	}
	if err := e.Compact([]byte{0}, []byte{0xff}); err != nil {
		b.Fatal(err)
	}
	cols := NewCols(tb, []int{0, 3})
	out := make([]types.Datum, len(tb.Columns))
	// next-all: one step of the master file's iterator, the unit a
	// MasterReader's stepping costs.
	b.Run("next-all", func(b *testing.B) {
		m, _ := NewMasterReader(e, tb)
		m.it.First()
		for b.Loop() {
			if !m.it.Next() {
				m.it.First()
			}
		}
		m.Close()
	})
	for _, stride := range []int{1, 3, 10, 30, 100} {
		var pks [][]types.Datum
		var keys [][]byte
		for i := 0; i < n; i += stride {
			pk := []types.Datum{types.NewInt(int64(i)), types.NewText("k")}
			pks, keys = append(pks, pk), append(keys, MasterKey(nil, tb, pk))
		}
		for _, steps := range []int{0, masterSteps, 2 * masterSteps} {
			b.Run(fmt.Sprintf("every-%d/master-reader-steps-%d", stride, steps), func(b *testing.B) {
				defer SetMasterSteps(SetMasterSteps(steps))
				benchMasterReader(b, e, tb, keys, pks, out, cols)
			})
		}
		b.Run(fmt.Sprintf("every-%d/get-per-row", stride), func(b *testing.B) {
			j := 0
			start := cpuTime()
			for b.Loop() {
				if ok, err := GetCols(e, tb, pks[j%len(pks)], out, cols); !ok || err != nil {
					b.Fatal(ok, err)
				}
				j++
			}
			reportCPU(b, start)
		})
	}
}

// benchMasterReader reads keys in ascending order through a MasterReader,
// starting over with a new reader at the end.
func benchMasterReader(b *testing.B, e kv.Engine, tb *catalog.Table, keys [][]byte, pks [][]types.Datum, out []types.Datum, cols *Cols) {
	var m *MasterReader
	var err error
	j := len(keys)
	start := cpuTime()
	for b.Loop() {
		if j == len(keys) {
			if m != nil {
				m.Close()
			}
			if m, err = NewMasterReader(e, tb); err != nil {
				b.Fatal(err)
			}
			j = 0
		}
		if ok, err := m.GetKey(keys[j], pks[j], out, cols); !ok || err != nil {
			b.Fatal(ok, err)
		}
		j++
	}
	reportCPU(b, start)
	m.Close()
}

// BenchmarkMasterValue: a row's master value with the table's layout
// looked up per row (masterValue) and kept, as an Inserter keeps it.
func BenchmarkMasterValue(b *testing.B) {
	_, tb := newTable(b, kv.NewMemory())
	r := row(7, "k", 3, "u7")
	var buf []byte
	b.Run("lookup", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			buf = masterValue(buf[:0], tb, r)
		}
	})
	b.Run("kept", func(b *testing.B) {
		l := layoutOf(tb)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			buf = masterValueOf(buf[:0], l, r)
		}
	})
	if len(buf) == 0 {
		b.Fatal("empty master value")
	}
}
