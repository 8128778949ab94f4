package session_test

import (
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/session"
)

// The anomaly tests interleave two sessions statement by statement, in
// the order that produces the anomaly under weaker isolation, and check
// that SERIALIZABLE prevents it: the reads stay consistent, and the
// transaction that would complete the anomaly fails with 40001.

func txTwoSessions(t *testing.T, setup string) (s1, s2 *session.Session) {
	t.Helper()
	db := testkit.OpenMem(t)
	s1, s2 = serializableSession(t, db), serializableSession(t, db)
	testkit.Must(t, s1, setup)
	return s1, s2
}

// TestTxnWriteSkew: two doctors on call each check that the other is on
// call and go off call. Snapshot isolation lets both commit, leaving no
// one on call; serializable must refuse the second.
func TestTxnWriteSkew(t *testing.T) {
	s1, s2 := txTwoSessions(t, `CREATE TABLE doctors (name TEXT PRIMARY KEY, oncall BOOLEAN NOT NULL);
		INSERT INTO doctors VALUES ('alice', true), ('bob', true)`)
	testkit.Must(t, s1, "BEGIN")
	testkit.Must(t, s2, "BEGIN")
	testkit.Want(t, s1, "SELECT count(*) FROM doctors WHERE oncall", "2")
	testkit.Want(t, s2, "SELECT count(*) FROM doctors WHERE oncall", "2")
	testkit.Must(t, s1, "UPDATE doctors SET oncall = false WHERE name = 'alice'")
	testkit.Must(t, s2, "UPDATE doctors SET oncall = false WHERE name = 'bob'")
	testkit.Must(t, s1, "COMMIT")
	testkit.WantCode(t, s2, "COMMIT", pgerror.SerializationFailure)
	testkit.Want(t, s1, "SELECT count(*) FROM doctors WHERE oncall", "1")
	if s2.TxnStatus() != 'I' {
		t.Fatalf("after a failed COMMIT the session is in state %c, want I", s2.TxnStatus())
	}
}

// TestTxnLostUpdate: two read-modify-write increments of one counter; the
// second must not overwrite the first. As in PostgreSQL, the second
// writer waits for the first's row lock; when the first commits, the
// second, having read the old value, fails with 40001.
func TestTxnLostUpdate(t *testing.T) {
	db := testkit.OpenMem(t)
	s1, s2 := serializableSession(t, db), serializableSession(t, db)
	testkit.Must(t, s1, `CREATE TABLE c (id INT PRIMARY KEY, n INT NOT NULL); INSERT INTO c VALUES (1, 0)`)
	testkit.Must(t, s1, "BEGIN")
	testkit.Must(t, s2, "BEGIN")
	testkit.Want(t, s1, "SELECT n FROM c WHERE id = 1", "0")
	testkit.Want(t, s2, "SELECT n FROM c WHERE id = 1", "0")
	testkit.Must(t, s1, "UPDATE c SET n = 1 WHERE id = 1")
	second := goRun(s2, "UPDATE c SET n = 1 WHERE id = 1")
	waitLockWaiters(t, db, 1)
	testkit.Must(t, s1, "COMMIT")
	if err := <-second; !pgerror.HasCode(err, pgerror.SerializationFailure) {
		t.Fatalf("the second read-modify-write: got %v, want 40001", err)
	}
	testkit.Must(t, s2, "ROLLBACK")

	// An autocommit increment waits for an explicit one and then applies
	// on top of it: nothing is lost, nothing fails.
	testkit.Must(t, s1, "BEGIN")
	testkit.Must(t, s1, "UPDATE c SET n = n + 1 WHERE id = 1")
	auto := goRun(s2, "UPDATE c SET n = n + 1 WHERE id = 1")
	waitLockWaiters(t, db, 1)
	testkit.Must(t, s1, "COMMIT")
	if err := <-auto; err != nil {
		t.Fatalf("the waiting autocommit increment: %v", err)
	}
	testkit.Want(t, s1, "SELECT n FROM c WHERE id = 1", "3")
}

