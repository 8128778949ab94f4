package session_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/internal/testkit"
)

// TestSettingsAreTransactional checks SET against PostgreSQL 15's
// answers: a SET inside a transaction block is taken back by ROLLBACK
// and by ROLLBACK TO SAVEPOINT for what came after the savepoint, kept
// by COMMIT; SET LOCAL and set_config(..., true) last until the block
// ends either way; a plain SET after a SET LOCAL is what COMMIT keeps;
// RESET is a SET to the default; outside a block SET LOCAL does nothing.
func TestSettingsAreTransactional(t *testing.T) {
	s := testkit.NewSession(t, testkit.OpenMem(t))
	ctx := context.Background()
	exec := func(sql string) {
		t.Helper()
		if _, err := s.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	show := func(name string) string {
		t.Helper()
		res, err := s.Exec(ctx, "SHOW "+name)
		if err != nil {
			t.Fatal(err)
		}
		return res[0].Rows[0][0].S
	}
	def := show("work_mem")
	steps := []struct {
		sql  string // statements, ';'-separated, run one by one
		name string // then SHOW name
		want string
	}{
		{"BEGIN; SET work_mem = '1MB'; ROLLBACK", "work_mem", def},
		{"BEGIN; SET work_mem = '1MB'; COMMIT", "work_mem", "1MB"},
		{"RESET work_mem", "work_mem", def},
		{"BEGIN; SET LOCAL work_mem = '2MB'", "work_mem", "2MB"},
		{"COMMIT", "work_mem", def},
		{"BEGIN; SET work_mem = '3MB'; SAVEPOINT a; SET work_mem = '5MB'; ROLLBACK TO a", "work_mem", "3MB"},
		{"COMMIT", "work_mem", "3MB"},
		{"BEGIN; SET work_mem = '6MB'; SET LOCAL work_mem = '7MB'", "work_mem", "7MB"},
		{"COMMIT", "work_mem", "6MB"},
		{"BEGIN; SET LOCAL work_mem = '8MB'; SET work_mem = '9MB'; COMMIT", "work_mem", "9MB"},
		{"SET LOCAL work_mem = '10MB'", "work_mem", "9MB"},
		{"BEGIN; SELECT set_config('work_mem', '11MB', true); COMMIT", "work_mem", "9MB"},
		{"BEGIN; SELECT set_config('work_mem', '12MB', false); ROLLBACK", "work_mem", "9MB"},
		{"BEGIN; RESET ALL; ROLLBACK", "work_mem", "9MB"},
		{"BEGIN; SET work_mem = '13MB'; SAVEPOINT a; SET LOCAL work_mem = '14MB'; RELEASE a", "work_mem", "14MB"},
		{"COMMIT", "work_mem", "13MB"},
		{"BEGIN; SET TIME ZONE 'Europe/Paris'; ROLLBACK", "timezone", "UTC"},
		{"BEGIN; SET search_path = nowhere; ROLLBACK", "search_path", `"$user", public`},
		{"BEGIN; SET statement_timeout = '5s'; SELECT 1/0; COMMIT", "statement_timeout", "0"},
	}
	for _, st := range steps {
		for _, q := range strings.Split(st.sql, ";") {
			if q = strings.TrimSpace(q); q == "SELECT 1/0" {
				if _, err := s.Exec(ctx, q); err == nil {
					t.Fatal("SELECT 1/0 did not fail")
				}
			} else {
				exec(q)
			}
		}
		if got := show(st.name); got != st.want {
			t.Errorf("after %s: %s = %q, want %q", st.sql, st.name, got, st.want)
		}
	}
	// A zone set in a rolled-back block is not the one timestamps use.
	res, err := s.Exec(ctx, "SELECT '2020-01-01 00:00:00+00'::timestamptz::text")
	if err != nil {
		t.Fatal(err)
	}
	if got := res[0].Rows[0][0].S; got != "2020-01-01 00:00:00+00" {
		t.Errorf("timestamptz after a rolled-back SET TIME ZONE: %s", got)
	}
}
