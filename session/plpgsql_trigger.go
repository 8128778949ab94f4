package session

import (
	"context"
	"slices"
	"strings"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/exec"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
)

// PostgreSQL's triggers: CREATE TRIGGER ... EXECUTE FUNCTION f(args), f
// a PL/pgSQL function RETURNS trigger. They are catalog.Triggers like
// SQLite's (trigger.go), with Function set instead of a Body, and fire
// from the same exec hook: fireFunction runs f with NEW, OLD and the TG_
// variables; a BEFORE ROW trigger's result replaces the row (NULL skips
// it). Statement-level ones fire from the hook with no rows.

// triggerFunction finds the trigger function name(): 42883 when there is
// none, 42P17 when it does not return trigger.
func (s *Session) triggerFunction(cat *catalog.Catalog, name string) (*catalog.Function, error) {
	for _, f := range cat.FunctionsNamed(s.database, name) {
		if len(f.InputArgs()) != 0 {
			continue
		}
		if f.Returns != "trigger" {
			return nil, pgerror.Newf(pgerror.Code("42P17"), "function %s must return type trigger", name)
		}
		return f, nil
	}
	return nil, pgerror.Newf(pgerror.UndefinedFunction, "function %s() does not exist", name)
}

// createFunctionTrigger checks and records a trigger of PostgreSQL's form.
func (s *Session) createFunctionTrigger(t *txn, tr *parse.TriggerStmt) error {
	cat, db := t.cat, s.database
	tbl, err := cat.Table(db, tr.Table)
	if _, verr := cat.View(db, tr.Table); err != nil && verr == nil {
		return pgerror.Newf(pgerror.FeatureNotSupported, "%q is a view: triggers on views (INSTEAD OF) are not supported", tr.Table)
	}
	if err != nil {
		return err
	}
	switch {
	case tr.Timing == "instead of":
		e := pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is a table", tr.Table)
		e.Detail = "Tables cannot have INSTEAD OF triggers."
		return e
	case tr.Event == "truncate" || slices.Contains(tr.Events, "truncate"):
		return pgerror.New(pgerror.FeatureNotSupported, "TRUNCATE triggers are not supported")
	case tr.Statement && tr.When != "" && strings.Contains(strings.ToLower(tr.When), "new.") || tr.Statement && strings.Contains(strings.ToLower(tr.When), "old."):
		return pgerror.New(pgerror.Code("42P17"), "statement trigger's WHEN condition cannot reference column values")
	}
	if _, err := s.triggerFunction(cat, tr.Function); err != nil {
		return err
	}
	def := catalog.Trigger{Name: tr.Name, Timing: tr.Timing, Event: tr.Event, Columns: tr.Columns, When: tr.When,
		Function: tr.Function, Args: tr.Args, Events: tr.Events, Statement: tr.Statement}
	if len(def.Events) == 1 {
		def.Events = nil
	}
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

// triggerOrder is the order tbl's triggers fire in: SQLite's in creation
// order, and when PostgreSQL's are among them, by name as PostgreSQL
// fires them.
func triggerOrder(trs []*catalog.Trigger) []*catalog.Trigger {
	pg := false
	for _, tr := range trs {
		pg = pg || tr.Function != ""
	}
	byName := func(a, b *catalog.Trigger) int { return strings.Compare(a.Name, b.Name) }
	if !pg || slices.IsSortedFunc(trs, byName) {
		return trs
	}
	out := slices.Clone(trs)
	slices.SortStableFunc(out, byName)
	return out
}

// fireFunction runs tr's function for one row (old, new) or, for a
// statement-level trigger, for the statement. A BEFORE ROW trigger's
// result is written into new; RETURN NULL gives exec.ErrSkipRow.
func (s *Session) fireFunction(ctx context.Context, t *txn, tbl *catalog.Table, tr *catalog.Trigger, timing, event string, old, new []types.Datum) error {
	fn, err := s.triggerFunction(t.cat, tr.Function)
	if err != nil {
		return err
	}
	if s.routineDepth >= maxRoutineDepth {
		return pgerror.New(pgerror.StatementTooComplex, "stack depth limit exceeded")
	}
	s.routineDepth++
	defer func() { s.routineDepth-- }()
	code, err := s.plCode(fn)
	if err != nil {
		return err
	}
	x := &plExec{s: s, t: t, ctx: ctx, fn: fn, code: code, name: fn.Name}
	var names []string
	var ords []int
	var colTypes []types.T
	for i, c := range tbl.Columns {
		if !c.Hidden {
			names, ords, colTypes = append(names, c.Name), append(ords, i), append(colTypes, c.Type)
		}
	}
	rowVar := func(name string, row []types.Datum) *plVar {
		v := &plVar{name: name, rec: true}
		if row != nil {
			v.fields, v.ftypes = slices.Clone(names), slices.Clone(colTypes)
			for _, o := range ords {
				v.fvals = append(v.fvals, row[o])
			}
		}
		return v
	}
	newVar, oldVar := rowVar("new", new), rowVar("old", old)
	level := "ROW"
	if tr.Statement {
		level = "STATEMENT"
	}
	argv := make([]types.Datum, len(tr.Args))
	for i, a := range tr.Args {
		argv[i] = types.NewText(a)
	}
	text := func(name, v string) *plVar { return &plVar{name: name, t: tText, val: types.NewText(v)} }
	x.found = &plVar{name: "found", t: tBool, val: types.NewBool(false)}
	x.scopes = [][]*plVar{{newVar, oldVar, text("tg_op", strings.ToUpper(event)), text("tg_name", tr.Name),
		text("tg_when", strings.ToUpper(timing)), text("tg_level", level), text("tg_table_name", tbl.Name),
		text("tg_relname", tbl.Name), text("tg_table_schema", catalog.SchemaName(tbl.Schema)),
		{name: "tg_nargs", t: tInt, val: types.NewInt(int64(len(tr.Args)))},
		{name: "tg_argv", t: types.ArrayOf(tText), val: types.NewArrayShaped(argv, types.ArrayShape{Lens: []int{len(argv)}, Lower: []int{0}})}, x.found}}
	if err := x.runBlock(code.block); err != nil {
		return err
	}
	if !x.returned {
		return pgerror.New(pgerror.Code("2F005"), "control reached end of trigger procedure without RETURN")
	}
	if timing != "before" || tr.Statement {
		return nil
	}
	if x.retRow == nil {
		return exec.ErrSkipRow
	}
	if new == nil {
		return nil // a DELETE goes ahead when the trigger returns a row
	}
	if len(x.retRow) != len(ords) {
		e := pgerror.New(pgerror.DatatypeMismatch, "returned row structure does not match the structure of the triggering table")
		e.Detail = "Number of returned columns does not match expected column count."
		return e
	}
	for i, o := range ords {
		v, err := x.cast(x.retRow[i], x.retTypes[i], colTypes[i])
		if err != nil {
			return err
		}
		new[o] = v
	}
	return nil
}
