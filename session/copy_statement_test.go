package session_test

// COPY FROM as one statement: its foreign-key checks and statement-level
// triggers at its end, and its errors' CONTEXT lines.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/wire/backend"
)

// TestCopyForeignKeyAtStatementEnd: a COPY is one statement, so its NO
// ACTION foreign-key checks run when it ends, as PostgreSQL's
// after-triggers do. A row may reference a row later in the same COPY,
// also in a later batch of it; a key that is still missing at the end
// fails the whole COPY with 23503 and leaves no row, in autocommit and in
// an explicit transaction (which is then aborted).
func TestCopyForeignKeyAtStatementEnd(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	conn := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	pg := conn.PgConn()
	ctx := context.Background()
	mustExec(t, conn, `CREATE TABLE tree (id int PRIMARY KEY, parent int REFERENCES tree)`)
	copyIn := func(data string) (int64, error) {
		tag, err := pg.CopyFrom(ctx, strings.NewReader(data), `COPY tree FROM STDIN`)
		return tag.RowsAffected(), err
	}
	count := func() int64 {
		t.Helper()
		var n int64
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM tree`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	wantFK := func(what string, err error) {
		t.Helper()
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "23503" || pe.ConstraintName != "tree_parent_fkey" {
			t.Fatalf("%s: %v, want 23503 on tree_parent_fkey", what, err)
		}
	}

	// Each row references the next; the chain crosses batch boundaries.
	rows := 3*backend.CopyBatchRows + 10
	var b strings.Builder
	for i := range rows {
		if i == rows-1 {
			fmt.Fprintf(&b, "%d\t\\N\n", i)
		} else {
			fmt.Fprintf(&b, "%d\t%d\n", i, i+1)
		}
	}
	if n, err := copyIn(b.String()); err != nil || n != int64(rows) {
		t.Fatalf("COPY of a chain referencing later rows: %d rows, %v; want %d", n, err, rows)
	}

	// A key missing at the end: nothing of the COPY stays.
	_, err := copyIn("100000\t100001\n100001\t100002\n")
	wantFK("autocommit COPY referencing a missing row", err)
	if n := count(); n != int64(rows) {
		t.Fatalf("after the failed COPY: %d rows, want %d", n, rows)
	}

	// In a transaction: the failed COPY aborts it; a good one commits.
	mustExec(t, conn, `BEGIN`)
	_, err = copyIn("200000\t200001\n")
	wantFK("COPY in a transaction", err)
	var pe *pgconn.PgError
	if _, err := conn.Exec(ctx, `SELECT 1`); !errors.As(err, &pe) || pe.Code != "25P02" {
		t.Fatalf("after the failed COPY in a transaction: %v, want 25P02", err)
	}
	mustExec(t, conn, `ROLLBACK`, `BEGIN`)
	if _, err := copyIn("300001\t300000\n300000\t\\N\n"); err != nil {
		t.Fatal(err)
	}
	mustExec(t, conn, `COMMIT`)
	if n := count(); n != int64(rows)+2 {
		t.Fatalf("after the committed COPY: %d rows, want %d", n, rows+2)
	}

	// A referenced row deleted later in the same transaction is still
	// caught by the DELETE's own check.
	_, err = conn.Exec(ctx, `DELETE FROM tree WHERE id = 300000`)
	wantFK("DELETE of a referenced row", err)
}

// TestCopyStatementTriggersOnce: a COPY FROM is one statement, so the
// table's BEFORE and AFTER STATEMENT triggers fire once each, however
// many batches its rows arrive in, the AFTER one seeing every row, and
// also for a COPY of no rows, as in PostgreSQL. (The batches used to
// fire both per batch of backend.CopyBatchRows rows.)
func TestCopyStatementTriggersOnce(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	conn := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	pg := conn.PgConn()
	ctx := context.Background()
	mustExec(t, conn,
		`CREATE TABLE st (a int)`,
		`CREATE TABLE fired (timing text, seen bigint)`,
		`CREATE FUNCTION note() RETURNS trigger LANGUAGE plpgsql AS $$
		 BEGIN INSERT INTO fired SELECT TG_WHEN, count(*) FROM st; RETURN NULL; END $$`,
		`CREATE TRIGGER st_before BEFORE INSERT ON st FOR EACH STATEMENT EXECUTE FUNCTION note()`,
		`CREATE TRIGGER st_after AFTER INSERT ON st FOR EACH STATEMENT EXECUTE FUNCTION note()`,
	)
	fired := func() string {
		t.Helper()
		rows, err := conn.Query(ctx, `SELECT timing, seen FROM fired ORDER BY timing DESC, seen`)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for rows.Next() {
			var timing string
			var seen int64
			if err := rows.Scan(&timing, &seen); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%s %d", timing, seen))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		mustExec(t, conn, `DELETE FROM fired`)
		return strings.Join(out, ", ")
	}
	n := 2*backend.CopyBatchRows + 500
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%d\n", i)
	}
	if _, err := pg.CopyFrom(ctx, strings.NewReader(b.String()), `COPY st FROM STDIN`); err != nil {
		t.Fatal(err)
	}
	if got, want := fired(), fmt.Sprintf("BEFORE 0, AFTER %d", n); got != want {
		t.Errorf("COPY of %d rows fired %q, want %q", n, got, want)
	}
	if _, err := pg.CopyFrom(ctx, strings.NewReader(""), `COPY st FROM STDIN`); err != nil {
		t.Fatal(err)
	}
	if got, want := fired(), fmt.Sprintf("BEFORE %d, AFTER %d", n, n); got != want {
		t.Errorf("COPY of no rows fired %q, want %q", got, want)
	}
	// A COPY that fails leaves no firing behind.
	if _, err := pg.CopyFrom(ctx, strings.NewReader("1\nx\n"), `COPY st FROM STDIN`); err == nil {
		t.Fatal("COPY of a bad row succeeded")
	}
	if got := fired(); got != "" {
		t.Errorf("a failed COPY left firings %q", got)
	}
}

// TestCopyErrorContext: an error in a COPY FROM row carries PostgreSQL's
// message, and its CONTEXT (the ErrorResponse's Where) names the table and
// the input line — with the column and its value for a field that does not
// convert, with the line's text (cut at 100 bytes) for a line that does not
// split or a row a constraint refuses, and without text for a unique
// violation — in text, CSV and binary format, across batches and after a
// header line. Every expectation is PostgreSQL 15's output.
func TestCopyErrorContext(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	conn := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	pg := conn.PgConn()
	ctx := context.Background()
	mustExec(t, conn, `CREATE TABLE ct (a int PRIMARY KEY, b text NOT NULL, c int CHECK (c > 0))`)
	long := "1\t" + strings.Repeat("é", 60) + "\t-1\n"
	var many strings.Builder
	for i := 1; i <= 3000; i++ {
		k := i
		if i == 2501 {
			k = 1
		}
		fmt.Fprintf(&many, "%d\tx\t1\n", k)
	}
	for _, c := range []struct{ sql, data, code, msg, where string }{
		{`COPY ct FROM STDIN`, "1\tx\t5\nzz\ty\t6\n", "22P02", `invalid input syntax for type integer: "zz"`, `COPY ct, line 2, column a: "zz"`},
		{`COPY ct FROM STDIN`, "1\tx\t99999999999\n", "22003", `value "99999999999" is out of range for type integer`, `COPY ct, line 1, column c: "99999999999"`},
		{`COPY ct FROM STDIN`, "1\t\\N\t5\n", "23502", `null value in column "b" of relation "ct" violates not-null constraint`, "COPY ct, line 1: \"1\t\\N\t5\""},
		{`COPY ct FROM STDIN`, "1\tx\n", "22P04", `missing data for column "c"`, "COPY ct, line 1: \"1\tx\""},
		{`COPY ct FROM STDIN`, "1\tx\t5\t7\n", "22P04", `extra data after last expected column`, "COPY ct, line 1: \"1\tx\t5\t7\""},
		{`COPY ct FROM STDIN`, long, "23514", `new row for relation "ct" violates check constraint "ct_c_check"`, "COPY ct, line 1: \"1\t" + strings.Repeat("é", 49) + "...\""},
		{`COPY ct FROM STDIN`, "1\tx\t5\n1\ty\t6\n", "23505", `duplicate key value violates unique constraint "ct_pkey"`, `COPY ct, line 2`},
		{`COPY ct FROM STDIN`, many.String(), "23505", `duplicate key value violates unique constraint "ct_pkey"`, `COPY ct, line 2501`},
		{`COPY ct FROM STDIN (FORMAT csv, HEADER)`, "a,b,c\n1,y,2\n1,z,3\n", "23505", `duplicate key value violates unique constraint "ct_pkey"`, `COPY ct, line 3`},
		{`COPY ct FROM STDIN (FORMAT csv, HEADER match)`, "a,x,c\n1,y,2\n", "22P04", `column name mismatch in header line field 2: got "x", expected "b"`, `COPY ct, line 1: "a,x,c"`},
		{`COPY ct FROM STDIN (FORMAT csv)`, "1,x,5\n2,,zz\n", "22P02", `invalid input syntax for type integer: "zz"`, `COPY ct, line 2, column c: "zz"`},
	} {
		_, err := pg.CopyFrom(ctx, strings.NewReader(c.data), c.sql)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != c.code || pe.Message != c.msg || pe.Where != c.where {
			t.Errorf("%s of %.40q: %v (where %q), want %s %q where %q", c.sql, c.data, err, whereOf(pe), c.code, c.msg, c.where)
		}
	}

	// Binary (pgx's CopyFrom): the line is the tuple's number, no text.
	rows := [][]any{{1, "x", 1}, {2, nil, 2}}
	_, err := conn.CopyFrom(ctx, pgx.Identifier{"ct"}, []string{"a", "b", "c"}, pgx.CopyFromRows(rows))
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "23502" || pe.Where != "COPY ct, line 2" {
		t.Errorf("binary COPY with a NULL b in its second row: %v (where %q), want 23502 where %q", err, whereOf(pe), "COPY ct, line 2")
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM ct`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("after failed COPYs: %d rows (%v), want none", n, err)
	}
}

