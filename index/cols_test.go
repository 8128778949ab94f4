package index

import (
	"slices"
	"testing"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/types"
)

// TestCols checks that reads through a read set fill the primary-key
// columns and the selected value columns, leave the others NULL, agree
// with full reads on what they fill, and give a selected column added by
// ADD COLUMN its default on rows written before it.
func TestCols(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			e := eng.open(t)
			defer e.Close()
			c, tb := newTable(t, e)
			rows := [][]types.Datum{row(1, "x", 7, "one"), row(2, "y", 8, "two"), row(3, "z", nil, nil)}
			commit(t, e, func(txn *kv.Txn) error {
				for _, r := range rows {
					if err := Insert(txn, tb, r); err != nil {
						return err
					}
				}
				return nil
			})
			if NewCols(tb, nil) != nil {
				t.Errorf("NewCols(nil) is not nil (every column)")
			}
			for _, sel := range [][]int{nil, {}, {2}, {3}, {3, 2, 2, 0, 99, -1}} {
				cols := NewCols(tb, sel)
				mask := func(r []types.Datum) []types.Datum {
					out := slices.Clone(r)
					for o := range out {
						if sel != nil && !slices.Contains(sel, o) && !slices.Contains(tb.PrimaryKey, o) {
							out[o] = types.Null
						}
					}
					return out
				}
				it, err := ScanMasterCols(e, tb, Span{}, false, cols)
				if err != nil {
					t.Fatal(err)
				}
				var got [][]types.Datum
				for it.Next() {
					got = append(got, slices.Clone(it.Row()))
				}
				if err := it.Err(); err != nil {
					t.Fatal(err)
				}
				if err := it.Close(); err != nil {
					t.Fatal(err)
				}
				if len(got) != len(rows) {
					t.Fatalf("cols %v: %d rows, want %d", sel, len(got), len(rows))
				}
				for i, r := range rows {
					if want := mask(r); !slices.EqualFunc(got[i], want, sameDatum) {
						t.Errorf("ScanMasterCols %v row %d = %v, want %v", sel, i, got[i], want)
					}
					out := make([]types.Datum, len(tb.Columns))
					if ok, err := GetCols(e, tb, r[:2], out, cols); err != nil || !ok || !slices.EqualFunc(out, mask(r), sameDatum) {
						t.Errorf("GetCols %v %v = %v, %v, %v; want %v", sel, r[:2], ok, err, out, mask(r))
					}
					if r[3].IsNull() {
						continue
					}
					clear(out)
					if ok, err := GetUniqueCols(e, tb, tb.Indexes[0], r[3:], out, cols); err != nil || !ok || !slices.EqualFunc(out, mask(r), sameDatum) {
						t.Errorf("GetUniqueCols %v %v = %v, %v, %v; want %v", sel, r[3], ok, err, out, mask(r))
					}
				}
			}

			commit(t, e, func(txn *kv.Txn) error {
				var err error
				c, err = c.AddColumn(txn, catalog.DefaultDatabase, "t", catalog.Column{Name: "e", Type: types.T{Family: types.Int8}, Default: "7", DefaultValue: types.NewInt(7)})
				return err
			})
			nt, _ := c.Table(catalog.DefaultDatabase, "t")
			out := make([]types.Datum, len(nt.Columns))
			found, err := GetCols(e, nt, rows[0][:2], out, NewCols(nt, []int{4}))
			want := []types.Datum{rows[0][0], rows[0][1], types.Null, types.Null, types.NewInt(7)}
			if err != nil || !found || !slices.EqualFunc(out, want, sameDatum) {
				t.Errorf("GetCols of an added column = %v, %v, %v; want %v", found, err, out, want)
			}
		})
	}
}
