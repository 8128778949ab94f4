package session_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/session"
	"github.com/kvsql/kvsql/types"
)

// ddlScene is a store on disk with sessions that interleave statements.
type ddlScene struct {
	t   *testing.T
	dir string
	db  *session.DB
}

func newDDLScene(t *testing.T) *ddlScene {
	t.Helper()
	sc := &ddlScene{t: t, dir: t.TempDir()}
	sc.open()
	t.Cleanup(func() { sc.db.Close() })
	return sc
}

func (sc *ddlScene) open() {
	db, err := session.Open(session.Options{Dir: sc.dir, NoSync: true})
	if err != nil {
		sc.t.Fatal(err)
	}
	sc.db = db
}

// reopen closes the store and opens it again: the catalog is then what
// the store holds.
func (sc *ddlScene) reopen() {
	sc.db.Close()
	sc.open()
}

func (sc *ddlScene) session() *session.Session {
	s, err := sc.db.Session("")
	if err != nil {
		sc.t.Fatal(err)
	}
	return s
}

func (sc *ddlScene) exec(s *session.Session, sql string) {
	sc.t.Helper()
	if _, err := s.Exec(context.Background(), sql); err != nil {
		sc.t.Fatalf("%s: %v", sql, err)
	}
}

func (sc *ddlScene) query(s *session.Session, sql string) string {
	sc.t.Helper()
	res, err := s.Exec(context.Background(), sql)
	if err != nil {
		sc.t.Fatalf("%s: %v", sql, err)
	}
	var got strings.Builder
	for _, row := range res[len(res)-1].Rows {
		for _, d := range row {
			if d.Kind == types.KindText {
				got.WriteString(d.S)
			} else {
				got.WriteString(d.String())
			}
		}
	}
	return got.String()
}

// check runs the index ↔ master consistency check and the id check:
// no two key spaces of the catalog share an id.
func (sc *ddlScene) check() {
	sc.t.Helper()
	snap := sc.db.Engine().NewSnapshot()
	defer snap.Close()
	cat := sc.db.Catalog()
	probs, err := index.Check(snap, cat)
	if err != nil || len(probs) > 0 {
		sc.t.Fatalf("index check: %v %v", probs, err)
	}
	seen := map[uint64]string{}
	for _, name := range cat.Databases() {
		d, _ := cat.Database(name)
		for _, tb := range d.Tables {
			ids := []uint64{tb.ID}
			for _, idx := range tb.Indexes {
				ids = append(ids, idx.ID)
			}
			for _, id := range ids {
				if other, ok := seen[id]; ok {
					sc.t.Fatalf("key space %d of %s is also %s's", id, tb.Name, other)
				}
				seen[id] = tb.Name
			}
		}
	}
}

