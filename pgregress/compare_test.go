package pgregress

import "testing"

func str(s string) *string { return &s }

func rows(vals ...*string) [][]*string {
	var out [][]*string
	for _, v := range vals {
		out = append(out, []*string{v})
	}
	return out
}

func TestCompare(t *testing.T) {
	sel := func(rs [][]*string) *Outcome {
		return &Outcome{Results: []Result{{Columns: []string{"a"}, Rows: rs, Tag: "SELECT " + string(rune('0'+len(rs)))}}}
	}
	ab, ba := rows(str("a"), str("b")), rows(str("b"), str("a"))
	for _, tc := range []struct {
		name     string
		sql      string
		ref, sub *Outcome
		want     string
	}{
		{"multiset", "SELECT a FROM t", sel(ab), sel(ba), ""},
		{"ordered", "SELECT a FROM t ORDER BY a", sel(ab), sel(ba), "wrong row order"},
		{"order inside a subquery is not top level", "SELECT a FROM (SELECT a FROM t ORDER BY a) s", sel(ab), sel(ba), ""},
		{"limit counts rows", "SELECT a FROM t LIMIT 2", sel(ab), sel(rows(str("c"), str("d"))), ""},
		{"limit with order compares rows", "SELECT a FROM t ORDER BY a LIMIT 2", sel(ab), sel(rows(str("a"), str("c"))), "wrong values"},
		{"NULL is not ''", "SELECT a FROM t", sel(rows(nil)), sel(rows(str(""))), "wrong values"},
		{"row count", "SELECT a FROM t", sel(ab), sel(rows(str("a"))), "wrong row count"},
		{"column names", "SELECT a FROM t",
			&Outcome{Results: []Result{{Columns: []string{"a"}, Tag: "SELECT 0"}}},
			&Outcome{Results: []Result{{Columns: []string{"b"}, Tag: "SELECT 0"}}}, "wrong column names"},
		{"same SQLSTATE", "SELECT 1/0", &Outcome{Err: &Error{Code: "22012", Message: "division by zero"}},
			&Outcome{Err: &Error{Code: "22012", Message: "other words"}}, ""},
		{"other SQLSTATE", "SELECT x", &Outcome{Err: &Error{Code: "42703", Message: `column "x" does not exist`}},
			&Outcome{Err: &Error{Code: "42601", Message: `syntax error at or near "X"`}}, `42601 syntax error at or near "x"`},
		{"missing error", "INSERT", &Outcome{Err: &Error{Code: "23505", Message: `duplicate key value violates unique constraint "t_pkey"`}},
			&Outcome{Results: []Result{{Tag: "INSERT 0 1"}}}, `no error where PostgreSQL raises 23505 duplicate key value violates unique constraint "…"`},
		{"tag", "DELETE FROM t", &Outcome{Results: []Result{{Tag: "DELETE 1"}}}, &Outcome{Results: []Result{{Tag: "DELETE 0"}}}, "wrong command tag"},
		{"joined statements compare each", "SELECT a FROM t ORDER BY a; SELECT a FROM t",
			&Outcome{Results: []Result{{Columns: []string{"a"}, Rows: ab}, {Columns: []string{"a"}, Rows: ab}}},
			&Outcome{Results: []Result{{Columns: []string{"a"}, Rows: ab}, {Columns: []string{"a"}, Rows: ba}}}, ""},
		{"explain", "EXPLAIN SELECT 1", sel(ab), sel(ba), "EXPLAIN shows a different plan"},
		{"timeout", "SELECT pg_sleep(20)", sel(nil), &Outcome{Timeout: true}, "timeout (cancelled after the statement limit)"},
		{"crash", "SELECT 1", sel(nil), &Outcome{Lost: true}, "crash (connection lost)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Compare(tc.ref, tc.sub, tc.sql); got != tc.want {
				t.Errorf("Compare = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNondeterministic(t *testing.T) {
	for sql, want := range map[string]bool{
		"SELECT random()":                          true,
		"SELECT now()":                             true,
		"SELECT 'now'::timestamp":                  true,
		"SELECT current_timestamp":                 true,
		"SELECT pg_backend_pid()":                  true,
		"SELECT txid_current()":                    true,
		"SELECT gen_random_uuid()":                 true,
		"SELECT version()":                         true,
		"SELECT setseed(0.5)":                      true,
		"SELECT 'now is the time' AS random":       false,
		"SELECT version FROM t":                    false,
		"SELECT * FROM t -- random() in a comment": false,
	} {
		if got := Nondeterministic(sql); got != want {
			t.Errorf("Nondeterministic(%q) = %v", sql, got)
		}
	}
}

func TestCopyFromFileAndCreated(t *testing.T) {
	sql, data, ok := copyFromFile("COPY small FROM 'testdata/corpus/data/small.data' WITH (FORMAT text);")
	if !ok || sql != "COPY small FROM STDIN WITH (FORMAT text);" || len(data) == 0 {
		t.Errorf("copyFromFile: %q, %d bytes, %v", sql, len(data), ok)
	}
	if _, _, ok := copyFromFile("COPY small FROM stdin;"); ok {
		t.Error("FROM stdin is not a file")
	}
	for sql, want := range map[string]string{
		"CREATE TABLE onek2 AS SELECT * FROM onek":  "onek2",
		"create temp table if not exists x (a int)": "x",
		`CREATE VIEW public."My View" AS SELECT 1`:  "My View",
		"CREATE INDEX i ON t (a)":                   "",
	} {
		if got := createdRelation(sql); got != want {
			t.Errorf("createdRelation(%q) = %q, want %q", sql, got, want)
		}
	}
}
