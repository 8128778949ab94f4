package session_test

import (
	"context"
	"testing"
	"time"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/session"
)

// TestPgSleep: pg_sleep waits at least as long as asked, and a statement
// timeout or a cancel request stops it with 57014.
func TestPgSleep(t *testing.T) {
	db, err := session.Open(session.Options{Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, _ := db.Session("")
	ctx := context.Background()
	for _, q := range []string{"SELECT pg_sleep(0.05)", "SELECT pg_sleep_for('50 ms')", "SELECT pg_sleep_until(now() + interval '50 ms')"} {
		start := time.Now()
		if _, err := s.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if d := time.Since(start); d < 50*time.Millisecond {
			t.Fatalf("%s returned after %v", q, d)
		}
	}

	// The wire server runs a statement under statement_timeout as a
	// deadline on its context.
	dctx, stop := context.WithTimeout(ctx, 50*time.Millisecond)
	defer stop()
	_, err = s.Exec(dctx, "SELECT pg_sleep(600)")
	if !pgerror.HasCode(err, pgerror.QueryCanceled) {
		t.Fatalf("pg_sleep past its deadline: %v, want 57014", err)
	}

	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err = s.Exec(cctx, "SELECT pg_sleep('infinity')")
	if !pgerror.HasCode(err, pgerror.QueryCanceled) {
		t.Fatalf("a cancelled pg_sleep: %v, want 57014", err)
	}
	if _, err := s.Exec(ctx, "SELECT 1"); err != nil {
		t.Fatalf("after the cancel: %v", err)
	}
}
