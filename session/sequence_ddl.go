package session

import (
	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
)

// sequenceStmt runs CREATE, ALTER and DROP SEQUENCE in t.
func (s *Session) sequenceStmt(t *txn, ss *parse.SequenceStmt) (string, error) {
	switch {
	case ss.Op == "create":
		return "CREATE SEQUENCE", s.createSequence(t, ss)
	case ss.Op == "alter" && ss.RenameTo != "":
		return "ALTER SEQUENCE", s.renameSequence(t, ss)
	case ss.Op == "alter":
		return "ALTER SEQUENCE", s.alterSequence(t, ss)
	}
	cat := t.cat
	for _, name := range ss.Names {
		next, err := cat.DropSequence(t.kv, s.database, name)
		if err != nil {
			if ss.IfExists && pgerror.HasCode(err, pgerror.UndefinedTable) {
				continue
			}
			return "", err
		}
		cat = next
	}
	t.setCatalog(cat)
	return "DROP SEQUENCE", nil
}

// renameSequence is ALTER SEQUENCE [IF EXISTS] name RENAME TO new.
func (s *Session) renameSequence(t *txn, ss *parse.SequenceStmt) error {
	next, err := t.cat.RenameSequence(t.kv, s.database, ss.Names[0], ss.RenameTo)
	if err != nil {
		if ss.IfExists && pgerror.HasCode(err, pgerror.UndefinedTable) {
			return nil
		}
		return err
	}
	t.setCatalog(next)
	return nil
}

func (s *Session) createSequence(t *txn, ss *parse.SequenceStmt) error {
	name := ss.Names[0]
	if ss.IfNotExists {
		d, err := t.cat.Database(s.database)
		if err != nil {
			return err
		}
		if d.Tables[name] != nil || d.Views[name] != nil || d.Sequences[name] != nil {
			return nil // PostgreSQL: NOTICE relation "x" already exists, skipping
		}
	}
	seq := catalog.Sequence{Name: name, Type: "bigint", Increment: 1, Cache: 1}
	if err := s.applySequenceOptions(t, &seq, &ss.Options, true); err != nil {
		return err
	}
	seq.Owner = s.newOwner(t.cat)
	next, _, err := t.cat.CreateSequence(t.kv, s.database, seq)
	if err != nil {
		return err
	}
	t.setCatalog(next)
	return nil
}

func (s *Session) alterSequence(t *txn, ss *parse.SequenceStmt) error {
	old, err := t.cat.Sequence(s.database, ss.Names[0])
	if err != nil {
		if ss.IfExists && pgerror.HasCode(err, pgerror.UndefinedTable) {
			return nil // PostgreSQL: NOTICE relation "x" does not exist, skipping
		}
		return err
	}
	if err := catalog.CheckForeignSequence(old, "ALTER SEQUENCE"); err != nil {
		return err
	}
	seq := *old
	if err := s.applySequenceOptions(t, &seq, &ss.Options, false); err != nil {
		return err
	}
	// The counter must stay within the new bounds: the value RESTART
	// sets, or else the current one (PostgreSQL reports both as RESTART).
	st, err := s.db.seqState(old)
	if err != nil {
		return err
	}
	o := &ss.Options
	if o.Restart {
		st = catalog.SeqState{Last: seq.Start}
		if o.RestartWith != nil {
			st.Last = *o.RestartWith
		}
	}
	if err := catalog.CheckSequence(&seq); err != nil {
		return err
	}
	if st.Last < seq.Min {
		return pgerror.Newf(pgerror.InvalidParameterValue, "RESTART value (%d) cannot be less than MINVALUE (%d)", st.Last, seq.Min)
	}
	if st.Last > seq.Max {
		return pgerror.Newf(pgerror.InvalidParameterValue, "RESTART value (%d) cannot be greater than MAXVALUE (%d)", st.Last, seq.Max)
	}
	next, err := t.cat.AlterSequence(t.kv, s.database, seq)
	if err != nil {
		return err
	}
	if o.Restart {
		// Like nextval, and unlike PostgreSQL, RESTART is not undone by
		// a rollback: the counter lives outside transactions.
		if err := s.db.seqSet(&seq, st.Last, false); err != nil {
			return err
		}
	}
	t.setCatalog(next)
	return nil
}

// applySequenceOptions sets the options written in o on seq, filling in
// PostgreSQL's defaults for what a CREATE leaves out (and for the bounds
// ALTER ... AS type or NO MINVALUE / NO MAXVALUE resets).
func (s *Session) applySequenceOptions(t *txn, seq *catalog.Sequence, o *parse.SequenceOptions, create bool) error {
	oldLo, oldHi, _ := catalog.SequenceTypeBounds(seq.Type)
	typeChanged := false
	if o.Type != "" && o.Type != seq.Type {
		if _, _, ok := catalog.SequenceTypeBounds(o.Type); !ok {
			return pgerror.New(pgerror.InvalidParameterValue, "sequence type must be smallint, integer, or bigint")
		}
		seq.Type, typeChanged = o.Type, true
	}
	lo, hi, _ := catalog.SequenceTypeBounds(seq.Type)
	if o.Increment != nil {
		seq.Increment = *o.Increment
	}
	if seq.Increment == 0 {
		return pgerror.New(pgerror.InvalidParameterValue, "INCREMENT must not be zero")
	}
	// A bound at the old type's limit follows the new type's limit
	// (PostgreSQL's reset_max_value / reset_min_value), whatever the
	// direction.
	resetMax, resetMin := typeChanged && seq.Max == oldHi, typeChanged && seq.Min == oldLo
	switch {
	case o.Max != nil:
		seq.Max = *o.Max
	case create || o.NoMax || resetMax:
		if seq.Increment > 0 || resetMax {
			seq.Max = hi
		} else {
			seq.Max = -1
		}
	}
	switch {
	case o.Min != nil:
		seq.Min = *o.Min
	case create || o.NoMin || resetMin:
		if seq.Increment > 0 && !resetMin {
			seq.Min = 1
		} else {
			seq.Min = lo
		}
	}
	switch {
	case o.Start != nil:
		seq.Start = *o.Start
	case create && seq.Increment > 0:
		seq.Start = seq.Min
	case create:
		seq.Start = seq.Max
	}
	if o.Cache != nil {
		seq.Cache = *o.Cache
	}
	if o.Cycle != nil {
		seq.Cycle = *o.Cycle
	}
	if o.OwnedBySpecified {
		seq.OwnedTable, seq.OwnedColumn = "", ""
		if !o.OwnedNone {
			key, err := s.planner(t.cat).LookupRef(o.OwnedBy[0])
			if err != nil {
				return err
			}
			tbl, err := t.cat.Table(s.database, key)
			if err != nil {
				return err
			}
			if tbl.ColumnOrdinal(o.OwnedBy[1]) < 0 {
				return pgerror.Newf(pgerror.UndefinedColumn, "column %q of relation %q does not exist", o.OwnedBy[1], tbl.Name)
			}
			if seqSchema, _ := catalog.SplitRelKey(seq.Key()); seqSchema != catalog.SchemaName(tbl.Schema) {
				return pgerror.New(pgerror.ObjectNotInPrerequisiteState, "sequence must be in same schema as table it is linked to")
			}
			seq.OwnedTable, seq.OwnedColumn = key, o.OwnedBy[1]
		}
	}
	return catalog.CheckSequence(seq)
}
