package session_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/kvsql/kvsql/internal/testkit"
)

// TestIdleInTransactionTimeout: a client that leaves a transaction open
// longer than idle_in_transaction_session_timeout loses its connection
// with PostgreSQL's FATAL 25P03, and its writes are rolled back; idling
// outside a transaction is left alone.
func TestIdleInTransactionTimeout(t *testing.T) {
	srv := testkit.StartServer(t, nil, nil)
	ctx := context.Background()
	setup := srv.Connect(t, pgx.QueryExecModeSimpleProtocol)
	if _, err := setup.Exec(ctx, "CREATE TABLE idle (id INT PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}

	c := srv.Connect(t, pgx.QueryExecModeSimpleProtocol)
	if _, err := c.Exec(ctx, "SET idle_in_transaction_session_timeout = '200ms'"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(400 * time.Millisecond) // idle, but not in a transaction
	if _, err := c.Exec(ctx, "BEGIN"); err != nil {
		t.Fatalf("idle outside a transaction: %v", err)
	}
	if _, err := c.Exec(ctx, "INSERT INTO idle VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(600 * time.Millisecond)
	_, err := c.Exec(ctx, "COMMIT")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "25P03" {
		t.Fatalf("after idling in a transaction: %v, want 25P03", err)
	}
	var n int
	if err := setup.QueryRow(ctx, "SELECT count(*) FROM idle").Scan(&n); err != nil || n != 0 {
		t.Fatalf("rows after the timeout: %d, %v; want 0", n, err)
	}
	if _, err := setup.Exec(ctx, "SET idle_in_transaction_session_timeout = 'soon'"); err == nil {
		t.Fatal("a bad value was accepted")
	}
}