// TestConcurrentDDLOnOtherObjectsCommits: DDL in a transaction commits
// beside other transactions' writes and DDL on other objects, as on
// PostgreSQL, whose DDL locks only what it changes. It used to fail with
// 40001 whenever anything else in the database committed meanwhile.
func TestConcurrentDDLOnOtherObjectsCommits(t *testing.T) {
	sc := newDDLScene(t)
	a, b, c := sc.session(), sc.session(), sc.session()
	sc.exec(a, "CREATE TABLE t1 (id INT PRIMARY KEY, v INT)")
	sc.exec(a, "CREATE TABLE t2 (id INT PRIMARY KEY, v INT)")

	// Two sessions each make a temporary table in a transaction.
	sc.exec(a, "BEGIN")
	sc.exec(a, "CREATE TEMP TABLE ta (x INT)")
	sc.exec(b, "BEGIN")
	sc.exec(b, "CREATE TEMP TABLE tb (x INT)")
	sc.exec(b, "INSERT INTO tb VALUES (2)")
	sc.exec(a, "INSERT INTO ta VALUES (1)")
	sc.exec(b, "COMMIT")
	sc.exec(a, "COMMIT")
	if got := sc.query(a, "SELECT x FROM ta") + sc.query(b, "SELECT x FROM tb"); got != "12" {
		t.Fatalf("temporary tables hold %q, want 12", got)
	}

	// A migration beside writes to another table, and a writer beside
	// an autocommit CREATE elsewhere.
	sc.exec(a, "BEGIN")
	sc.exec(a, "CREATE TABLE m (id INT PRIMARY KEY, t1 INT REFERENCES t1)")
	sc.exec(a, "CREATE INDEX m_t1 ON m (t1)")
	sc.exec(b, "BEGIN")
	sc.exec(b, "INSERT INTO t2 VALUES (1, 1)")
	sc.exec(c, "INSERT INTO t2 VALUES (2, 2)")
	sc.exec(c, "CREATE SEQUENCE s")
	sc.exec(c, "CREATE VIEW v AS SELECT id FROM t2")
	sc.exec(a, "INSERT INTO t1 VALUES (1, 1)")
	sc.exec(a, "INSERT INTO m VALUES (1, 1)")
	sc.exec(b, "INSERT INTO t2 VALUES (3, 3)")
	sc.exec(a, "COMMIT")
	sc.exec(b, "COMMIT")
	if got := sc.query(c, "SELECT (SELECT count(*) FROM t2)::text || (SELECT count(*) FROM m)::text || (SELECT count(*) FROM v)::text"); got != "313" {
		t.Fatalf("counts t2, m, v: %q, want 313", got)
	}

	// A transaction that began before a table existed sees it in its next
	// statement.
	sc.exec(b, "BEGIN")
	sc.exec(b, "INSERT INTO t2 VALUES (4, 4)")
	sc.exec(c, "CREATE TABLE late (x INT)")
	sc.exec(c, "INSERT INTO late VALUES (7)")
	if got := sc.query(b, "SELECT x FROM late"); got != "7" {
		t.Fatalf("a table created meanwhile: %q", got)
	}
	sc.exec(b, "INSERT INTO late VALUES (8)")
	sc.exec(b, "COMMIT")

	// Every id stays unique, and the next CREATE takes a new one, also
	// after a restart.
	sc.check()
	sc.reopen()
	a = sc.session()
	sc.exec(a, "CREATE TABLE after_restart (id INT PRIMARY KEY, v INT UNIQUE)")
	sc.exec(a, "INSERT INTO after_restart VALUES (1, 1)")
	if got := sc.query(a, "SELECT count(*) FROM m JOIN t1 ON m.t1 = t1.id"); got != "1" {
		t.Fatalf("after a restart, m joined with t1: %q", got)
	}
	if got := sc.query(a, "SELECT string_agg(x::text, ',' ORDER BY x) FROM late"); got != "7,8" {
		t.Fatalf("after a restart, late holds %q", got)
	}
	sc.check()
}

