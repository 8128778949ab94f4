package index

import (
	"strings"
	"testing"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/types"
)

func commit(t *testing.T, e kv.Engine, f func(txn *kv.Txn) error) {
	t.Helper()
	txn := kv.NewTxn(e)
	if err := f(txn); err != nil {
		txn.Rollback()
		t.Fatal(err)
	}
	if err := txn.Commit(false); err != nil {
		t.Fatal(err)
	}
}

// TestCheckFindsCorruption plants one corruption per index form and checks
// that Check reports each, naming table, index and key.
func TestCheckFindsCorruption(t *testing.T) {
	e := kv.NewMemory()
	defer e.Close()
	c, tb := newTable(t, e)
	commit(t, e, func(txn *kv.Txn) error {
		for i := 0; i < 5; i++ {
			if err := Insert(txn, tb, row(int64(i), "k", i%2, string(rune('p'+i)))); err != nil {
				return err
			}
		}
		return nil
	})
	mustCheck(t, e, c)
	uniq, keyid, inv := tb.Indexes[0], tb.Indexes[1], tb.Indexes[2]
	commit(t, e, func(txn *kv.Txn) error {
		k, _ := entryKey(tb, keyid, row(1, "k", 1, "q")) // delete an entry
		if err := txn.Delete(k); err != nil {
			return err
		}
		k, v := entryKey(tb, uniq, row(42, "zz", 0, "dangling")) // add a dangling one
		if err := txn.Set(k, v); err != nil {
			return err
		}
		k, v = entryKey(tb, inv, row(2, "k", 0, "r")) // drop a pk from a list
		return txn.Merge(k, appendOp(nil, opRemove, v))
	})
	probs, err := Check(e, c)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range probs {
		got = append(got, p.String())
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		`t.t_c_keyid: /102/1/1/desc("k"): missing index entry for row /100/1/desc("k")`,
		`t.t_d_key: /101/"dangling": dangling entry: no master row /100/42/desc("zz")`,
		`t.t_c_inv: /103/0/`,
		`row /100/2/desc("k") is missing from the inverted list`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("problems lack %q; got:\n%s", want, all)
		}
	}
	if len(probs) != 3 {
		t.Errorf("%d problems, want 3:\n%s", len(probs), all)
	}
}

// TestBackfillAndDefaults: an index created over existing rows is filled
// by Backfill; a unique backfill over duplicates fails; a column added
// later reads as its default in old rows.
func TestBackfillAndDefaults(t *testing.T) {
	e := kv.NewMemory()
	defer e.Close()
	c, tb := newTable(t, e)
	commit(t, e, func(txn *kv.Txn) error {
		for i := 0; i < 1200; i++ { // more than one backfill batch
			if err := Insert(txn, tb, row(int64(i), "k", i%7, nil)); err != nil {
				return err
			}
		}
		return nil
	})
	for _, def := range []catalog.IndexDef{
		{Name: "late_keyid", Table: "t", Columns: []string{"c", "a"}},
		{Name: "late_inv", Table: "t", Columns: []string{"c"}, Form: catalog.FormInverted},
		{Name: "late_uniq", Table: "t", Columns: []string{"a"}, Unique: true},
	} {
		commit(t, e, func(txn *kv.Txn) error {
			n, err := c.CreateIndex(txn, catalog.DefaultDatabase, def)
			if err != nil {
				return err
			}
			nt, _ := n.Table(catalog.DefaultDatabase, "t")
			if err := Backfill(txn, nt, nt.IndexByName(def.Name), nil); err != nil {
				return err
			}
			c = n
			return nil
		})
	}
	mustCheck(t, e, c)
	txn := kv.NewTxn(e)
	n, err := c.CreateIndex(txn, catalog.DefaultDatabase, catalog.IndexDef{Name: "bad", Table: "t", Columns: []string{"c"}, Unique: true})
	if err != nil {
		t.Fatal(err)
	}
	nt, _ := n.Table(catalog.DefaultDatabase, "t")
	if err := Backfill(txn, nt, nt.IndexByName("bad"), nil); err == nil || !strings.Contains(err.Error(), `could not create unique index "bad"`) {
		t.Fatalf("unique backfill over duplicates: %v", err)
	}
	txn.Rollback()

	commit(t, e, func(txn *kv.Txn) error {
		c, err = c.AddColumn(txn, catalog.DefaultDatabase, "t", catalog.Column{Name: "e", Type: types.T{Family: types.Int8}, Default: "7", DefaultValue: types.NewInt(7)})
		return err
	})
	nt, _ = c.Table(catalog.DefaultDatabase, "t")
	out := make([]types.Datum, len(nt.Columns))
	if found, err := Get(e, nt, []types.Datum{types.NewInt(3), types.NewText("k")}, out); err != nil || !found || out[4] != types.NewInt(7) {
		t.Fatalf("old row after ADD COLUMN: %v %v %v", found, err, out)
	}
	mustCheck(t, e, c)
}
