package session

import (
	"context"
	"strconv"

	"github.com/kvsql/kvsql/exec"
	"github.com/kvsql/kvsql/types"
	"github.com/kvsql/kvsql/wire/backend"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// staticResult is a result computed in full: DML (RETURNING rows), DDL,
// EXPLAIN, SHOW.
type staticResult struct {
	rows [][]types.Datum
	tag  string
	i    int
}

var _ backend.Result = (*staticResult)(nil)

func (r *staticResult) Next() bool {
	if r.i >= len(r.rows) {
		return false
	}
	r.i++
	return true
}
func (r *staticResult) Row() []types.Datum { return r.rows[r.i-1] }
func (r *staticResult) Err() error         { return nil }
func (r *staticResult) Close() error       { return nil }
func (r *staticResult) Tag() string        { return r.tag }

// queryResult streams a query's rows from its operator tree.
type queryResult struct {
	op     exec.Operator
	width  int
	maxRow int64 // the row cap (Options.MaxValueSize)
	row    []types.Datum
	n      int64
	err    error
	closed bool
	// auto, if set, is the read-only transaction of an autocommit query:
	// Close ends it (a rollback: it has nothing to commit) and gives it
	// back to autoOf, the session that began it, for reuse.
	auto   *txn
	autoOf *Session
	// fixErr, if set, rewrites the error that stops the rows (damaged
	// storage: DB.storageError).
	fixErr func(error) error
	// ctx is the statement's: a query cancelled by the time its last row
	// is read fails, as PostgreSQL's last interrupt check fails it (say
	// pg_cancel_backend(pg_backend_pid())). A query commits nothing, so
	// failing it at its end loses nothing.
	ctx context.Context
	// active: the result is its statement's (Execute): Close ends the
	// session's activity for statement id, as activeResult does.
	active bool
	s      *Session
	id     uint64
	// env, if set, is the kept tree's executor context the query ran
	// with (treeCache.env): Close clears it, so that the idle statement
	// does not keep the finished transaction alive.
	env *stmtEnv
}

var _ backend.Result = (*queryResult)(nil)

func (r *queryResult) Next() bool {
	if r.err != nil || r.closed {
		return false
	}
	row, err := r.op.Next()
	if err != nil {
		if r.fixErr != nil {
			err = r.fixErr(err)
		}
		r.err = err
		return false
	}
	if row == nil {
		if r.ctx != nil && r.ctx.Err() != nil {
			r.err = cancelCause(r.ctx)
		}
		return false
	}
	if len(row) > r.width {
		row = row[:r.width]
	}
	if err := exec.CheckRowSize(row, r.maxRow); err != nil {
		r.err = err
		return false
	}
	r.row = row
	r.n++
	return true
}

func (r *queryResult) Row() []types.Datum { return r.row }
func (r *queryResult) Err() error         { return r.err }
func (r *queryResult) Tag() string        { return selectTag(r.n) }

// selectTags are the command tags of queries returning few rows, made
// once: most OLTP queries return one.
var selectTags = func() (tags [64]string) {
	for i := range tags {
		tags[i] = "SELECT " + itoa(int64(i))
	}
	return tags
}()

func selectTag(n int64) string {
	if n >= 0 && n < int64(len(selectTags)) {
		return selectTags[n]
	}
	return "SELECT " + itoa(n)
}

func (r *queryResult) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	err := r.op.Close()
	if r.auto != nil {
		// An autocommit query ends here: what it sent with pg_notify
		// goes out if it ran without error, as at a commit.
		if w := r.auto.notifyWork; w != nil && r.err == nil && err == nil {
			r.autoOf.db.notifyCommitted(w)
		}
		r.autoOf.endRead(r.auto)
	}
	if r.env != nil {
		*r.env, r.env = stmtEnv{}, nil
	}
	if r.active {
		r.active = false
		r.s.endStatement(r.id)
	}
	return err
}

var _ backend.RowLender = (*queryResult)(nil)

// LendRows lets the rows alias the operator tree's batches
// (exec.LendRows); it applies only before the first Next.
func (r *queryResult) LendRows() {
	if r.n == 0 && r.err == nil && !r.closed {
		r.op = exec.LendRows(r.op)
	}
}

var _ backend.RowLender = (*activeResult)(nil)

// LendRows passes the server's promise on to the statement's Result.
func (r *activeResult) LendRows() {
	if l, ok := r.Result.(backend.RowLender); ok {
		l.LendRows()
	}
}
