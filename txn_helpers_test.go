package kvsql

// Helpers of the transaction tests (txn_*_test.go). Names start with tx
// so they do not collide with the other test files of the package.

import (
	"context"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/kvsql/kvsql/pgerror"
)

var txSeed = flag.Int64("txn.seed", 0, "seed of the randomized transaction tests (0: time-based)")

// txSeedValue returns the seed to use, logging it so a failure can be
// replayed with -txn.seed.
func txSeedValue(t testing.TB) int64 {
	t.Helper()
	s := *txSeed
	if s == 0 {
		s = time.Now().UnixNano()
	}
	t.Logf("seed %d (replay with -txn.seed=%d)", s, s)
	return s
}

// txOpenMem opens an in-memory store closed at the end of the test.
func txOpenMem(t testing.TB) *DB {
	t.Helper()
	db, err := Open(Options{Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// txSession opens a session on db's default database.
func txSession(t testing.TB, db *DB) *Session {
	t.Helper()
	s, err := db.Session("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

var txBg = context.Background() // the context of in-process test statements

// txRun runs sql and returns the error, if any, of its statements.
func txRun(s *Session, sql string) error {
	_, err := s.Exec(context.Background(), sql)
	return err
}

// txMust runs sql and fails the test on error.
func txMust(t testing.TB, s *Session, sql string) {
	t.Helper()
	if err := txRun(s, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// txQuery runs one query and returns its rows as text, one line per row,
// columns separated by spaces.
func txQuery(t testing.TB, s *Session, sql string) string {
	t.Helper()
	res, err := s.Exec(context.Background(), sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	var lines []string
	for _, r := range res {
		for _, row := range r.Rows {
			var cols []string
			for _, d := range row {
				cols = append(cols, d.String())
			}
			lines = append(lines, strings.Join(cols, " "))
		}
	}
	return strings.Join(lines, "\n")
}

// txWantCode fails the test unless running sql fails with code.
func txWantCode(t testing.TB, s *Session, sql string, code pgerror.Code) {
	t.Helper()
	err := txRun(s, sql)
	if !pgerror.HasCode(err, code) {
		t.Fatalf("%s: got error %v (code %q), want code %s", sql, err, pgerror.CodeOf(err), code)
	}
}

// txWant fails the test unless the query returns want.
func txWant(t testing.TB, s *Session, sql, want string) {
	t.Helper()
	if got := txQuery(t, s, sql); got != want {
		t.Fatalf("%s:\ngot  %q\nwant %q", sql, got, want)
	}
}
