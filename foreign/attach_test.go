package foreign_test

import (
	"context"
	"math/rand"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
)

// TestExplainAndMalformed checks what EXPLAIN says of each access and
// that a malformed key is skipped, counted and warned about.
func TestExplainAndMalformed(t *testing.T) {
	f := openFixture(t, rand.New(rand.NewSource(1)))
	for _, c := range []struct {
		s    string
		q    string
		want string
	}{
		{"fl", "EXPLAIN SELECT * FROM ta WHERE id = 5", "foreign prefix scan of a:{id}:{attribute} key (id = 5)"},
		{"fl", "EXPLAIN SELECT * FROM ta WHERE id IN (5, 7)", "key (id = 5) | (id = 7)"},
		{"fl", "EXPLAIN SELECT * FROM ta WHERE id > 5", `foreign full scan of a:{id}:{attribute} prefix "a:"; range on id not used: decimal keys do not sort by value`},
		{"fl", "EXPLAIN SELECT * FROM tp WHERE g = 2 AND id = 9", "foreign prefix scan of p:{g}:{id} key (g = 2, id = 9)"},
		{"fp", "EXPLAIN SELECT * FROM tj WHERE g = 2 AND id BETWEEN 3 AND 9", "foreign range scan of j{0xff}{g}{id} key (g = 2, id >= 3, id <= 9)"},
		{"fp", "EXPLAIN SELECT * FROM tf WHERE id < 10", "foreign range scan of f{0x00}{id} key (id < 10)"},
	} {
		s := f.fl
		if c.s == "fp" {
			s = f.fp
		}
		got := rowsText(mustExec(t, s, c.q))
		if !strings.Contains(got, c.want) {
			t.Errorf("%s:\n%s\nwant it to contain %q", c.q, got, c.want)
		}
	}
	// a:x1:name matches the template's literals, but x1 is not decimal.
	got := rowsText(mustExec(t, f.fl, "EXPLAIN ANALYZE SELECT * FROM ta"))
	if !strings.Contains(got, "malformed=1)") {
		t.Errorf("EXPLAIN ANALYZE does not count the malformed key:\n%s", got)
	}
	f.fl.Notices() // drop EXPLAIN ANALYZE's warning
	mustExec(t, f.fl, "SELECT count(*) FROM ta")
	ns := f.fl.Notices()
	if len(ns) != 1 || ns[0].Severity != "WARNING" || !strings.Contains(ns[0].Err.Error(), `foreign table "ta": skipped 1 key(s)`) {
		t.Errorf("notices %v, want one WARNING about the skipped key", ns)
	}
	// Prefix scans never read the malformed key.
	mustExec(t, f.fl, "SELECT * FROM ta WHERE id = 1")
	if ns := f.fl.Notices(); len(ns) != 0 {
		t.Errorf("a prefix scan warned: %v", ns)
	}
	// Writes are refused while the attachment is read-only.
	for _, q := range []string{"INSERT INTO ta VALUES (1000, 'x', 1)", "UPDATE ta SET name = 'y'", "DELETE FROM tp",
		"ALTER TABLE ta ADD COLUMN x int", "ALTER TABLE ta DROP COLUMN score", "ALTER TABLE ta RENAME COLUMN name TO nm",
		"ALTER TABLE ta ALTER COLUMN name SET NOT NULL", "CREATE INDEX ON ta (name)", "TRUNCATE ta"} {
		_, err := f.fl.Exec(context.Background(), q)
		if !pgerror.HasCode(err, pgerror.WrongObjectType) {
			t.Errorf("%s: %v, want 42809", q, err)
		}
	}
}

