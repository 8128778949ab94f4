package session_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/kvsql/kvsql/internal/testkit"
)

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
