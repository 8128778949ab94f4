package session_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/kvsql/kvsql/internal/testkit"
)

// TestDiscardAllDropsProtocolStatements: DISCARD ALL (a pooler's reset)
// and DEALLOCATE ALL drop the connection's protocol-level prepared
// statements too, as PostgreSQL's do, so the next client may Parse the
// same names again; without it, 42P05.
func TestDiscardAllDropsProtocolStatements(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	ctx := context.Background()
	conn := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	pg := conn.PgConn()
	for _, reset := range []string{"DISCARD ALL", "DEALLOCATE ALL"} {
		if _, err := pg.Prepare(ctx, "s1", "SELECT 1", nil); err != nil {
			t.Fatal(err)
		}
		_, err := pg.Prepare(ctx, "s1", "SELECT 1", nil)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "42P05" {
			t.Fatalf("a second Parse of s1: %v, want 42P05", err)
		}
		if err := pg.Exec(ctx, reset).Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := pg.Prepare(ctx, "s1", "SELECT 2", nil); err != nil {
			t.Fatalf("Parse of s1 after %s: %v", reset, err)
		}
		if err := pg.Exec(ctx, "DEALLOCATE ALL").Close(); err != nil {
			t.Fatal(err)
		}
	}
}
