package session_test

import (
	"context"
	"testing"

	"github.com/kvsql/kvsql/session"
)

// TestCompositeColumnsSurviveRestart: a table column of a composite type
// (and one of an array of it) reads back after the store is reopened,
// field by field: the column's descriptor of the type, which the
// catalog does not store, is rebuilt when it loads.
func TestCompositeColumnsSurviveRestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	open := func() (*session.DB, *session.Session) {
		t.Helper()
		db, err := session.Open(session.Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		s, err := db.Session("")
		if err != nil {
			t.Fatal(err)
		}
		return db, s
	}
	db, s := open()
	for _, q := range []string{
		"CREATE TYPE pt AS (x int, y varchar(5), z numeric(6,2))",
		"CREATE TABLE pc (id int PRIMARY KEY, p pt, ps pt[])",
		"INSERT INTO pc VALUES (1, ROW(1, 'a', 1.5), ARRAY[ROW(2, 'b', NULL)::pt]), (2, '(3,c,2.25)', NULL)",
	} {
		if _, err := s.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	const q = "SELECT (p).x + 1, (p).y, (p).z * 2, (ps[1]).y, pg_typeof(p)::text FROM pc ORDER BY id"
	const want = `2 "a" 3.00 "b" "pt" | 4 "c" 4.50 NULL "pt" | `
	got := func(s *session.Session) string {
		t.Helper()
		res, err := s.Exec(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		out := ""
		for _, r := range res[0].Rows {
			for i, d := range r {
				if i > 0 {
					out += " "
				}
				out += d.String()
			}
			out += " | "
		}
		return out
	}
	if g := got(s); g != want {
		t.Fatalf("before restart: %q, want %q", g, want)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, s = open()
	defer db.Close()
	if g := got(s); g != want {
		t.Fatalf("after restart: %q, want %q", g, want)
	}
	if _, err := s.Exec(ctx, "INSERT INTO pc VALUES (3, ROW(5, 'e', 0), NULL)"); err != nil {
		t.Fatal(err)
	}
}
