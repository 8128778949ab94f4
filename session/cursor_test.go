package session_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/pgerror"
)

// TestCursors checks DECLARE / FETCH / MOVE / CLOSE on kvsql alone.
func TestCursors(t *testing.T) {
	s := testkit.NewSession(t, testkit.OpenMem(t))
	testkit.Must(t, s, "CREATE TABLE ct (a INT, b TEXT)")
	testkit.Must(t, s, "INSERT INTO ct SELECT g, 'r' || g FROM generate_series(1, 10) g")
	testkit.WantCode(t, s, "DECLARE c CURSOR FOR SELECT a FROM ct", pgerror.NoActiveSQLTransaction)
	testkit.Must(t, s, "BEGIN")
	testkit.Must(t, s, "DECLARE c CURSOR FOR SELECT a FROM ct ORDER BY a")
	testkit.Want(t, s, "FETCH 2 FROM c", "1\n2")
	testkit.Want(t, s, "FETCH PRIOR FROM c", "1")
	testkit.Want(t, s, "FETCH ABSOLUTE -1 FROM c", "10")
	testkit.Want(t, s, "FETCH NEXT FROM c", "")
	testkit.Want(t, s, "FETCH BACKWARD 2 FROM c", "10\n9")
	testkit.WantCode(t, s, "DECLARE c CURSOR FOR SELECT 1", pgerror.DuplicateCursor)
	testkit.Must(t, s, "ROLLBACK")
	testkit.WantCode(t, s, "FETCH c", pgerror.InvalidCursorName)
}

// TestCursorsLikePostgres runs testdata/cursors.sql statement by
// statement on kvsql and on PostgreSQL 15 over the wire and compares
// every answer: rows, command tag, SQLSTATE.
func TestCursorsLikePostgres(t *testing.T) {
	if !testkit.HavePostgres() {
		t.Skip("PostgreSQL 15 binaries not found: the comparison needs them")
	}
	script, err := os.ReadFile("testdata/cursors.sql")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	kv := testkit.StartServer(t, nil, nil).Connect(t, pgx.QueryExecModeSimpleProtocol)
	pg, err := pgx.Connect(ctx, testkit.StartPostgres(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close(ctx)
	answer := func(c *pgx.Conn, sql string) string {
		code := func(err error) string {
			var pe *pgconn.PgError
			if errors.As(err, &pe) {
				return "ERROR " + pe.Code
			}
			return "ERROR " + err.Error()
		}
		res := c.PgConn().Exec(ctx, sql)
		var b strings.Builder
		failed := ""
		for res.NextResult() {
			r := res.ResultReader()
			for r.NextRow() {
				for i, v := range r.Values() {
					if i > 0 {
						b.WriteByte('|')
					}
					b.Write(v)
				}
				b.WriteByte('\n')
			}
			tag, err := r.Close()
			if err != nil && failed == "" {
				failed = code(err)
			}
			b.WriteString(tag.String())
		}
		if err := res.Close(); err != nil && failed == "" {
			failed = code(err)
		}
		if failed != "" {
			return failed
		}
		return b.String()
	}
	n := 0
	for _, stmt := range strings.Split(string(script), ";\n") {
		stmt = strings.TrimSpace(stmt)
		if stmt == "" {
			continue
		}
		n++
		k, p := answer(kv, stmt), answer(pg, stmt)
		if k != p {
			t.Errorf("%s\nkvsql:      %q\nPostgreSQL: %q", stmt, k, p)
		}
	}
	if n < 30 {
		t.Fatalf("only %d statements compared", n)
	}
}
