package session_test

import (
	"context"
	"testing"

	"github.com/kvsql/kvsql/session"
	"github.com/kvsql/kvsql/types"
	"github.com/kvsql/kvsql/wire/backend"
)

// TestPreparedFollowsSearchPath checks that a prepared statement (as the
// wire protocol's Parse makes it) and a cached simple query are replanned
// when search_path changes, RESET included: the session remembers the
// resolved path between settings changes, and a stale memo would keep
// reading the first schema's table.
func TestPreparedFollowsSearchPath(t *testing.T) {
	db, err := session.Open(session.Options{Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.Session("")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	mustExec := func(sql string) {
		t.Helper()
		if _, err := s.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	mustExec("CREATE SCHEMA a; CREATE SCHEMA b")
	mustExec("CREATE TABLE a.t (id INT PRIMARY KEY, v TEXT); INSERT INTO a.t VALUES (1, 'in a')")
	mustExec("CREATE TABLE b.t (id INT PRIMARY KEY, v TEXT); INSERT INTO b.t VALUES (1, 'in b')")
	mustExec("CREATE TABLE public.t (id INT PRIMARY KEY, v TEXT); INSERT INTO public.t VALUES (1, 'in public')")
	sts, err := s.Prepare(ctx, "SELECT v FROM t WHERE id = $1", []uint32{})
	if err != nil {
		t.Fatal(err)
	}
	prepared := sts[0]
	one := func(st backend.Statement, params []types.Datum) string {
		t.Helper()
		res, err := st.Execute(ctx, params)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Close()
		var got string
		for res.Next() {
			got += res.Row()[0].S
		}
		if err := res.Err(); err != nil {
			t.Fatal(err)
		}
		return got
	}
	for _, c := range []struct{ set, want string }{
		{"", "in public"},
		{"SET search_path = a", "in a"},
		{"SET search_path = b, a", "in b"},
		{"SET search_path = a", "in a"},
		{"RESET search_path", "in public"},
		{"SET search_path = '$user', b", "in b"},
	} {
		if c.set != "" {
			mustExec(c.set)
		}
		for round := 0; round < 2; round++ { // the second runs the cached plan
			if got := one(prepared, []types.Datum{types.NewInt(1)}); got != c.want {
				t.Errorf("after %q, prepared: %q, want %q", c.set, got, c.want)
			}
			simple, err := s.Prepare(ctx, "SELECT v FROM t WHERE id = 1", nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := one(simple[0], nil); got != c.want {
				t.Errorf("after %q, simple: %q, want %q", c.set, got, c.want)
			}
		}
	}
}
