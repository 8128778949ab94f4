package session_test

import (
	"context"
	"testing"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/session"
)

// TestDDLConflictsOnlyWithinItsDatabase: a catalog change in one database
// does not abort writing transactions of another, and does abort those of
// its own database (their plans may predate it).
func TestDDLConflictsOnlyWithinItsDatabase(t *testing.T) {
	ctx := context.Background()
	db, err := session.Open(session.Options{Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	admin, _ := db.Session("")
	if _, err := admin.Exec(ctx, "CREATE DATABASE other"); err != nil {
		t.Fatal(err)
	}
	a, _ := db.Session("")
	b, _ := db.Session("other")
	c, _ := db.Session("")
	mustExec := func(s *session.Session, sql string) {
		t.Helper()
		if _, err := s.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	mustExec(a, "CREATE TABLE t (id INT PRIMARY KEY)")

	mustExec(a, "BEGIN")
	mustExec(a, "INSERT INTO t VALUES (1)")
	mustExec(b, "CREATE TABLE elsewhere (id INT)")
	if _, err := a.Exec(ctx, "COMMIT"); err != nil {
		t.Fatalf("COMMIT after DDL in another database: %v", err)
	}

	mustExec(a, "BEGIN")
	mustExec(a, "INSERT INTO t VALUES (2)")
	mustExec(c, "CREATE INDEX t_id ON t (id)")
	_, err = a.Exec(ctx, "INSERT INTO t VALUES (3)")
	if err == nil {
		_, err = a.Exec(ctx, "COMMIT")
	} else {
		_, _ = a.Exec(ctx, "ROLLBACK")
	}
	if !pgerror.HasCode(err, pgerror.SerializationFailure) {
		t.Fatalf("a writer concurrent with CREATE INDEX on its table: got %v, want 40001", err)
	}
}

// TestCreateDatabaseDoesNotAbortOthers: a database created or dropped
// meanwhile leaves other databases' transactions alone.
func TestCreateDatabaseDoesNotAbortOthers(t *testing.T) {
	ctx := context.Background()
	db, err := session.Open(session.Options{Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	a, _ := db.Session("")
	admin, _ := db.Session("")
	for _, q := range []string{"CREATE TABLE t (id INT PRIMARY KEY)", "BEGIN", "INSERT INTO t VALUES (1)"} {
		if _, err := a.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE newdb"); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "DROP DATABASE newdb"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"INSERT INTO t VALUES (2)", "COMMIT"} {
		if _, err := a.Exec(ctx, q); err != nil {
			t.Fatalf("%s after CREATE/DROP DATABASE elsewhere: %v", q, err)
		}
	}
}
