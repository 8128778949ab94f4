package driver_test

import (
	"context"
	"errors"
	"testing"
	"time"
)

// slow is a query that runs for minutes unless stopped.
const slow = "SELECT count(*) FROM generate_series(1, 1000000000) a"

// TestCancelRunningQuery cancels a query mid-run: it stops promptly with
// 57014 and context.Canceled, and the connection stays usable.
func TestCancelRunningQuery(t *testing.T) {
	db := open(t, ":memory:")
	db.SetMaxOpenConns(1)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	var n int64
	err := db.QueryRowContext(ctx, slow).Scan(&n)
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("the cancelled query ran %v", el)
	}
	if code(err) != "57014" || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled query: %v (SQLSTATE %q), want 57014 wrapping context.Canceled", err, code(err))
	}
	if n := count(t, db, "SELECT 1"); n != 1 {
		t.Errorf("after the cancel: %d", n)
	}
}

// TestQueryTimeout: a context deadline stops a query as statement_timeout
// does over the wire.
func TestQueryTimeout(t *testing.T) {
	db := open(t, ":memory:")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := db.ExecContext(ctx, slow)
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("the timed-out statement ran %v", el)
	}
	if code(err) != "57014" || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("timed-out statement: %v (SQLSTATE %q), want 57014 wrapping context.DeadlineExceeded", err, code(err))
	}
}

// TestCancelLockWait: a statement waiting for a row lock another
// transaction holds gives up when its context ends; the holder is
// unaffected.
func TestCancelLockWait(t *testing.T) {
	db := open(t, ":memory:")
	mustExec(t, db, "CREATE TABLE l (id INT PRIMARY KEY, v INT)")
	mustExec(t, db, "INSERT INTO l VALUES (1, 0)")
	holder, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, holder, "UPDATE l SET v = 1 WHERE id = 1")

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = db.ExecContext(ctx, "UPDATE l SET v = 2 WHERE id = 1")
	if el := time.Since(start); el < 150*time.Millisecond || el > 10*time.Second {
		t.Errorf("the waiting UPDATE returned after %v, want about 200ms", el)
	}
	if code(err) != "57014" || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting UPDATE: %v (SQLSTATE %q), want 57014 wrapping context.DeadlineExceeded", err, code(err))
	}
	if err := holder.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "SELECT v FROM l WHERE id = 1"); n != 1 {
		t.Errorf("v = %d, want the holder's 1", n)
	}
}

// TestCancelInTransaction: a cancelled statement fails its transaction,
// as any error does.
func TestCancelInTransaction(t *testing.T) {
	db := open(t, ":memory:")
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := tx.ExecContext(sctx, slow); code(err) != "57014" {
		t.Fatalf("timed-out statement: %v", err)
	}
	if _, err := tx.Exec("SELECT 1"); code(err) != "25P02" {
		t.Errorf("after the cancelled statement: %v, want 25P02", err)
	}
	_ = tx.Rollback()
}
