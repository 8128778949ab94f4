package foreign_test

import (
	"context"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/syndtr/goleveldb/leveldb"

	"github.com/kvsql/kvsql/foreign"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/session"
)

// TestTxnWrites runs foreign writes inside transaction blocks: reads in
// the block see them, another session does not until COMMIT, ROLLBACK
// and ROLLBACK TO SAVEPOINT discard them, a transaction that would also
// write kvsql's own tables is refused; the stores, read with plain
// goleveldb and Pebble afterwards, hold exactly the committed writes.
func TestTxnWrites(t *testing.T) {
	doc := strings.Replace(docXML, `store="leveldb:fl.ldb"`, `store="leveldb:fl.ldb" readonly="false"`, 1)
	doc = strings.Replace(doc, `store="pebble:fp.pebble"`, `store="pebble:fp.pebble" readonly="false"`, 1)
	f := openFixtureDoc(t, rand.New(rand.NewSource(5)), doc)
	ctx := context.Background()
	other, err := f.db.Session("fl")
	if err != nil {
		t.Fatal(err)
	}
	// Each step runs on the foreign database and on kvsql's own tables;
	// the answers must agree.
	same := func(s *session.Session, q string) string {
		t.Helper()
		got, want := rowsText(mustExec(t, s, q)), rowsText(mustExec(t, f.native, q))
		if got != want {
			t.Fatalf("%s:\n%s\nwant:\n%s", q, got, want)
		}
		return got
	}
	count := func(s *session.Session, q string) string {
		t.Helper()
		return rowsText(mustExec(t, s, q))
	}
	before := count(other, "SELECT count(*) FROM ta")

	// COMMIT: read-your-writes inside, invisible outside until COMMIT.
	for _, q := range []string{
		"BEGIN",
		"INSERT INTO ta VALUES (1000, 'txn', 1), (1001, 'gone', 5)",
		"UPDATE ta SET score = 2 WHERE id = 1000",
		"DELETE FROM ta WHERE id = 1001 OR score > 60",
		"INSERT INTO tp SELECT 9, id FROM ta WHERE id >= 1000",
	} {
		same(f.fl, q)
	}
	same(f.fl, "SELECT * FROM ta WHERE id = 1000")
	same(f.fl, "SELECT * FROM ta")
	same(f.fl, "SELECT p.id, x.name FROM tp p JOIN ta x ON x.id = p.id WHERE p.g = 9")
	if got := count(other, "SELECT count(*) FROM ta"); got != before {
		t.Errorf("another session sees the open transaction's writes: %s rows, want %s", got, before)
	}
	if _, err := f.fl.Exec(ctx, "INSERT INTO ta VALUES (1000, 'dup', 0)"); !pgerror.HasCode(err, pgerror.UniqueViolation) {
		t.Errorf("duplicate of a row the transaction wrote: %v, want 23505", err)
	}
	mustExec(t, f.fl, "ROLLBACK")
	mustExec(t, f.native, "ROLLBACK")
	same(f.fl, "SELECT * FROM ta")

	for _, q := range []string{
		"BEGIN",
		"INSERT INTO ta VALUES (1000, 'txn', 1), (1001, 'gone', 5)",
		"UPDATE ta SET score = 2 WHERE id = 1000",
		"DELETE FROM ta WHERE id = 1001 OR score > 60",
		"SAVEPOINT a",
		"INSERT INTO ta VALUES (1002, 'undone', 3)",
		"SAVEPOINT b",
		"DELETE FROM ta WHERE id = 1000",
		"ROLLBACK TO SAVEPOINT a",
		"INSERT INTO ta VALUES (1003, 'kept', 4)",
		"COMMIT",
	} {
		same(f.fl, q)
	}
	same(other, "SELECT * FROM ta")

	// A transaction that rolls back leaves the store as it was.
	for _, q := range []string{"BEGIN", "INSERT INTO ta VALUES (1004, 'rolled back', 1)", "DELETE FROM ta WHERE id = 1003", "ROLLBACK"} {
		mustExec(t, f.fl, q)
	}
	same(f.fl, "SELECT * FROM ta")

	// Pebble: the same, on a JSON row layout with big-endian keys.
	for _, q := range []string{
		"BEGIN",
		"INSERT INTO tj VALUES (3, 500, 'pb', 7)",
		"UPDATE tj SET score = score * 2 WHERE g = 3",
		"COMMIT",
	} {
		same(f.fp, q)
	}
	same(f.fp, "SELECT * FROM tj")

	// Kvsql's own tables and a foreign store in one transaction: refused,
	// in either order, and nothing of either is written.
	for _, steps := range [][]string{
		{"INSERT INTO nat VALUES (1000, 'native')", "INSERT INTO ta VALUES (1005, 'mixed', 1)"},
		{"INSERT INTO ta VALUES (1005, 'mixed', 1)", "INSERT INTO nat VALUES (1000, 'native')"},
		{"INSERT INTO ta VALUES (1005, 'mixed', 1)", "CREATE TABLE t2 (a int)"},
	} {
		mustExec(t, f.fl, "BEGIN")
		mustExec(t, f.fl, steps[0])
		if _, err := f.fl.Exec(ctx, steps[1]); !pgerror.HasCode(err, pgerror.FeatureNotSupported) {
			t.Errorf("%s then %s: %v, want 0A000", steps[0], steps[1], err)
		}
		mustExec(t, f.fl, "ROLLBACK")
	}
	if got := count(f.fl, "SELECT (SELECT count(*) FROM nat WHERE id = 1000) + (SELECT count(*) FROM ta WHERE id = 1005)"); got != "0" {
		t.Errorf("a refused mixed transaction left %s rows", got)
	}
	if _, err := f.fl.Exec(ctx, "BEGIN READ ONLY"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.fl.Exec(ctx, "INSERT INTO ta VALUES (1006, 'ro', 1)"); !pgerror.HasCode(err, pgerror.ReadOnlySQLTransaction) {
		t.Errorf("a write in a read-only block: %v, want 25006", err)
	}
	mustExec(t, f.fl, "ROLLBACK")

	if err := f.db.Close(); err != nil {
		t.Fatal(err)
	}
	ldb, err := leveldb.OpenFile(filepath.Join(f.dir, "fl.ldb"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ldb.Close()
	for k, want := range map[string]string{
		"a:1000:name": "txn", "a:1000:score": "2", // committed, and its savepoint's DELETE rolled back
		"a:1003:name": "kept", "a:1003:score": "4", // committed after ROLLBACK TO; the rolled-back DELETE kept it
		"a:1001:name": "", "a:1002:name": "", // deleted; rolled back to the savepoint
		"a:1004:name": "", "a:1005:name": "", "a:1006:name": "", // rolled back; refused
	} {
		v, err := ldb.Get([]byte(k), nil)
		switch {
		case want == "":
			if err != leveldb.ErrNotFound {
				t.Errorf("%s: %q, %v: want no such key", k, v, err)
			}
		case err != nil || string(v) != want:
			t.Errorf("%s: %q, %v; want %q", k, v, err, want)
		}
	}
	pst, err := foreign.CreatePebble(filepath.Join(f.dir, "fp.pebble"))
	if err != nil {
		t.Fatal(err)
	}
	defer pst.Close()
	k := []byte("j\xff\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x01\xf4")
	if v, found, err := pst.Get(k); err != nil || !found || string(v) != `{"n":"pb","score":14}` {
		t.Errorf("tj (3, 500): %q, %v, %v", v, found, err)
	}
}
