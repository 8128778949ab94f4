package catalog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

type format struct {
	name   string
	export func(*Catalog) ([]byte, error)
	parse  func([]byte) (*Catalog, error)
}

var formats = []format{{"xml", ExportXML, ImportXML}, {"json", ExportJSON, ImportJSON}}

// TestDocumentRoundTrip: export → import → export gives identical bytes,
// and the export matches testdata/sample.<fmt> (regenerate with -rewrite).
func TestDocumentRoundTrip(t *testing.T) {
	e := kv.NewMemory()
	defer e.Close()
	c := sampleCatalog(t, e)
	for _, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			first, err := f.export(c)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "sample."+f.name)
			if *rewrite {
				if err := os.WriteFile(golden, first, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -rewrite to create)", err)
			}
			if string(want) != string(first) {
				t.Errorf("export differs from %s (run with -rewrite):\n%s", golden, first)
			}
			imported, err := f.parse(first)
			if err != nil {
				t.Fatal(err)
			}
			second, err := f.export(imported)
			if err != nil {
				t.Fatal(err)
			}
			if string(first) != string(second) {
				t.Fatalf("round trip differs:\n%s\n----\n%s", first, second)
			}
			// Install into a fresh store and Load: the same catalog again.
			e2 := kv.NewMemory()
			defer e2.Close()
			applyDDL(t, e2, func(w kv.Writer) (*Catalog, error) { return imported, Install(w, imported) })
			loaded, err := Load(e2)
			if err != nil {
				t.Fatal(err)
			}
			third, _ := f.export(loaded)
			if string(first) != string(third) {
				t.Fatalf("installed catalog differs:\n%s\n----\n%s", first, third)
			}
		})
	}
}

// TestDocumentErrors edits the sample XML document and checks that each
// bad document is refused with a message naming the element and problem.
func TestDocumentErrors(t *testing.T) {
	e := kv.NewMemory()
	defer e.Close()
	good, err := ExportXML(sampleCatalog(t, e))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ old, new, want string }{
		{`type="double"`, `type="blob"`, `Table "poi" / Attribute "lat": unknown type "blob"`},
		{`<pkAttribute columnID="1" direction="asc" encoding="text-asc">poi_id</pkAttribute>`, `<pkAttribute columnID="1" direction="asc">nope</pkAttribute>`, `primaryKey / pkAttribute "nope": no such Attribute`},
		{`keySpace="101"`, `keySpace="100"`, `IndexFile "poi_poiName_key": keySpace 100 is already used by DataBase "kvsql" / Table "poi"`},
		{`form="inverted"`, `form="hash"`, `IndexFile "poi_lat_inv": form "hash" is not one of`},
		{`isUnique="0" indexType="BTree" form="keyid"`, `isUnique="1" indexType="BTree" form="keyid"`, `IndexFile "poi_lat": isUnique=1 does not fit form "keyid"`},
		{`tableName="log"`, `tableName="poi"`, `Table "poi": name already used by`},
		{`columnID="3" type="varchar"`, `columnID="2" type="varchar"`, `Attribute "poiName": columnID 2 is used twice`},
		{`direction="desc" encoding="int-desc"`, `direction="down" encoding="int-desc"`, `pkAttribute "language": direction "down" is neither asc nor desc`},
		{`encoding="text-asc"`, `encoding="int-asc"`, `pkAttribute "poi_id": encoding "int-asc", but a char key column is encoded as "text-asc"`},
		{`formatVersion="1"`, `formatVersion="7"`, `formatVersion 7 is not supported (this kvsql reads version 1)`},
		{`nextColumnID="5"`, `nextColumnID="x"`, `attribute nextColumnID="x": not a non-negative integer`},
		{`defaultValue="float:0.5"`, `defaultValue="text:abc"`, `Attribute "lat": defaultValue "text:abc" is not a double`},
		{`keyLayout="/100/poi_id:text-asc/language:int-desc"`, `keyLayout="/100/poi_id:text-asc"`, `Table "poi": keyLayout "/100/poi_id:text-asc" does not match`},
		{`<uniqueKey indexName="poi_poiName_key">`, `<uniqueKey indexName="poi_lat">`, `uniqueKey "poi_lat": indexName must name a unique IndexFile`},
		{`</Databases>`, `</DataBases>`, `XML:`},
	}
	for _, tc := range cases {
		if !strings.Contains(string(good), tc.old) {
			t.Fatalf("sample document lacks %q", tc.old)
		}
		bad := strings.Replace(string(good), tc.old, tc.new, 1)
		_, err := ImportXML([]byte(bad))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !pgerror.HasCode(err, pgerror.InvalidParameterValue) {
			t.Errorf("replacing %s: got %v, want an error containing %q", tc.old, err, tc.want)
		}
	}
	if _, err := ImportJSON([]byte(`{"Databases": {"formatVersion": 1, "nextID": 100, "DataBase": [{"dbName": "a", "Tables": [{"tableName": "t", "bogus": 1}]}]}}`)); err == nil || !strings.Contains(err.Error(), `unknown field "bogus"`) {
		t.Errorf("json unknown field: %v", err)
	}
}

// TestDocumentPartitioning: a partitioned table, its partition and an
// inheritance child keep their tree through export and import.
func TestDocumentPartitioning(t *testing.T) {
	c := empty(100)
	var err error
	w := kv.NewMemory()
	defer w.Close()
	if c, err = c.CreateDatabase(w, DefaultDatabase); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"p", "p1", "c"} {
		if c, err = c.CreateTable(w, DefaultDatabase, TableDef{Name: name, Columns: []Column{{Name: "a", Type: types.T{Family: types.Int4}}}}); err != nil {
			t.Fatal(err)
		}
	}
	set := func(name string, f func(*Table)) {
		if c, err = c.AlterTable(w, DefaultDatabase, name, func(nt *Table) error { f(nt); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	set("p", func(nt *Table) {
		nt.PartitionBy = &PartitionSpec{Strategy: "range", Keys: []string{"a"}, KeyTypes: []types.T{{Family: types.Int4}}, KeyColumns: []bool{true}}
	})
	set("p1", func(nt *Table) {
		nt.PartitionOf = "p"
		nt.Bound = &PartitionBound{From: []RangeDatum{{Inf: -1}}, To: []RangeDatum{{Value: types.NewInt(10)}}, Text: "FOR VALUES FROM (MINVALUE) TO (10)"}
	})
	set("c", func(nt *Table) { nt.Inherits = []string{"p1"} })
	for _, f := range formats {
		format := f.name
		doc, err := f.export(c)
		if err != nil {
			t.Fatal(err)
		}
		back, err := f.parse(doc)
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		p, _ := back.Table(DefaultDatabase, "p")
		p1, _ := back.Table(DefaultDatabase, "p1")
		ch, _ := back.Table(DefaultDatabase, "c")
		if p == nil || p1 == nil || ch == nil || !p.Partitioned() || p1.PartitionOf != "p" || p1.Bound.Text != "FOR VALUES FROM (MINVALUE) TO (10)" ||
			p1.Bound.To[0].Value.I != 10 || p1.Bound.From[0].Inf != -1 || len(ch.Inherits) != 1 {
			t.Errorf("%s: tree lost: %+v %+v %+v", format, p, p1, ch)
		}
	}
}
