package kvsql

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/pgerror"
)

func txWantStatus(t *testing.T, s *Session, want byte) {
	t.Helper()
	if got := s.TxnStatus(); got != want {
		t.Fatalf("transaction status %c, want %c", got, want)
	}
}

// TestTxnFailedState: after an error in a transaction every statement
// gets 25P02 until ROLLBACK, and COMMIT then rolls back.
func TestTxnFailedState(t *testing.T) {
	db := txOpenMem(t)
	s := txSession(t, db)
	txMust(t, s, "CREATE TABLE a (id INT PRIMARY KEY)")
	txMust(t, s, "BEGIN")
	txMust(t, s, "INSERT INTO a VALUES (1)")
	txWantCode(t, s, "INSERT INTO a VALUES (1)", pgerror.UniqueViolation)
	txWantStatus(t, s, 'E')
	txWantCode(t, s, "SELECT 1", pgerror.InFailedSQLTransaction)
	txWantCode(t, s, "INSERT INTO a VALUES (2)", pgerror.InFailedSQLTransaction)
	txWantCode(t, s, "SAVEPOINT x", pgerror.InFailedSQLTransaction)
	res, err := s.Exec(t.Context(), "COMMIT")
	if err != nil || len(res) != 1 || res[0].Tag != "ROLLBACK" {
		t.Fatalf("COMMIT of a failed transaction: %v %v, want tag ROLLBACK", res, err)
	}
	txWantStatus(t, s, 'I')
	txWant(t, s, "SELECT count(*) FROM a", "0")

	// ROLLBACK ends the failed state too.
	txMust(t, s, "BEGIN")
	txWantCode(t, s, "SELECT * FROM nosuch", pgerror.UndefinedTable)
	txMust(t, s, "ROLLBACK")
	txWantStatus(t, s, 'I')
	txMust(t, s, "SELECT 1")
}

// TestTxnSavepoints: ROLLBACK TO SAVEPOINT undoes later writes and leaves
// the failed state; RELEASE forgets the savepoint and the ones after it;
// names resolve to the newest savepoint of that name.
func TestTxnSavepoints(t *testing.T) {
	db := txOpenMem(t)
	s := txSession(t, db)
	txMust(t, s, "CREATE TABLE a (id INT PRIMARY KEY, v INT)")
	txWantCode(t, s, "SAVEPOINT x", pgerror.NoActiveSQLTransaction)
	txWantCode(t, s, "RELEASE SAVEPOINT x", pgerror.NoActiveSQLTransaction)

	txMust(t, s, "BEGIN")
	txMust(t, s, "INSERT INTO a VALUES (1, 1)")
	txMust(t, s, "SAVEPOINT x")
	txMust(t, s, "INSERT INTO a VALUES (2, 2)")
	txWantCode(t, s, "INSERT INTO a VALUES (3, 3), (1, 1)", pgerror.UniqueViolation)
	txWantCode(t, s, "SELECT 1", pgerror.InFailedSQLTransaction)
	txMust(t, s, "ROLLBACK TO SAVEPOINT x")
	txWantStatus(t, s, 'T')
	txWant(t, s, "SELECT id FROM a ORDER BY id", "1")
	// x survives ROLLBACK TO: use it again.
	txMust(t, s, "UPDATE a SET v = 10 WHERE id = 1")
	txMust(t, s, "ROLLBACK TO x")
	txWant(t, s, "SELECT v FROM a", "1")

	// Same name twice: the newer one is found first; RELEASE pops it.
	txMust(t, s, "SAVEPOINT y")
	txMust(t, s, "INSERT INTO a VALUES (4, 4)")
	txMust(t, s, "SAVEPOINT y")
	txMust(t, s, "INSERT INTO a VALUES (5, 5)")
	txMust(t, s, "ROLLBACK TO y")
	txWant(t, s, "SELECT id FROM a ORDER BY id", "1\n4")
	txMust(t, s, "RELEASE y")
	txMust(t, s, "ROLLBACK TO y") // the older y
	txWant(t, s, "SELECT id FROM a ORDER BY id", "1")
	// RELEASE x drops y too; both are gone afterwards.
	txMust(t, s, "RELEASE SAVEPOINT x")
	txWantCode(t, s, "ROLLBACK TO y", "3B001")
	txWantStatus(t, s, 'E')
	txMust(t, s, "ROLLBACK")
	txWant(t, s, "SELECT count(*) FROM a", "0")

	// A released savepoint's writes commit.
	txMust(t, s, "BEGIN")
	txMust(t, s, "SAVEPOINT z")
	txMust(t, s, "INSERT INTO a VALUES (7, 7)")
	txMust(t, s, "RELEASE z")
	txMust(t, s, "COMMIT")
	txWant(t, s, "SELECT id FROM a", "7")
}

