package session

import (
	"strings"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/wire/backend"
	"vitess.io/vitess/go/vt/sqlparser"
)

// Read-only transactions, as PostgreSQL has them: BEGIN READ ONLY,
// START TRANSACTION READ ONLY, SET TRANSACTION READ ONLY, SET SESSION
// CHARACTERISTICS AS TRANSACTION READ ONLY and default_transaction_read_only
// make a transaction refuse every write, DDL included, with 25006.

// defaultReadOnly reports default_transaction_read_only.
func (s *Session) defaultReadOnly() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settings["default_transaction_read_only"] == "on"
}

// defaultDeferrable reports default_transaction_deferrable.
func (s *Session) defaultDeferrable() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settings["default_transaction_deferrable"] == "on"
}

// onOff spells a boolean setting's value.
func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// readOnlyNow reports whether a statement run now would run read-only:
// the open transaction's mode, or the default for an autocommit one.
func (s *Session) readOnlyNow() bool {
	if s.cur != nil {
		return s.cur.readOnly
	}
	return s.defaultReadOnly()
}

// writes reports whether the statement changes data or schema, and the
// command's name for the error PostgreSQL gives in a read-only
// transaction.
func (st *stmt) writes() (string, bool) {
	p := st.p
	if len(p.ModifyingCTEs) > 0 {
		// A write whatever it does itself; named as PostgreSQL names it,
		// by its own command.
		main := *p
		main.ModifyingCTEs = nil
		if name, ok := (&stmt{p: &main}).writes(); ok {
			return name, true
		}
		return "SELECT", true
	}
	switch st.kind() {
	case kindCopy:
		return "COPY FROM", p.Copy.From
	case kindDDL:
		if p.Analyze != nil {
			return "", false // statistics only, as PostgreSQL allows
		}
		if p.Lock != nil {
			return "LOCK TABLE", !weakLock(p.Lock.Mode)
		}
		return commandName(p.SQL), true
	case kindExplain:
		if e, ok := p.AST.(*sqlparser.ExplainStmt); ok && e.Type == sqlparser.AnalyzeType && p.Explained != nil && isDML(p.Explained) {
			return commandName(p.Explained.SQL), true
		}
	case kindPlan:
		if locksRows(p) {
			if sel := p.AST.(*sqlparser.Select); sel.Lock == sqlparser.ForUpdateLock || sel.Lock == sqlparser.ForUpdateLockNoWait || sel.Lock == sqlparser.ForUpdateLockSkipLocked {
				return "SELECT FOR UPDATE", true
			}
			return "SELECT FOR SHARE", true
		}
		switch p.AST.(type) {
		case *sqlparser.Insert:
			return "INSERT", true
		case *sqlparser.Update:
			return "UPDATE", true
		case *sqlparser.Delete:
			return "DELETE", true
		}
	}
	return "", false
}

// checkReadOnly refuses a writing statement in a read-only transaction.
// A damaged store refuses writes the same way (damage.go), and so does
// a store opened on a full disk (diskfull.go).
func (s *Session) checkReadOnly(st *stmt) error {
	name, w := st.writes()
	if !w {
		return nil
	}
	if s.readOnlyNow() && !st.writesTempOnly() {
		return pgerror.Newf(pgerror.ReadOnlySQLTransaction, "cannot execute %s in a read-only transaction", name)
	}
	if err := s.db.damagedErr(name); err != nil {
		return err
	}
	return s.db.diskFullErr()
}

// writesTempOnly reports whether st is an INSERT, UPDATE or DELETE of a
// temporary table, which a read-only transaction may run, as in
// PostgreSQL (only the session sees such a table). A statement that does
// not plan here is refused as a write; running it reports its error.
func (st *stmt) writesTempOnly() bool {
	if st.kind() != kindPlan || locksRows(st.p) || st.ensurePlan(st.s.catalog()) != nil {
		return false
	}
	var tbl *catalog.Table
	switch n := st.plan.(type) {
	case *planner.Insert:
		tbl = n.Table
	case *planner.Update:
		tbl = n.Table
	case *planner.Delete:
		tbl = n.Table
	}
	return tbl != nil && catalog.IsTempSchema(tbl.Schema)
}

