package foreign_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/foreign"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/session"
	"github.com/kvsql/kvsql/types"
)

var seedFlag = flag.Int64("seed", 0, "seed of TestDifferential's queries (0: time)")

// The same rows, three ways: in a LevelDB store (one key per attribute,
// delimited values, decimal presence keys), in a Pebble store (JSON
// values under big-endian integer keys with 0xff delimiters, fixed-width
// records, big-endian presence keys), and in kvsql's own tables.
const docXML = `<Databases formatVersion="1" nextID="100">
  <DataBase dbName="fl" store="leveldb:fl.ldb">
    <Tables>
      <Table tableName="ta">
        <Structure>
          <Attribute attributeName="id" type="bigint" isnull="0"/>
          <Attribute attributeName="name" type="text" isnull="1"/>
          <Attribute attributeName="score" type="bigint" isnull="1"/>
        </Structure>
        <ForeignLayout shape="attribute" key="a:{id}:{attribute}"/>
      </Table>
      <Table tableName="td">
        <Structure>
          <Attribute attributeName="k" type="text" isnull="0"/>
          <Attribute attributeName="name" type="text" isnull="1"/>
          <Attribute attributeName="score" type="bigint" isnull="1"/>
        </Structure>
        <ForeignLayout shape="row" key="d:{k}" format="delimited" separator="|"/>
      </Table>
      <Table tableName="tp">
        <Structure>
          <Attribute attributeName="g" type="bigint" isnull="0"/>
          <Attribute attributeName="id" type="bigint" isnull="0"/>
        </Structure>
        <ForeignLayout shape="presence" key="p:{g}:{id}"/>
      </Table>
    </Tables>
  </DataBase>
  <DataBase dbName="fp" store="pebble:fp.pebble">
    <Tables>
      <Table tableName="tj">
        <Structure>
          <Attribute attributeName="g" type="bigint" isnull="0"/>
          <Attribute attributeName="id" type="bigint" isnull="0"/>
          <Attribute attributeName="name" type="text" isnull="1"/>
          <Attribute attributeName="score" type="bigint" isnull="1"/>
        </Structure>
        <ForeignLayout shape="row" key="j{0xff}{g}{id}" format="json">
          <Field attributeName="g" encoding="uint32be"/>
          <Field attributeName="id" encoding="uint64be"/>
          <Field attributeName="name" source="n"/>
        </ForeignLayout>
      </Table>
      <Table tableName="tf">
        <Structure>
          <Attribute attributeName="id" type="bigint" isnull="0"/>
          <Attribute attributeName="name" type="text" isnull="0"/>
          <Attribute attributeName="score" type="bigint" isnull="0"/>
        </Structure>
        <ForeignLayout shape="row" key="f{0x00}{id}" format="fixed">
          <Field attributeName="id" encoding="uint16be"/>
          <Field attributeName="name" width="8"/>
          <Field attributeName="score" encoding="int32be"/>
        </ForeignLayout>
      </Table>
      <Table tableName="tq">
        <Structure>
          <Attribute attributeName="g" type="bigint" isnull="0"/>
          <Attribute attributeName="id" type="bigint" isnull="0"/>
        </Structure>
        <ForeignLayout shape="presence" key="q{0xff}{g}{0xff}{id}">
          <Field attributeName="g" encoding="uint16be"/>
          <Field attributeName="id" encoding="uint16be"/>
        </ForeignLayout>
      </Table>
    </Tables>
  </DataBase>
</Databases>`

// nativeDDL creates the same tables in kvsql's own layout.
var nativeDDL = []string{
	"CREATE TABLE ta (id bigint PRIMARY KEY, name text, score bigint)",
	"CREATE TABLE td (k text PRIMARY KEY, name text, score bigint)",
	"CREATE TABLE tp (g bigint, id bigint, PRIMARY KEY (g, id))",
	"CREATE TABLE tj (g bigint, id bigint, name text, score bigint, PRIMARY KEY (g, id))",
	"CREATE TABLE tf (id bigint PRIMARY KEY, name text NOT NULL, score bigint NOT NULL)",
	"CREATE TABLE tq (g bigint, id bigint, PRIMARY KEY (g, id))",
}

type fixture struct {
	db             *session.DB
	dir            string
	native, fl, fp *session.Session
}

// openFixture writes both stores, attaches them and loads the native
// tables, all with the rows rng chooses.
func openFixture(t *testing.T, rng *rand.Rand) *fixture { return openFixtureDoc(t, rng, docXML) }

