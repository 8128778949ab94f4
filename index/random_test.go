package index

import (
	"flag"
	"fmt"
	"math/rand"
	"sort"
	"testing"
	"time"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

var seed = flag.Int64("seed", 0, "seed for randomized tests (0: time-based)")

type pkey struct {
	a int64
	b string
}

// TestRandomOps applies random inserts, updates (UpdateBuf, reusing one
// buffer) and deletes to the test table (every index form), mirrors them
// in a map, and then checks that Check finds nothing and every read path
// agrees with the model.
func TestRandomOps(t *testing.T) {
	s := *seed
	if s == 0 {
		s = time.Now().UnixNano()
	}
	t.Logf("seed %d (rerun with -seed %d)", s, s)
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			rng := rand.New(rand.NewSource(s))
			e := eng.open(t)
			defer e.Close()
			c, tb := newTable(t, e)
			model := map[pkey][]types.Datum{}
			randRow := func() []types.Datum {
				r := row(int64(rng.Intn(30)), string(rune('a'+rng.Intn(3))), rng.Intn(6), fmt.Sprint("u", rng.Intn(60)))
				if rng.Intn(5) == 0 {
					r[2] = types.Null
				}
				if rng.Intn(4) == 0 {
					r[3] = types.Null
				}
				return r
			}
			uniqueTaken := func(d types.Datum, except pkey) bool {
				if d.IsNull() {
					return false
				}
				for k, r := range model {
					if k != except && r[3] == d {
						return true
					}
				}
				return false
			}
			const ops = 1500
			var buf []byte // UpdateBuf's, kept across the updates
			for i := 0; i < ops; i++ {
				txn := kv.NewTxn(e)
				nr := randRow()
				nk := pkey{nr[0].I, nr[1].S}
				var err error
				var wantErr bool
				var keys []pkey
				for k := range model {
					keys = append(keys, k)
				}
				sort.Slice(keys, func(i, j int) bool { return keys[i].a < keys[j].a || keys[i].a == keys[j].a && keys[i].b < keys[j].b })
				switch op := rng.Intn(3); {
				case op == 0 || len(keys) == 0:
					_, dup := model[nk]
					wantErr = dup || uniqueTaken(nr[3], pkey{-1, ""})
					if err = Insert(txn, tb, nr); err == nil {
						model[nk] = nr
					}
				case op == 1:
					k := keys[rng.Intn(len(keys))]
					old := model[k]
					if rng.Intn(2) == 0 { // keep the primary key
						nr[0], nr[1], nk = old[0], old[1], k
					}
					_, dup := model[nk]
					wantErr = (nk != k && dup) || uniqueTaken(nr[3], k)
					if buf, err = UpdateBuf(txn, tb, old, nr, buf); err == nil {
						delete(model, k)
						model[nk] = nr
					}
				default:
					k := keys[rng.Intn(len(keys))]
					err = Delete(txn, tb, model[k])
					delete(model, k)
				}
				if wantErr != (err != nil) || err != nil && !pgerror.HasCode(err, pgerror.UniqueViolation) {
					t.Fatalf("op %d: err %v, want error %v", i, err, wantErr)
				}
				if err != nil {
					txn.Rollback()
				} else if err := txn.Commit(false); err != nil {
					t.Fatal(err)
				}
			}
			mustCheck(t, e, c)
			verifyModel(t, e, tb, model)
			// Compaction keeps the same lists.
			txn := kv.NewTxn(e)
			if err := Compact(txn, tb.Indexes[2]); err != nil {
				t.Fatal(err)
			}
			if err := txn.Commit(false); err != nil {
				t.Fatal(err)
			}
			mustCheck(t, e, c)
			verifyModel(t, e, tb, model)
		})
	}
}

