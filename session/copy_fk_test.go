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
