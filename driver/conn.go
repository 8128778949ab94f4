package driver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/kvsql/kvsql"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
	"github.com/kvsql/kvsql/wire/backend"
)

// conn is one connection: one session on the store. database/sql uses a
// connection from one goroutine at a time, as a session requires.
type conn struct {
	st     *store
	sess   *kvsql.Session
	closed bool
}

var (
	_ driver.Conn               = (*conn)(nil)
	_ driver.ConnPrepareContext = (*conn)(nil)
	_ driver.ExecerContext      = (*conn)(nil)
	_ driver.QueryerContext     = (*conn)(nil)
	_ driver.ConnBeginTx        = (*conn)(nil)
	_ driver.Pinger             = (*conn)(nil)
	_ driver.SessionResetter    = (*conn)(nil)
	_ driver.Validator          = (*conn)(nil)
	_ driver.NamedValueChecker  = (*conn)(nil)
)

// Prepare implements driver.Conn.
func (c *conn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// PrepareContext implements driver.ConnPrepareContext: query is parsed
// and planned now, as a PostgreSQL server does for a Parse message, so an
// unknown table fails here and the parameters' types are known.
func (c *conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	st, err := c.prepareOne(ctx, query)
	if err != nil {
		return nil, err
	}
	return &stmt{c: c, st: st}, nil
}

// prepareOne prepares query, which must hold one statement.
func (c *conn) prepareOne(ctx context.Context, query string) (backend.Statement, error) {
	if c.closed {
		return nil, driver.ErrBadConn
	}
	stmts, err := c.sess.Prepare(ctx, query, []uint32{})
	if err == nil && len(stmts) > 1 {
		err = pgerror.New(pgerror.SyntaxError, "cannot insert multiple commands into a prepared statement")
	}
	if err != nil {
		return nil, c.fail(ctx, err)
	}
	if len(stmts) == 0 {
		return emptyStatement{}, nil
	}
	return stmts[0], nil
}

// emptyStatement is a query string with no statement in it, which a
// PostgreSQL server answers with EmptyQueryResponse: no rows, no tag.
type emptyStatement struct{}

var _ backend.Statement = emptyStatement{}

func (emptyStatement) ParamOIDs() []uint32       { return nil }
func (emptyStatement) Columns() []backend.Column { return nil }
func (emptyStatement) Copy() *backend.CopySpec   { return nil }
func (emptyStatement) Execute(context.Context, []types.Datum) (backend.Result, error) {
	return emptyResult{}, nil
}

type emptyResult struct{}

func (emptyResult) Next() bool         { return false }
func (emptyResult) Row() []types.Datum { return nil }
func (emptyResult) Err() error         { return nil }
func (emptyResult) Close() error       { return nil }
func (emptyResult) Tag() string        { return "" }

// ExecContext implements driver.ExecerContext. Without arguments query
// may hold several statements, run in order as a simple Query message
// runs them (each may use what an earlier one created); the result is the
// last one's. With arguments it must hold one.
func (c *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if c.closed {
		return nil, driver.ErrBadConn
	}
	if len(args) == 0 {
		res, err := c.sess.Exec(ctx, query) // fails the transaction block on error
		if err != nil {
			return nil, explain(ctx, err)
		}
		if len(res) == 0 {
			return result(""), nil
		}
		return result(res[len(res)-1].Tag), nil
	}
	st, err := c.prepareOne(ctx, query)
	if err != nil {
		return nil, err
	}
	return c.exec(ctx, st, args)
}

// QueryContext implements driver.QueryerContext; query holds one
// statement.
func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	st, err := c.prepareOne(ctx, query)
	if err != nil {
		return nil, err
	}
	return c.query(ctx, st, args)
}

// exec runs st to completion and returns its command tag's row count.
func (c *conn) exec(ctx context.Context, st backend.Statement, args []driver.NamedValue) (driver.Result, error) {
	res, err := c.execute(ctx, st, args)
	if err != nil {
		return nil, err
	}
	for res.Next() {
	}
	err = res.Err()
	if cerr := res.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, c.fail(ctx, err)
	}
	return result(res.Tag()), nil
}

// query runs st and streams its rows.
func (c *conn) query(ctx context.Context, st backend.Statement, args []driver.NamedValue) (driver.Rows, error) {
	cols := st.Columns() // before Execute, as a client's Describe
	res, err := c.execute(ctx, st, args)
	if err != nil {
		return nil, err
	}
	return &rows{c: c, ctx: ctx, cols: cols, res: res}, nil
}

// execute binds args to st's parameters and runs it.
func (c *conn) execute(ctx context.Context, st backend.Statement, args []driver.NamedValue) (backend.Result, error) {
	if c.closed {
		return nil, driver.ErrBadConn
	}
	params, err := bind(st.ParamOIDs(), args)
	if err != nil {
		return nil, c.fail(ctx, err)
	}
	res, err := st.Execute(ctx, params)
	if err != nil {
		return nil, c.fail(ctx, err)
	}
	return res, nil
}

