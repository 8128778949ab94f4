package parse

import (
	"os"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/pgerror"
)

func TestArrayForms(t *testing.T) {
	cases := []struct{ in, want string }{
		{`SELECT ARRAY(SELECT rolname FROM pg_roles ORDER BY 1)`, "select kvsql_array_sub((select rolname from pg_roles order by 1 asc)) from dual"},
		{`SELECT 'd' = any(stxkind) FROM s`, "select 'd' = kvsql_any(stxkind) from s"},
		{`SELECT 1 WHERE oid = ANY (pol.polroles) AND x < SOME(y) AND z <> ALL (w)`, "select 1 from dual where oid = kvsql_any(pol.polroles) and x < kvsql_any(y) and z != kvsql_all(w)"},
		// A subquery stays vitess's = ANY (subquery).
		{`SELECT 1 WHERE a = ANY (SELECT b FROM u)`, "select 1 from dual where a = any (select b from u)"},
		{`SELECT ARRAY(SELECT r FROM t WHERE oid = any (x))`, "select kvsql_array_sub((select r from t where oid = kvsql_any(x))) from dual"},
		{`SELECT x::pg_catalog.regnamespace::pg_catalog.text`, "select cast(cast(x as regnamespace) as text) from dual"},
		{`SELECT ARRAY[1, 2][1], a[2:], a[:1], f(x)[1][2], (a || b)[1:2]`, "select kvsql_subscript(kvsql_array(1, 2), 1), kvsql_slice(a, 2, kvsql_slice_open()), kvsql_slice(a, kvsql_slice_open(), 1), kvsql_subscript(kvsql_subscript(f(x), 1), 2), kvsql_slice(`||`(a, b), 1, 2) from dual"},
		// A bare [...] inside ARRAY[...] is a sub-array.
		{`SELECT ARRAY[[1, 2], [3, f(x)[1]]]`, "select kvsql_array(kvsql_array(1, 2), kvsql_array(3, kvsql_subscript(f(x), 1))) from dual"},
		{`UPDATE t SET a[1:2][3] = v, b[:] = w`, "update t set a = kvsql_slice_assign(a, v, 1, 2, 1, 3), b = kvsql_slice_assign(b, w, kvsql_slice_open(), kvsql_slice_open())"},
		{`SELECT a[1] + 1, -a[i + 1]`, "select kvsql_subscript(a, 1) + 1, -kvsql_subscript(a, i + 1) from dual"},
		{`SELECT a && b, x::int[], '{}'::_text`, "select `&&`(a, b), cast(x as integer[]), cast('{}' as _text) from dual"},
	}
	for _, c := range cases {
		st, err := ParseOne(c.in)
		if err != nil {
			t.Errorf("%s\n    error: %v", c.in, err)
			continue
		}
		if got := render(&st); got != c.want {
			t.Errorf("%s\n    got  %s\n    want %s", c.in, got, c.want)
		}
	}
	// The user cannot spell a marker; a lone colon or bracket is an error.
	for _, in := range []string{`SELECT kvsql_any(1)`, `SELECT 1:2`, `SELECT a[1:2:3]`, `SELECT [1]`} {
		if _, err := ParseOne(in); err == nil || pgerror.CodeOf(err) != pgerror.SyntaxError {
			t.Errorf("%s: %v, want a syntax error", in, err)
		}
	}
	if _, err := ParseOne(`SELECT f([1, 2])`); pgerror.CodeOf(err) != pgerror.SyntaxError {
		t.Errorf("a bare [...] outside ARRAY: %v, want a syntax error", err)
	}
}

// TestPsqlQueriesParse parses every catalog query psql 15 sends for its
// describe commands, as captured under testdata/psql/queries.
func TestPsqlQueriesParse(t *testing.T) {
	dir := "../../testdata/psql/queries/"
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Skip("no captured queries:", err)
	}
	n := 0
	for _, e := range entries {
		b, err := os.ReadFile(dir + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		stmts, err := Parse(string(b))
		if err != nil {
			t.Errorf("%s: %v", e.Name(), err)
		}
		n += len(stmts)
	}
	if n < 20 {
		t.Errorf("parsed only %d captured queries", n)
	}
	// The publication query is emulated by one reading pg_publication.
	b, err := os.ReadFile(dir + "d_table.sql")
	if err != nil {
		t.Fatal(err)
	}
	stmts, err := Parse(string(b))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, st := range stmts {
		if strings.Contains(st.SQL, "pg_relation_is_publishable") {
			found = true
			if got := render(&st); got != "select pubname, null, null from pg_catalog.pg_publication" {
				t.Errorf("publication query parsed as %s", got)
			}
		}
	}
	if !found {
		t.Error("the captured \\d query has no publication query")
	}
}
