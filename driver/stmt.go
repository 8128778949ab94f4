package driver

import (
	"context"
	"database/sql/driver"
	"errors"
	"strconv"
	"strings"

	"github.com/kvsql/kvsql/wire/backend"
)

// stmt is a prepared statement of one connection: the session's
// statement, whose plan is cached and remade when the catalog changes.
type stmt struct {
	c  *conn
	st backend.Statement
}

var (
	_ driver.Stmt             = (*stmt)(nil)
	_ driver.StmtExecContext  = (*stmt)(nil)
	_ driver.StmtQueryContext = (*stmt)(nil)
)

// Close implements driver.Stmt; the statement holds nothing to release.
func (s *stmt) Close() error { return nil }

// NumInput implements driver.Stmt: the number of $n placeholders.
func (s *stmt) NumInput() int { return len(s.st.ParamOIDs()) }

// Exec implements driver.Stmt.
func (s *stmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), named(args))
}

// Query implements driver.Stmt.
func (s *stmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), named(args))
}

// ExecContext implements driver.StmtExecContext.
func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	return s.c.exec(ctx, s.st, args)
}

// QueryContext implements driver.StmtQueryContext.
func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	return s.c.query(ctx, s.st, args)
}

func named(args []driver.Value) []driver.NamedValue {
	out := make([]driver.NamedValue, len(args))
	for i, v := range args {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return out
}

// result is a statement's outcome: its command tag.
type result string

var _ driver.Result = result("")

// errNoLastInsertID is LastInsertId's answer, as from PostgreSQL's
// drivers.
var errNoLastInsertID = errors.New("kvsql: LastInsertId is not supported: use INSERT ... RETURNING")

// LastInsertId implements driver.Result.
func (r result) LastInsertId() (int64, error) { return 0, errNoLastInsertID }

// RowsAffected implements driver.Result: the count in the command tag
// ("INSERT 0 3", "UPDATE 2", "SELECT 5"), 0 for a tag without one.
func (r result) RowsAffected() (int64, error) {
	f := strings.Fields(string(r))
	if len(f) < 2 {
		return 0, nil
	}
	switch f[0] {
	case "INSERT", "UPDATE", "DELETE", "SELECT", "MERGE", "MOVE", "FETCH", "COPY":
		n, _ := strconv.ParseInt(f[len(f)-1], 10, 64)
		return n, nil
	}
	return 0, nil
}