// bind converts args to the parameter types oids, as a server decodes a
// Bind message's values.
func bind(oids []uint32, args []driver.NamedValue) ([]types.Datum, error) {
	if len(args) != len(oids) {
		return nil, pgerror.Newf(pgerror.ProtocolViolation, "bind message supplies %d parameters, but prepared statement requires %d", len(args), len(oids))
	}
	params := make([]types.Datum, len(args))
	for _, a := range args {
		i := a.Ordinal - 1
		if i < 0 || i >= len(oids) {
			return nil, fmt.Errorf("kvsql: argument ordinal %d out of range", a.Ordinal)
		}
		t, _ := types.TypeByOID(oids[i])
		d, err := datum(a.Value, t)
		if err != nil {
			return nil, err
		}
		params[i] = d
	}
	return params, nil
}

// fail reports err to the session, which fails an open transaction block
// on any error as PostgreSQL does, and returns it explained (explain).
func (c *conn) fail(ctx context.Context, err error) error {
	c.sess.Fail(err)
	return explain(ctx, err)
}

// explain makes the error of a statement its context stopped a 57014
// error that also wraps the context's error, so both errors.As (for the
// SQLSTATE) and errors.Is(err, context.Canceled) hold. The engine reports
// a cancellation as 57014 (or, from a wait, the bare context error).
func explain(ctx context.Context, err error) error {
	cerr := ctx.Err()
	if err == nil || cerr == nil {
		return err
	}
	switch pgerror.CodeOf(err) {
	case pgerror.QueryCanceled:
	case pgerror.Internal:
		err = pgerror.New(pgerror.QueryCanceled, "canceling statement due to user request")
		if errors.Is(cerr, context.DeadlineExceeded) {
			err = pgerror.New(pgerror.QueryCanceled, "canceling statement due to statement timeout")
		}
	default:
		return err
	}
	return fmt.Errorf("%w: %w", err, cerr)
}

// BeginTx implements driver.ConnBeginTx: BEGIN with the isolation level
// and access mode PostgreSQL accepts.
func (c *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if c.closed {
		return nil, driver.ErrBadConn
	}
	if c.sess.TxnStatus() != 'I' {
		return nil, pgerror.New(pgerror.ActiveSQLTransaction, "there is already a transaction in progress")
	}
	q := "BEGIN"
	switch level := sql.IsolationLevel(opts.Isolation); level {
	case sql.LevelDefault:
	case sql.LevelReadUncommitted:
		q += " ISOLATION LEVEL READ UNCOMMITTED"
	case sql.LevelReadCommitted:
		q += " ISOLATION LEVEL READ COMMITTED"
	case sql.LevelRepeatableRead:
		q += " ISOLATION LEVEL REPEATABLE READ"
	case sql.LevelSerializable:
		q += " ISOLATION LEVEL SERIALIZABLE"
	default:
		return nil, fmt.Errorf("kvsql: isolation level %v is not supported: PostgreSQL's are read uncommitted, read committed, repeatable read and serializable", level)
	}
	if opts.ReadOnly {
		q += " READ ONLY"
	}
	if _, err := c.sess.Exec(ctx, q); err != nil {
		return nil, explain(ctx, err)
	}
	return &tx{c: c}, nil
}

// Begin implements driver.Conn.
func (c *conn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

// Ping implements driver.Pinger: an open connection is always reachable.
func (c *conn) Ping(ctx context.Context) error {
	if c.closed {
		return driver.ErrBadConn
	}
	return nil
}

// ResetSession implements driver.SessionResetter. The session keeps its
// settings between uses, as a pooled PostgreSQL connection does.
func (c *conn) ResetSession(ctx context.Context) error {
	if c.closed {
		return driver.ErrBadConn
	}
	return nil
}

// IsValid implements driver.Validator: database/sql calls it before
// returning the connection to its pool. A connection still inside a
// transaction block (Exec("BEGIN") outside BeginTx) is not reused: it is
// closed, which rolls the transaction back, rather than handing the open
// transaction to whoever takes the connection next.
func (c *conn) IsValid() bool {
	return !c.closed && c.sess.TxnStatus() == 'I'
}

// CheckNamedValue implements driver.NamedValueChecker: placeholders are
// numbered ($1, $2, ...), so named arguments are refused; other values
// go through database/sql's default conversion.
func (c *conn) CheckNamedValue(nv *driver.NamedValue) error {
	if nv.Name != "" {
		return fmt.Errorf("kvsql: named argument %q: kvsql numbers its placeholders ($1, $2, ...)", nv.Name)
	}
	return driver.ErrSkip
}

// Close implements driver.Conn: the session ends (rolling back an open
// transaction) and the connection's reference to the store is released.
func (c *conn) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	return errors.Join(c.sess.Close(), c.st.release())
}

// tx is a transaction database/sql began (BeginTx).
type tx struct{ c *conn }

var _ driver.Tx = (*tx)(nil)

// Commit implements driver.Tx. A transaction that failed is rolled back
// by COMMIT, as in PostgreSQL; Commit then says so with a 25P02 error.
func (t *tx) Commit() error {
	res, err := t.c.sess.Exec(context.Background(), "COMMIT")
	if err != nil {
		return err
	}
	if res[0].Tag == "ROLLBACK" {
		return pgerror.New(pgerror.InFailedSQLTransaction, "the transaction had failed: COMMIT rolled it back")
	}
	return nil
}

// Rollback implements driver.Tx.
func (t *tx) Rollback() error {
	_, err := t.c.sess.Exec(context.Background(), "ROLLBACK")
	return err
}
