package session_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/session"
)

func txWantStatus(t *testing.T, s *session.Session, want byte) {
	t.Helper()
	if got := s.TxnStatus(); got != want {
		t.Fatalf("transaction status %c, want %c", got, want)
	}
}

// TestTxnFailedState: after an error in a transaction every statement
// gets 25P02 until ROLLBACK, and COMMIT then rolls back.
func TestTxnFailedState(t *testing.T) {
	db := testkit.OpenMem(t)
	s := testkit.NewSession(t, db)
	testkit.Must(t, s, "CREATE TABLE a (id INT PRIMARY KEY)")
	testkit.Must(t, s, "BEGIN")
	testkit.Must(t, s, "INSERT INTO a VALUES (1)")
	testkit.WantCode(t, s, "INSERT INTO a VALUES (1)", pgerror.UniqueViolation)
	txWantStatus(t, s, 'E')
	testkit.WantCode(t, s, "SELECT 1", pgerror.InFailedSQLTransaction)
	testkit.WantCode(t, s, "INSERT INTO a VALUES (2)", pgerror.InFailedSQLTransaction)
	testkit.WantCode(t, s, "SAVEPOINT x", pgerror.InFailedSQLTransaction)
	res, err := s.Exec(t.Context(), "COMMIT")
	if err != nil || len(res) != 1 || res[0].Tag != "ROLLBACK" {
		t.Fatalf("COMMIT of a failed transaction: %v %v, want tag ROLLBACK", res, err)
	}
	txWantStatus(t, s, 'I')
	testkit.Want(t, s, "SELECT count(*) FROM a", "0")

	// ROLLBACK ends the failed state too.
	testkit.Must(t, s, "BEGIN")
	testkit.WantCode(t, s, "SELECT * FROM nosuch", pgerror.UndefinedTable)
	testkit.Must(t, s, "ROLLBACK")
	txWantStatus(t, s, 'I')
	testkit.Must(t, s, "SELECT 1")
}

// TestTxnSavepoints: ROLLBACK TO SAVEPOINT undoes later writes and leaves
// the failed state; RELEASE forgets the savepoint and the ones after it;
// names resolve to the newest savepoint of that name.
func TestTxnSavepoints(t *testing.T) {
	db := testkit.OpenMem(t)
	s := testkit.NewSession(t, db)
	testkit.Must(t, s, "CREATE TABLE a (id INT PRIMARY KEY, v INT)")
	testkit.WantCode(t, s, "SAVEPOINT x", pgerror.NoActiveSQLTransaction)
	testkit.WantCode(t, s, "RELEASE SAVEPOINT x", pgerror.NoActiveSQLTransaction)

	testkit.Must(t, s, "BEGIN")
	testkit.Must(t, s, "INSERT INTO a VALUES (1, 1)")
	testkit.Must(t, s, "SAVEPOINT x")
	testkit.Must(t, s, "INSERT INTO a VALUES (2, 2)")
	testkit.WantCode(t, s, "INSERT INTO a VALUES (3, 3), (1, 1)", pgerror.UniqueViolation)
	testkit.WantCode(t, s, "SELECT 1", pgerror.InFailedSQLTransaction)
	testkit.Must(t, s, "ROLLBACK TO SAVEPOINT x")
	txWantStatus(t, s, 'T')
	testkit.Want(t, s, "SELECT id FROM a ORDER BY id", "1")
	// x survives ROLLBACK TO: use it again.
	testkit.Must(t, s, "UPDATE a SET v = 10 WHERE id = 1")
	testkit.Must(t, s, "ROLLBACK TO x")
	testkit.Want(t, s, "SELECT v FROM a", "1")

	// Same name twice: the newer one is found first; RELEASE pops it.
	testkit.Must(t, s, "SAVEPOINT y")
	testkit.Must(t, s, "INSERT INTO a VALUES (4, 4)")
	testkit.Must(t, s, "SAVEPOINT y")
	testkit.Must(t, s, "INSERT INTO a VALUES (5, 5)")
	testkit.Must(t, s, "ROLLBACK TO y")
	testkit.Want(t, s, "SELECT id FROM a ORDER BY id", "1\n4")
	testkit.Must(t, s, "RELEASE y")
	testkit.Must(t, s, "ROLLBACK TO y") // the older y
	testkit.Want(t, s, "SELECT id FROM a ORDER BY id", "1")
	// RELEASE x drops y too; both are gone afterwards.
	testkit.Must(t, s, "RELEASE SAVEPOINT x")
	testkit.WantCode(t, s, "ROLLBACK TO y", "3B001")
	txWantStatus(t, s, 'E')
	testkit.Must(t, s, "ROLLBACK")
	testkit.Want(t, s, "SELECT count(*) FROM a", "0")

	// A released savepoint's writes commit.
	testkit.Must(t, s, "BEGIN")
	testkit.Must(t, s, "SAVEPOINT z")
	testkit.Must(t, s, "INSERT INTO a VALUES (7, 7)")
	testkit.Must(t, s, "RELEASE z")
	testkit.Must(t, s, "COMMIT")
	testkit.Want(t, s, "SELECT id FROM a", "7")
}