func openFixtureDoc(t *testing.T, rng *rand.Rand, xmlDoc string) *fixture {
	t.Helper()
	dir := t.TempDir()
	var inserts []string
	var fl, fp []foreign.KV
	put := func(to *[]foreign.KV, k, v []byte) { *to = append(*to, foreign.KV{Key: k, Value: v}) }
	be := func(n int, v uint64) []byte {
		b := make([]byte, 8)
		binary.BigEndian.PutUint64(b, v)
		return b[8-n:]
	}
	for id := 0; id < 60; id++ {
		if rng.Intn(4) == 0 {
			continue
		}
		name := fmt.Sprintf("n%d", rng.Intn(10))
		score := rng.Intn(100) - 20
		switch rng.Intn(5) {
		case 0: // no score: the attribute key is absent
			put(&fl, []byte(fmt.Sprintf("a:%d:name", id)), []byte(name))
			inserts = append(inserts, fmt.Sprintf("INSERT INTO ta VALUES (%d, '%s', NULL)", id, name))
		default:
			put(&fl, []byte(fmt.Sprintf("a:%d:name", id)), []byte(name))
			put(&fl, []byte(fmt.Sprintf("a:%d:score", id)), []byte(fmt.Sprint(score)))
			inserts = append(inserts, fmt.Sprintf("INSERT INTO ta VALUES (%d, '%s', %d)", id, name, score))
		}
		k := fmt.Sprintf("k%d", id)
		put(&fl, []byte("d:"+k), []byte(fmt.Sprintf("%s|%d", name, score)))
		inserts = append(inserts, fmt.Sprintf("INSERT INTO td VALUES ('%s', '%s', %d)", k, name, score))
		g := rng.Intn(6)
		put(&fl, []byte(fmt.Sprintf("p:%d:%d", g, id)), nil)
		inserts = append(inserts, fmt.Sprintf("INSERT INTO tp VALUES (%d, %d)", g, id))
		v, _ := json.Marshal(map[string]any{"n": name, "score": score})
		put(&fp, append(append([]byte("j\xff"), be(4, uint64(g))...), be(8, uint64(id))...), v)
		inserts = append(inserts, fmt.Sprintf("INSERT INTO tj VALUES (%d, %d, '%s', %d)", g, id, name, score))
		rec := append(append([]byte(name), make([]byte, 8-len(name))...), be(4, uint64(uint32(int32(score))))...)
		put(&fp, append([]byte("f\x00"), be(2, uint64(id))...), rec)
		inserts = append(inserts, fmt.Sprintf("INSERT INTO tf VALUES (%d, '%s', %d)", id, name, score))
		put(&fp, append(append(append([]byte("q\xff"), be(2, uint64(g))...), 0xff), be(2, uint64(id))...), nil)
		inserts = append(inserts, fmt.Sprintf("INSERT INTO tq VALUES (%d, %d)", g, id))
	}
	// Keys that are not the tables' rows: another application key and a
	// malformed one (a decimal id that is not a number), skipped.
	put(&fl, []byte("a:nextId"), []byte("61"))
	put(&fl, []byte("a:x1:name"), []byte("bad"))
	writeStore(t, "leveldb:"+filepath.Join(dir, "fl.ldb"), fl)
	writeStore(t, "pebble:"+filepath.Join(dir, "fp.pebble"), fp)

	data := filepath.Join(dir, "data")
	doc, err := catalog.ImportXML([]byte(xmlDoc))
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.ResolveStores(dir); err != nil {
		t.Fatal(err)
	}
	e, err := kv.OpenPebble(data, kv.PebbleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	old, err := catalog.Open(e)
	if err != nil {
		t.Fatal(err)
	}
	c, err := old.AttachForeign(doc)
	if err != nil {
		t.Fatal(err)
	}
	b := e.NewBatch()
	if err := catalog.ClearMeta(b); err != nil {
		t.Fatal(err)
	}
	if err := catalog.Install(b, c); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(true); err != nil {
		t.Fatal(err)
	}
	b.Close()
	e.Close()

	db, err := session.Open(session.Options{Dir: data})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f := &fixture{db: db, dir: dir}
	for _, p := range []struct {
		s  **session.Session
		db string
	}{{&f.native, "kvsql"}, {&f.fl, "fl"}, {&f.fp, "fp"}} {
		if *p.s, err = db.Session(p.db); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range append(nativeDDL, inserts...) {
		mustExec(t, f.native, q)
	}
	// A native table in the foreign database, to join with.
	for _, s := range []*session.Session{f.native, f.fl} {
		mustExec(t, s, "CREATE TABLE nat (id bigint PRIMARY KEY, tag text)")
		mustExec(t, s, "INSERT INTO nat SELECT g, 'tag' || g FROM generate_series(0, 59, 3) AS g")
	}
	return f
}

func writeStore(t *testing.T, url string, kvs []foreign.KV) {
	t.Helper()
	engine, path, _ := foreign.ParseStoreURL(url)
	var st foreign.Store
	var err error
	if engine == "leveldb" {
		st, err = foreign.CreateLevelDB(path)
	} else {
		st, err = foreign.CreatePebble(path)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Write(kvs); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}

func mustExec(t *testing.T, s *session.Session, q string) []session.Result {
	t.Helper()
	res, err := s.Exec(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return res
}

// rowsText renders a result's rows sorted, for comparison.
func rowsText(res []session.Result) string {
	var lines []string
	for _, r := range res[len(res)-1].Rows {
		cells := make([]string, len(r))
		for i, d := range r {
			switch d.Kind {
			case types.KindNull:
				cells[i] = "NULL"
			case types.KindText:
				cells[i] = d.S
			default:
				cells[i] = d.String()
			}
		}
		lines = append(lines, strings.Join(cells, "|"))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// genQuery returns a random query over the tables of one foreign
// database (fl or fp), with predicates on key fields and other columns.
func genQuery(rng *rand.Rand, db string) string {
	tables := map[string][]string{
		"fl": {"ta", "td", "tp"},
		"fp": {"tj", "tf", "tq"},
	}[db]
	cols := map[string][]string{
		"ta": {"id", "name", "score"}, "td": {"k", "name", "score"}, "tp": {"g", "id"},
		"tj": {"g", "id", "name", "score"}, "tf": {"id", "name", "score"}, "tq": {"g", "id"},
	}
	tab := tables[rng.Intn(len(tables))]
	pred := func(alias, tab string) string {
		var conj []string
		for _, c := range cols[tab] {
			if rng.Intn(3) != 0 {
				continue
			}
			col := alias + "." + c
			switch c {
			case "name":
				conj = append(conj, fmt.Sprintf("%s = 'n%d'", col, rng.Intn(10)))
			case "k":
				conj = append(conj, fmt.Sprintf("%s IN ('k%d', 'k%d')", col, rng.Intn(60), rng.Intn(60)))
			default:
				v := rng.Intn(60)
				if c == "g" {
					v = rng.Intn(6)
				}
				op := []string{"=", "<", ">=", "<>", "IN", "BETWEEN"}[rng.Intn(6)]
				switch op {
				case "IN":
					conj = append(conj, fmt.Sprintf("%s IN (%d, %d, %d)", col, v, rng.Intn(60), -1))
				case "BETWEEN":
					conj = append(conj, fmt.Sprintf("%s BETWEEN %d AND %d", col, v, v+rng.Intn(20)))
				default:
					conj = append(conj, fmt.Sprintf("%s %s %d", col, op, v))
				}
			}
		}
		if len(conj) == 0 {
			return "true"
		}
		return strings.Join(conj, " AND ")
	}
	switch rng.Intn(4) {
	case 0:
		return fmt.Sprintf("SELECT count(*), count(%s) FROM %s x WHERE %s", cols[tab][len(cols[tab])-1], tab, pred("x", tab))
	case 1:
		other := tables[rng.Intn(len(tables))]
		if tab != "td" && other != "td" { // td has no integer id
			return fmt.Sprintf("SELECT x.*, y.* FROM %s x JOIN %s y ON x.id = y.id WHERE %s AND %s",
				tab, other, pred("x", tab), pred("y", other))
		}
	case 2:
		if db == "fl" {
			return fmt.Sprintf("SELECT x.*, n.tag FROM %s x JOIN nat n ON n.id = x.%s WHERE %s", tab, cols[tab][len(cols[tab])-1], pred("x", tab))
		}
	}
	return fmt.Sprintf("SELECT * FROM %s x WHERE %s", tab, pred("x", tab))
}

// TestDifferential runs random queries on the attached stores and on
// the same rows in kvsql's own tables, and wants the same answers.
func TestDifferential(t *testing.T) {
	seed := *seedFlag
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("seed %d (rerun with -seed %d)", seed, seed)
	rng := rand.New(rand.NewSource(seed))
	f := openFixture(t, rng)
	for i := 0; i < 300; i++ {
		db := []string{"fl", "fp"}[i%2]
		q := genQuery(rng, db)
		s := f.fl
		if db == "fp" {
			s = f.fp
		}
		want := rowsText(mustExec(t, f.native, q))
		got := rowsText(mustExec(t, s, q))
		if got != want {
			plan := rowsText(mustExec(t, s, "EXPLAIN "+q))
			t.Fatalf("seed %d, query %d on %s:\n%s\nplan:\n%s\ngot:\n%s\nwant:\n%s", seed, i, db, q, plan, got, want)
		}
	}
}
