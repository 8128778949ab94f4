package session_test

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/session"
)

// Tests of the snapshot refresh at statement boundaries (txn.refresh) and
// of the shared snapshots of read-only statements (DB.beginRead).

// TestTxnRefreshMovesSnapshot: a commit that wrote nothing the
// transaction read lets its next statement see the newer state, and the
// transaction commits though it then reads and writes what that commit
// wrote; without the refresh it would have read the old value and failed.
func TestTxnRefreshMovesSnapshot(t *testing.T) {
	db := testkit.OpenMem(t)
	s1, s2 := serializableSession(t, db), serializableSession(t, db)
	testkit.Must(t, s1, `CREATE TABLE a (id INT PRIMARY KEY, v INT NOT NULL); INSERT INTO a VALUES (1, 10), (2, 20)`)
	testkit.Must(t, s1, "BEGIN")
	testkit.Want(t, s1, "SELECT v FROM a WHERE id = 1", "10")
	testkit.Must(t, s2, "UPDATE a SET v = 21 WHERE id = 2")
	before := db.TxnStats().Refreshes
	testkit.Want(t, s1, "SELECT v FROM a WHERE id = 2", "21")
	if got := db.TxnStats().Refreshes; got != before+1 {
		t.Errorf("Refreshes went from %d to %d, want one more", before, got)
	}
	testkit.Must(t, s1, "UPDATE a SET v = v + 1 WHERE id = 2")
	testkit.Must(t, s1, "COMMIT")
	testkit.Want(t, s2, "SELECT id, v FROM a ORDER BY id", "1 10\n2 22")
}

// TestTxnRefreshEarlyConflict: once a transaction that has written finds
// its reads overwritten, its next statement fails with 40001 (it could
// not commit anyway), the transaction is failed, and ROLLBACK ends it.
func TestTxnRefreshEarlyConflict(t *testing.T) {
	s1, s2 := txTwoSessions(t, `CREATE TABLE c (id INT PRIMARY KEY, n INT NOT NULL); INSERT INTO c VALUES (1, 0), (2, 0)`)
	testkit.Must(t, s1, "BEGIN")
	testkit.Want(t, s1, "SELECT n FROM c WHERE id = 2", "0")
	testkit.Must(t, s1, "UPDATE c SET n = n + 1 WHERE id = 1")
	// Row 2 is read, not locked, by s1: s2 writes it without waiting.
	testkit.Must(t, s2, "UPDATE c SET n = n + 10 WHERE id = 2")
	testkit.WantCode(t, s1, "SELECT n FROM c WHERE id = 1", pgerror.SerializationFailure)
	if s1.TxnStatus() != 'E' {
		t.Fatalf("after a 40001 inside a transaction the state is %c, want E", s1.TxnStatus())
	}
	testkit.Must(t, s1, "ROLLBACK")
	testkit.Want(t, s1, "SELECT n FROM c ORDER BY id", "0\n10")
}

// TestTxnRefreshStaleReader: a transaction that has only read and whose
// reads were overwritten keeps its old snapshot: later statements read
// the same consistent state (here both rows of one other commit stay
// old together), and it commits since it wrote nothing.
func TestTxnRefreshStaleReader(t *testing.T) {
	s1, s2 := txTwoSessions(t, `CREATE TABLE a (id INT PRIMARY KEY, v INT NOT NULL); INSERT INTO a VALUES (1, 10), (2, 20)`)
	testkit.Must(t, s1, "BEGIN")
	testkit.Want(t, s1, "SELECT v FROM a WHERE id = 1", "10")
	testkit.Must(t, s2, "BEGIN; UPDATE a SET v = 11 WHERE id = 1; UPDATE a SET v = 21 WHERE id = 2; COMMIT")
	testkit.Want(t, s1, "SELECT v FROM a WHERE id = 2", "20")
	testkit.Want(t, s1, "SELECT sum(v) FROM a", "30")
	testkit.Must(t, s1, "COMMIT")
	testkit.Want(t, s1, "SELECT sum(v) FROM a", "32")
}

// TestTxnRefreshWriteSkewAfterCommit: write skew where the other
// transaction commits before this one's first write. The refresh before
// that write must not move the snapshot (the scanned range changed), so
// the commit still fails.
func TestTxnRefreshWriteSkewAfterCommit(t *testing.T) {
	s1, s2 := txTwoSessions(t, `CREATE TABLE doctors (name TEXT PRIMARY KEY, oncall BOOLEAN NOT NULL);
		INSERT INTO doctors VALUES ('alice', true), ('bob', true)`)
	testkit.Must(t, s1, "BEGIN")
	testkit.Must(t, s2, "BEGIN")
	testkit.Want(t, s1, "SELECT count(*) FROM doctors WHERE oncall", "2")
	testkit.Want(t, s2, "SELECT count(*) FROM doctors WHERE oncall", "2")
	testkit.Must(t, s2, "UPDATE doctors SET oncall = false WHERE name = 'bob'")
	testkit.Must(t, s2, "COMMIT")
	testkit.Must(t, s1, "UPDATE doctors SET oncall = false WHERE name = 'alice'")
	testkit.WantCode(t, s1, "COMMIT", pgerror.SerializationFailure)
	testkit.Want(t, s1, "SELECT count(*) FROM doctors WHERE oncall", "1")
}

