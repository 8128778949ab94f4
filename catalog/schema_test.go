package catalog

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
)

// TestSchemaKeys checks that a relation of a schema other than public is
// keyed by schema and name (in the catalog and in the store), survives a
// reload, and leaves public's relation of the same name alone.
func TestSchemaKeys(t *testing.T) {
	e := kv.NewMemory()
	c, err := Open(e)
	if err != nil {
		t.Fatal(err)
	}
	c = applyDDL(t, e, func(w kv.Writer) (*Catalog, error) { return c.CreateSchema(w, DefaultDatabase, Schema{Name: "s"}) })
	for _, key := range []string{"t", RelKey("s", "t")} {
		c = applyDDL(t, e, func(w kv.Writer) (*Catalog, error) {
			return c.CreateTable(w, DefaultDatabase, TableDef{Name: key, Columns: []Column{{Name: "a", Type: tInt}}, PrimaryKey: []string{"a"}})
		})
	}
	if _, err := e.Get(metaKey(text(tagTable), text(DefaultDatabase), text("s"), text("t"))); err != nil {
		t.Fatalf("no descriptor at /1/\"table\"/db/\"s\"/\"t\": %v", err)
	}
	loaded, err := Load(e)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := loaded.Table(DefaultDatabase, "t")
	if err != nil || pub.Schema != "" {
		t.Fatalf("public.t: %+v, %v", pub, err)
	}
	st, err := loaded.Table(DefaultDatabase, RelKey("s", "t"))
	if err != nil || st.Schema != "s" || st.Name != "t" || st.ID == pub.ID {
		t.Fatalf("s.t: %+v, %v", st, err)
	}
	if s, err := loaded.Schema(DefaultDatabase, "s"); err != nil || s.ID == 0 {
		t.Fatalf("schema s: %+v, %v", s, err)
	}
	if _, err := loaded.DropSchema(e.NewBatch(), DefaultDatabase, "s"); !pgerror.HasCode(err, pgerror.DependentObjectsStillExist) {
		t.Fatalf("DROP SCHEMA s while it holds t: %v", err)
	}
	// The primary key index names are per schema: both tables have t_pkey.
	if _, err := loaded.Table(DefaultDatabase, RelKey("s", "x")); err == nil || DisplayName(RelKey("s", "x")) != "s.x" {
		t.Fatalf("s.x: %v", err)
	}
}

// TestDescriptorBeforeSchemas checks that a table descriptor written
// before schemas existed (no schema field, key /1/"table"/db/name) loads
// as public's.
func TestDescriptorBeforeSchemas(t *testing.T) {
	e := kv.NewMemory()
	if _, err := Open(e); err != nil {
		t.Fatal(err)
	}
	// The descriptor as kvsql wrote it before: Schema is omitempty, so
	// a descriptor of public has no schema field at all.
	old, err := json.Marshal(&Table{ID: 100, DB: DefaultDatabase, Name: "legacy", Columns: []Column{{ID: 1, Name: "a", Type: tInt}},
		PrimaryKey: []int{0}, PrimaryKeyDesc: []bool{false}, PrimaryKeyName: "legacy_pkey", NextColumnID: 2})
	if err != nil || strings.Contains(string(old), "schema") {
		t.Fatalf("descriptor %s: %v", old, err)
	}
	if err := e.Set(TableKey(DefaultDatabase, "legacy"), old); err != nil {
		t.Fatal(err)
	}
	c, err := Load(e)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := c.Table(DefaultDatabase, "legacy")
	if err != nil {
		t.Fatalf("legacy table at %s: %v", encoding.Pretty(TableKey(DefaultDatabase, "legacy")), err)
	}
	if SchemaName(tbl.Schema) != PublicSchema || c.SchemaID(DefaultDatabase, tbl.Schema) != PublicSchemaID {
		t.Fatalf("legacy table in schema %q", tbl.Schema)
	}
}