// TestConcurrentDDLOnOneObjectConflicts: what PostgreSQL's locks
// serialize, kvsql refuses with 40001 to the second to commit: two
// changes of one table, two objects of one name, a write under a
// definition that changed, and DDL that read rows another transaction
// changed meanwhile.
func TestConcurrentDDLOnOneObjectConflicts(t *testing.T) {
	sc := newDDLScene(t)
	a, b := sc.session(), sc.session()
	sc.exec(a, "CREATE TABLE t (id INT PRIMARY KEY, v INT)")
	sc.exec(a, "CREATE TABLE u (id INT PRIMARY KEY, v INT)")
	sc.exec(a, "CREATE TABLE parent (id INT PRIMARY KEY)")
	sc.exec(a, "CREATE TABLE child (id INT PRIMARY KEY, p INT)")
	sc.exec(a, "INSERT INTO parent VALUES (1), (2)")
	sc.exec(a, "INSERT INTO child VALUES (1, 1)")

	cases := []struct {
		name string
		a, b []string // a's transaction commits first; b's COMMIT fails
	}{
		{"two tables named alike", []string{"CREATE TABLE same (x INT)"}, []string{"CREATE TABLE same (y INT)"}},
		{"a table and a view named alike", []string{"CREATE TABLE same2 (x INT)"}, []string{"CREATE VIEW same2 AS SELECT 1"}},
		{"two indexes named alike", []string{"CREATE INDEX same_idx ON t (v)"}, []string{"CREATE INDEX same_idx ON u (v)"}},
		{"two sequences named alike", []string{"CREATE SEQUENCE same_seq"}, []string{"CREATE SEQUENCE same_seq"}},
		{"two functions of one signature", []string{"CREATE FUNCTION f(int) RETURNS int AS 'SELECT 1' LANGUAGE sql"}, []string{"CREATE FUNCTION f(int) RETURNS int AS 'SELECT 2' LANGUAGE sql"}},
		{"two changes of one table", []string{"ALTER TABLE t ADD COLUMN w INT"}, []string{"ALTER TABLE t ADD COLUMN z INT"}},
		{"an index built beside an insert", []string{"INSERT INTO u VALUES (10, 10)"}, []string{"CREATE INDEX u_v ON u (v)"}},
		{"an insert beside a new index", []string{"CREATE INDEX t_v ON t (v)"}, []string{"INSERT INTO t VALUES (10, 10)"}},
		{"a delete beside a new foreign key", []string{"ALTER TABLE child ADD FOREIGN KEY (p) REFERENCES parent"}, []string{"DELETE FROM parent WHERE id = 1"}},
		{"a foreign key beside a delete", []string{"DELETE FROM parent WHERE id = 2"}, []string{"ALTER TABLE child ADD CONSTRAINT child_p2 FOREIGN KEY (p) REFERENCES parent"}},
		{"a view replaced twice", []string{"CREATE OR REPLACE VIEW v AS SELECT 1 AS x"}, []string{"CREATE OR REPLACE VIEW v AS SELECT 2 AS x"}},
	}
	sc.exec(a, "CREATE VIEW v AS SELECT 0 AS x")
	for _, tc := range cases {
		sc.exec(a, "BEGIN")
		sc.exec(b, "BEGIN")
		for _, q := range tc.b {
			sc.exec(b, q)
		}
		for _, q := range tc.a {
			sc.exec(a, q)
		}
		sc.exec(a, "COMMIT")
		_, err := b.Exec(context.Background(), "COMMIT")
		if !pgerror.HasCode(err, pgerror.SerializationFailure) {
			t.Fatalf("%s: the second COMMIT got %v, want 40001", tc.name, err)
		}
	}
	sc.check()
	if got := sc.query(a, "SELECT count(*) FROM child JOIN parent ON child.p = parent.id"); got != "1" {
		t.Fatalf("child rows with a parent: %q", got)
	}
	sc.reopen()
	sc.check()
}

// TestSavepointKeepsMovedCatalog: a transaction whose snapshot moved past
// another's CREATE INDEX, then rolled back to a savepoint set before,
// writes under the new definition (the savepoint's catalog is older than
// its snapshot). Otherwise its insert would miss the new index, and no
// validation would catch it: the index is older than its snapshot.
func TestSavepointKeepsMovedCatalog(t *testing.T) {
	sc := newDDLScene(t)
	a, b := sc.session(), sc.session()
	sc.exec(a, "CREATE TABLE t (id INT PRIMARY KEY, v INT)")
	sc.exec(a, "BEGIN")
	sc.exec(a, "SAVEPOINT s")
	sc.exec(a, "SELECT 1")
	sc.exec(b, "CREATE INDEX t_v ON t (v)")
	sc.exec(a, "SELECT 2") // moves a's snapshot past the index
	sc.exec(a, "ROLLBACK TO SAVEPOINT s")
	sc.exec(a, "INSERT INTO t VALUES (1, 5)")
	sc.exec(a, "COMMIT")
	sc.check()
	if got := sc.query(b, "SELECT id FROM t WHERE v = 5"); got != "1" {
		t.Fatalf("through the index: %q", got)
	}
}

// TestReadCommittedSeesNewTables: a READ COMMITTED transaction's next
// statement sees a table created meanwhile, even after it wrote.
func TestReadCommittedSeesNewTables(t *testing.T) {
	sc := newDDLScene(t)
	a, b := sc.session(), sc.session()
	sc.exec(a, "CREATE TABLE t (id INT PRIMARY KEY)")
	sc.exec(a, "BEGIN ISOLATION LEVEL READ COMMITTED")
	sc.exec(a, "INSERT INTO t VALUES (1)")
	for i := range 3 {
		sc.exec(b, fmt.Sprintf("CREATE TABLE n%d (x INT)", i))
		sc.exec(b, fmt.Sprintf("INSERT INTO n%d VALUES (%d)", i, i))
		if got := sc.query(a, fmt.Sprintf("SELECT x FROM n%d", i)); got != fmt.Sprint(i) {
			t.Fatalf("n%d: %q", i, got)
		}
	}
	sc.exec(a, "COMMIT")
	if got := sc.query(b, "SELECT count(*) FROM t"); got != "1" {
		t.Fatalf("t: %q", got)
	}
}
