package session

import (
	"context"
	"slices"
	"strings"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/exec"
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
)

// PL/pgSQL (docs/routines.md, "PL/pgSQL"). A LANGUAGE plpgsql
// function's body is parsed at CREATE (parse.ParsePL) and again, once per
// function descriptor, at its first call in a session; a DO block's at
// DO. The interpreter (plpgsql_exec.go) walks the tree. Every expression
// and SQL statement in it is a query of this session planned with the
// variables in scope as its parameters (planner.Planner.ArgNames): the
// plan is cached per function, text and parameter types, as PostgreSQL's
// SPI caches a PL/pgSQL statement's plan.

// plCode is a PL/pgSQL body parsed, and the plans of its queries.
type plCode struct {
	block *parse.PLBlock
	plans map[string]*stmt
}

// plCode returns fn's body parsed, made once per function descriptor.
func (s *Session) plCode(fn *catalog.Function) (*plCode, error) {
	if c, ok := s.plFuncs[fn]; ok {
		return c, nil
	}
	b, err := parse.ParsePL(fn.Body)
	if err != nil {
		return nil, bodyError(err)
	}
	c := &plCode{block: b, plans: map[string]*stmt{}}
	if s.plFuncs == nil || len(s.plFuncs) > 1000 {
		s.plFuncs = map[*catalog.Function]*plCode{}
	}
	s.plFuncs[fn] = c
	return c, nil
}

// checkPLBody parses a PL/pgSQL function's body at CREATE: a syntax
// error is reported then, as PostgreSQL's validator does.
func checkPLBody(fn *catalog.Function) error {
	if fn.Form != "as" {
		return pgerror.New(pgerror.InvalidFunctionDefinition, "PL/pgSQL functions must have a body given with AS")
	}
	_, err := parse.ParsePL(fn.Body)
	return err
}

// plVar is one variable: a scalar of type t, or a record (rec) whose
// fields are named, typed and valued by fields, ftypes and fvals (nil
// fields: not assigned yet).
type plVar struct {
	name     string
	t        types.T
	val      types.Datum
	rec      bool
	fields   []string
	ftypes   []types.T
	fvals    []types.Datum
	constant bool
	notNull  bool
}

// plExec is one call's (or one DO block's) interpreter state.
type plExec struct {
	s    *Session
	t    *txn
	ctx  context.Context
	fn   *catalog.Function // nil for DO
	code *plCode
	name string // the function's name (a query's qualifier for its arguments)

	// scopes are the blocks' variables, outermost first; scopes[0] holds
	// the arguments (nargs of them first), FOUND and the trigger's.
	scopes [][]*plVar
	nargs  int
	found  *plVar

	rowCount int64
	// errs are the errors the enclosing handlers caught, innermost last
	// (SQLSTATE, SQLERRM, bare RAISE).
	errs []*pgerror.Error

	// The result: ret and retT for a scalar function, rows for a
	// set-returning one, retRow for a row (record, OUT arguments).
	ret      types.Datum
	retT     types.T
	retRow   []types.Datum
	retTypes []types.T
	rows     [][]types.Datum
	returned bool
}