// TestTxnRefreshDDL: a catalog change committed by another session stops
// a refresh when it changed a table the transaction wrote (the next
// statement fails), and is seen by the next statement otherwise; a
// transaction that changed the catalog itself moves past others' writes
// but not past their catalog changes.
func TestTxnRefreshDDL(t *testing.T) {
	s1, s2 := txTwoSessions(t, `CREATE TABLE a (id INT PRIMARY KEY, v INT NOT NULL); INSERT INTO a VALUES (1, 10)`)
	testkit.Must(t, s1, "BEGIN")
	testkit.Must(t, s1, "INSERT INTO a VALUES (2, 20)")
	testkit.Must(t, s2, "CREATE TABLE b (id INT PRIMARY KEY)")
	testkit.Must(t, s2, "INSERT INTO b VALUES (7)")
	testkit.Want(t, s1, "SELECT id FROM b", "7")
	testkit.Must(t, s2, "CREATE INDEX a_v ON a (v)")
	testkit.WantCode(t, s1, "SELECT v FROM a WHERE id = 1", pgerror.SerializationFailure)
	testkit.Must(t, s1, "ROLLBACK")

	testkit.Must(t, s1, "BEGIN")
	testkit.Must(t, s1, "CREATE TABLE c (id INT PRIMARY KEY)")
	testkit.Must(t, s2, "INSERT INTO a VALUES (3, 30)")
	testkit.Must(t, s1, "INSERT INTO c VALUES (1)")
	testkit.Want(t, s1, "SELECT count(*) FROM a", "2")
	testkit.Must(t, s2, "CREATE TABLE d (id INT PRIMARY KEY)")
	testkit.WantCode(t, s1, "SELECT count(*) FROM d", pgerror.UndefinedTable)
	testkit.Must(t, s1, "ROLLBACK")
}

// countingEngine counts the engine snapshots taken and closed.
type countingEngine struct {
	kv.Engine
	opened, closed atomic.Int64
}

func (e *countingEngine) NewSnapshot() kv.Snapshot {
	e.opened.Add(1)
	return &countingSnapshot{Snapshot: e.Engine.NewSnapshot(), e: e}
}

type countingSnapshot struct {
	kv.Snapshot
	e *countingEngine
}

func (s *countingSnapshot) Close() error {
	s.e.closed.Add(1)
	return s.Snapshot.Close()
}

// TestTxnSharedSnapshots: read-only statements between two commits share
// one engine snapshot, each still sees every commit made before it, and
// every snapshot is closed once its last reader is done and the store is
// closed.
func TestTxnSharedSnapshots(t *testing.T) {
	for _, noSync := range []bool{false, true} {
		t.Run("nosync="+strconv.FormatBool(noSync), func(t *testing.T) {
			eng := &countingEngine{Engine: kv.NewMemory()}
			db, err := session.Open(session.Options{Engine: eng, NoSync: noSync})
			if err != nil {
				t.Fatal(err)
			}
			s := testkit.NewSession(t, db)
			testkit.Must(t, s, "CREATE TABLE a (id INT PRIMARY KEY, v INT NOT NULL); INSERT INTO a VALUES (1, 0)")
			base := eng.opened.Load()
			for i := 0; i < 50; i++ {
				testkit.Want(t, s, "SELECT v FROM a WHERE id = 1", "0")
			}
			if got := eng.opened.Load() - base; got > 1 {
				t.Errorf("50 queries without commits took %d snapshots, want at most 1", got)
			}
			// Each query sees the commit acknowledged just before it.
			for i := 1; i <= 20; i++ {
				testkit.Must(t, s, "UPDATE a SET v = "+strconv.Itoa(i)+" WHERE id = 1")
				testkit.Want(t, s, "SELECT v FROM a WHERE id = 1", strconv.Itoa(i))
			}
			// Concurrent readers and writers; a reader never sees v go back.
			const readers, rounds = 4, 200
			var wg sync.WaitGroup
			errs := make(chan error, readers+1)
			wg.Add(readers + 1)
			w := testkit.NewSession(t, db)
			go func() {
				defer wg.Done()
				for i := 0; i < rounds; i++ {
					if err := testkit.Run(w, "UPDATE a SET v = v + 1 WHERE id = 1"); err != nil {
						errs <- err
						return
					}
				}
			}()
			for r := 0; r < readers; r++ {
				rs := testkit.NewSession(t, db)
				go func() {
					defer wg.Done()
					last := -1
					for i := 0; i < rounds; i++ {
						res, err := rs.Exec(context.Background(), "SELECT v FROM a WHERE id = 1")
						if err != nil {
							errs <- err
							return
						}
						v := res[0].Rows[0][0].String()
						n, err := strconv.Atoi(v)
						if err != nil || n < last {
							errs <- pgerror.Newf(pgerror.Internal, "reader saw %q after %d", v, last)
							return
						}
						last = n
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			testkit.Want(t, s, "SELECT v FROM a WHERE id = 1", strconv.Itoa(20+rounds))
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			if o, c := eng.opened.Load(), eng.closed.Load(); o != c {
				t.Errorf("%d snapshots taken, %d closed", o, c)
			}
		})
	}
}
