package session

import (
	"context"
	"slices"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/exec"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
)

// Triggers are SQLite's row triggers (docs/routines.md, "Triggers"):
// the catalog keeps each one's statements as text; the executor calls
// Ctx.Fire before and after every row an INSERT, UPDATE or DELETE writes;
// fire runs the matching triggers' statements in the writing statement's
// transaction with NEW.column and OLD.column bound as parameters. As in
// SQLite (with recursive_triggers off, its default), a trigger does not
// fire again while its own statements run, so trigger chains end.

// createTrigger checks a CREATE TRIGGER (the table, the event's columns,
// every statement's syntax and NEW/OLD references) and records it.
func (s *Session) createTrigger(t *txn, tr *parse.TriggerStmt) error {
	if tr.Function != "" {
		return s.createFunctionTrigger(t, tr) // plpgsql_trigger.go
	}
	cat, db := t.cat, s.database
	tbl, err := cat.Table(db, tr.Table)
	if _, verr := cat.View(db, tr.Table); err != nil && verr == nil {
		return pgerror.Newf(pgerror.FeatureNotSupported, "%q is a view: triggers on views (INSTEAD OF) are not supported", tr.Table)
	}
	if err != nil {
		return err
	}
	if tr.Timing == "instead of" {
		return pgerror.Newf(pgerror.WrongObjectType, "%q is a table: INSTEAD OF triggers are for views", tr.Table)
	}
	if _, _, err := cat.Trigger(db, tr.Name); err == nil && tr.IfNotExists {
		return nil
	}
	def := catalog.Trigger{Name: tr.Name, Timing: tr.Timing, Event: tr.Event, Columns: tr.Columns, When: tr.When, Body: tr.Body}
	if _, err := compileTrigger(tbl, &def); err != nil {
		return err
	}
	next, err := cat.CreateTrigger(t.kv, db, tr.Table, def)
	if err != nil {
		return err
	}
	t.setCatalog(next)
	return nil
}

// dropTrigger runs DROP TRIGGER [IF EXISTS] name [ON table].
func (s *Session) dropTrigger(t *txn, tr *parse.TriggerStmt) error {
	tbl, _, err := t.cat.Trigger(s.database, tr.Name)
	if err == nil && tr.Table != "" && tbl.Name != tr.Table {
		err = pgerror.Newf(pgerror.UndefinedObject, "trigger %q for table %q does not exist", tr.Name, tr.Table)
	}
	if err != nil {
		if tr.IfExists && pgerror.HasCode(err, pgerror.UndefinedObject) {
			return nil
		}
		return err
	}
	next, err := t.cat.DropTrigger(t.kv, s.database, tr.Name)
	if err != nil {
		return err
	}
	t.setCatalog(next)
	return nil
}

// compiledTrigger is a trigger's condition and statements parsed, each a
// prepared statement whose plan is cached per catalog.
type compiledTrigger struct {
	when  *triggerStep // nil: no WHEN
	steps []*triggerStep
}

type triggerStep struct {
	p    parse.Statement
	refs []parse.TriggerRef
	st   *stmt // per session: set by Session.compiled
}

// compileTrigger parses tr's condition and statements against table tbl:
// 42601 for a syntax error, 42703 for a NEW/OLD column tbl lacks or a row
// the event has no (OLD in an INSERT trigger, NEW in a DELETE trigger).
func compileTrigger(tbl *catalog.Table, tr *catalog.Trigger) (*compiledTrigger, error) {
	c := &compiledTrigger{}
	step := func(p parse.Statement, refs []parse.TriggerRef, err error) (*triggerStep, error) {
		if err != nil {
			return nil, err
		}
		for _, r := range refs {
			if _, err := refColumn(tbl, tr, r); err != nil {
				return nil, err
			}
		}
		return &triggerStep{p: p, refs: refs}, nil
	}
	var err error
	if tr.When != "" {
		if c.when, err = step(parse.TriggerCondition(tr.When)); err != nil {
			return nil, err
		}
	}
	for _, sql := range tr.Body {
		st, err := step(parse.TriggerStep(sql))
		if err != nil {
			return nil, err
		}
		c.steps = append(c.steps, st)
	}
	return c, nil
}

// refColumn is the ordinal in tbl of the column r names.
func refColumn(tbl *catalog.Table, tr *catalog.Trigger, r parse.TriggerRef) (int, error) {
	switch {
	case r.Old && tr.Event == "insert":
		return 0, pgerror.Newf(pgerror.UndefinedColumn, "trigger %q: an INSERT has no OLD row (OLD.%s)", tr.Name, r.Column)
	case !r.Old && tr.Event == "delete":
		return 0, pgerror.Newf(pgerror.UndefinedColumn, "trigger %q: a DELETE has no NEW row (NEW.%s)", tr.Name, r.Column)
	}
	o := tbl.ColumnOrdinal(r.Column)
	if o < 0 {
		return 0, pgerror.Newf(pgerror.UndefinedColumn, "trigger %q: column %q of relation %q does not exist", tr.Name, r.Column, tbl.Name)
	}
	return o, nil
}

