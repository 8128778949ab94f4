package catalog

import (
	"errors"
	"flag"
	"testing"

	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

var rewrite = flag.Bool("rewrite", false, "rewrite golden files under testdata/")

var (
	tInt  = types.T{Family: types.Int8}
	tText = types.T{Family: types.Text}
)

// applyDDL runs one DDL step in a batch and commits it, as the executor
// does, returning the new catalog.
func applyDDL(t *testing.T, e kv.Engine, f func(w kv.Writer) (*Catalog, error)) *Catalog {
	t.Helper()
	b := e.NewBatch()
	defer b.Close()
	c, err := f(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(false); err != nil {
		t.Fatal(err)
	}
	return c
}

// sampleCatalog builds a catalog exercising every descriptor feature.
func sampleCatalog(t *testing.T, e kv.Engine) *Catalog {
	t.Helper()
	c, err := Open(e)
	if err != nil {
		t.Fatal(err)
	}
	c = applyDDL(t, e, func(w kv.Writer) (*Catalog, error) {
		return c.CreateTable(w, DefaultDatabase, TableDef{
			Name: "poi",
			Columns: []Column{
				{Name: "poi_id", Type: types.T{Family: types.Char, Width: 64}},
				{Name: "language", Type: types.T{Family: types.Int4}},
				{Name: "poiName", Type: types.T{Family: types.Varchar, Width: 255}, NotNull: true},
				{Name: "lat", Type: types.T{Family: types.Float8}, Default: "0.5", DefaultValue: types.NewFloat(0.5)},
			},
			PrimaryKey:     []string{"poi_id", "language"},
			PrimaryKeyDesc: []bool{false, true}, PrimaryKeyInclude: []string{"lat"},
			Uniques:     []UniqueDef{{Columns: []string{"poiName"}}},
			ForeignKeys: []ForeignKey{{Name: "fk_geo", Columns: []string{"poi_id"}, RefTable: "geo", RefColumns: []string{"poi_id"}}},
		})
	})
	c = applyDDL(t, e, func(w kv.Writer) (*Catalog, error) {
		return c.CreateIndex(w, DefaultDatabase, IndexDef{Name: "poi_lat", Table: "poi", Columns: []string{"lat"}, Include: []string{"poiName"}})
	})
	c = applyDDL(t, e, func(w kv.Writer) (*Catalog, error) {
		return c.CreateIndex(w, DefaultDatabase, IndexDef{Name: "poi_lat_inv", Table: "poi", Columns: []string{"lat"}, Desc: []bool{true}, Form: FormInverted})
	})
	c = applyDDL(t, e, func(w kv.Writer) (*Catalog, error) {
		return c.CreateTable(w, DefaultDatabase, TableDef{Name: "log", Columns: []Column{{Name: "id", Type: tInt, Serial: true}, {Name: "msg", Type: tText}}})
	})
	c = applyDDL(t, e, func(w kv.Writer) (*Catalog, error) {
		return c.AddColumn(w, DefaultDatabase, "log", Column{Name: "level", Type: tText, Default: "'info'", DefaultValue: types.NewText("info")})
	})
	c = applyDDL(t, e, func(w kv.Writer) (*Catalog, error) {
		return c.CreateView(w, DefaultDatabase, View{Name: "names", SQL: "SELECT poiName FROM poi", Columns: []string{"poiName"}})
	})
	c = applyDDL(t, e, func(w kv.Writer) (*Catalog, error) {
		return c.CreateTrigger(w, DefaultDatabase, "poi", Trigger{Name: "poi_log", Timing: "after", Event: "update",
			Columns: []string{"lat"}, When: "NEW.lat > OLD.lat", Body: []string{"INSERT INTO log (msg) VALUES (NEW.poiName)"}})
	})
	c = applyDDL(t, e, func(w kv.Writer) (*Catalog, error) {
		n, _, err := c.CreateFunction(w, DefaultDatabase, Function{Name: "poi_count", Kind: "f", Returns: "bigint",
			Args: []FunctionArg{{Name: "lang", Mode: "i", Type: "integer", Default: "1"}}, Language: "sql",
			Body: "SELECT count(*) FROM poi WHERE language = lang", Form: "as", Volatility: "s", Parallel: "u", Cost: 100})
		return n, err
	})
	c = applyDDL(t, e, func(w kv.Writer) (*Catalog, error) {
		n, _, err := c.CreateUserType(w, DefaultDatabase, UserType{Name: "place", Kind: "c",
			Attrs: []TypeAttr{{Name: "name", Type: "text"}, {Name: "tags", Type: "varchar(10)[]"}}})
		return n, err
	})
	c = applyDDL(t, e, func(w kv.Writer) (*Catalog, error) {
		n, _, err := c.CreateUserType(w, DefaultDatabase, UserType{Name: "latitude", Kind: "d", Base: "numeric(9,6)",
			NotNull: true, Default: "0", Checks: []Check{{Name: "latitude_check", Expr: "VALUE BETWEEN -90 AND 90"},
				{Name: "latitude_not_zero", Expr: "VALUE <> 0", NotValid: true}}})
		return n, err
	})
	c = applyDDL(t, e, func(w kv.Writer) (*Catalog, error) {
		lat := c.UserType(DefaultDatabase, "latitude")
		return c.AddColumn(w, DefaultDatabase, "log", Column{Name: "at", Type: types.T{Family: types.Numeric, Width: 9, Scale: 6}, Domain: uint32(lat.OID())})
	})
	c = applyDDL(t, e, func(w kv.Writer) (*Catalog, error) {
		n, _, err := c.CreateUserType(w, DefaultDatabase, UserType{Name: "spot", Kind: "c", Attrs: []TypeAttr{{Name: "x", Type: "integer"}}})
		return n, err
	})
	c = applyDDL(t, e, func(w kv.Writer) (*Catalog, error) {
		spot := c.UserType(DefaultDatabase, "spot")
		return c.AddColumn(w, DefaultDatabase, "log", Column{Name: "spots", Type: types.T{Family: types.Array, Elem: types.Record}, Composite: uint32(spot.OID())})
	})
	c = applyDDL(t, e, func(w kv.Writer) (*Catalog, error) { return c.CreateDatabase(w, "other") })
	return c
}

func TestUserTypes(t *testing.T) {
	e := kv.NewMemory()
	defer e.Close()
	c := sampleCatalog(t, e)
	u := c.UserType(DefaultDatabase, "place")
	if u == nil || u.Kind != "c" || len(u.Attrs) != 2 || c.UserTypeByOID(DefaultDatabase, u.ArrayOID()) != u {
		t.Fatalf("UserType(place) = %+v", u)
	}
	// A type's name is taken by a type or a table of its schema.
	for _, name := range []string{"place", "poi"} {
		b := e.NewBatch()
		_, _, err := c.CreateUserType(b, DefaultDatabase, UserType{Name: name, Kind: "c"})
		b.Close()
		if !pgerror.HasCode(err, pgerror.DuplicateObject) {
			t.Errorf("CreateUserType(%s): %v, want 42710", name, err)
		}
	}
	c = applyDDL(t, e, func(w kv.Writer) (*Catalog, error) { return c.DropUserType(w, DefaultDatabase, "place") })
	if c.UserType(DefaultDatabase, "place") != nil {
		t.Fatal("place survived DROP")
	}
	loaded, err := Load(e)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.UserType(DefaultDatabase, "place") != nil || loaded.UserType(DefaultDatabase, "latitude") == nil {
		t.Fatalf("after Load: %v", loaded.UserTypes(DefaultDatabase))
	}
}

func TestTriggers(t *testing.T) {
	e := kv.NewMemory()
	defer e.Close()
	c := sampleCatalog(t, e)
	tbl, tr, err := c.Trigger(DefaultDatabase, "poi_log")
	if err != nil || tbl.Name != "poi" || tr.Event != "update" {
		t.Fatalf("Trigger: %v %v %v", tbl, tr, err)
	}
	for _, bad := range []struct {
		table string
		tr    Trigger
		code  pgerror.Code
	}{
		{"poi", Trigger{Name: "poi_log", Timing: "after", Event: "insert", Body: []string{"SELECT 1"}}, pgerror.DuplicateObject},
		{"nope", Trigger{Name: "x", Timing: "after", Event: "insert", Body: []string{"SELECT 1"}}, pgerror.UndefinedTable},
		{"poi", Trigger{Name: "x", Timing: "after", Event: "update", Columns: []string{"nope"}, Body: []string{"SELECT 1"}}, pgerror.UndefinedColumn},
		{"poi", Trigger{Name: "x", Timing: "during", Event: "insert", Body: []string{"SELECT 1"}}, pgerror.InvalidParameterValue},
		{"poi", Trigger{Name: "x", Timing: "after", Event: "insert", Columns: []string{"lat"}, Body: []string{"SELECT 1"}}, pgerror.InvalidParameterValue},
	} {
		b := e.NewBatch()
		if _, err := c.CreateTrigger(b, DefaultDatabase, bad.table, bad.tr); !pgerror.HasCode(err, bad.code) {
			t.Errorf("CreateTrigger(%s, %+v) = %v, want %s", bad.table, bad.tr, err, bad.code)
		}
		b.Close()
	}
	// Dropping the trigger, then the table with another: both are gone.
	c = applyDDL(t, e, func(w kv.Writer) (*Catalog, error) { return c.DropTrigger(w, DefaultDatabase, "poi_log") })
	if _, _, err := c.Trigger(DefaultDatabase, "poi_log"); !pgerror.HasCode(err, pgerror.UndefinedObject) {
		t.Fatalf("after DropTrigger: %v", err)
	}
	c = applyDDL(t, e, func(w kv.Writer) (*Catalog, error) {
		return c.CreateTrigger(w, DefaultDatabase, "log", Trigger{Name: "log_t", Timing: "before", Event: "delete", Body: []string{"SELECT 1"}})
	})
	c = applyDDL(t, e, func(w kv.Writer) (*Catalog, error) { return c.DropTable(w, DefaultDatabase, "log") })
	if _, _, err := c.Trigger(DefaultDatabase, "log_t"); !pgerror.HasCode(err, pgerror.UndefinedObject) {
		t.Fatalf("after DropTable: %v", err)
	}
	loaded, err := Load(e)
	if err != nil {
		t.Fatal(err)
	}
	if tables, _ := loaded.Tables(DefaultDatabase); len(tables) != 1 || len(tables[0].Triggers) != 0 {
		t.Fatalf("loaded tables: %+v", tables)
	}
}

func TestDDLAndLoad(t *testing.T) {
	e := kv.NewMemory()
	defer e.Close()
	c := sampleCatalog(t, e)
	poi, err := c.Table(DefaultDatabase, "poi")
	if err != nil {
		t.Fatal(err)
	}
	if poi.ID != FirstUserSpace || len(poi.Indexes) != 3 || poi.Indexes[0].Form != FormUnique || !poi.Indexes[0].Constraint {
		t.Fatalf("poi = %+v", poi)
	}
	if poi.Indexes[0].Name != "poi_poiName_key" || poi.Indexes[1].Form != FormKeyID || poi.Indexes[2].Form != FormInverted {
		t.Fatalf("indexes: %+v %+v %+v", poi.Indexes[0], poi.Indexes[1], poi.Indexes[2])
	}
	if !poi.Columns[0].NotNull || !poi.Columns[1].NotNull {
		t.Fatal("primary key columns must be NOT NULL")
	}
	lg, _ := c.Table(DefaultDatabase, "log")
	if !lg.HiddenRowID || lg.Columns[2].Name != "rowid" || !lg.Columns[2].Hidden || lg.PrimaryKey[0] != 2 {
		t.Fatalf("log = %+v", lg)
	}
	if lg.Columns[3].Name != "level" || lg.Columns[3].ID != 4 || lg.NextColumnID != 7 {
		t.Fatalf("added column: %+v next %d", lg.Columns[3], lg.NextColumnID)
	}
	loaded, err := Load(e)
	if err != nil {
		t.Fatal(err)
	}
	if lat, llg := loaded.UserType(DefaultDatabase, "latitude"), mustTable(t, loaded, "log"); llg.Columns[4].Domain == 0 || uint64(llg.Columns[4].Domain) != lat.OID() || !lat.Checks[1].NotValid {
		t.Fatalf("after Load, log.at's domain is %d (latitude is %d), its checks %+v", llg.Columns[4].Domain, lat.OID(), lat.Checks)
	}
	if spot, llg := loaded.UserType(DefaultDatabase, "spot"), mustTable(t, loaded, "log"); uint64(llg.Columns[5].Composite) != spot.OID() || llg.Columns[5].Type.Elem != types.Record {
		t.Fatalf("after Load, log.spots is %+v (spot is %d)", llg.Columns[5], spot.OID())
	}
	a, _ := ExportJSON(c)
	b, _ := ExportJSON(loaded)
	if string(a) != string(b) {
		t.Fatalf("loaded catalog differs:\n%s\nvs\n%s", a, b)
	}
	if loaded.NextID() != c.NextID() || c.NextID() != FirstUserSpace+12 { // five key spaces, the function, and three types with their array types
		t.Fatalf("next id %d / %d", loaded.NextID(), c.NextID())
	}
}

func TestDDLErrors(t *testing.T) {
	e := kv.NewMemory()
	defer e.Close()
	c := sampleCatalog(t, e)
	b := e.NewBatch()
	defer b.Close()
	cols := []Column{{Name: "a", Type: tInt}}
	cases := []struct {
		name string
		run  func() (*Catalog, error)
		code pgerror.Code
	}{
		{"dup table", func() (*Catalog, error) {
			return c.CreateTable(b, DefaultDatabase, TableDef{Name: "poi", Columns: cols})
		}, pgerror.DuplicateTable},
		{"table named like view", func() (*Catalog, error) {
			return c.CreateTable(b, DefaultDatabase, TableDef{Name: "names", Columns: cols})
		}, pgerror.DuplicateTable},
		{"dup column", func() (*Catalog, error) {
			return c.CreateTable(b, DefaultDatabase, TableDef{Name: "x", Columns: append(cols, cols[0])})
		}, pgerror.DuplicateColumn},
		{"unknown pk column", func() (*Catalog, error) {
			return c.CreateTable(b, DefaultDatabase, TableDef{Name: "x", Columns: cols, PrimaryKey: []string{"b"}})
		}, pgerror.UndefinedColumn},
		{"unknown db", func() (*Catalog, error) { return c.CreateTable(b, "nope", TableDef{Name: "x", Columns: cols}) }, pgerror.InvalidCatalogName},
		{"dup db", func() (*Catalog, error) { return c.CreateDatabase(b, "other") }, pgerror.DuplicateDatabase},
		{"drop unknown db", func() (*Catalog, error) { return c.DropDatabase(b, "nope") }, pgerror.InvalidCatalogName},
		{"drop unknown table", func() (*Catalog, error) { return c.DropTable(b, DefaultDatabase, "nope") }, pgerror.UndefinedTable},
		{"drop unknown index", func() (*Catalog, error) { return c.DropIndex(b, DefaultDatabase, "nope") }, pgerror.UndefinedObject},
		{"dup index", func() (*Catalog, error) {
			return c.CreateIndex(b, DefaultDatabase, IndexDef{Name: "poi_lat", Table: "poi", Columns: []string{"lat"}, Include: []string{"poiName"}})
		}, pgerror.DuplicateTable},
		{"index unknown column", func() (*Catalog, error) {
			return c.CreateIndex(b, DefaultDatabase, IndexDef{Name: "i2", Table: "poi", Columns: []string{"zz"}})
		}, pgerror.UndefinedColumn},
		{"index unknown table", func() (*Catalog, error) {
			return c.CreateIndex(b, DefaultDatabase, IndexDef{Name: "i2", Table: "zz", Columns: []string{"a"}})
		}, pgerror.UndefinedTable},
		{"add dup column", func() (*Catalog, error) {
			return c.AddColumn(b, DefaultDatabase, "poi", Column{Name: "lat", Type: tInt})
		}, pgerror.DuplicateColumn},
		{"dup view", func() (*Catalog, error) { return c.CreateView(b, DefaultDatabase, View{Name: "poi"}) }, pgerror.DuplicateTable},
		{"drop unknown view", func() (*Catalog, error) { return c.DropView(b, DefaultDatabase, "nope") }, pgerror.UndefinedTable},
	}
	for _, tc := range cases {
		n, err := tc.run()
		if n != nil || !pgerror.HasCode(err, tc.code) {
			t.Errorf("%s: got %v (code %s), want code %s", tc.name, err, pgerror.CodeOf(err), tc.code)
		}
	}
	if _, err := c.Table(DefaultDatabase, "zz"); err == nil || err.Error() != `relation "zz" does not exist` {
		t.Errorf("lookup error = %v", err)
	}
}

// TestDDLDoesNotMutate checks copy-on-write: the old catalog is unchanged
// after DDL, so a failed statement can keep using it.
func TestDDLDoesNotMutate(t *testing.T) {
	e := kv.NewMemory()
	defer e.Close()
	c := sampleCatalog(t, e)
	before, _ := ExportXML(c)
	b := e.NewBatch()
	defer b.Close()
	if _, err := c.AddColumn(b, DefaultDatabase, "poi", Column{Name: "z", Type: tInt}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DropIndex(b, DefaultDatabase, "poi_lat"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DropTable(b, DefaultDatabase, "log"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateIndex(b, DefaultDatabase, IndexDef{Name: "k", Table: "poi", Columns: []string{"lat"}}); err != nil {
		t.Fatal(err)
	}
	after, _ := ExportXML(c)
	if string(before) != string(after) {
		t.Fatalf("DDL modified its receiver:\n%s\n%s", before, after)
	}
}

func TestDropTableDeletesData(t *testing.T) {
	e := kv.NewMemory()
	defer e.Close()
	c := sampleCatalog(t, e)
	poi, _ := c.Table(DefaultDatabase, "poi")
	keep := append(SpacePrefix(FirstUserSpace+4), 1) // the log table's space
	for _, k := range [][]byte{append(SpacePrefix(poi.ID), 1), append(SpacePrefix(poi.Indexes[2].ID), 2), keep} {
		if err := (direct{e}).Set(k, []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := NextSequence(direct{e}, poi, 1, 1); err != nil {
		t.Fatal(err)
	}
	c = applyDDL(t, e, func(w kv.Writer) (*Catalog, error) { return c.DropTable(w, DefaultDatabase, "poi") })
	it, err := e.NewIter(kv.IterOptions{LowerBound: SpacePrefix(2)})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var n int
	for ok := it.First(); ok; ok = it.Next() {
		n++
	}
	if n != 1 {
		t.Fatalf("%d data keys left, want 1 (the other table's)", n)
	}
	if _, err := e.Get(SequenceKey(poi.ID, 1)); !errors.Is(err, kv.ErrNotFound) {
		t.Fatalf("sequence survived drop: %v", err)
	}
	if _, err := Load(e); err != nil {
		t.Fatal(err)
	}
}

func TestNextSequence(t *testing.T) {
	e := kv.NewMemory()
	defer e.Close()
	tbl := &Table{ID: 123}
	for i, tc := range []struct{ n, want int64 }{{1, 1}, {10, 2}, {1, 12}} {
		got, err := NextSequence(direct{e}, tbl, 7, tc.n)
		if err != nil || got != tc.want {
			t.Fatalf("step %d: got %d, %v; want %d", i, got, err, tc.want)
		}
	}
	if _, err := NextSequence(direct{e}, tbl, 7, 0); !pgerror.HasCode(err, pgerror.InvalidParameterValue) {
		t.Fatalf("n=0: %v", err)
	}
}

// direct is a kv.ReadWriter over an engine whose writes apply at once
// (one batch per write); enough for tests that need no atomicity.
type direct struct{ kv.Engine }

var _ kv.ReadWriter = direct{}

func (d direct) do(f func(b kv.Batch) error) error {
	b := d.NewBatch()
	defer b.Close()
	if err := f(b); err != nil {
		return err
	}
	return b.Commit(false)
}
func (d direct) Set(k, v []byte) error {
	return d.do(func(b kv.Batch) error { return b.Set(k, v) })
}
func (d direct) Delete(k []byte) error { return d.do(func(b kv.Batch) error { return b.Delete(k) }) }
func (d direct) DeleteRange(s, e []byte) error {
	return d.do(func(b kv.Batch) error { return b.DeleteRange(s, e) })
}
func (d direct) Merge(k, v []byte) error {
	return d.do(func(b kv.Batch) error { return b.Merge(k, v) })
}

func mustTable(t *testing.T, c *Catalog, name string) *Table {
	t.Helper()
	tbl, err := c.Table(DefaultDatabase, name)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}