// commandName is the command PostgreSQL names in errors: the statement's
// first keyword, with the object kind after CREATE, DROP and ALTER
// ("CREATE TABLE", "DROP INDEX").
func commandName(sql string) string {
	words := strings.Fields(strings.ToUpper(sql))
	if len(words) == 0 {
		return ""
	}
	name := strings.TrimRight(words[0], ";")
	switch name {
	case "CREATE", "DROP", "ALTER":
		for _, w := range words[1:] {
			switch w {
			case "UNIQUE", "TEMP", "TEMPORARY", "OR", "REPLACE", "UNLOGGED", "MATERIALIZED":
				continue
			}
			return name + " " + strings.TrimRight(w, ";(")
		}
	}
	return name
}

// setTransaction runs SET TRANSACTION ... and SET SESSION CHARACTERISTICS
// AS TRANSACTION ... (parsed as a SET of "transaction" whose value starts
// with "as transaction"): READ ONLY / READ WRITE and ISOLATION LEVEL.
// REQUIRES: s.mu held.
func (s *Session) setTransactionLocked(st *parse.SetStmt) error {
	value := strings.ToLower(strings.Join(st.Value, " "))
	session := strings.HasPrefix(value, "as transaction")
	value = strings.TrimSpace(strings.TrimPrefix(value, "as transaction"))
	for _, part := range strings.Split(value, ",") {
		part = strings.Join(strings.Fields(part), " ")
		switch {
		case part == "read only" || part == "read write":
			on := part == "read only"
			if session {
				s.setLocked("default_transaction_read_only", onOff(on))
			} else if s.cur != nil {
				if err := s.cur.checkReadWrite(on); err != nil {
					return err
				}
				s.cur.readOnly = on
			}
		case strings.HasPrefix(part, "isolation level "):
			level := strings.TrimPrefix(part, "isolation level ")
			if !validIsolation(level) {
				return pgerror.Newf(pgerror.SyntaxError, "syntax error at or near %q", level)
			}
			if session {
				s.setLocked("default_transaction_isolation", level)
			} else if err := s.setIsolationLocked(level); err != nil {
				return err
			}
		case part == "deferrable" || part == "not deferrable":
			on := part == "deferrable"
			if session {
				s.setLocked("default_transaction_deferrable", onOff(on))
			} else if s.cur != nil {
				s.cur.deferrable = on
			}
		case part == "":
		default:
			return pgerror.Newf(pgerror.SyntaxError, "syntax error at or near %q", part)
		}
	}
	return nil
}

// checkReadWrite refuses to make a read-only transaction read-write
// (readOnly false) where PostgreSQL does: inside a savepoint, and after
// the transaction's first query.
func (t *txn) checkReadWrite(readOnly bool) error {
	if readOnly || !t.readOnly {
		return nil
	}
	if len(t.savepoints) > 0 {
		return pgerror.New(pgerror.ActiveSQLTransaction, "cannot set transaction read-write mode inside a read-only transaction")
	}
	if t.queried {
		return pgerror.New(pgerror.ActiveSQLTransaction, "transaction read-write mode must be set before any query")
	}
	return nil
}