// serializableSession opens a session whose transactions are
// SERIALIZABLE: the anomaly tests check what that level refuses (the
// default, READ COMMITTED, allows most of them: txn_rc_test.go).
func serializableSession(t *testing.T, db *session.DB) *session.Session {
	s := testkit.NewSession(t, db)
	testkit.Must(t, s, "SET default_transaction_isolation = 'serializable'")
	return s
}

// goRun runs sql on s in its own goroutine; the channel delivers the
// outcome.
func goRun(s *session.Session, sql string) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- testkit.Run(s, sql) }()
	return ch
}

// waitLockWaiters waits until n statements of db wait for a row lock.
func waitLockWaiters(t *testing.T, db *session.DB, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for db.LockStats().Waiting < n {
		if time.Now().After(deadline) {
			t.Fatalf("no %d statements waiting for a lock after 5 s", n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestTxnConcurrentIncrements: autocommit increments from many sessions
// retry their conflicts transparently and none is lost.
func TestTxnConcurrentIncrements(t *testing.T) {
	db := testkit.OpenMem(t)
	testkit.Must(t, testkit.NewSession(t, db), "CREATE TABLE c (id INT PRIMARY KEY, n INT NOT NULL); INSERT INTO c VALUES (1, 0)")
	const workers, each = 8, 50
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		s := testkit.NewSession(t, db)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if err := testkit.Run(s, "UPDATE c SET n = n + 1 WHERE id = 1"); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	testkit.Want(t, testkit.NewSession(t, db), "SELECT n FROM c", strconv.Itoa(workers*each))
	st := db.TxnStats()
	t.Logf("commits %d, conflicts retried %d", st.Commits, st.Conflicts)
}

// TestTxnDirtyRead: an uncommitted write is invisible to others.
func TestTxnDirtyRead(t *testing.T) {
	s1, s2 := txTwoSessions(t, `CREATE TABLE a (id INT PRIMARY KEY, v INT NOT NULL); INSERT INTO a VALUES (1, 10)`)
	testkit.Must(t, s1, "BEGIN")
	testkit.Must(t, s1, "UPDATE a SET v = 99 WHERE id = 1")
	testkit.Must(t, s1, "INSERT INTO a VALUES (2, 20)")
	testkit.Want(t, s1, "SELECT id, v FROM a ORDER BY id", "1 99\n2 20") // read your writes
	testkit.Want(t, s2, "SELECT id, v FROM a ORDER BY id", "1 10")
	testkit.Must(t, s1, "ROLLBACK")
	testkit.Want(t, s2, "SELECT id, v FROM a ORDER BY id", "1 10")
}

// TestTxnNonRepeatableRead: a row read twice in a transaction reads the
// same, whatever commits in between.
func TestTxnNonRepeatableRead(t *testing.T) {
	s1, s2 := txTwoSessions(t, `CREATE TABLE a (id INT PRIMARY KEY, v INT NOT NULL); INSERT INTO a VALUES (1, 10)`)
	testkit.Must(t, s1, "BEGIN")
	testkit.Want(t, s1, "SELECT v FROM a WHERE id = 1", "10")
	testkit.Must(t, s2, "UPDATE a SET v = 11 WHERE id = 1")
	testkit.Want(t, s1, "SELECT v FROM a WHERE id = 1", "10")
	testkit.Must(t, s1, "COMMIT") // read-only: commits
	testkit.Want(t, s1, "SELECT v FROM a WHERE id = 1", "11")
	// A transaction that acts on the stale read cannot commit.
	testkit.Must(t, s1, "BEGIN")
	testkit.Want(t, s1, "SELECT v FROM a WHERE id = 1", "11")
	testkit.Must(t, s2, "UPDATE a SET v = 12 WHERE id = 1")
	testkit.Must(t, s1, "INSERT INTO a VALUES (2, 11)")
	testkit.WantCode(t, s1, "COMMIT", pgerror.SerializationFailure)
}

// TestTxnPhantom: a range scanned twice returns the same rows though a
// row is inserted into it meanwhile, and a transaction that wrote after
// scanning the range cannot commit. An insert outside the scanned index
// range does not conflict: the read set holds the range, not the table.
func TestTxnPhantom(t *testing.T) {
	s1, s2 := txTwoSessions(t, `CREATE TABLE p (id INT PRIMARY KEY, v INT NOT NULL);
		CREATE INDEX p_v ON p (v);
		INSERT INTO p VALUES (1, 10), (2, 20), (3, 30), (4, 1000)`)
	const scan = "SELECT count(*) FROM p WHERE v BETWEEN 15 AND 35"
	testkit.Must(t, s1, "BEGIN")
	testkit.Want(t, s1, scan, "2")
	testkit.Must(t, s2, "INSERT INTO p VALUES (5, 25)")
	testkit.Want(t, s1, scan, "2")
	testkit.Must(t, s1, "INSERT INTO p VALUES (6, 500)")
	testkit.WantCode(t, s1, "COMMIT", pgerror.SerializationFailure)

	// The same with an insert beyond the last key the scan returned but
	// inside its bounds (v=34 after 30): still a phantom.
	testkit.Must(t, s1, "BEGIN")
	testkit.Want(t, s1, scan, "3")
	testkit.Must(t, s2, "INSERT INTO p VALUES (7, 34)")
	testkit.Must(t, s1, "INSERT INTO p VALUES (8, 500)")
	testkit.WantCode(t, s1, "COMMIT", pgerror.SerializationFailure)

	// Outside the range: no conflict.
	testkit.Must(t, s1, "BEGIN")
	testkit.Want(t, s1, scan, "4")
	testkit.Must(t, s2, "INSERT INTO p VALUES (9, 900)")
	testkit.Must(t, s1, "INSERT INTO p VALUES (10, 501)")
	testkit.Must(t, s1, "COMMIT")
	testkit.Want(t, s1, "SELECT count(*) FROM p", "8")
}

// TestTxnDDLAndOtherDatabases: a transaction that changed the catalog
// fails at COMMIT if a commit after its snapshot wrote into a table it
// changed (rows its backfill never saw), and commits beside writes to
// other tables and catalog changes of other objects, in its database or
// another (the own files run in parallel, one database each, and a slow
// engine's DDL could lose every retry to the others' inserts).
func TestTxnDDLAndOtherDatabases(t *testing.T) {
	db := testkit.OpenMem(t)
	a, same := serializableSession(t, db), serializableSession(t, db)
	testkit.Must(t, a, "CREATE DATABASE other")
	other, err := db.Session("other")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Close() })
	testkit.Must(t, other, "CREATE TABLE u (id INT PRIMARY KEY)")
	testkit.Must(t, a, "CREATE TABLE t (id INT PRIMARY KEY, v INT)")

	testkit.Must(t, a, "BEGIN")
	testkit.Must(t, a, "CREATE INDEX t_v ON t (v)")
	testkit.Must(t, other, "INSERT INTO u VALUES (1)")
	testkit.Must(t, a, "COMMIT")

	testkit.Must(t, a, "BEGIN")
	testkit.Must(t, a, "CREATE TABLE t2 (id INT PRIMARY KEY)")
	testkit.Must(t, same, "INSERT INTO t VALUES (1, 1)")
	testkit.Must(t, a, "COMMIT")

	testkit.Must(t, a, "BEGIN")
	testkit.Must(t, a, "CREATE INDEX t_id_v ON t (id, v)")
	testkit.Must(t, same, "INSERT INTO t VALUES (2, 2)")
	testkit.WantCode(t, a, "COMMIT", pgerror.SerializationFailure)

	testkit.Must(t, a, "BEGIN")
	testkit.Must(t, a, "CREATE TABLE t3 (id INT PRIMARY KEY)")
	testkit.Must(t, other, "CREATE TABLE u2 (id INT PRIMARY KEY)")
	testkit.Must(t, a, "COMMIT")
	testkit.Must(t, a, "INSERT INTO t3 VALUES (1)")
	testkit.Must(t, other, "INSERT INTO u2 VALUES (1)")
	testkit.Want(t, same, "SELECT count(*) FROM t WHERE v = 1", "1")
	testkit.Want(t, same, "SELECT count(*) FROM t", "2")
}
