package session_test

import (
	"context"
	"testing"

	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/session"
)

// TestAlterTableSurvivesRestart runs the column and rename forms of ALTER
// TABLE on a Pebble store with indexes and rows, checks every index
// against the master rows, and reopens the store: the changed descriptors
// and the rows read back.
func TestAlterTableSurvivesRestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := session.Open(session.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	s, err := db.Session("")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE TABLE t (a INT PRIMARY KEY, b INT, c TEXT, d INT)",
		"CREATE INDEX t_c ON t (c)",
		"CREATE INDEX t_bd ON t (b, d)",
		"CREATE UNIQUE INDEX t_d ON t (d)",
		"INSERT INTO t SELECT g, g % 7, 'v' || (g % 5), g * 10 FROM generate_series(1, 500) g",
		"ALTER TABLE t RENAME COLUMN c TO cc",
		"ALTER TABLE t DROP COLUMN b",
		"ALTER TABLE t ALTER COLUMN cc SET NOT NULL",
		"ALTER TABLE t ALTER COLUMN d SET DEFAULT 0",
		"ALTER TABLE t RENAME TO t2",
		"UPDATE t2 SET d = d + 1 WHERE a % 3 = 0",
		"DELETE FROM t2 WHERE a % 11 = 0",
		"INSERT INTO t2 (a, cc) VALUES (1000, 'new')",
		"ALTER TABLE t2 ALTER COLUMN d TYPE numeric(12,2) USING d / 4.0",
		"ALTER TABLE t2 ALTER COLUMN a TYPE bigint",
	} {
		if _, err := s.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	check := func(db *session.DB) {
		t.Helper()
		probs, err := index.Check(db.Engine(), db.Catalog())
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range probs {
			t.Errorf("index.Check: %s", p)
		}
	}
	check(db)
	want := `456 "v4" "v3" 0.00`
	got := func(db *session.DB) string {
		t.Helper()
		s, err := db.Session("")
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Exec(ctx, "SELECT count(*), max(cc), (SELECT cc FROM t2 WHERE a = 3), (SELECT d FROM t2 WHERE a = 1000) FROM t2")
		if err != nil {
			t.Fatal(err)
		}
		r := res[0].Rows[0]
		return r[0].String() + " " + r[1].String() + " " + r[2].String() + " " + r[3].String()
	}
	if g := got(db); g != want {
		t.Fatalf("before restart: %s, want %s", g, want)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = session.Open(session.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if g := got(db); g != want {
		t.Fatalf("after restart: %s, want %s", g, want)
	}
	check(db)
	tbl, err := db.Catalog().Table("kvsql", "t2")
	if err != nil {
		t.Fatal(err)
	}
	if len(tbl.Indexes) != 2 || tbl.IndexByName("t_bd") != nil {
		t.Errorf("indexes after DROP COLUMN b: %v, want t_c and t_d", tbl.Indexes)
	}
	if d := tbl.Columns[tbl.ColumnOrdinal("d")].Type; d.String() != "numeric(12,2)" {
		t.Errorf("column d after ALTER TYPE: %s, want numeric(12,2)", d)
	}
}