// setConstraints runs SET CONSTRAINTS (value: the mode, then the named
// constraints; none for ALL): it sets the transaction's modes
// (exec.Deferred), and a constraint made IMMEDIATE has its pending
// checks run at once, as PostgreSQL does. Outside a transaction block
// it only warns. A named constraint must exist (42704) and be
// DEFERRABLE (55000); only foreign keys can be deferred, so naming a
// UNIQUE or PRIMARY KEY constraint is refused (0A000).
func (s *Session) setConstraints(value []string) (backend.Result, error) {
	deferred := value[0] == "deferred"
	names := value[1:]
	if s.cur == nil {
		s.mu.Lock()
		s.notices = append(s.notices, backend.Notice{Severity: "WARNING",
			Err: pgerror.New(pgerror.NoActiveSQLTransaction, "SET CONSTRAINTS can only be used in transaction blocks")})
		s.mu.Unlock()
		return &staticResult{tag: "SET CONSTRAINTS"}, nil
	}
	t := s.cur
	if len(names) == 0 {
		t.deferred.SetAll(deferred)
	}
	tables, err := t.cat.Tables(s.database)
	if err != nil {
		return nil, err
	}
	for _, qualified := range names {
		schema, name, ok := strings.Cut(qualified, ".")
		if !ok {
			schema, name = "", qualified
		}
		found, deferrable := false, false
		for _, tbl := range tables {
			if schema != "" && catalog.SchemaName(tbl.Schema) != schema {
				continue
			}
			for _, fk := range tbl.ForeignKeys {
				if catalog.ForeignKeyName(tbl, fk) == name {
					found, deferrable = true, deferrable || fk.Deferrable
				}
			}
			keyDeferrable := func(d bool) error {
				if !d {
					return pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "constraint %q is not deferrable", name)
				}
				return pgerror.Newf(pgerror.FeatureNotSupported, "SET CONSTRAINTS on the unique constraint %q is not supported: kvsql checks unique and primary keys immediately", name)
			}
			if tbl.PrimaryKeyName == name && !tbl.HiddenRowID {
				return nil, keyDeferrable(tbl.PrimaryKeyDeferrable)
			}
			for _, idx := range tbl.Indexes {
				if idx.Name == name && idx.Unique && idx.Constraint {
					return nil, keyDeferrable(idx.Deferrable)
				}
			}
		}
		if !found {
			return nil, pgerror.Newf(pgerror.UndefinedObject, "constraint %q does not exist", name)
		}
		if !deferrable {
			return nil, pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "constraint %q is not deferrable", name)
		}
		t.deferred.SetNamed(name, deferred)
	}
	if !deferred {
		if err := t.deferred.CheckImmediate(t.kv); err != nil {
			return nil, err
		}
	}
	return &staticResult{tag: "SET CONSTRAINTS"}, nil
}

func validIsolation(level string) bool {
	switch level {
	case "serializable", "repeatable read", "read committed", "read uncommitted":
		return true
	}
	return false
}

// parseBool reads a boolean setting's value as PostgreSQL does.
func parseBool(v string) (bool, bool) {
	switch strings.ToLower(strings.Trim(v, "'")) {
	case "on", "true", "yes", "1", "t", "y":
		return true, true
	case "off", "false", "no", "0", "f", "n":
		return false, true
	}
	return false, false
}

// Isolation levels. READ COMMITTED (PostgreSQL's default, and kvsql's)
// and READ UNCOMMITTED run as read committed (txn.readCommitted);
// REPEATABLE READ and SERIALIZABLE run serializable, which the standard
// allows for REPEATABLE READ (SHOW reports the level asked for).

// setIsolationLocked sets the open transaction's level (SET TRANSACTION
// ISOLATION LEVEL); outside a transaction block it does nothing, as in
// PostgreSQL (which warns).
// REQUIRES: s.mu held.
func (s *Session) setIsolationLocked(level string) error {
	if s.cur == nil {
		return nil
	}
	if s.cur.queried && s.cur.level != level {
		return pgerror.New(pgerror.ActiveSQLTransaction, "SET TRANSACTION ISOLATION LEVEL must be called before any query")
	}
	s.cur.setIsolation(level)
	return nil
}

// defaultIsolation reports default_transaction_isolation.
func (s *Session) defaultIsolation() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settings["default_transaction_isolation"]
}

// setIsolation runs t at level.
func (t *txn) setIsolation(level string) {
	t.level = level
	t.readCommitted = level == "read committed" || level == "read uncommitted"
	// READ COMMITTED validates t's writes, never its reads.
	t.kv.DiscardReads(t.readCommitted)
}

// isolation is the level t was asked to run at.
func (t *txn) isolation() string { return t.level }