// runPL runs a LANGUAGE plpgsql function's call with args (routineOps.run
// has checked depth, strictness and settings).
func (o routineOps) runPL(fn *catalog.Function, argTypes []types.T, args []types.Datum) (routineResult, error) {
	s := o.s
	code, err := s.plCode(fn)
	if err != nil {
		return routineResult{fn: fn}, err
	}
	x := &plExec{s: s, t: o.t, ctx: o.ctx, fn: fn, code: code, name: fn.Name}
	var top []*plVar
	in := fn.InputArgs()
	for i, a := range in {
		if i >= len(argTypes) || i >= len(args) {
			break
		}
		v := &plVar{name: a.Name, t: argTypes[i], val: args[i]}
		if v.t.Family == types.Unknown {
			v.t = tText
		}
		top = append(top, v)
	}
	x.nargs = len(top)
	var outs []*plVar
	for _, a := range fn.OutputArgs() {
		if a.Mode == "b" {
			for _, v := range top {
				if v.name == a.Name {
					outs = append(outs, v)
				}
			}
			continue
		}
		t, _, err := s.planner(o.t.cat).RoutineType(a.Type)
		if err != nil {
			return routineResult{fn: fn}, err
		}
		v := &plVar{name: a.Name, t: t, val: types.Null}
		top = append(top, v)
		outs = append(outs, v)
	}
	x.found = &plVar{name: "found", t: tBool, val: types.NewBool(false)}
	top = append(top, x.found)
	x.scopes = [][]*plVar{top}
	retT, _, rerr := s.planner(o.t.cat).RoutineType(fn.Returns)
	if rerr == nil && retT.Family == types.Unknown && fn.Returns != "record" {
		// A polymorphic result: the first polymorphic argument's type.
		for i, a := range in {
			if _, poly, _ := planner.RoutineType(a.Type); poly != 0 && i < len(argTypes) {
				retT = argTypes[i]
				if poly == 2 && !retT.IsArray() {
					retT = types.ArrayOf(retT)
				}
				break
			}
		}
	}
	x.retT = retT
	rowCols := planner.RowTypeColumns(o.t.cat, s.database, fn.Returns)
	if err := x.runBlock(code.block); err != nil {
		return routineResult{fn: fn}, err
	}
	res := routineResult{fn: fn}
	switch {
	case fn.RetSet:
		res.rows = x.rows
		res.types = x.rowTypes(outs, rowCols)
	case len(outs) > 0:
		row := make([]types.Datum, len(outs))
		for i, v := range outs {
			row[i] = v.val
			res.types = append(res.types, v.t)
		}
		res.rows = [][]types.Datum{row}
	case !x.returned && fn.Returns != "void":
		return res, pgerror.New(pgerror.Code("2F005"), "control reached end of function without RETURN")
	case x.retRow != nil:
		res.rows, res.types = [][]types.Datum{x.retRow}, x.retTypes
	case fn.Returns == "void":
	default:
		if x.ret.IsNull() && rowCols != nil {
			return res, nil
		}
		res.rows, res.types = [][]types.Datum{{x.ret}}, []types.T{x.retT}
	}
	return res, nil
}

// rowTypes are the column types of a set-returning function's rows.
func (x *plExec) rowTypes(outs []*plVar, rowCols []planner.Column) []types.T {
	switch {
	case len(outs) > 0:
		ts := make([]types.T, len(outs))
		for i, v := range outs {
			ts[i] = v.t
		}
		return ts
	case rowCols != nil:
		ts := make([]types.T, len(rowCols))
		for i, c := range rowCols {
			ts[i] = c.T
		}
		return ts
	case x.retTypes != nil:
		return x.retTypes
	}
	return []types.T{x.retT}
}

// doStmt runs DO [LANGUAGE plpgsql] 'code'.
func (s *Session) doStmt(ctx context.Context, t *txn, rs *parse.RoutineStmt) error {
	switch rs.Language {
	case "plpgsql", "":
	case "sql":
		return pgerror.New(pgerror.FeatureNotSupported, "language \"sql\" does not support inline code execution")
	default:
		if err := checkLanguage(rs.Language); err != nil {
			return err
		}
	}
	b, err := parse.ParsePL(rs.Body)
	if err != nil {
		return bodyError(err)
	}
	if s.routineDepth >= maxRoutineDepth {
		return pgerror.New(pgerror.StatementTooComplex, "stack depth limit exceeded")
	}
	s.routineDepth++
	defer func() { s.routineDepth-- }()
	x := &plExec{s: s, t: t, ctx: ctx, code: &plCode{block: b, plans: map[string]*stmt{}}, name: "inline_code_block"}
	x.found = &plVar{name: "found", t: tBool, val: types.NewBool(false)}
	x.scopes = [][]*plVar{{x.found}}
	return x.runBlock(b)
}

var (
	tBool = types.T{Family: types.Bool}
	tInt  = types.T{Family: types.Int4}
	tInt8 = types.T{Family: types.Int8}
	tText = types.T{Family: types.Text}
)