// TestTxnDDL: DDL is transactional (as in PostgreSQL): rolled back with
// its transaction, invisible to others until commit, and a commit that
// changed the catalog conflicts with every concurrent writer.
func TestTxnDDL(t *testing.T) {
	db := txOpenMem(t)
	s1, s2 := txSession(t, db), txSession(t, db)
	txMust(t, s1, "BEGIN")
	txMust(t, s1, "CREATE TABLE d (id INT PRIMARY KEY)")
	txMust(t, s1, "INSERT INTO d VALUES (1)")
	txWantCode(t, s2, "SELECT * FROM d", pgerror.UndefinedTable)
	txMust(t, s1, "ROLLBACK")
	txWantCode(t, s1, "SELECT * FROM d", pgerror.UndefinedTable)

	txMust(t, s1, "BEGIN")
	txMust(t, s1, "CREATE TABLE d (id INT PRIMARY KEY, v INT)")
	txMust(t, s1, "COMMIT")
	txMust(t, s2, "INSERT INTO d VALUES (1, 1)")

	// A writer that began before an index was created cannot commit rows
	// that the new index lacks.
	txMust(t, s1, "BEGIN")
	txMust(t, s1, "INSERT INTO d VALUES (2, 2)")
	txMust(t, s2, "CREATE INDEX d_v ON d (v)")
	txWantCode(t, s1, "COMMIT", pgerror.SerializationFailure)
	txMust(t, s1, "INSERT INTO d VALUES (2, 2)")
	txWant(t, s1, "SELECT id FROM d WHERE v = 2", "2")

	// Two transactions creating the same table: the second loses.
	txMust(t, s1, "BEGIN")
	txMust(t, s2, "BEGIN")
	txMust(t, s1, "CREATE TABLE e (id INT PRIMARY KEY)")
	txMust(t, s2, "CREATE TABLE e (id INT PRIMARY KEY)")
	txMust(t, s1, "COMMIT")
	txWantCode(t, s2, "COMMIT", pgerror.SerializationFailure)
}

// TestTxnCounters: serial values are never handed out twice, not after a
// rollback and not after the store is reopened.
func TestTxnCounters(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	seen := map[int64]bool{}
	collect := func(s *Session) {
		t.Helper()
		for _, line := range strings.Split(txQuery(t, s, "SELECT id FROM c"), "\n") {
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
		db, err := Open(Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		s, err := db.Session("")
		if err != nil {
			t.Fatal(err)
		}
		if round == 0 {
			txMust(t, s, "CREATE TABLE c (id SERIAL PRIMARY KEY, v INT)")
		}
		txMust(t, s, "BEGIN")
		txMust(t, s, "INSERT INTO c (v) VALUES (1), (2), (3)")
		got := txQuery(t, s, "SELECT max(id) FROM c")
		rb, _ := strconv.ParseInt(got, 10, 64)
		txMust(t, s, "ROLLBACK")
		if rb <= maxRolledBack {
			t.Fatalf("round %d: rolled-back id %d repeats an earlier one (<= %d)", round, rb, maxRolledBack)
		}
		maxRolledBack = rb
		before := len(seen)
		txMust(t, s, "INSERT INTO c (v) VALUES (4), (5)")
		collect(s)
		if len(seen) != before+2 {
			t.Fatalf("round %d: %d new ids, want 2 (an id was handed out twice)", round, len(seen)-before)
		}
		txWant(t, s, "SELECT count(*) FROM c WHERE id <= "+strconv.FormatInt(rb, 10), strconv.Itoa(before))
		_ = s.Close()
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if len(seen) != 6 {
		t.Fatalf("%d distinct ids, want 6: %v", len(seen), seen)
	}
}
