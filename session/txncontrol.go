package session

import (
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/wire/backend"
	"vitess.io/vitess/go/vt/sqlparser"
)

const undefinedSavepoint pgerror.Code = "3B001"

// txnControl runs BEGIN, COMMIT, ROLLBACK and the savepoint statements.
func (s *Session) txnControl(p *parse.Statement) (backend.Result, error) {
	switch ast := p.AST.(type) {
	case *sqlparser.Begin:
		if s.cur == nil || s.cur.implicit {
			if s.cur == nil {
				s.cur = s.begin()
			}
			s.cur.explicit, s.cur.implicit = true, false
			if p.Isolation != "" {
				s.cur.setIsolation(p.Isolation)
			}
			if p.Deferrable != "" {
				s.cur.deferrable = p.Deferrable == "on"
			}
			for _, m := range ast.TxAccessModes {
				switch m {
				case sqlparser.ReadOnly:
					s.cur.readOnly = true
				case sqlparser.ReadWrite:
					s.cur.readOnly = false
				}
			}
		}
		if ast.Type == sqlparser.StartTransactionStmt {
			return &staticResult{tag: "START TRANSACTION"}, nil
		}
		return &staticResult{tag: "BEGIN"}, nil
	case *sqlparser.Commit:
		if p.Chain && s.inImplicitBlock() {
			return nil, pgerror.New(pgerror.NoActiveSQLTransaction, "COMMIT AND CHAIN can only be used in transaction blocks")
		}
		if s.cur == nil {
			if p.Chain {
				return nil, pgerror.New(pgerror.NoActiveSQLTransaction, "COMMIT AND CHAIN can only be used in transaction blocks")
			}
			return &staticResult{tag: "COMMIT"}, nil
		}
		t := s.cur
		s.cur = nil
		s.closeCursors(t, t.failed)
		tag := "COMMIT"
		if t.failed {
			s.db.rollback(t)
			tag = "ROLLBACK"
		} else if err := s.db.commit(t); err != nil {
			s.endSettings(t, false)
			return nil, err
		}
		s.endSettings(t, tag == "COMMIT")
		if p.Chain {
			s.chain(t)
		}
		return &staticResult{tag: tag}, nil
	case *sqlparser.Rollback:
		if p.Chain && (s.cur == nil || s.inImplicitBlock()) {
			return nil, pgerror.New(pgerror.NoActiveSQLTransaction, "ROLLBACK AND CHAIN can only be used in transaction blocks")
		}
		t := s.cur
		if t != nil {
			s.db.rollback(t)
			s.endSettings(t, false)
			s.cur = nil
		}
		s.closeCursors(t, true)
		if p.Chain {
			s.chain(t)
		}
		return &staticResult{tag: "ROLLBACK"}, nil
	case *sqlparser.Savepoint:
		if s.cur == nil || s.inImplicitBlock() {
			return nil, pgerror.New(pgerror.NoActiveSQLTransaction, "SAVEPOINT can only be used in transaction blocks")
		}
		if s.cur.failed {
			return nil, pgerror.New(pgerror.InFailedSQLTransaction, "current transaction is aborted, commands ignored until end of transaction block")
		}
		sp := s.cur.mark()
		sp.name = ast.Name.String()
		s.cur.savepoints = append(s.cur.savepoints, sp)
		return &staticResult{tag: "SAVEPOINT"}, nil
	case *sqlparser.Release:
		i, err := s.findSavepoint("RELEASE SAVEPOINT", ast.Name.String())
		if err != nil {
			return nil, err
		}
		if s.cur.failed {
			return nil, pgerror.New(pgerror.InFailedSQLTransaction, "current transaction is aborted, commands ignored until end of transaction block")
		}
		// Ending a subtransaction restores the access mode it began with
		// (PostgreSQL's prevXactReadOnly), even when it is released.
		s.cur.readOnly = s.cur.savepoints[i].readOnly
		s.cur.savepoints = s.cur.savepoints[:i]
		s.cur.endSubtransactions(i, false)
		return &staticResult{tag: "RELEASE"}, nil
	case *sqlparser.SRollback:
		i, err := s.findSavepoint("ROLLBACK TO SAVEPOINT", ast.Name.String())
		if err != nil {
			return nil, err
		}
		if err := s.cur.rollbackTo(s.cur.savepoints[i]); err != nil {
			return nil, err
		}
		s.undoSettings(s.cur, s.cur.savepoints[i].settings)
		s.cur.readOnly = s.cur.savepoints[i].readOnly
		s.closeCursorsAfter(i)
		s.cur.endSubtransactions(i, true)
		s.cur.savepoints = s.cur.savepoints[:i+1]
		s.cur.failed = false
		return &staticResult{tag: "ROLLBACK"}, nil
	}
	return nil, pgerror.New(pgerror.FeatureNotSupported, "unsupported transaction statement")
}

// inImplicitBlock reports whether the statement runs in the implicit
// transaction block of a multi-statement Query, where PostgreSQL refuses
// savepoints and AND CHAIN.
func (s *Session) inImplicitBlock() bool { return s.cur != nil && s.cur.implicit }

// BeginQuery implements backend.ImplicitTransactions: the statements of
// the Query about to run form one transaction block, which each starts
// if no block is open (so after a COMMIT among them, the next statement
// starts a new one).
func (s *Session) BeginQuery() { s.inQuery = true }

// EndQuery implements backend.ImplicitTransactions: the implicit block,
// if one is still open, commits, or rolls back when a statement failed.
// A block BEGIN made explicit stays open.
func (s *Session) EndQuery(failed bool) error {
	s.inQuery = false
	t := s.cur
	if t == nil || !t.implicit {
		return nil
	}
	s.cur = nil
	failed = failed || t.failed
	s.closeCursors(t, failed)
	if failed {
		s.db.rollback(t)
		s.endSettings(t, false)
		return nil
	}
	err := s.db.commit(t)
	s.endSettings(t, err == nil)
	return err
}

// startImplicit opens the implicit block of a multi-statement Query for
// a statement of kind k that needs none open yet.
func (s *Session) startImplicit(k kind) {
	if !s.inQuery || s.cur != nil || k == kindTxn || k == kindEmpty {
		return
	}
	s.cur = s.begin()
	s.cur.implicit = true
}

// chain starts the transaction COMMIT / ROLLBACK AND CHAIN asks for: an
// explicit one with ended's isolation level, access mode and
// deferrability.
func (s *Session) chain(ended *txn) {
	s.cur = s.begin()
	s.cur.explicit = true
	s.cur.setIsolation(ended.level)
	s.cur.readOnly = ended.readOnly
	s.cur.deferrable = ended.deferrable
}

func (s *Session) findSavepoint(stmt, name string) (int, error) {
	if s.cur == nil || s.inImplicitBlock() {
		return 0, pgerror.Newf(pgerror.NoActiveSQLTransaction, "%s can only be used in transaction blocks", stmt)
	}
	for i := len(s.cur.savepoints) - 1; i >= 0; i-- {
		if s.cur.savepoints[i].name == name {
			return i, nil
		}
	}
	s.cur.failed = true
	return 0, pgerror.Newf(undefinedSavepoint, "savepoint %q does not exist", name)
}

// refreshTxn refreshes the session's explicit transaction, if any, before
// a statement runs (see txn.refresh).
func (s *Session) refreshTxn() error {
	if s.cur == nil {
		return nil
	}
	return s.cur.refresh()
}