// compiled returns tr's parsed form with this session's prepared
// statements, made once per trigger (a catalog's *Trigger never changes).
func (s *Session) compiled(tbl *catalog.Table, tr *catalog.Trigger) (*compiledTrigger, error) {
	if c, ok := s.triggers[tr]; ok {
		return c, nil
	}
	c, err := compileTrigger(tbl, tr)
	if err != nil {
		return nil, err
	}
	for _, st := range append(c.steps, c.when) {
		if st == nil {
			continue
		}
		declared := make([]types.T, len(st.refs))
		for i, r := range st.refs {
			declared[i] = tbl.Columns[tbl.ColumnOrdinal(r.Column)].Type
		}
		st.st = &stmt{s: s, p: &st.p, declared: declared}
	}
	if s.triggers == nil || len(s.triggers) > 1000 {
		s.triggers = map[*catalog.Trigger]*compiledTrigger{}
	}
	s.triggers[tr] = c
	return c, nil
}

// fire runs tbl's triggers of one timing and event for one row (the
// exec.Ctx.Fire contract); active holds the triggers whose statements are
// running, which do not fire again.
func (s *Session) fire(ctx context.Context, t *txn, active []*catalog.Trigger, tbl *catalog.Table, timing, event string, old, new []types.Datum, set []int) error {
	// A statement-level firing has no rows (exec's DML operators fire
	// one before their first row and one after their last).
	stmtLevel := old == nil && new == nil
	for _, tr := range triggerOrder(tbl.Triggers) {
		if tr.Statement != stmtLevel || tr.Timing != timing || !tr.On(event) || slices.Contains(active, tr) || !stmtLevel && !assigns(tbl, tr, set) {
			continue
		}
		c, err := s.compiled(tbl, tr)
		if err != nil {
			return err
		}
		nested := append(active[:len(active):len(active)], tr)
		if c.when != nil && !stmtLevel {
			n, err := s.runStep(ctx, t, nested, tbl, tr, c.when, old, new)
			if err != nil {
				return err
			}
			if n == 0 {
				continue
			}
		}
		s.triggerDepth++ // pg_trigger_depth
		err = s.runTrigger(ctx, t, nested, tbl, tr, c, timing, event, old, new)
		s.triggerDepth--
		if err != nil {
			return err
		}
	}
	return nil
}

// runTrigger runs one trigger whose WHEN holds: its function, or its
// statements.
func (s *Session) runTrigger(ctx context.Context, t *txn, nested []*catalog.Trigger, tbl *catalog.Table, tr *catalog.Trigger, c *compiledTrigger, timing, event string, old, new []types.Datum) error {
	if tr.Function != "" {
		return s.fireFunction(ctx, t, tbl, tr, timing, event, old, new) // plpgsql_trigger.go
	}
	for _, st := range c.steps {
		if _, err := s.runStep(ctx, t, nested, tbl, tr, st, old, new); err != nil {
			return err
		}
	}
	return nil
}

// assigns reports whether an UPDATE assigning the columns set fires tr
// (UPDATE OF a, b fires only when a or b is assigned).
func assigns(tbl *catalog.Table, tr *catalog.Trigger, set []int) bool {
	if len(tr.Columns) == 0 {
		return true
	}
	for _, col := range tr.Columns {
		if slices.Contains(set, tbl.ColumnOrdinal(col)) {
			return true
		}
	}
	return false
}

// runStep runs one statement of a trigger with the row's NEW and OLD
// values as its parameters and returns the rows it produced (or wrote).
func (s *Session) runStep(ctx context.Context, t *txn, active []*catalog.Trigger, tbl *catalog.Table, tr *catalog.Trigger, st *triggerStep, old, new []types.Datum) (int64, error) {
	params := make([]types.Datum, len(st.refs))
	for i, r := range st.refs {
		o, err := refColumn(tbl, tr, r)
		if err != nil {
			return 0, err
		}
		row := new
		if r.Old {
			row = old
		}
		params[i] = row[o]
	}
	if err := st.st.ensurePlan(t.cat); err != nil {
		return 0, err
	}
	ec := s.execCtx(ctx, t, params)
	// Triggers the step's own writes fire know the ones already active.
	ec.Hooks = &stmtHooks{s: s, t: t, ctx: ctx, active: active}
	op, err := exec.Build(ec, st.st.plan)
	if err != nil {
		return 0, err
	}
	n, err := exec.Drain(op, nil)
	if err != nil {
		return 0, err
	}
	trackRows(t, st.st.plan, n)
	return n, nil
}