// lookup finds the innermost variable called name.
func (x *plExec) lookup(name string) *plVar {
	for i := len(x.scopes) - 1; i >= 0; i-- {
		sc := x.scopes[i]
		for k := len(sc) - 1; k >= 0; k-- {
			if sc[k].name == name {
				return sc[k]
			}
		}
	}
	return nil
}

// params lists the variables a query sees as parameters: the function's
// arguments first ($1, $2, ... as written in the body), then every other
// variable, innermost first; a record's fields appear as rec.field. A
// name shadowed by an inner variable is listed without its name.
func (x *plExec) params() (names []string, ts []types.T, vals []types.Datum) {
	seen := map[string]bool{}
	add := func(v *plVar, named bool) {
		name := v.name
		if !named || seen[name] {
			name = ""
		}
		if v.rec {
			for i, f := range v.fields {
				n := ""
				if name != "" {
					n = name + "." + f
				}
				names, ts, vals = append(names, n), append(ts, v.ftypes[i]), append(vals, v.fvals[i])
			}
		} else {
			t := v.t
			if t.Family == types.Unknown {
				t = tText
			}
			names, ts, vals = append(names, name), append(ts, t), append(vals, v.val)
		}
	}
	// Which variable each name means: the innermost.
	winner := map[string]*plVar{}
	for i := len(x.scopes) - 1; i >= 0; i-- {
		sc := x.scopes[i]
		for k := len(sc) - 1; k >= 0; k-- {
			if v := sc[k]; v.name != "" && winner[v.name] == nil {
				winner[v.name] = v
			}
		}
	}
	for _, v := range x.scopes[0][:x.nargs] {
		add(v, winner[v.name] == v)
		if winner[v.name] == v {
			seen[v.name] = true
		}
	}
	for i := len(x.scopes) - 1; i >= 0; i-- {
		sc := x.scopes[i]
		for k := len(sc) - 1; k >= 0; k-- {
			v := sc[k]
			if i == 0 && k < x.nargs {
				continue
			}
			add(v, winner[v.name] == v)
			if winner[v.name] == v {
				seen[v.name] = true
			}
		}
	}
	// The fields of a variable of a composite type (an argument, or one
	// DECLAREd so) as v.field, after the variables, so that $n still
	// counts the arguments.
	for i := range x.scopes {
		for _, v := range x.scopes[i] {
			if v.rec || v.t.Family != types.Record || v.t.Comp == nil || v.name == "" || winner[v.name] != v {
				continue
			}
			fields := make([]types.Datum, len(v.t.Comp.Fields))
			if !v.val.IsNull() {
				if got, err := types.RecordFields(nil, v.val); err == nil && len(got) == len(fields) {
					fields = got
				}
			}
			for k, f := range v.t.Comp.Fields {
				names, ts, vals = append(names, v.name+"."+f.Name), append(ts, f.T), append(vals, fields[k])
			}
		}
	}
	return names, ts, vals
}

// query runs one SQL statement of the body with the variables as its
// parameters, calling each for every row, and returns its columns and
// row count.
func (x *plExec) query(text string, each func(row []types.Datum) error) ([]planner.Column, int64, error) {
	if err := x.ctx.Err(); err != nil {
		return nil, 0, cancelError(x.ctx)
	}
	names, ts, vals := x.params()
	var key strings.Builder
	key.WriteString(text)
	for i, t := range ts {
		key.WriteByte(0)
		key.WriteString(names[i])
		key.WriteByte(':')
		key.WriteString(t.String())
	}
	st, ok := x.code.plans[key.String()]
	if !ok {
		if len(x.errs) > 0 && strings.Contains(strings.ToLower(text), "sqlstate") {
			text = parse.QuoteWords(text, map[string]bool{"sqlstate": true})
		}
		stmts, err := parse.Parse(text)
		if err != nil {
			return nil, 0, bodyError(err)
		}
		if len(stmts) != 1 {
			return nil, 0, pgerror.Newf(pgerror.SyntaxError, "query \"%s\" is not a single statement", text)
		}
		st = &stmt{s: x.s, p: &stmts[0], sql: text, declared: ts, argNames: names, routine: x.name}
		if len(x.code.plans) > 10000 {
			x.code.plans = map[string]*stmt{}
		}
		x.code.plans[key.String()] = st
	}
	return x.runStmt(st, vals, each)
}

