package session_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/kvsql/kvsql/internal/testkit"
)

// TestImplicitTransactionBlock checks that the statements of one Query
// message form a transaction block, as in PostgreSQL: an error rolls
// back the statements before it, COMMIT and ROLLBACK end the block
// early, BEGIN makes it explicit, and VACUUM, SAVEPOINT and AND CHAIN
// are refused inside it.
func TestImplicitTransactionBlock(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	conn := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	pg := conn.PgConn()
	ctx := context.Background()
	mustExec(t, conn, `CREATE TABLE it (a int)`)
	steps := []struct {
		sql  string
		code string // the Query's SQLSTATE, "" for none
	}{
		{`INSERT INTO it VALUES (1); SELECT 1`, ""},
		{`INSERT INTO it VALUES (2); SELECT 1/0`, "22012"},
		{`BEGIN; INSERT INTO it VALUES (3); COMMIT`, ""},
		{`SELECT 1; BEGIN; INSERT INTO it VALUES (4)`, ""},
		{`ROLLBACK`, ""},
		{`INSERT INTO it VALUES (5); COMMIT; INSERT INTO it VALUES (6); SELECT 1/0`, "22012"},
		{`INSERT INTO it VALUES (7); ROLLBACK; SELECT 2`, ""},
		{`SELECT 1; VACUUM`, "25001"},
		{`SELECT 1; SAVEPOINT sp`, "25P01"},
		{`INSERT INTO it VALUES (8); COMMIT AND CHAIN`, "25P01"},
	}
	for _, st := range steps {
		_, err := pg.Exec(ctx, st.sql).ReadAll()
		if pgErrCode(err) != st.code {
			t.Errorf("%s: %v, want %q", st.sql, err, st.code)
		}
		if status := pg.TxStatus(); st.sql != `SELECT 1; BEGIN; INSERT INTO it VALUES (4)` && status != 'I' {
			t.Errorf("%s: transaction status %c after the Query, want I", st.sql, status)
		}
	}
	rows, err := conn.Query(ctx, `SELECT a FROM it ORDER BY a`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		t.Fatal(err)
	}
	if want := []int32{1, 3, 5}; len(got) != len(want) || got[0] != 1 || got[1] != 3 || got[2] != 5 {
		t.Errorf("rows %v, want %v", got, want)
	}
}
