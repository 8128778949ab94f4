package session_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/kvsql/kvsql/internal/testkit"
)

// TestCopySerialNull: COPY's \N in a serial or identity column is a NULL
// the row gives, 23502 as in PostgreSQL; a column the COPY does not list
// draws from its sequence.
func TestCopySerialNull(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	conn := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	pg := conn.PgConn()
	ctx := context.Background()
	mustExec(t, conn, `CREATE TABLE cs (id serial PRIMARY KEY, x int)`,
		`CREATE TABLE ci (id int GENERATED ALWAYS AS IDENTITY, x int)`)
	copyIn := func(sql, data string) (int64, error) {
		tag, err := pg.CopyFrom(ctx, strings.NewReader(data), sql)
		return tag.RowsAffected(), err
	}
	for _, c := range []struct{ sql, data string }{
		{`COPY cs FROM STDIN`, "\\N\t1\n"},
		{`COPY cs (x, id) FROM STDIN`, "1\t5\n2\t\\N\n"},
		{`COPY ci FROM STDIN`, "\\N\t1\n"},
	} {
		if _, err := copyIn(c.sql, c.data); sqlstate(err) != "23502" {
			t.Errorf("%s with %q: %v, want 23502", c.sql, c.data, err)
		}
	}
	if n, err := copyIn(`COPY cs (x) FROM STDIN`, "10\n20\n"); err != nil || n != 2 {
		t.Fatalf("COPY cs (x): %d rows, %v", n, err)
	}
	if n, err := copyIn(`COPY cs FROM STDIN`, "100\t30\n"); err != nil || n != 1 {
		t.Fatalf("COPY cs: %d rows, %v", n, err)
	}
	rows, err := conn.Query(ctx, `SELECT id, x FROM cs ORDER BY x`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct{ ID, X int }])
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].ID == got[1].ID || got[2] != (struct{ ID, X int }{100, 30}) {
		t.Errorf("rows after COPY: %v", got)
	}
}