// runStmt executes a prepared statement of the body.
func (x *plExec) runStmt(st *stmt, vals []types.Datum, each func(row []types.Datum) error) ([]planner.Column, int64, error) {
	s, t := x.s, x.t
	switch st.kind() {
	case kindPlan:
	case kindDDL:
		if st.p.Database == nil && st.p.Vacuum == nil {
			// CREATE TABLE, DROP ... in a body: in the caller's
			// transaction, as the session runs DDL in a block.
			_, err := s.ddlIn(x.ctx, t, st.p)
			return nil, 0, err
		}
		fallthrough
	default:
		return nil, 0, pgerror.Newf(pgerror.FeatureNotSupported, "statement in a PL/pgSQL function is not supported: %s", st.sql)
	}
	if err := st.ensurePlan(t.cat); err != nil {
		return nil, 0, err
	}
	if isDML(st.p) {
		if t.readOnly {
			return nil, 0, pgerror.Newf(pgerror.ReadOnlySQLTransaction, "cannot execute %s in a read-only transaction", dmlVerb(st.p))
		}
		if x.fn != nil && x.fn.Volatility != "v" {
			return nil, 0, pgerror.Newf(pgerror.FeatureNotSupported, "%s is not allowed in a non-volatile function", dmlVerb(st.p))
		}
	}
	// The statement's NO ACTION foreign-key checks run when it ends, as
	// PostgreSQL runs them after each statement of a body (so an
	// EXCEPTION block around it catches their 23503).
	sm := t.deferred.BeginStatement()
	cols := visibleColumns(st.plan)
	var rowErr error
	var n int64
	op, err := exec.Build(s.execCtx(x.ctx, t, vals), st.plan)
	if err == nil {
		n, err = exec.Drain(op, func(row []types.Datum) {
			if rowErr == nil && each != nil {
				rowErr = each(row[:len(cols)])
			}
		})
	}
	if err == nil {
		err = rowErr
	}
	if ferr := t.deferred.EndStatement(t.kv, sm, err == nil); err == nil {
		err = ferr
	}
	if err != nil {
		return nil, 0, err
	}
	trackRows(t, st.plan, n)
	return cols, n, nil
}

// eval computes an expression: SELECT expr, one value (NULL when no
// row; 21000 for more than one).
func (x *plExec) eval(expr string) (types.Datum, types.T, error) {
	var v types.Datum
	got := 0
	cols, _, err := x.query("SELECT "+expr, func(row []types.Datum) error {
		got++
		if got > 1 {
			return pgerror.New(pgerror.CardinalityViolation, "query returned more than one row")
		}
		if len(row) > 0 {
			v = row[0]
		}
		return nil
	})
	if err != nil {
		return types.Null, types.T{}, err
	}
	if len(cols) != 1 {
		e := pgerror.Newf(pgerror.SyntaxError, "query returned %d columns", len(cols))
		return types.Null, types.T{}, e
	}
	if got == 0 {
		v = types.Null
	}
	return v, cols[0].T, nil
}

// evalBool computes a condition: NULL is false.
func (x *plExec) evalBool(expr string) (bool, error) {
	v, t, err := x.eval(expr)
	if err != nil {
		return false, err
	}
	if v.IsNull() {
		return false, nil
	}
	if t.Family != types.Bool {
		v, err = x.cast(v, t, tBool)
		if err != nil {
			return false, err
		}
	}
	return v.Bool(), nil
}

// cast converts a value to a variable's type, as PL/pgSQL's assignment
// does.
func (x *plExec) cast(d types.Datum, from, to types.T) (types.Datum, error) {
	if d.IsNull() || from == to || to.Family == types.Unknown {
		return d, nil
	}
	return eval.CastFromIn(d, from, to, x.s.Location())
}

