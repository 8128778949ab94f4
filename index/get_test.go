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
