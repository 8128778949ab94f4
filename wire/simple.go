package wire

import (
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/wire/backend"
)

// codeUndefinedParameter is PostgreSQL's 42P02 ("there is no parameter $1").
const codeUndefinedParameter = pgerror.Code("42P02")

// simpleQuery runs a Query message: every statement in sql in turn, each
// with RowDescription (text format), DataRows and CommandComplete. The first
// error ends the message; the statements after it are not run. Several
// statements run in the session's implicit transaction block when it has
// one (backend.ImplicitTransactions). The caller sends ReadyForQuery.
func (c *conn) simpleQuery(sql string) {
	if err := pgerror.CheckUTF8(sql); err != nil {
		c.statementError(err)
		return
	}
	var stmts []backend.Statement
	err := c.guard("Session.Prepare", func() error {
		var err error
		stmts, err = c.sess.Prepare(c.ctx, sql, nil)
		return err
	})
	c.sendNotices()
	if err != nil {
		c.statementError(err)
		return
	}
	if len(stmts) == 0 {
		c.send(&pgproto3.EmptyQueryResponse{})
		return
	}
	block, _ := c.sess.(backend.ImplicitTransactions)
	if block == nil || len(stmts) < 2 {
		c.runStatements(stmts)
		return
	}
	block.BeginQuery()
	ok := c.runStatements(stmts)
	err = c.guard("Session.EndQuery", func() error { return block.EndQuery(!ok) })
	if ok && err != nil {
		c.statementError(err)
	}
}

// runStatements runs stmts in turn until one fails (its error is sent)
// or the connection closes, and reports whether all ran.
func (c *conn) runStatements(stmts []backend.Statement) bool {
	for _, stmt := range stmts {
		if err := c.simpleStatement(stmt); err != nil {
			c.statementError(err)
			return false
		}
		if c.closed() {
			return false
		}
	}
	return true
}

func (c *conn) simpleStatement(stmt backend.Statement) error {
	if stmt == nil {
		c.send(&pgproto3.EmptyQueryResponse{})
		return nil
	}
	var cols []backend.Column
	var copySpec *backend.CopySpec
	err := c.guard("Statement", func() error {
		if n := len(stmt.ParamOIDs()); n > 0 {
			return pgerror.Newf(codeUndefinedParameter, "there is no parameter $%d", n)
		}
		cols, copySpec = stmt.Columns(), stmt.Copy()
		return nil
	})
	if err != nil {
		return err
	}
	if cols != nil && copySpec == nil {
		c.send(rowDescription(cols, nil))
	}
	return c.runPortal(&portal{stmt: stmt}, 0)
}
