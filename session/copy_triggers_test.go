package session_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/wire/backend"
)

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
