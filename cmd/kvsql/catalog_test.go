package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/types"
)

// makeStore writes a table with a unique index and three rows into a new
// Pebble store and returns its directory.
func makeStore(t *testing.T) string {
	dir := t.TempDir()
	e, c, err := openStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	txn := kv.NewTxn(e)
	c, err = c.CreateTable(txn, catalog.DefaultDatabase, catalog.TableDef{
		Name:       "p",
		Columns:    []catalog.Column{{Name: "id", Type: types.T{Family: types.Int8}}, {Name: "name", Type: types.T{Family: types.Text}}},
		PrimaryKey: []string{"id"},
		Uniques:    []catalog.UniqueDef{{Columns: []string{"name"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	tb, _ := c.Table(catalog.DefaultDatabase, "p")
	for i, n := range []string{"a", "b", "c"} {
		if err := index.Insert(txn, tb, []types.Datum{types.NewInt(int64(i)), types.NewText(n)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := txn.Commit(true); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestCatalogExportImportCheck(t *testing.T) {
	dir := makeStore(t)
	var xmlOut, jsonOut bytes.Buffer
	if err := catalogCmd([]string{"export", "--data", dir, "--format", "xml"}, &xmlOut); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(xmlOut.String(), `<Table tableName="p"`) {
		t.Fatalf("xml export:\n%s", xmlOut.String())
	}
	if err := catalogCmd([]string{"export", "--data", dir, "--format", "json"}, &jsonOut); err != nil {
		t.Fatal(err)
	}
	if err := catalogCmd([]string{"export", "--data", dir, "--format", "yaml"}, &jsonOut); err == nil {
		t.Fatal("unknown format accepted")
	}
	file := filepath.Join(t.TempDir(), "cat.json")
	if err := os.WriteFile(file, jsonOut.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := catalogCmd([]string{"import", file, "--data", dir}, &out); err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := catalogCmd([]string{"export", "--data", dir, "--format", "xml"}, &again); err != nil {
		t.Fatal(err)
	}
	if again.String() != xmlOut.String() {
		t.Fatalf("catalog changed by export+import:\n%s\n%s", xmlOut.String(), again.String())
	}
	out.Reset()
	if err := checkCmd([]string{"--data", dir}, &out); err != nil || !strings.HasSuffix(out.String(), "\nok\n") {
		t.Fatalf("check of a good store: %v %q", err, out.String())
	}

	// Corrupt: delete the unique entry of "b".
	e, _, err := openStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	b := e.NewBatch()
	if err := b.Delete(encoding.EncodeKey(nil, catalog.FirstUserSpace+1, []types.Datum{types.NewText("b")}, nil)); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(true); err != nil {
		t.Fatal(err)
	}
	b.Close()
	e.Close()
	out.Reset()
	err = checkCmd([]string{"--data", dir}, &out)
	if !errors.Is(err, errInconsistent) || !strings.Contains(out.String(), `p.p_name_key: /101/"b": missing index entry for row /100/1`) {
		t.Fatalf("check of a corrupt store: %v\n%s", err, out.String())
	}
	// --repair rebuilds the index from the master rows.
	out.Reset()
	if err := checkCmd([]string{"--data", dir, "--repair"}, &out); err != nil || !strings.Contains(out.String(), `repaired: rebuilt index "p_name_key" of table "p"`) {
		t.Fatalf("check --repair: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := checkCmd([]string{"--data", dir}, &out); err != nil || !strings.HasSuffix(out.String(), "\nok\n") {
		t.Fatalf("check after repair: %v\n%s", err, out.String())
	}
}