// TestDocumentErrors checks that bad layouts are refused with a message
// that names the element.
func TestDocumentErrors(t *testing.T) {
	table := func(layout string, cols string) string {
		if cols == "" {
			cols = `<Attribute attributeName="id" type="bigint" isnull="0"/><Attribute attributeName="v" type="text" isnull="1"/>`
		}
		return `<Databases formatVersion="1" nextID="100"><DataBase dbName="f" store="leveldb:x"><Tables>
			<Table tableName="t"><Structure>` + cols + `</Structure>` + layout + `</Table></Tables></DataBase></Databases>`
	}
	counter := func(counters string) string {
		return `<Databases formatVersion="1" nextID="100"><DataBase dbName="f" store="leveldb:x"><Tables/><Counters>` + counters + `</Counters></DataBase></Databases>`
	}
	for _, c := range []struct{ doc, want string }{
		{`<Databases formatVersion="1" nextID="100"><DataBase dbName="f" store="redis:x"><Tables/></DataBase></Databases>`, "want leveldb:PATH or pebble:PATH"},
		{`<Databases formatVersion="1" nextID="100"><DataBase dbName="f" store="leveldb:x" readonly="no"><Tables/></DataBase></Databases>`, `readonly="no" must be true or false`},
		{table("", ""), "needs a ForeignLayout"},
		{counter(`<Counter sequenceName="s" key="n" encoding="text"/>`), `encoding "text": a counter is decimal or one of`},
		{counter(`<Counter sequenceName="s" key="n" holds="first"/>`), `holds="first" must be next or last`},
		{counter(`<Counter sequenceName="s"/>`), `Counter "s": key is missing`},
		{counter(`<Counter key="n"/>`), `Counter: sequenceName is missing`},
		{counter(`<Counter sequenceName="s" key="n{0xg0}"/>`), `is not {0xHH...}`},
		{counter(`<Counter sequenceName="s" key="n"/><Counter sequenceName="s" key="m"/>`), `name already used by`},
		{table(`<ForeignLayout shape="tree" key="t:{id}"/>`, ""), `shape "tree" is not one of`},
		{table(`<ForeignLayout shape="attribute" key="t:{id}"/>`, ""), "needs {attribute} as the key's last field"},
		{table(`<ForeignLayout shape="row" key="t:{id}"/>`, ""), "needs format json, delimited or fixed"},
		{table(`<ForeignLayout shape="row" key="t:{idx}" format="json"/>`, ""), "{idx} names no column"},
		{table(`<ForeignLayout shape="row" key="{id}:t" format="json"/>`, ""), "must start with a literal prefix"},
		{table(`<ForeignLayout shape="row" key="t:{id}{v}" format="json"/>`, ""), "follows a variable-width field"},
		{table(`<ForeignLayout shape="row" key="t:{id}" format="delimited"/>`, ""), "needs a separator"},
		{table(`<ForeignLayout shape="row" key="t:{id}" format="fixed"/>`, ""), `column "v": format="fixed" needs a width`},
		{table(`<ForeignLayout shape="presence" key="t:{id}"/>`, ""), "keeps every column in the key"},
		{table(`<ForeignLayout shape="row" key="t:{id}" format="json"><Field attributeName="id" encoding="uint32be"/><Field attributeName="v" encoding="uint8"/></ForeignLayout>`, ""), "type text cannot be read in encoding uint8"},
		{table(`<ForeignLayout shape="row" key="t:{id}" format="json"><Field attributeName="id" encoding="float"/></ForeignLayout>`, ""), `encoding "float" is not one of`},
		{table(`<ForeignLayout shape="row" key="t:{0xfz}{id}" format="json"/>`, ""), "is not {0xHH...}"},
		{table(`<ForeignLayout shape="row" key="t:{id}" format="json"><Field attributeName="w"/></ForeignLayout>`, ""), `Field "w": no such Attribute`},
		{table(`<ForeignLayout shape="row" key="t:{id}" format="json"/>`, `<Attribute attributeName="id" type="timestamp" isnull="0"/>`), "cannot be read in encoding text"},
	} {
		_, err := catalog.ImportXML([]byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) || !pgerror.HasCode(err, pgerror.InvalidParameterValue) {
			t.Errorf("%s\n  error %v, want 22023 containing %q", c.doc, err, c.want)
		}
	}
}
