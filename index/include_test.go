package index

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/types"
)

// includeTable is the test table t(a, b DESC, c, d) with a key+id index
// on c INCLUDE (d) and a unique one on d INCLUDE (c, a): a is a
// primary-key column, so only c is stored in the unique entries.
func includeTable(t *testing.T, e kv.Engine) *catalog.Table {
	c, _ := newTable(t, e)
	txn := kv.NewTxn(e)
	var err error
	for _, def := range []catalog.IndexDef{
		{Name: "t_c_inc", Table: "t", Columns: []string{"c"}, Include: []string{"d"}},
		{Name: "t_d_inc", Table: "t", Columns: []string{"d"}, Unique: true, Include: []string{"c", "a"}},
	} {
		if c, err = c.CreateIndex(txn, catalog.DefaultDatabase, def); err != nil {
			t.Fatal(err)
		}
	}
	if err := txn.Commit(true); err != nil {
		t.Fatal(err)
	}
	tb, err := c.Table(catalog.DefaultDatabase, "t")
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// TestIncludeWrites: inserts, an update of only an included column and
// a delete keep the entries' values right (CheckTable is clean and a
// scan of each index returns the included values); a stale included
// value written behind the index's back is reported by CheckTable.
func TestIncludeWrites(t *testing.T) {
	e := kv.NewMemory()
	defer e.Close()
	tb := includeTable(t, e)
	keyid, uniq := tb.IndexByName("t_c_inc"), tb.IndexByName("t_d_inc")
	rows := [][]types.Datum{row(1, "x", 10, "d1"), row(1, "y", 10, "d2"), row(2, "x", 20, nil)}
	commit(t, e, func(txn *kv.Txn) error {
		for _, r := range rows {
			if err := Insert(txn, tb, r); err != nil {
				return err
			}
		}
		// d is only included in t_c_inc: the entry's key stays, its
		// value changes. c is only included in t_d_inc.
		if err := Update(txn, tb, rows[0], row(1, "x", 10, "d9")); err != nil {
			return err
		}
		if err := Update(txn, tb, rows[1], row(1, "y", 11, "d2")); err != nil {
			return err
		}
		return Delete(txn, tb, rows[2])
	})
	assertClean(t, e, tb)
	want := map[string]string{
		"t_c_inc": "[1 \"x\" 10 \"d9\"] [1 \"y\" 11 \"d2\"]",
		"t_d_inc": "[1 \"y\" 11 \"d2\"] [1 \"x\" 10 \"d9\"]",
	}
	for _, idx := range []*catalog.Index{keyid, uniq} {
		var got []string
		for _, r := range collect(t, mustIter(ScanIndex(e, tb, idx, Span{}, false))) {
			got = append(got, fmt.Sprint(r))
		}
		if g := strings.Join(got, " "); g != want[idx.Name] {
			t.Errorf("%s: %s, want %s", idx.Name, g, want[idx.Name])
		}
	}
	out := make([]types.Datum, len(tb.Columns))
	if found, err := GetUniqueEntry(e, tb, uniq, []types.Datum{types.NewText("d9")}, out); err != nil || !found || fmt.Sprint(out) != "[1 \"x\" 10 \"d9\"]" {
		t.Errorf("GetUniqueEntry d9: %v %v %s", found, err, fmt.Sprint(out))
	}
	// A stale value: the entry of (1, \"x\") keeps d1 while the row has d9.
	key, _ := entryKey(tb, keyid, row(1, "x", 10, "d9"))
	_, stale := entryKey(tb, keyid, row(1, "x", 10, "d1"))
	commit(t, e, func(txn *kv.Txn) error { return txn.Set(key, stale) })
	probs, err := CheckTable(e, tb)
	if err != nil {
		t.Fatal(err)
	}
	if len(probs) != 1 || probs[0].Index != "t_c_inc" || !strings.Contains(probs[0].String(), "entry value") {
		t.Errorf("stale included value: problems %v, want one in t_c_inc", probs)
	}
}

func assertClean(t *testing.T, r kv.Reader, tb *catalog.Table) {
	t.Helper()
	probs, err := CheckTable(r, tb)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range probs {
		t.Error(p)
	}
}
