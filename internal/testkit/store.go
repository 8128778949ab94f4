package testkit

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/session"
)

// OpenMem opens an in-memory store closed at the end of the test.
func OpenMem(t testing.TB) *session.DB {
	t.Helper()
	return open(t, session.Options{Memory: true})
}

// OpenPebble opens a Pebble store in a temporary directory (WAL syncs off:
// tests do not crash the machine) closed at the end of the test.
func OpenPebble(t testing.TB) *session.DB {
	t.Helper()
	return open(t, session.Options{Dir: t.TempDir(), NoSync: true})
}

func open(t testing.TB, opts session.Options) *session.DB {
	t.Helper()
	db, err := session.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// ForEachEngine runs check on a fresh in-memory store and on a fresh
// Pebble store, each as a subtest named after its engine.
func ForEachEngine(t *testing.T, check func(t *testing.T, db *session.DB)) {
	t.Run("memory", func(t *testing.T) { check(t, OpenMem(t)) })
	t.Run("pebble", func(t *testing.T) { check(t, OpenPebble(t)) })
}

// NewSession opens a session on db's default database, closed at the end
// of the test.
func NewSession(t testing.TB, db *session.DB) *session.Session {
	t.Helper()
	s, err := db.Session("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// Run runs sql on s and returns the error, if any, of its statements.
func Run(s *session.Session, sql string) error {
	_, err := s.Exec(context.Background(), sql)
	return err
}

// BankTotal returns the sum of the bank tests' balances (table acct),
// read in one explicit transaction.
func BankTotal(s *session.Session) (int64, error) {
	if err := Run(s, "BEGIN"); err != nil {
		return 0, err
	}
	res, err := s.Exec(context.Background(), "SELECT sum(balance) FROM acct")
	if err != nil {
		_ = Run(s, "ROLLBACK")
		return 0, err
	}
	if err := Run(s, "COMMIT"); err != nil {
		return 0, err
	}
	return strconv.ParseInt(res[0].Rows[0][0].String(), 10, 64)
}

// Must runs sql on s and fails the test on error.
func Must(t testing.TB, s *session.Session, sql string) {
	t.Helper()
	if err := Run(s, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// Query runs sql on s and returns the rows of all its statements as text,
// one line per row, columns separated by spaces (types.Datum.String).
func Query(t testing.TB, s *session.Session, sql string) string {
	t.Helper()
	res, err := s.Exec(context.Background(), sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	var lines []string
	for _, r := range res {
		for _, row := range r.Rows {
			cols := make([]string, len(row))
			for i, d := range row {
				cols[i] = d.String()
			}
			lines = append(lines, strings.Join(cols, " "))
		}
	}
	return strings.Join(lines, "\n")
}

// Want fails the test unless sql returns want (in Query's format).
func Want(t testing.TB, s *session.Session, sql, want string) {
	t.Helper()
	if got := Query(t, s, sql); got != want {
		t.Fatalf("%s:\ngot  %q\nwant %q", sql, got, want)
	}
}

// WantCode fails the test unless running sql fails with code.
func WantCode(t testing.TB, s *session.Session, sql string, code pgerror.Code) {
	t.Helper()
	err := Run(s, sql)
	if !pgerror.HasCode(err, code) {
		t.Fatalf("%s: got error %v (code %q), want code %s", sql, err, pgerror.CodeOf(err), code)
	}
}
