package index

import (
	"bytes"
	"fmt"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/types"
)

// TestMasterReaderStepsAgree reads runs of master keys in ascending order
// through a MasterReader that steps to near keys (the default) and
// compares every answer — found or not, and the row — with a plain Get
// of the same key. The keys are drawn at densities from every row to
// every 200th, present and absent, with now and then one below the
// previous (a seek back), over a two-column primary key with a
// descending column; the store has rows deleted and rewritten across
// several flushes (tombstones at several LSM levels on Pebble), and it
// is read directly, through a transaction without writes and through
// one with its own uncommitted inserts, updates and deletes.
func TestMasterReaderStepsAgree(t *testing.T) {
	s := *seed
	if s == 0 {
		s = time.Now().UnixNano()
	}
	t.Logf("seed %d (rerun with -seed %d)", s, s)
	if masterSteps == 0 {
		t.Fatal("masterSteps is 0: the test would compare seeks with gets only")
	}
	const rows = 3000
	bs := []string{"x", "y", "z"}
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			rng := rand.New(rand.NewSource(s))
			e := eng.open(t)
			defer e.Close()
			_, tb := newTable(t, e)
			live := map[string]bool{}
			rowOf := func(a int64, b string) []types.Datum {
				return row(a, b, int(a%7), fmt.Sprintf("%s-%d-%d", b, a, rng.Int63()))
			}
			// Rounds of inserts, deletes and rewrites, each flushed to
			// its own sstable, the first ones compacted further down.
			for round := range 4 {
				txn := kv.NewTxn(e)
				for range rows {
					a, b := rng.Int63n(rows), bs[rng.Intn(len(bs))]
					k := fmt.Sprint(a, b)
					switch {
					case !live[k]:
						if err := Insert(txn, tb, rowOf(a, b)); err != nil {
							t.Fatal(err)
						}
						live[k] = true
					case rng.Intn(2) == 0:
						old, ok := getRow(t, txn, tb, a, b)
						if !ok {
							t.Fatalf("row %s missing", k)
						}
						if err := Delete(txn, tb, old); err != nil {
							t.Fatal(err)
						}
						delete(live, k)
					default:
						old, ok := getRow(t, txn, tb, a, b)
						if !ok {
							t.Fatalf("row %s missing", k)
						}
						if err := Update(txn, tb, old, rowOf(a, b)); err != nil {
							t.Fatal(err)
						}
					}
				}
				if err := txn.Commit(false); err != nil {
					t.Fatal(err)
				}
				if err := e.Flush(); err != nil {
					t.Fatal(err)
				}
				if round == 1 {
					if err := e.Compact([]byte{0}, []byte{0xff}); err != nil {
						t.Fatal(err)
					}
				}
			}
			// A transaction with its own writes, left uncommitted.
			own := kv.NewTxn(e)
			for range 300 {
				a, b := rng.Int63n(rows+50), bs[rng.Intn(len(bs))]
				old, ok := getRow(t, own, tb, a, b)
				var err error
				switch {
				case !ok:
					err = Insert(own, tb, rowOf(a, b))
				case rng.Intn(2) == 0:
					err = Delete(own, tb, old)
				default:
					err = Update(own, tb, old, rowOf(a, b))
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			defer own.Rollback()
			plain := kv.NewTxn(e)
			defer plain.Rollback()
			readers := []struct {
				name string
				r    kv.Reader
			}{{"engine", e}, {"txn", plain}, {"txn-own-writes", own}}
			reads, found := 0, 0
			for _, rd := range readers {
				for trial := range 60 {
					gap := []int{1, 1, 2, 3, 5, 8, 10, 20, 50, 200}[rng.Intn(10)]
					var pks [][]types.Datum
					var keys [][]byte
					for a := rng.Int63n(rows / 2); a < rows+50 && len(pks) < 400; a += 1 + rng.Int63n(int64(gap)) {
						for _, b := range bs {
							if rng.Intn(3) == 0 {
								continue
							}
							pk := []types.Datum{types.NewInt(a), types.NewText(b)}
							pks, keys = append(pks, pk), append(keys, MasterKey(nil, tb, pk))
						}
					}
					order := make([]int, len(keys))
					for i := range order {
						order[i] = i
					}
					slices.SortFunc(order, func(x, y int) int { return bytes.Compare(keys[x], keys[y]) })
					// Now and then a key out of order: the reader seeks back.
					for i := 1; i < len(order); i++ {
						if rng.Intn(25) == 0 {
							order[i], order[i-1] = order[i-1], order[i]
						}
					}
					m, err := NewMasterReader(rd.r, tb)
					if err != nil {
						t.Fatal(err)
					}
					got := make([]types.Datum, len(tb.Columns))
					want := make([]types.Datum, len(tb.Columns))
					for _, i := range order {
						clear(got)
						clear(want)
						gok, err := m.GetKey(keys[i], pks[i], got, nil)
						if err != nil {
							t.Fatal(err)
						}
						wok, err := GetCols(rd.r, tb, pks[i], want, nil)
						if err != nil {
							t.Fatal(err)
						}
						if gok != wok || (wok && fmt.Sprint(got) != fmt.Sprint(want)) {
							t.Fatalf("%s trial %d (gap %d), key %v: stepping reader found %v %v, Get found %v %v", rd.name, trial, gap, pks[i], gok, got, wok, want)
						}
						reads++
						if wok {
							found++
						}
					}
					if err := m.Close(); err != nil {
						t.Fatal(err)
					}
				}
			}
			if found == 0 || found == reads {
				t.Fatalf("%d of %d reads found a row: the keys do not mix present and absent rows", found, reads)
			}
		})
	}
}

// getRow reads the row (a, b) of tb from r.
func getRow(t *testing.T, r kv.Reader, tb *catalog.Table, a int64, b string) ([]types.Datum, bool) {
	t.Helper()
	out := make([]types.Datum, len(tb.Columns))
	ok, err := Get(r, tb, []types.Datum{types.NewInt(a), types.NewText(b)}, out)
	if err != nil {
		t.Fatal(err)
	}
	return out, ok
}
