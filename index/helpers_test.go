package index

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/types"
)

var rewrite = flag.Bool("rewrite", false, "rewrite golden files (testdata/, docs/layout.md)")

// engines lists the engines every storage test runs against.
var engines = []struct {
	name string
	open func(t testing.TB) kv.Engine
}{
	{"memory", func(t testing.TB) kv.Engine { return kv.NewMemory() }},
	{"pebble", func(t testing.TB) kv.Engine {
		e, err := kv.OpenPebble(t.TempDir(), kv.PebbleOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}},
}

// recorder is a kv.ReadWriter that logs every write with pretty keys.
type recorder struct {
	kv.ReadWriter
	log *strings.Builder
}

func (r recorder) Set(k, v []byte) error {
	fmt.Fprintf(r.log, "  set   %s -> %x\n", encoding.Pretty(k), v)
	return r.ReadWriter.Set(k, v)
}
func (r recorder) Delete(k []byte) error {
	fmt.Fprintf(r.log, "  del   %s\n", encoding.Pretty(k))
	return r.ReadWriter.Delete(k)
}
func (r recorder) DeleteRange(s, e []byte) error {
	fmt.Fprintf(r.log, "  delrange %s %s\n", encoding.Pretty(s), encoding.Pretty(e))
	return r.ReadWriter.DeleteRange(s, e)
}
func (r recorder) Merge(k, v []byte) error {
	fmt.Fprintf(r.log, "  merge %s <- %x\n", encoding.Pretty(k), v)
	return r.ReadWriter.Merge(k, v)
}

// newTable creates, in a fresh catalog on e, the test table
//
//	t(a INT8, b TEXT, c INT8, d TEXT, PRIMARY KEY (a, b DESC), UNIQUE (d))
//
// with a key+id index t_c_keyid and an inverted index t_c_inv on c.
func newTable(t testing.TB, e kv.Engine) (*catalog.Catalog, *catalog.Table) {
	c, err := catalog.Open(e)
	if err != nil {
		t.Fatal(err)
	}
	txn := kv.NewTxn(e)
	c, err = c.CreateTable(txn, catalog.DefaultDatabase, catalog.TableDef{
		Name: "t",
		Columns: []catalog.Column{
			{Name: "a", Type: types.T{Family: types.Int8}},
			{Name: "b", Type: types.T{Family: types.Text}},
			{Name: "c", Type: types.T{Family: types.Int8}},
			{Name: "d", Type: types.T{Family: types.Text}},
		},
		PrimaryKey:     []string{"a", "b"},
		PrimaryKeyDesc: []bool{false, true},
		Uniques:        []catalog.UniqueDef{{Columns: []string{"d"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, def := range []catalog.IndexDef{
		{Name: "t_c_keyid", Table: "t", Columns: []string{"c"}, Form: catalog.FormKeyID},
		{Name: "t_c_inv", Table: "t", Columns: []string{"c"}, Form: catalog.FormInverted},
	} {
		if c, err = c.CreateIndex(txn, catalog.DefaultDatabase, def); err != nil {
			t.Fatal(err)
		}
	}
	if err := txn.Commit(true); err != nil {
		t.Fatal(err)
	}
	tbl, err := c.Table(catalog.DefaultDatabase, "t")
	if err != nil {
		t.Fatal(err)
	}
	return c, tbl
}

func row(a int64, b string, c any, d any) []types.Datum {
	r := []types.Datum{types.NewInt(a), types.NewText(b), types.Null, types.Null}
	if c != nil {
		r[2] = types.NewInt(int64(c.(int)))
	}
	if d != nil {
		r[3] = types.NewText(d.(string))
	}
	return r
}

// mustCheck fails t if Check reports any problem.
func mustCheck(t testing.TB, r kv.Reader, c *catalog.Catalog) {
	t.Helper()
	probs, err := Check(r, c)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range probs {
		t.Error(p)
	}
}
