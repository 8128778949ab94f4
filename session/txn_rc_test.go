package session_test

import (
	"testing"

	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/session"
)

// READ COMMITTED, PostgreSQL's default level and kvsql's: each statement
// reads the newest committed state; write skew and non-repeatable reads
// are allowed, lost updates are not (row locks), and two transactions
// that write one key cannot both commit.

func TestReadCommittedLevelSettings(t *testing.T) {
	s := testkit.NewSession(t, testkit.OpenMem(t))
	testkit.Want(t, s, "SHOW transaction_isolation", `"read committed"`)
	testkit.Want(t, s, "SHOW default_transaction_isolation", `"read committed"`)
	testkit.Must(t, s, "BEGIN ISOLATION LEVEL SERIALIZABLE")
	testkit.Want(t, s, "SHOW transaction_isolation", `"serializable"`)
	testkit.Must(t, s, "COMMIT")
	testkit.Must(t, s, "BEGIN")
	testkit.Must(t, s, "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
	testkit.Want(t, s, "SHOW transaction_isolation", `"repeatable read"`)
	testkit.Want(t, s, "SELECT 1", "1")
	testkit.WantCode(t, s, "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE", pgerror.ActiveSQLTransaction)
	testkit.Must(t, s, "ROLLBACK")
	testkit.Must(t, s, "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE")
	testkit.Want(t, s, "SHOW transaction_isolation", `"serializable"`)
	testkit.WantCode(t, s, "SET default_transaction_isolation = 'chaotic'", pgerror.InvalidParameterValue)
}

func TestReadCommittedAnomalies(t *testing.T) {
	db := testkit.OpenMem(t)
	s1, s2 := testkit.NewSession(t, db), testkit.NewSession(t, db)
	testkit.Must(t, s1, `CREATE TABLE doctors (name TEXT PRIMARY KEY, oncall BOOLEAN NOT NULL);
		INSERT INTO doctors VALUES ('alice', true), ('bob', true);
		CREATE TABLE a (id INT PRIMARY KEY, v INT NOT NULL); INSERT INTO a VALUES (1, 10)`)

	// Write skew is allowed, as in PostgreSQL's READ COMMITTED.
	testkit.Must(t, s1, "BEGIN")
	testkit.Must(t, s2, "BEGIN")
	testkit.Want(t, s1, "SELECT count(*) FROM doctors WHERE oncall", "2")
	testkit.Want(t, s2, "SELECT count(*) FROM doctors WHERE oncall", "2")
	testkit.Must(t, s1, "UPDATE doctors SET oncall = false WHERE name = 'alice'")
	testkit.Must(t, s2, "UPDATE doctors SET oncall = false WHERE name = 'bob'")
	testkit.Must(t, s1, "COMMIT")
	testkit.Must(t, s2, "COMMIT")
	testkit.Want(t, s1, "SELECT count(*) FROM doctors WHERE oncall", "0")

	// Each statement sees what committed before it.
	testkit.Must(t, s1, "BEGIN")
	testkit.Want(t, s1, "SELECT v FROM a WHERE id = 1", "10")
	testkit.Must(t, s2, "UPDATE a SET v = 11 WHERE id = 1")
	testkit.Want(t, s1, "SELECT v FROM a WHERE id = 1", "11")
	// A read-modify-write after a stale read still applies on top of the
	// newest value: the UPDATE reads at its own start.
	testkit.Must(t, s1, "UPDATE a SET v = v + 1 WHERE id = 1")
	testkit.Must(t, s1, "COMMIT")
	testkit.Want(t, s1, "SELECT v FROM a WHERE id = 1", "12")

	// Two transactions inserting one key: the second to commit fails
	// (PostgreSQL would make it wait for the first and then raise 23505).
	testkit.Must(t, s1, "BEGIN")
	testkit.Must(t, s2, "BEGIN")
	testkit.Must(t, s1, "INSERT INTO a VALUES (2, 1)")
	testkit.Must(t, s2, "INSERT INTO a VALUES (2, 2)")
	testkit.Must(t, s1, "COMMIT")
	testkit.WantCode(t, s2, "COMMIT", pgerror.SerializationFailure)
	testkit.Want(t, s1, "SELECT v FROM a WHERE id = 2", "1")
}

// TestWorkMemSetting: SHOW work_mem reports the server's --work-mem
// (Options.WorkMem), RESET returns to it, and SET changes it.
func TestWorkMemSetting(t *testing.T) {
	db, err := session.Open(session.Options{Memory: true, WorkMem: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	s := testkit.NewSession(t, db)
	testkit.Want(t, s, "SHOW work_mem", `"8MB"`)
	testkit.Must(t, s, "SET work_mem = '1GB'")
	testkit.Want(t, s, "SHOW work_mem", `"1GB"`)
	testkit.Must(t, s, "RESET work_mem")
	testkit.Want(t, s, "SHOW work_mem", `"8MB"`)
	testkit.Want(t, testkit.NewSession(t, testkit.OpenMem(t)), "SHOW work_mem", `"64MB"`)
}
