package session_test

import (
	"context"
	"testing"
	"time"

	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/pgerror"
)

// TestAdvisoryLocks: pg_advisory_lock and its kin behave as PostgreSQL's:
// an exclusive hold makes another session wait (and try fail) until it
// is released as often as it was taken; shared holds go together; the
// xact forms end with the transaction, a session's holds with the
// session; a cancelled waiter stops with 57014.
func TestAdvisoryLocks(t *testing.T) {
	db := testkit.OpenMem(t)
	a, b := testkit.NewSession(t, db), testkit.NewSession(t, db)

	testkit.Want(t, a, "SELECT pg_try_advisory_lock(7)", "true")
	testkit.Want(t, a, "SELECT pg_try_advisory_lock(7)", "true") // again: held twice
	testkit.Want(t, b, "SELECT pg_try_advisory_lock(7)", "false")
	testkit.Want(t, b, "SELECT pg_try_advisory_lock(7, 0)", "true") // two integers are another key
	w := goRun(b, "SELECT pg_advisory_lock(7)")
	testkit.Want(t, a, "SELECT pg_advisory_unlock(7)", "true")
	select {
	case err := <-w:
		t.Fatalf("the waiter got the lock while it was still held once: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	testkit.Want(t, a, "SELECT pg_advisory_unlock(7)", "true")
	select {
	case err := <-w:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter did not get the released lock")
	}
	testkit.Want(t, a, "SELECT pg_advisory_unlock(7)", "false") // not a's any more
	testkit.Want(t, b, "SELECT pg_advisory_unlock_all() IS NOT NULL", "true")

	// Shared holds go together and keep an exclusive one out.
	testkit.Want(t, a, "SELECT pg_try_advisory_lock_shared(8)", "true")
	testkit.Want(t, b, "SELECT pg_try_advisory_lock_shared(8)", "true")
	testkit.Want(t, b, "SELECT pg_try_advisory_lock(8)", "false")
	testkit.Want(t, a, "SELECT pg_advisory_unlock_shared(8)", "true")
	testkit.Want(t, b, "SELECT pg_try_advisory_lock(8)", "true") // its own shared hold does not conflict

	// An xact lock ends with its transaction, also an autocommit one.
	testkit.Must(t, a, "BEGIN")
	testkit.Want(t, a, "SELECT pg_try_advisory_xact_lock(9)", "true")
	testkit.Want(t, b, "SELECT pg_try_advisory_lock(9)", "false")
	testkit.Must(t, a, "ROLLBACK")
	testkit.Want(t, b, "SELECT pg_try_advisory_xact_lock(9)", "true")
	testkit.Want(t, a, "SELECT pg_try_advisory_lock(9)", "true")

	// A session's holds end with it; a waiter stops at a cancel.
	cctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	if _, err := b.Exec(cctx, "SELECT pg_advisory_lock(9)"); !pgerror.HasCode(err, pgerror.QueryCanceled) {
		t.Fatalf("a cancelled wait: %v, want 57014", err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	testkit.Want(t, b, "SELECT pg_try_advisory_lock(9)", "true")
	testkit.WantCode(t, b, "SELECT pg_advisory_lock(1.5)", pgerror.UndefinedFunction)
}