// TestTxnDDL: DDL is transactional (as in PostgreSQL): rolled back with
// its transaction, invisible to others until commit, and a commit that
// changed the catalog conflicts with every concurrent writer.
func TestTxnDDL(t *testing.T) {
	db := testkit.OpenMem(t)
	s1, s2 := testkit.NewSession(t, db), testkit.NewSession(t, db)
	testkit.Must(t, s1, "BEGIN")
	testkit.Must(t, s1, "CREATE TABLE d (id INT PRIMARY KEY)")
	testkit.Must(t, s1, "INSERT INTO d VALUES (1)")
	testkit.WantCode(t, s2, "SELECT * FROM d", pgerror.UndefinedTable)
	testkit.Must(t, s1, "ROLLBACK")
	testkit.WantCode(t, s1, "SELECT * FROM d", pgerror.UndefinedTable)

	testkit.Must(t, s1, "BEGIN")
	testkit.Must(t, s1, "CREATE TABLE d (id INT PRIMARY KEY, v INT)")
	testkit.Must(t, s1, "COMMIT")
	testkit.Must(t, s2, "INSERT INTO d VALUES (1, 1)")

	// A writer that began before an index was created cannot commit rows
	// that the new index lacks.
	testkit.Must(t, s1, "BEGIN")
	testkit.Must(t, s1, "INSERT INTO d VALUES (2, 2)")
	testkit.Must(t, s2, "CREATE INDEX d_v ON d (v)")
	testkit.WantCode(t, s1, "COMMIT", pgerror.SerializationFailure)
	testkit.Must(t, s1, "INSERT INTO d VALUES (2, 2)")
	testkit.Want(t, s1, "SELECT id FROM d WHERE v = 2", "2")

	// Two transactions creating the same table: the second loses.
	testkit.Must(t, s1, "BEGIN")
	testkit.Must(t, s2, "BEGIN")
	testkit.Must(t, s1, "CREATE TABLE e (id INT PRIMARY KEY)")
	testkit.Must(t, s2, "CREATE TABLE e (id INT PRIMARY KEY)")
	testkit.Must(t, s1, "COMMIT")
	testkit.WantCode(t, s2, "COMMIT", pgerror.SerializationFailure)
}

// TestTxnCounters: serial values are never handed out twice, not after a
// rollback and not after the store is reopened.
func TestTxnCounters(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	seen := map[int64]bool{}
	collect := func(s *session.Session) {
		t.Helper()
		for _, line := range strings.Split(testkit.Query(t, s, "SELECT id FROM c"), "\n") {
			if line == "" {
				continue
			}
			id, err := strconv.ParseInt(line, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			seen[id] = true
		}
	}
	var maxRolledBack int64
	for round := 0; round < 3; round++ {
		db, err := session.Open(session.Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		s, err := db.Session("")
		if err != nil {
			t.Fatal(err)
		}
		if round == 0 {
			testkit.Must(t, s, "CREATE TABLE c (id SERIAL PRIMARY KEY, v INT)")
		}
		testkit.Must(t, s, "BEGIN")
		testkit.Must(t, s, "INSERT INTO c (v) VALUES (1), (2), (3)")
		got := testkit.Query(t, s, "SELECT max(id) FROM c")
		rb, _ := strconv.ParseInt(got, 10, 64)
		testkit.Must(t, s, "ROLLBACK")
		if rb <= maxRolledBack {
			t.Fatalf("round %d: rolled-back id %d repeats an earlier one (<= %d)", round, rb, maxRolledBack)
		}
		maxRolledBack = rb
		before := len(seen)
		testkit.Must(t, s, "INSERT INTO c (v) VALUES (4), (5)")
		collect(s)
		if len(seen) != before+2 {
			t.Fatalf("round %d: %d new ids, want 2 (an id was handed out twice)", round, len(seen)-before)
		}
		testkit.Want(t, s, "SELECT count(*) FROM c WHERE id <= "+strconv.FormatInt(rb, 10), strconv.Itoa(before))
		_ = s.Close()
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if len(seen) != 6 {
		t.Fatalf("%d distinct ids, want 6: %v", len(seen), seen)
	}
}