// verifyModel compares Get, ScanMaster and every ScanIndex form with the
// model.
func verifyModel(t *testing.T, r kv.Reader, tb *catalog.Table, model map[pkey][]types.Datum) {
	t.Helper()
	out := make([]types.Datum, len(tb.Columns))
	for k, want := range model {
		found, err := Get(r, tb, []types.Datum{types.NewInt(k.a), types.NewText(k.b)}, out)
		if err != nil || !found || fmt.Sprint(out) != fmt.Sprint(want) {
			t.Fatalf("Get %v: %v %v %v, want %v", k, found, err, out, want)
		}
	}
	if found, _ := Get(r, tb, []types.Datum{types.NewInt(-1), types.NewText("a")}, out); found {
		t.Fatal("Get of an absent key found a row")
	}
	// Full master scan, both directions: count and order (a asc, b desc).
	for _, rev := range []bool{false, true} {
		rows := collect(t, mustIter(ScanMaster(r, tb, Span{}, rev)))
		if len(rows) != len(model) {
			t.Fatalf("ScanMaster reverse=%v: %d rows, want %d", rev, len(rows), len(model))
		}
		for i := 1; i < len(rows); i++ {
			p, q := rows[i-1], rows[i]
			if rev {
				p, q = q, p
			}
			if p[0].I > q[0].I || p[0].I == q[0].I && p[1].S <= q[1].S {
				t.Fatalf("ScanMaster reverse=%v out of order: %v then %v", rev, rows[i-1], rows[i])
			}
		}
	}
	// Equality lookups on c through both non-unique forms agree with the
	// model, and with each other row for row.
	for cv := 0; cv < 6; cv++ {
		var want []string
		for k, r := range model {
			if !r[2].IsNull() && r[2].I == int64(cv) {
				want = append(want, fmt.Sprint(k.a, k.b))
			}
		}
		sort.Strings(want)
		sp := Span{Lo: []types.Datum{types.NewInt(int64(cv))}, Hi: []types.Datum{types.NewInt(int64(cv))}}
		var forms []string
		for _, idx := range tb.Indexes[1:] {
			rows := collect(t, mustIter(ScanIndex(r, tb, idx, sp, false)))
			var got []string
			for _, row := range rows {
				got = append(got, fmt.Sprint(row[0].I, row[1].S))
			}
			forms = append(forms, fmt.Sprint(got))
			sort.Strings(got)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s c=%d: got %v, want %v", idx.Name, cv, got, want)
			}
		}
		if forms[0] != forms[1] {
			t.Fatalf("c=%d: key+id order %s, inverted order %s", cv, forms[0], forms[1])
		}
	}
	// Ranges over several values of c, both directions, and the whole
	// index: the inverted form (each value's chunks folded and merged)
	// yields the key+id form's rows in the same order.
	for lo := 0; lo < 6; lo++ {
		for _, hi := range []int{lo + 1, 5, -1} {
			sp := Span{Lo: []types.Datum{types.NewInt(int64(lo))}, Hi: []types.Datum{types.NewInt(int64(hi))}}
			if hi < 0 {
				sp = Span{}
			}
			for _, rev := range []bool{false, true} {
				var forms [2]string
				for i, idx := range tb.Indexes[1:] {
					forms[i] = fmt.Sprint(collect(t, mustIter(ScanIndex(r, tb, idx, sp, rev))))
				}
				if forms[0] != forms[1] {
					t.Fatalf("c in [%d, %d] reverse=%v: key+id %s, inverted %s", lo, hi, rev, forms[0], forms[1])
				}
			}
		}
	}
	// Unique lookups: exactly the one row, with index-only columns.
	for k, mr := range model {
		if mr[3].IsNull() {
			continue
		}
		sp := Span{Lo: []types.Datum{mr[3]}, Hi: []types.Datum{mr[3]}}
		rows := collect(t, mustIter(ScanIndex(r, tb, tb.Indexes[0], sp, false)))
		if len(rows) != 1 || rows[0][0].I != k.a || rows[0][1].S != k.b || rows[0][3] != mr[3] || !rows[0][2].IsNull() {
			t.Fatalf("unique lookup %v: %v", mr[3], rows)
		}
	}
}

func mustIter(it RowIter, err error) RowIter {
	if err != nil {
		panic(err) // test helper: the iterator constructors fail only on engine errors
	}
	return it
}

// collect copies every row of it and closes it.
func collect(t testing.TB, it RowIter) [][]types.Datum {
	t.Helper()
	var rows [][]types.Datum
	for it.Next() {
		rows = append(rows, append([]types.Datum(nil), it.Row()...))
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	return rows
}
