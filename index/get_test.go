package index

import (
	"slices"
	"testing"

	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// TestGetUnique checks GetUnique and GetUniqueEntry against the table's
// unique index t_d_key on d: hits, misses, NULL values, the wrong index
// form and an entry pointing at a missing row.
func TestGetUnique(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			e := eng.open(t)
			defer e.Close()
			_, tb := newTable(t, e)
			uniq := tb.Indexes[0]
			txn := kv.NewTxn(e)
			rows := [][]types.Datum{row(1, "x", 7, "one"), row(2, "y", 7, "two"), row(3, "z", nil, nil)}
			for _, r := range rows {
				if err := Insert(txn, tb, r); err != nil {
					t.Fatal(err)
				}
			}
			out := make([]types.Datum, len(tb.Columns))
			for _, r := range rows[:2] {
				ok, err := GetUnique(txn, tb, uniq, []types.Datum{r[3]}, out)
				if err != nil || !ok {
					t.Fatalf("GetUnique(%v) = %v, %v", r[3], ok, err)
				}
				if !slices.EqualFunc(out, r, sameDatum) {
					t.Errorf("GetUnique(%v) = %v, want %v", r[3], out, r)
				}
				ok, err = GetUniqueEntry(txn, tb, uniq, []types.Datum{r[3]}, out)
				want := []types.Datum{r[0], r[1], types.Null, r[3]}
				if err != nil || !ok || !slices.EqualFunc(out, want, sameDatum) {
					t.Errorf("GetUniqueEntry(%v) = %v, %v, %v; want %v", r[3], ok, err, out, want)
				}
			}
			if ok, err := GetUnique(txn, tb, uniq, []types.Datum{types.NewText("three")}, out); ok || err != nil {
				t.Errorf("GetUnique(absent) = %v, %v", ok, err)
			}
			if _, err := GetUnique(txn, tb, uniq, []types.Datum{types.Null}, out); !pgerror.HasCode(err, pgerror.Internal) {
				t.Errorf("GetUnique(NULL) error = %v, want internal", err)
			}
			if _, err := GetUnique(txn, tb, tb.Indexes[1], []types.Datum{types.NewInt(7)}, out); !pgerror.HasCode(err, pgerror.Internal) {
				t.Errorf("GetUnique(key+id index) error = %v, want internal", err)
			}
			if err := txn.Delete(MasterKey(nil, tb, []types.Datum{types.NewInt(2), types.NewText("y")})); err != nil {
				t.Fatal(err)
			}
			if _, err := GetUnique(txn, tb, uniq, []types.Datum{types.NewText("two")}, out); !pgerror.HasCode(err, pgerror.DataCorrupted) {
				t.Errorf("GetUnique(dangling entry) error = %v, want data corrupted", err)
			}
		})
	}
}

func sameDatum(a, b types.Datum) bool { return a.Kind == b.Kind && a.String() == b.String() }

// TestGetColsSharesValue: a master get that reads every value column
// takes its text values from the value Get returned (no allocation per
// column, encoding.DecodeRowColsShared); one that reads a few copies
// them, so that a kept value does not hold the whole row. Both read the
// same row.
func TestGetColsSharesValue(t *testing.T) {
	e := kv.NewMemory()
	defer e.Close()
	_, tb := newTable(t, e)
	txn := kv.NewTxn(e)
	r := row(1, "x", 7, "a text value of the row")
	if err := Insert(txn, tb, r); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(true); err != nil {
		t.Fatal(err)
	}
	snap := e.NewSnapshot()
	defer snap.Close()
	var err error
	pk := []types.Datum{r[0], r[1]}
	some := NewCols(tb, []int{0, 1, 3}) // d only of the value columns c, d
	out := make([]types.Datum, len(tb.Columns))
	var key []byte
	get := func(cols *Cols) {
		out[3] = types.Null
		var found bool
		if key, found, err = GetColsKey(snap, tb, pk, out, cols, key); err != nil || !found || !sameDatum(out[3], r[3]) {
			t.Fatalf("GetColsKey = %v, %v, d = %v", found, err, out[3])
		}
	}
	all := testing.AllocsPerRun(50, func() { get(nil) })
	few := testing.AllocsPerRun(50, func() { get(some) })
	if few != all+1 {
		t.Errorf("allocations per get: %v reading every column, %v reading d: want one more (d's copy)", all, few)
	}
	get(nil)
	if !slices.EqualFunc(out, r, sameDatum) {
		t.Errorf("GetColsKey = %v, want %v", out, r)
	}
}
