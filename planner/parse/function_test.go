package parse

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/pgerror"
)

func TestCreateFunctionParse(t *testing.T) {
	strict := true
	cases := []struct {
		sql  string
		want RoutineStmt
	}{
		{`CREATE FUNCTION f(int) RETURNS int AS 'select $1+1' LANGUAGE sql`,
			RoutineStmt{Op: "create", Name: "f", HasArgs: true, Args: []RoutineArg{{Mode: "in", Type: "integer"}},
				Returns: "integer", Language: "sql", Body: "select $1+1", Form: "as"}},
		{`create or replace function public.g(in a int, b double precision default 1.5, variadic c text[]) returns setof numeric
		  language sql immutable strict parallel safe cost 5 rows 10 as $$ select 1 $$`,
			RoutineStmt{Op: "create", OrReplace: true, Name: "g", HasArgs: true, Args: []RoutineArg{
				{Mode: "in", Name: "a", Type: "integer"}, {Mode: "in", Name: "b", Type: "double precision", Default: "1.5"},
				{Mode: "variadic", Name: "c", Type: "text[]"}},
				Returns: "numeric", SetOf: true, Language: "sql", Body: " select 1 ", Form: "as",
				Volatility: "immutable", Strict: &strict, Parallel: "safe", Cost: ptr(5.0), Rows: ptr(10.0)}},
		{`CREATE FUNCTION h(n int) RETURNS TABLE (a int, b text) LANGUAGE sql AS 'select 1, 2'`,
			RoutineStmt{Op: "create", Name: "h", HasArgs: true, Args: []RoutineArg{{Mode: "in", Name: "n", Type: "integer"}},
				Returns: "record", SetOf: true, Table: []RoutineArg{{Mode: "out", Name: "a", Type: "integer"}, {Mode: "out", Name: "b", Type: "text"}},
				Language: "sql", Body: "select 1, 2", Form: "as"}},
		{`CREATE FUNCTION r(x int) RETURNS int RETURN x * 2`,
			RoutineStmt{Op: "create", Name: "r", HasArgs: true, Args: []RoutineArg{{Mode: "in", Name: "x", Type: "integer"}},
				Returns: "integer", Language: "sql", Body: "x * 2", Form: "return"}},
		{`CREATE PROCEDURE p() BEGIN ATOMIC INSERT INTO t VALUES (1); SELECT CASE WHEN true THEN 1 END; END`,
			RoutineStmt{Op: "create", Procedure: true, Name: "p", HasArgs: true, Language: "sql",
				Body: "INSERT INTO t VALUES (1); SELECT CASE WHEN true THEN 1 END;", Form: "atomic"}},
		{`DROP FUNCTION IF EXISTS f(int, OUT x text), g CASCADE`,
			RoutineStmt{Op: "drop", IfExists: true, Cascade: true, Targets: []RoutineRef{
				{Name: "f", HasArgs: true, Args: []RoutineArg{{Mode: "in", Type: "integer"}, {Mode: "out", Name: "x", Type: "text"}}},
				{Name: "g"}}}},
		{`ALTER FUNCTION f(int) RENAME TO g`,
			RoutineStmt{Op: "alter", Name: "f", HasArgs: true, Args: []RoutineArg{{Mode: "in", Type: "integer"}}, NewName: "g"}},
		{`ALTER ROUTINE f STABLE RESTRICT`,
			RoutineStmt{Op: "alter", Name: "f", Volatility: "stable", Options: true}},
	}
	for _, c := range cases {
		stmts, err := Parse(c.sql)
		if err != nil || len(stmts) != 1 || stmts[0].Routine == nil {
			t.Errorf("%s: %v (%d statements)", c.sql, err, len(stmts))
			continue
		}
		if got := *stmts[0].Routine; !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.sql, got, c.want)
		}
	}
}

func ptr(f float64) *float64 { return &f }

func TestCreateFunctionErrors(t *testing.T) {
	cases := []struct {
		sql  string
		code pgerror.Code
	}{
		{`CREATE FUNCTION f() RETURNS int AS 'select 1'`, pgerror.InvalidFunctionDefinition},  // no language
		{`CREATE FUNCTION f() RETURNS int LANGUAGE sql`, pgerror.InvalidFunctionDefinition},   // no body
		{`CREATE FUNCTION f() AS 'select 1' LANGUAGE sql`, pgerror.InvalidFunctionDefinition}, // no result type
		{`CREATE FUNCTION f() RETURNS int STABLE VOLATILE RETURN 1`, pgerror.SyntaxError},     // conflicting options
		{`CREATE FUNCTION f() RETURNS int PARALLEL maybe RETURN 1`, pgerror.InvalidParameterValue},
		{`CREATE FUNCTION f(int int int) RETURNS int RETURN 1`, pgerror.SyntaxError},
		{`CREATE FUNCTION f() RETURNS int WINDOW LANGUAGE sql AS 'x'`, pgerror.FeatureNotSupported},
		{`CREATE FUNCTION nosuch.f() RETURNS int RETURN 1`, pgerror.InvalidSchemaName},
		{`DO 1`, pgerror.SyntaxError},
		{`DO LANGUAGE plpgsql`, pgerror.SyntaxError},
		{`DROP FUNCTION f(a int DEFAULT 1)`, pgerror.SyntaxError},
	}
	for _, c := range cases {
		_, err := Parse(c.sql)
		if pgerror.CodeOf(err) != c.code {
			t.Errorf("%s: %v, want %s", c.sql, err, c.code)
		}
	}
}

// TestFunctionCallsInFrom checks the spelling of calls in FROM, and that
// FROM in EXTRACT, SUBSTRING and IS DISTINCT FROM starts no call.
func TestFunctionCallsInFrom(t *testing.T) {
	for _, sql := range []string{
		`SELECT * FROM f(1, 2) AS t(x)`,
		`SELECT * FROM public.f(1) WITH ORDINALITY`,
		`SELECT * FROM g() AS r(a int, b text)`,
		`SELECT * FROM t, LATERAL f(t.a) x`,
	} {
		st, err := ParseOne(sql)
		if err != nil {
			t.Errorf("%s: %v", sql, err)
			continue
		}
		if got := render(&st); !strings.Contains(got, MarkerRoutine) {
			t.Errorf("%s: parsed as %s, want a %s call", sql, got, MarkerRoutine)
		}
	}
	for _, sql := range []string{
		`SELECT extract(year FROM now())`,
		`SELECT substring('abc' FROM length('x'))`,
		`SELECT 1 IS DISTINCT FROM abs(1)`,
		`SELECT TRUE IS NOT DISTINCT FROM NOT (TRUE)`,
	} {
		st, err := ParseOne(sql)
		if err != nil {
			t.Errorf("%s: %v", sql, err)
			continue
		}
		if got := render(&st); strings.Contains(got, MarkerRoutine) {
			t.Errorf("%s: parsed as %s, a call in FROM", sql, got)
		}
	}
}
