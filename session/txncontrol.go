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
		if s.cur == nil {
			s.cur = s.begin()
			s.cur.explicit = true
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
			return nil, err
		}
		if p.Chain {
			s.chain(t)
		}
		return &staticResult{tag: tag}, nil
	case *sqlparser.Rollback:
		if s.cur == nil && p.Chain {
			return nil, pgerror.New(pgerror.NoActiveSQLTransaction, "ROLLBACK AND CHAIN can only be used in transaction blocks")
		}
		t := s.cur
		if t != nil {
			s.db.rollback(t)
			s.cur = nil
		}
		s.closeCursors(t, true)
		if p.Chain {
			s.chain(t)
		}
		return &staticResult{tag: "ROLLBACK"}, nil
	case *sqlparser.Savepoint:
		if s.cur == nil {
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
		s.cur.readOnly = s.cur.savepoints[i].readOnly
		s.closeCursorsAfter(i)
		s.cur.endSubtransactions(i, true)
		s.cur.savepoints = s.cur.savepoints[:i+1]
		s.cur.failed = false
		return &staticResult{tag: "ROLLBACK"}, nil
	}
	return nil, pgerror.New(pgerror.FeatureNotSupported, "unsupported transaction statement")
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
	if s.cur == nil {
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
