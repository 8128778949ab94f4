package session_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/session"
)

// errorSetup is the store every error case starts from.
const errorSetup = `
CREATE TABLE t (id INT PRIMARY KEY, email TEXT UNIQUE, n INT4 NOT NULL, note TEXT);
CREATE INDEX t_note ON t (note);
CREATE INDEX t_n_inv ON t USING inverted (n);
INSERT INTO t VALUES (1, 'a@x', 10, 'one'), (2, 'b@x', 20, 'two'), (3, 'c@x', 2147483000, 'two')`

// bigInsert returns a 1,000-row INSERT into t whose row dup (1-based) has
// the primary key 1, which t already holds.
func bigInsert(dup int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO t VALUES ")
	for i := 1; i <= 1000; i++ {
		if i > 1 {
			b.WriteString(", ")
		}
		id := 1000 + i
		if i == dup {
			id = 1
		}
		fmt.Fprintf(&b, "(%d, 'u%d@x', %d, 'bulk')", id, i, i)
	}
	return b.String()
}

// TestErrors checks that each user error carries its SQLSTATE, that the
// store's keys are byte-for-byte the same afterwards (no partial write),
// that the session keeps working, and that index.Check finds nothing.
func TestErrors(t *testing.T) {
	cases := []errorCase{
		{pgerror.SyntaxError, "SELEC 1"},
		{pgerror.SyntaxError, "CREATE TABLE x (a INT,"},
		{pgerror.SyntaxError, "INSERT INTO t VALUES (9, 'z@x', 1, 'x'"},
		{pgerror.SyntaxError, "CREATE TABLE x (a INT NOT)"},

		{pgerror.UndefinedTable, "SELECT * FROM nope"},
		{pgerror.UndefinedTable, "INSERT INTO nope VALUES (1)"},
		{pgerror.UndefinedTable, "DELETE FROM nope"},
		{pgerror.UndefinedTable, "DROP TABLE nope"},

		{pgerror.UndefinedColumn, "SELECT nope FROM t"},
		{pgerror.UndefinedColumn, "UPDATE t SET nope = 1"},
		{pgerror.UndefinedColumn, "INSERT INTO t (id, nope) VALUES (9, 1)"},
		{pgerror.UndefinedColumn, "DELETE FROM t WHERE nope = 1"},

		{pgerror.DuplicateTable, "CREATE TABLE t (a INT)"},
		{pgerror.DuplicateTable, "CREATE TABLE T (a INT)"},

		{pgerror.UniqueViolation, "INSERT INTO t VALUES (1, 'new@x', 1, 'dup pk')"},
		{pgerror.UniqueViolation, "INSERT INTO t VALUES (9, 'a@x', 1, 'dup email')"},
		{pgerror.UniqueViolation, "INSERT INTO t VALUES (9, 'n1@x', 1, 'x'), (9, 'n2@x', 2, 'same pk twice')"},
		{pgerror.UniqueViolation, bigInsert(900)},
		{pgerror.UniqueViolation, "UPDATE t SET email = 'same@x'"},
		{pgerror.UniqueViolation, "UPDATE t SET id = id + 1"},
		{pgerror.UniqueViolation, "CREATE UNIQUE INDEX t_note_u ON t (note)"},

		{pgerror.NotNullViolation, "INSERT INTO t VALUES (9, 'z@x', NULL, 'x')"},
		{pgerror.NotNullViolation, "INSERT INTO t (id, email) VALUES (9, 'z@x')"},
		{pgerror.NotNullViolation, "INSERT INTO t VALUES (NULL, 'z@x', 1, 'null pk')"},
		{pgerror.NotNullViolation, "UPDATE t SET n = NULL WHERE id = 2"},
		{pgerror.NotNullViolation, "INSERT INTO t VALUES (9, 'y@x', 1, 'ok'), (10, 'z@x', NULL, 'second row')"},

		{pgerror.InvalidTextRepresentation, "SELECT 'abc'::int"},
		{pgerror.InvalidTextRepresentation, "INSERT INTO t VALUES (9, 'z@x', 'x1', 'text in int')"},
		{pgerror.InvalidTextRepresentation, "SELECT * FROM t WHERE id = 'one'"},

		{pgerror.DivisionByZero, "SELECT 1 / 0"},
		{pgerror.DivisionByZero, "SELECT 1 % 0"},
		{pgerror.DivisionByZero, "UPDATE t SET n = n / (id - 2)"},
		{pgerror.DivisionByZero, "INSERT INTO t SELECT id + 100, email || 'x', n / (id - 3), note FROM t"},
		{pgerror.DivisionByZero, "DELETE FROM t WHERE n / (id - 3) > 0"},

		{pgerror.NumericValueOutOfRange, "SELECT 2147483647::int4 + 1::int4"},
		{pgerror.NumericValueOutOfRange, "SELECT 9223372036854775807 + 1"},
		{pgerror.NumericValueOutOfRange, "INSERT INTO t VALUES (9, 'z@x', 2147483648, 'too big')"},
		{pgerror.NumericValueOutOfRange, "UPDATE t SET n = n + 1000"},

		{pgerror.DatatypeMismatch, "SELECT * FROM t WHERE 1"},
		{pgerror.DatatypeMismatch, "INSERT INTO t VALUES (9, 'z@x', true, 'bool in int')"},
		{pgerror.DatatypeMismatch, "UPDATE t SET n = 'a'::text"},
	}
	testkit.ForEachEngine(t, func(t *testing.T, db *session.DB) { checkErrors(t, db, errorSetup, cases) })
}

// errorCase is one statement that must fail with code.
type errorCase struct {
	code pgerror.Code
	sql  string
}

func checkErrors(t *testing.T, db *session.DB, setup string, cases []errorCase) {
	ctx := context.Background()
	s, err := db.Session("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Exec(ctx, setup); err != nil {
		t.Fatal(err)
	}
	before := dumpKeys(t, db.Engine())
	for _, c := range cases {
		name := c.sql
		if len(name) > 60 {
			name = name[:60] + "..."
		}
		_, err := s.Exec(ctx, c.sql)
		if got := pgerror.CodeOf(err); got != c.code {
			t.Errorf("%s: got code %s (%v), want %s", name, got, err, c.code)
		}
		if after := dumpKeys(t, db.Engine()); after != before {
			t.Errorf("%s: the store changed:\nbefore:\n%s\nafter:\n%s", name, before, after)
			before = after
		}
		res, err := s.Exec(ctx, "SELECT count(*) FROM t")
		if err != nil || len(res) != 1 || len(res[0].Rows) != 1 || res[0].Rows[0][0].I != 3 {
			t.Fatalf("%s: session unusable afterwards or rows changed: %v %v", name, res, err)
		}
	}
	probs, err := index.Check(db.Engine(), db.Catalog())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range probs {
		t.Errorf("index.Check: %s", p)
	}
}