func whereOf(pe *pgconn.PgError) string {
	if pe == nil {
		return ""
	}
	return pe.Where
}

// TestCopyChecksDomains: COPY checks the constraints of a column's
// domain in text and binary format, also into an empty table (which it
// loads by ingesting files), and a row that fails leaves no row of the
// COPY behind.
func TestCopyChecksDomains(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	conn := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	ctx := context.Background()
	mustExec(t, conn, `CREATE DOMAIN pos AS int NOT NULL CHECK (VALUE > 0)`)
	mustExec(t, conn, `CREATE TABLE d (id int PRIMARY KEY, p pos)`)
	count := func() int64 {
		t.Helper()
		var n int64
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM d`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	wantCode := func(what string, err error, code string) {
		t.Helper()
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != code {
			t.Fatalf("%s: %v, want %s", what, err, code)
		}
	}
	rows := 2*backend.CopyBatchRows + 10
	text := func(bad int) string {
		var b strings.Builder
		for i := range rows {
			v := i + 1
			if i == bad {
				v = -v
			}
			fmt.Fprintf(&b, "%d\t%d\n", i, v)
		}
		return b.String()
	}
	_, err := conn.PgConn().CopyFrom(ctx, strings.NewReader(text(rows-1)), `COPY d FROM STDIN`)
	wantCode("text COPY with a negative value in its last row", err, "23514")
	if n := count(); n != 0 {
		t.Fatalf("a failed COPY left %d rows", n)
	}
	src := pgx.CopyFromSlice(3, func(i int) ([]any, error) {
		if i == 2 {
			return []any{i, nil}, nil
		}
		return []any{i, i + 1}, nil
	})
	_, err = conn.CopyFrom(ctx, pgx.Identifier{"d"}, []string{"id", "p"}, src)
	wantCode("binary COPY of a NULL", err, "23502")
	if n := count(); n != 0 {
		t.Fatalf("a failed COPY left %d rows", n)
	}
	if _, err := conn.PgConn().CopyFrom(ctx, strings.NewReader(text(-1)), `COPY d FROM STDIN`); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != int64(rows) {
		t.Fatalf("COPY loaded %d rows, want %d", n, rows)
	}
}