// text is a value's text form (RAISE's arguments, EXECUTE's string).
func (x *plExec) text(d types.Datum, t types.T) (string, bool, error) {
	if d.IsNull() {
		return "", false, nil
	}
	if t.Family == types.Bool {
		return map[bool]string{true: "t", false: "f"}[d.Bool()], true, nil
	}
	v, err := x.cast(d, t, tText)
	if err != nil {
		return "", false, err
	}
	return v.S, true, nil
}

// cancelError is the error of a canceled or timed-out context.
func cancelError(ctx context.Context) error {
	if ctx.Err() == context.DeadlineExceeded {
		return pgerror.New(pgerror.QueryCanceled, "canceling statement due to statement timeout")
	}
	return pgerror.New(pgerror.QueryCanceled, "canceling statement due to user request")
}

// assignVar stores v (of type from) into the variable or record field
// target names.
func (x *plExec) assignVar(target string, v types.Datum, from types.T) error {
	name, field, qualified := strings.Cut(target, ".")
	pv := x.lookup(name)
	if pv == nil {
		return pgerror.Newf(pgerror.SyntaxError, "\"%s\" is not a known variable", name)
	}
	if pv.constant {
		return pgerror.Newf(pgerror.SyntaxError, "variable \"%s\" is declared CONSTANT", name)
	}
	if qualified {
		if !pv.rec {
			return pgerror.Newf(pgerror.SyntaxError, "\"%s\" is not a known variable", target)
		}
		if pv.fields == nil {
			return pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "record \"%s\" is not assigned yet", name)
		}
		k := slices.Index(pv.fields, field)
		if k < 0 {
			return pgerror.Newf(pgerror.UndefinedColumn, "record \"%s\" has no field \"%s\"", name, field)
		}
		c, err := x.cast(v, from, pv.ftypes[k])
		if err != nil {
			return err
		}
		pv.fvals[k] = c
		return nil
	}
	if pv.rec {
		return pgerror.Newf(pgerror.FeatureNotSupported, "assigning a value to record \"%s\" is not supported", name)
	}
	if v.IsNull() && pv.notNull {
		return pgerror.Newf(pgerror.NullValueNotAllowed, "null value cannot be assigned to variable \"%s\" declared NOT NULL", name)
	}
	c, err := x.cast(v, from, pv.t)
	if err != nil {
		return err
	}
	pv.val = c
	return nil
}

// assignRow stores a query's row into INTO's targets: one record takes
// the row whole; otherwise each target takes a column in order (NULL when
// the row is shorter).
func (x *plExec) assignRow(targets []string, cols []planner.Column, row []types.Datum) error {
	if len(targets) == 1 {
		if pv := x.lookup(targets[0]); pv != nil && pv.rec {
			return x.setRecord(pv, cols, row)
		}
	}
	for i, tg := range targets {
		v, t := types.Null, tText
		if i < len(row) {
			v, t = row[i], cols[i].T
		}
		if err := x.assignVar(tg, v, t); err != nil {
			return err
		}
	}
	return nil
}

// setRecord gives a record variable the row's fields; a row-typed
// variable (a table's %ROWTYPE) keeps its fields, taking the values in
// order. row nil: all NULL.
func (x *plExec) setRecord(pv *plVar, cols []planner.Column, row []types.Datum) error {
	if pv.fields != nil && len(pv.ftypes) > 0 && pv.t.Family != types.Unknown {
		// a typed row: values in order, cast
		for i := range pv.fvals {
			v, t := types.Null, tText
			if i < len(row) {
				v, t = row[i], cols[i].T
			}
			c, err := x.cast(v, t, pv.ftypes[i])
			if err != nil {
				return err
			}
			pv.fvals[i] = c
		}
		return nil
	}
	pv.fields, pv.ftypes, pv.fvals = pv.fields[:0], pv.ftypes[:0], make([]types.Datum, len(cols))
	for i, c := range cols {
		pv.fields = append(pv.fields, c.Name)
		pv.ftypes = append(pv.ftypes, c.T)
		if row != nil {
			pv.fvals[i] = row[i]
		}
	}
	return nil
}
