package foreign_test

import (
	"context"
	"encoding/binary"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/syndtr/goleveldb/leveldb"

	"github.com/kvsql/kvsql/foreign"
	"github.com/kvsql/kvsql/pgerror"
)

// counterDoc is docXML with both stores writable, a decimal counter
// that holds the next id (a:nextId, as seed 000's users:nextId) behind
// ta's id default, and a big-endian counter that holds the last id in
// the Pebble store.
func counterDoc() string {
	doc := strings.Replace(docXML, `store="leveldb:fl.ldb"`, `store="leveldb:fl.ldb" readonly="false"`, 1)
	doc = strings.Replace(doc, `store="pebble:fp.pebble"`, `store="pebble:fp.pebble" readonly="false"`, 1)
	doc = strings.Replace(doc, `<Attribute attributeName="id" type="bigint" isnull="0"/>
          <Attribute attributeName="name" type="text" isnull="1"/>
          <Attribute attributeName="score" type="bigint" isnull="1"/>
        </Structure>
        <ForeignLayout shape="attribute"`, `<Attribute attributeName="id" type="bigint" isnull="0" default="nextval('ta_nextid')"/>
          <Attribute attributeName="name" type="text" isnull="1"/>
          <Attribute attributeName="score" type="bigint" isnull="1"/>
        </Structure>
        <ForeignLayout shape="attribute"`, 1)
	parts := strings.SplitN(doc, "</Tables>", 3)
	return parts[0] + `</Tables>
    <Counters><Counter sequenceName="ta_nextid" key="a:nextId"/></Counters>` + parts[1] + `</Tables>
    <Counters><Counter sequenceName="tj_ids" key="c{0xff}ids" encoding="uint64be" holds="last"/></Counters>` + parts[2]
}

// TestCounters checks the application's counters as sequences: nextval,
// currval, setval and a column default advance the application's own
// key, which a plain LevelDB or Pebble read sees afterwards.
func TestCounters(t *testing.T) {
	f := openFixtureDoc(t, rand.New(rand.NewSource(3)), counterDoc())
	ctx := context.Background()
	for _, c := range []struct {
		s       string
		q, want string
	}{
		{"fl", "SELECT nextval('ta_nextid')", "61"}, // a:nextId held 61, the next id
		{"fl", "SELECT currval('ta_nextid'), lastval()", "61|61"},
		{"fl", "SELECT last_value, is_called FROM ta_nextid", "61|true"},
		{"fl", "INSERT INTO ta (name, score) VALUES ('via default', 1) RETURNING id", "62"},
		{"fl", "SELECT name FROM ta WHERE id = 62", "via default"},
		{"fl", "SELECT setval('ta_nextid', 100)", "100"},
		{"fl", "SELECT nextval('ta_nextid')", "101"},
		{"fl", "SELECT setval('ta_nextid', 200, false)", "200"},
		{"fl", "SELECT nextval('ta_nextid'), nextval('ta_nextid')", "200|201"},
		{"fl", "SELECT relkind FROM pg_class WHERE relname = 'ta_nextid'", "S"},
		{"fl", "SELECT sequence_name, data_type, increment FROM information_schema.sequences", "ta_nextid|bigint|1"},
		{"fp", "SELECT last_value, is_called FROM tj_ids", "1|false"}, // absent: at its start
		{"fp", "SELECT nextval('tj_ids'), nextval('tj_ids')", "1|2"},
		{"fp", "SELECT max_value FROM pg_sequences WHERE sequencename = 'tj_ids'", "9223372036854775807"},
	} {
		s := f.fl
		if c.s == "fp" {
			s = f.fp
		}
		if got := strings.TrimSpace(rowsText(mustExec(t, s, c.q))); got != c.want {
			t.Errorf("%s: %q, want %q", c.q, got, c.want)
		}
	}
	for _, c := range []struct {
		q    string
		code pgerror.Code
	}{
		{"ALTER SEQUENCE ta_nextid RESTART", pgerror.WrongObjectType},
		{"DROP SEQUENCE ta_nextid", pgerror.WrongObjectType},
		{"ALTER SEQUENCE ta_nextid RENAME TO x", pgerror.WrongObjectType},
		{"SELECT setval('ta_nextid', 0)", pgerror.NumericValueOutOfRange},
		{"BEGIN READ ONLY; SELECT nextval('ta_nextid')", pgerror.ReadOnlySQLTransaction},
	} {
		_, err := f.fl.Exec(ctx, c.q)
		if !pgerror.HasCode(err, c.code) {
			t.Errorf("%s: %v, want %s", c.q, err, c.code)
		}
		f.fl.Exec(ctx, "ROLLBACK")
	}
	// A nextval inside a transaction that rolls back is not taken back,
	// as in PostgreSQL.
	mustExec(t, f.fl, "BEGIN")
	mustExec(t, f.fl, "SELECT nextval('ta_nextid')")
	mustExec(t, f.fl, "ROLLBACK")
	if err := f.db.Close(); err != nil {
		t.Fatal(err)
	}
	ldb, err := leveldb.OpenFile(filepath.Join(f.dir, "fl.ldb"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := ldb.Get([]byte("a:nextId"), nil); err != nil || string(v) != "203" {
		t.Errorf("a:nextId: %q, %v; want 203 (the id after the last one handed out)", v, err)
	}
	if v, err := ldb.Get([]byte("a:62:name"), nil); err != nil || string(v) != "via default" {
		t.Errorf("a:62:name: %q, %v", v, err)
	}
	ldb.Close()
	pst, err := foreign.CreatePebble(filepath.Join(f.dir, "fp.pebble"))
	if err != nil {
		t.Fatal(err)
	}
	defer pst.Close()
	v, found, err := pst.Get([]byte("c\xffids"))
	if err != nil || !found || len(v) != 8 || binary.BigEndian.Uint64(v) != 2 {
		t.Errorf("c 0xff ids: % x, %v, %v; want the 8-byte 2 (the last id handed out)", v, found, err)
	}
}

// TestCounterReadOnly checks that nextval and setval on a counter of a
// read-only attachment are refused (25006) and reading it is not.
func TestCounterReadOnly(t *testing.T) {
	doc := strings.Replace(counterDoc(), `store="leveldb:fl.ldb" readonly="false"`, `store="leveldb:fl.ldb"`, 1)
	f := openFixtureDoc(t, rand.New(rand.NewSource(4)), doc)
	ctx := context.Background()
	for _, q := range []string{"SELECT nextval('ta_nextid')", "SELECT setval('ta_nextid', 5)"} {
		if _, err := f.fl.Exec(ctx, q); !pgerror.HasCode(err, pgerror.ReadOnlySQLTransaction) {
			t.Errorf("%s: %v, want 25006", q, err)
		}
	}
	if got := strings.TrimSpace(rowsText(mustExec(t, f.fl, "SELECT last_value, is_called FROM ta_nextid"))); got != "60|true" {
		t.Errorf("ta_nextid: %q, want \"60|true\"", got)
	}
}
