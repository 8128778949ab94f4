package parse

import (
	"os"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/pgerror"
)

func TestArrayForms(t *testing.T) {
	cases := []struct{ in, want string }{
		{`SELECT ARRAY(SELECT rolname FROM pg_roles ORDER BY 1)`,
			"select (select concat('{', coalesce(string_agg(cast(kvsql_arr.kvsql_elem as text), ','), ''), '}') from (select rolname from pg_roles order by 1 asc) as kvsql_arr(kvsql_elem)) from dual"},
		{`SELECT 'd' = any(stxkind) FROM s`, "select `= any`('d', stxkind) from s"},
		{`SELECT 1 WHERE oid = ANY (pol.polroles) AND x = SOME(y)`, "select 1 from dual where `= any`(oid, pol.polroles) and `= any`(x, y)"},
		// A subquery stays vitess's = ANY (subquery).
		{`SELECT 1 WHERE a = ANY (SELECT b FROM u)`, "select 1 from dual where a = any (select b from u)"},
		// Nested: ARRAY() holding = ANY().
		{`SELECT ARRAY(SELECT r FROM t WHERE oid = any (x))`,
			"select (select concat('{', coalesce(string_agg(cast(kvsql_arr.kvsql_elem as text), ','), ''), '}') from (select r from t where `= any`(oid, x)) as kvsql_arr(kvsql_elem)) from dual"},
		{`SELECT x::pg_catalog.regnamespace::pg_catalog.text`, "select cast(cast(x as regnamespace) as text) from dual"},
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
	// Only = is rewritten; the user cannot spell the marker.
	for _, in := range []string{`SELECT 1 WHERE a < ANY (x)`, `SELECT kvsql_any(1)`} {
		if _, err := ParseOne(in); err == nil || pgerror.CodeOf(err) != pgerror.SyntaxError {
			t.Errorf("%s: %v, want a syntax error", in, err)
		}
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
