package session_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/session"
)

// TestBulkInsertConflicts: the keys a bulk insert checks (the master
// keys and unique index entries that kv.Txn.SetIfNew writes with a read
// mark instead of a read span) still conflict with a transaction that
// commits the same key first, and only with it: a key in a gap between
// the inserted ones, or a non-unique index entry, does not fail the
// bulk insert. Reads made in a savepoint that is rolled back still
// count, as every read does. Under READ COMMITTED (which validates what
// a transaction overwrote, kv.Txn.OverwritesIn) the same keys conflict,
// but not the writes a savepoint rolled back.
func TestBulkInsertConflicts(t *testing.T) {
	const schema = `CREATE TABLE t (id INT PRIMARY KEY, u INT, a INT);
		CREATE UNIQUE INDEX t_u ON t (u); CREATE INDEX t_a ON t (a);
		CREATE TABLE other (id INT PRIMARY KEY)`
	// bulk inserts the even ids 2..200 (u = id + 1000, a = id % 7) in
	// one multi-row INSERT (the Inserter's fast path).
	var sb strings.Builder
	sb.WriteString("INSERT INTO t VALUES ")
	for id := 2; id <= 200; id += 2 {
		if id > 2 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, "(%d, %d, %d)", id, id+1000, id%7)
	}
	bulk := sb.String()
	const fails = pgerror.SerializationFailure
	for _, c := range []struct {
		name, other string
		savepoint   bool
		want, rc    pgerror.Code // SERIALIZABLE, READ COMMITTED ("": s1 commits)
	}{
		{"same primary key", "INSERT INTO t VALUES (50, 5050, 1)", false, fails, fails},
		{"same unique value", "INSERT INTO t VALUES (51, 1050, 1)", false, fails, fails},
		{"a gap key", "INSERT INTO t VALUES (51, 5051, 1)", false, "", ""},
		{"past the end", "INSERT INTO t VALUES (1001, 5001, 1)", false, "", ""},
		{"same non-unique value", "INSERT INTO t VALUES (1003, 5003, 3)", false, "", ""},
		// READ COMMITTED validates writes only: the undone ones are gone.
		{"rolled back, same key", "INSERT INTO t VALUES (50, 5050, 1)", true, fails, ""},
		{"rolled back, a gap key", "INSERT INTO t VALUES (51, 5051, 1)", true, "", ""},
	} {
		for _, rc := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/read committed %v", c.name, rc), func(t *testing.T) {
				bulkConflictCase(t, schema, bulk, c.other, c.savepoint, rc, map[bool]pgerror.Code{false: c.want, true: c.rc}[rc])
			})
		}
	}
}

// bulkConflictCase runs bulk in s1's transaction, other in s2 (committed
// first), then s1's COMMIT, which fails with want or commits.
func bulkConflictCase(t *testing.T, schema, bulk, other string, savepoint, rc bool, want pgerror.Code) {
	db := testkit.OpenMem(t)
	s1, s2 := serializableSession(t, db), serializableSession(t, db)
	testkit.Must(t, s1, schema)
	if rc {
		testkit.Must(t, s1, "SET default_transaction_isolation = 'read committed'")
	}
	testkit.Must(t, s1, "BEGIN")
	testkit.Must(t, s1, "INSERT INTO other VALUES (1)") // so s1 is validated
	if savepoint {
		testkit.Must(t, s1, "SAVEPOINT sp")
	}
	testkit.Must(t, s1, bulk)
	if savepoint {
		testkit.Must(t, s1, "ROLLBACK TO SAVEPOINT sp")
	}
	testkit.Must(t, s2, other)
	if want != "" {
		testkit.WantCode(t, s1, "COMMIT", want)
		return
	}
	testkit.Must(t, s1, "COMMIT")
	n := "101"
	if savepoint {
		n = "1"
	}
	testkit.Want(t, s1, "SELECT count(*) FROM t", n)
}

// TestCopyConflicts is TestBulkInsertConflicts's first cases through COPY
// FROM STDIN on the wire, in an explicit transaction (SERIALIZABLE, and
// READ COMMITTED, the default) that reads one of its own rows back
// before it commits.
func TestCopyConflicts(t *testing.T) {
	for _, c := range []struct {
		other string
		fails bool
	}{
		{"INSERT INTO t VALUES (50, 5050)", true},
		{"INSERT INTO t VALUES (51, 1050)", true},
		{"INSERT INTO t VALUES (51, 5051)", false},
	} {
		for _, level := range []string{"SERIALIZABLE", "READ COMMITTED"} {
			copyConflictCase(t, level, c.other, c.fails)
		}
	}
}

// copyConflictCase copies rows in a transaction at level, commits other
// in a second connection, then commits the COPY, which fails with 40001
// when fails.
func copyConflictCase(t *testing.T, level, other string, fails bool) {
	ctx := context.Background()
	db, err := session.Open(session.Options{Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := testkit.StartServer(t, db, nil)
	c1 := srv.Connect(t, pgx.QueryExecModeSimpleProtocol)
	c2 := srv.Connect(t, pgx.QueryExecModeSimpleProtocol)
	mustExec(t, c1, `CREATE TABLE t (id INT PRIMARY KEY, u INT UNIQUE)`)
	mustExec(t, c1, `BEGIN ISOLATION LEVEL `+level)
	var rows [][]any
	for id := 2; id <= 3000; id += 2 {
		rows = append(rows, []any{int32(id), int32(id + 1000)})
	}
	if n, err := c1.CopyFrom(ctx, pgx.Identifier{"t"}, []string{"id", "u"}, pgx.CopyFromRows(rows)); err != nil || n != int64(len(rows)) {
		t.Fatalf("CopyFrom: %d rows, %v", n, err)
	}
	// A point read of a copied row (a scan of t would also read the
	// gap key below, and fail the transaction for that).
	var got int64
	if err := c1.QueryRow(ctx, `SELECT u FROM t WHERE id = 2000`).Scan(&got); err != nil || got != 3000 {
		t.Fatalf("the COPY's transaction reads u = %d (%v) for id 2000, want 3000", got, err)
	}
	mustExec(t, c2, other)
	_, err = c1.Exec(ctx, `COMMIT`)
	var pe *pgconn.PgError
	if fails != (errors.As(err, &pe) && pe.Code == string(pgerror.SerializationFailure)) {
		t.Fatalf("%s: %s committed first: COMMIT of the COPY = %v, want 40001: %v", level, other, err, fails)
	}
	if err == nil {
		if err := c1.QueryRow(ctx, `SELECT count(*) FROM t`).Scan(&got); err != nil || got != int64(len(rows))+1 {
			t.Fatalf("after COMMIT: %d rows (%v), want %d", got, err, len(rows)+1)
		}
	}
}
