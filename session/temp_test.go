package session_test

import (
	"context"
	"testing"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/session"
)

// TestTempTables: a temporary table hides a permanent one of its name in
// its own session only, goes away with the session, and one left by a
// server that stopped without closing its sessions is gone after the
// next start.
func TestTempTables(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := session.Open(session.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	s1, err := db.Session("")
	if err != nil {
		t.Fatal(err)
	}
	s2, err := db.Session("")
	if err != nil {
		t.Fatal(err)
	}
	mustExec := func(s *session.Session, q string) []session.Result {
		t.Helper()
		r, err := s.Exec(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return r
	}
	count := func(s *session.Session, q string) int64 {
		t.Helper()
		return mustExec(s, q)[0].Rows[0][0].I
	}
	mustExec(s1, "CREATE TABLE v (a int)")
	mustExec(s1, "INSERT INTO v VALUES (1), (2)")
	mustExec(s1, "CREATE TEMP TABLE v (a int)")
	mustExec(s1, "INSERT INTO v VALUES (10)")
	if n := count(s1, "SELECT count(*) FROM v"); n != 1 {
		t.Errorf("session 1 sees %d rows in v, want its temporary table's 1", n)
	}
	if n := count(s2, "SELECT count(*) FROM v"); n != 2 {
		t.Errorf("session 2 sees %d rows in v, want the permanent table's 2", n)
	}
	if n := count(s1, "SELECT count(*) FROM public.v"); n != 2 {
		t.Errorf("public.v has %d rows, want 2", n)
	}
	if _, err := s1.Exec(ctx, "CREATE TEMP TABLE public.w (a int)"); pgerror.CodeOf(err) != pgerror.InvalidTableDefinition {
		t.Errorf("CREATE TEMP TABLE public.w: %v, want 42P16", err)
	}
	if err := s1.Close(); err != nil {
		t.Fatal(err)
	}
	if n := count(s2, "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'pg_temp%'"); n != 0 {
		t.Errorf("%d temporary schemas after the session closed", n)
	}

	// A session that never closes leaves its schema; the next start
	// drops it.
	mustExec(s2, "CREATE TEMP TABLE orphan (a int)")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = session.Open(session.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s3, err := db.Session("")
	if err != nil {
		t.Fatal(err)
	}
	if n := count(s3, "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'pg_temp%'"); n != 0 {
		t.Errorf("%d temporary schemas after a restart", n)
	}
	if n := count(s3, "SELECT count(*) FROM v"); n != 2 {
		t.Errorf("v has %d rows after the restart, want 2", n)
	}
}
