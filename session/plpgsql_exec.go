package session

import (
	"errors"
	"strings"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"github.com/kvsql/kvsql/wire/backend"
)

// The PL/pgSQL statements, run over plExec (plpgsql.go).

// plCtl is how a statement ended: normally, or by EXIT, CONTINUE or
// RETURN, which unwind to the loop (or block) they name.
type plCtl int

const (
	plNext plCtl = iota
	plExitLoop
	plContinueLoop
	plReturned
)

// maxPLLoop bounds nothing: loops run until they end, a statement
// timeout or a cancel; the context is checked every iteration.

// runBlock runs a block: its declarations in a new scope, its body, and
// when it has handlers, the body in a subtransaction whose writes a
// handler's run rolls back.
func (x *plExec) runBlock(b *parse.PLBlock) error {
	_, _, err := x.block(b)
	return err
}

func (x *plExec) block(b *parse.PLBlock) (plCtl, string, error) {
	x.scopes = append(x.scopes, nil)
	defer func() { x.scopes = x.scopes[:len(x.scopes)-1] }()
	if err := x.declare(b.Decls); err != nil {
		return plNext, "", err
	}
	if len(b.Handlers) == 0 {
		ctl, label, err := x.stmts(b.Body)
		return x.leaveBlock(b, ctl, label, err)
	}
	sp := x.t.mark()
	depth := len(x.scopes)
	ctl, label, err := x.stmts(b.Body)
	if err == nil {
		return x.leaveBlock(b, ctl, label, nil)
	}
	var pe *pgerror.Error
	if !errors.As(err, &pe) {
		pe = pgerror.New(pgerror.CodeOf(err), err.Error())
	}
	if pe.Code == pgerror.QueryCanceled || pe.Code == pgerror.AdminShutdown {
		return plNext, "", err // not caught by OTHERS, as in PostgreSQL
	}
	for _, h := range b.Handlers {
		if !handles(h, pe.Code) {
			continue
		}
		if rerr := x.t.rollbackTo(sp); rerr != nil {
			return plNext, "", rerr
		}
		x.s.undoSettings(x.t, sp.settings)
		x.scopes = x.scopes[:depth]
		x.errs = append(x.errs, pe)
		x.scopes = append(x.scopes, []*plVar{{name: "sqlstate", t: tText, val: types.NewText(string(pe.Code))},
			{name: "sqlerrm", t: tText, val: types.NewText(pe.Message)}})
		ctl, label, err := x.stmts(h.Body)
		x.scopes = x.scopes[:depth]
		x.errs = x.errs[:len(x.errs)-1]
		return x.leaveBlock(b, ctl, label, err)
	}
	return plNext, "", err
}

// leaveBlock turns an EXIT of this block's label into a normal end.
func (x *plExec) leaveBlock(b *parse.PLBlock, ctl plCtl, label string, err error) (plCtl, string, error) {
	if err == nil && ctl == plExitLoop && label != "" && label == b.Label {
		return plNext, "", nil
	}
	return ctl, label, err
}

// handles reports whether a handler catches code: OTHERS catches all
// but cancels; a class code (two characters and 000) its class.
func handles(h parse.PLHandler, code pgerror.Code) bool {
	for _, c := range h.Codes {
		switch {
		case c == "others":
			return true
		case c == string(code):
			return true
		case strings.HasSuffix(c, "000") && len(code) == 5 && c[:2] == string(code)[:2]:
			return true
		}
	}
	return false
}

// declare makes a block's variables, in order (a default may read the
// ones before it).
func (x *plExec) declare(decls []parse.PLVar) error {
	for _, d := range decls {
		v := &plVar{name: d.Name, constant: d.Constant, notNull: d.NotNull, val: types.Null}
		switch {
		case d.Alias > 0:
			if d.Alias > x.nargs {
				return pgerror.Newf(pgerror.Code("42P02"), "there is no parameter $%d", d.Alias)
			}
			a := *x.scopes[0][d.Alias-1]
			a.name = d.Name
			// an alias shares the argument's value at declaration
			x.scopes[len(x.scopes)-1] = append(x.scopes[len(x.scopes)-1], &a)
			continue
		case d.AliasOf != "":
			pv := x.lookup(d.AliasOf)
			if pv == nil {
				return pgerror.Newf(pgerror.UndefinedObject, "variable \"%s\" does not exist", d.AliasOf)
			}
			a := *pv
			a.name = d.Name
			x.scopes[len(x.scopes)-1] = append(x.scopes[len(x.scopes)-1], &a)
			continue
		}
		if err := x.typeVar(v, d.Type); err != nil {
			return err
		}
		if d.Default != "" {
			val, t, err := x.eval(d.Default)
			if err != nil {
				return err
			}
			if v.rec {
				return pgerror.Newf(pgerror.FeatureNotSupported, "a default for record variable \"%s\" is not supported", d.Name)
			}
			if val.IsNull() && d.NotNull {
				return pgerror.Newf(pgerror.NullValueNotAllowed, "null value cannot be assigned to variable \"%s\" declared NOT NULL", d.Name)
			}
			if v.val, err = x.cast(val, t, v.t); err != nil {
				return err
			}
		}
		x.scopes[len(x.scopes)-1] = append(x.scopes[len(x.scopes)-1], v)
	}
	return nil
}

// typeVar gives v its declared type: a type name, RECORD, a table's row
// type (tbl or tbl%ROWTYPE), or var%TYPE / tbl.col%TYPE.
func (x *plExec) typeVar(v *plVar, name string) error {
	if name == "record" {
		v.rec = true
		return nil
	}
	if base, ok := strings.CutSuffix(name, "%rowtype"); ok {
		name = base
	}
	if base, ok := strings.CutSuffix(name, "%type"); ok {
		if pv := x.lookup(base); pv != nil {
			v.t, v.rec = pv.t, pv.rec
			if pv.rec {
				v.fields = append([]string(nil), pv.fields...)
				v.ftypes = append([]types.T(nil), pv.ftypes...)
				v.fvals = make([]types.Datum, len(pv.fields))
			}
			return nil
		}
		tbl, col, ok := strings.Cut(base, ".")
		if ok {
			if dot := strings.LastIndexByte(col, '.'); dot >= 0 { // schema.tbl.col
				tbl, col = col[:dot], col[dot+1:]
			}
			for _, c := range planner.RowTypeColumns(x.t.cat, x.s.database, tbl) {
				if c.Name == col {
					v.t = c.T
					return nil
				}
			}
		}
		return pgerror.Newf(pgerror.UndefinedObject, "type \"%s%%type\" does not exist", base)
	}
	t, _, err := x.s.planner(x.t.cat).RoutineType(name)
	if err == nil {
		v.t = t
		return nil
	}
	name = strings.TrimPrefix(name, "public.")
	if cols := planner.RowTypeColumns(x.t.cat, x.s.database, name); cols != nil {
		v.rec, v.t = true, types.T{Family: types.Record}
		for _, c := range cols {
			v.fields = append(v.fields, c.Name)
			v.ftypes = append(v.ftypes, c.T)
		}
		v.fvals = make([]types.Datum, len(cols))
		return nil
	}
	return err
}

// stmts runs a statement list until one ends it.
func (x *plExec) stmts(list []*parse.PLStmt) (plCtl, string, error) {
	for _, st := range list {
		ctl, label, err := x.stmt(st)
		if err != nil {
			return ctl, label, err
		}
		if ctl != plNext {
			return ctl, label, nil
		}
	}
	return plNext, "", nil
}

func (x *plExec) setFound(b bool) { x.found.val = types.NewBool(b) }

// stmt runs one statement.
func (x *plExec) stmt(st *parse.PLStmt) (plCtl, string, error) {
	switch st.Kind {
	case parse.PLBlockStmt:
		return x.block(st.Block)
	case parse.PLNull:
		return plNext, "", nil
	case parse.PLAssign:
		v, t, err := x.eval(st.Expr)
		if err == nil {
			err = x.assignVar(st.Target[0], v, t)
		}
		return plNext, "", err
	case parse.PLIf:
		for i, c := range st.Conds {
			ok, err := x.evalBool(c)
			if err != nil {
				return plNext, "", err
			}
			if ok {
				return x.stmts(st.Thens[i])
			}
		}
		return x.stmts(st.Else)
	case parse.PLCase:
		return x.caseStmt(st)
	case parse.PLLoop, parse.PLWhile, parse.PLForInt, parse.PLForQuery, parse.PLForEach:
		return x.loop(st)
	case parse.PLExit, parse.PLContinue:
		if st.Expr != "" {
			ok, err := x.evalBool(st.Expr)
			if err != nil || !ok {
				return plNext, "", err
			}
		}
		if st.Kind == parse.PLExit {
			return plExitLoop, st.Label, nil
		}
		return plContinueLoop, st.Label, nil
	case parse.PLReturn:
		return plReturned, "", x.returnStmt(st)
	case parse.PLReturnNext:
		return plNext, "", x.returnNext(st)
	case parse.PLReturnQry:
		return plNext, "", x.returnQuery(st)
	case parse.PLRaise:
		return plNext, "", x.raise(st)
	case parse.PLPerform:
		_, n, err := x.query("SELECT "+st.Query, nil)
		if err == nil {
			x.rowCount = n
			x.setFound(n > 0)
		}
		return plNext, "", err
	case parse.PLSQL:
		return plNext, "", x.sqlStmt(st)
	case parse.PLGetDiag:
		return plNext, "", x.getDiag(st)
	case parse.PLExecute:
		return plNext, "", x.execute(st)
	}
	return plNext, "", pgerror.Newf(pgerror.FeatureNotSupported, "PL/pgSQL statement %s is not supported", st.Kind)
}

func (x *plExec) caseStmt(st *parse.PLStmt) (plCtl, string, error) {
	for i, c := range st.Conds {
		cond := c
		if st.Expr != "" {
			cond = "(" + st.Expr + ") IN (" + c + ")"
		}
		ok, err := x.evalBool(cond)
		if err != nil {
			return plNext, "", err
		}
		if ok {
			return x.stmts(st.Thens[i])
		}
	}
	if !st.HasElse {
		return plNext, "", pgerror.New(pgerror.Code("20000"), "case not found")
	}
	return x.stmts(st.Else)
}

// iterate runs a loop body once: done reports that the loop ends (EXIT
// of it, or something leaving it).
func (x *plExec) iterate(st *parse.PLStmt) (done bool, ctl plCtl, label string, err error) {
	if err := x.ctx.Err(); err != nil {
		return true, plNext, "", cancelError(x.ctx)
	}
	ctl, label, err = x.stmts(st.Body)
	switch {
	case err != nil:
		return true, ctl, label, err
	case ctl == plExitLoop && (label == "" || label == st.Label):
		return true, plNext, "", nil
	case ctl == plContinueLoop && (label == "" || label == st.Label):
		return false, plNext, "", nil
	case ctl != plNext:
		return true, ctl, label, nil
	}
	return false, plNext, "", nil
}

func (x *plExec) loop(st *parse.PLStmt) (plCtl, string, error) {
	switch st.Kind {
	case parse.PLLoop:
		for {
			if done, ctl, label, err := x.iterate(st); done {
				return ctl, label, err
			}
		}
	case parse.PLWhile:
		for {
			ok, err := x.evalBool(st.Expr)
			if err != nil || !ok {
				return plNext, "", err
			}
			if done, ctl, label, err := x.iterate(st); done {
				return ctl, label, err
			}
		}
	case parse.PLForInt:
		return x.forInt(st)
	case parse.PLForEach:
		return x.forEach(st)
	}
	return x.forQuery(st)
}

// intValue evaluates an expression as an integer (a FOR bound).
func (x *plExec) intValue(expr, what string) (int64, error) {
	v, t, err := x.eval(expr)
	if err != nil {
		return 0, err
	}
	if v.IsNull() {
		return 0, pgerror.Newf(pgerror.NullValueNotAllowed, "%s of FOR loop cannot be null", what)
	}
	v, err = x.cast(v, t, tInt)
	return v.I, err
}

func (x *plExec) forInt(st *parse.PLStmt) (plCtl, string, error) {
	lo, err := x.intValue(st.Lo, "lower bound")
	if err != nil {
		return plNext, "", err
	}
	hi, err := x.intValue(st.Hi, "upper bound")
	if err != nil {
		return plNext, "", err
	}
	step := int64(1)
	if st.By != "" {
		if step, err = x.intValue(st.By, "BY value"); err != nil {
			return plNext, "", err
		}
		if step <= 0 {
			return plNext, "", pgerror.New(pgerror.InvalidParameterValue, "BY value of FOR loop must be greater than zero")
		}
	}
	v := &plVar{name: st.Target[0], t: tInt}
	x.scopes = append(x.scopes, []*plVar{v})
	defer func() { x.scopes = x.scopes[:len(x.scopes)-1] }()
	found := false
	for i := lo; st.Reverse && i >= hi || !st.Reverse && i <= hi; {
		found = true
		v.val = types.NewInt(i)
		if done, ctl, label, err := x.iterate(st); done {
			x.setFound(true)
			return ctl, label, err
		}
		if st.Reverse {
			if i < hi+step { // the next would pass hi (or overflow)
				break
			}
			i -= step
		} else {
			if i > hi-step {
				break
			}
			i += step
		}
	}
	x.setFound(found)
	return plNext, "", nil
}

func (x *plExec) forEach(st *parse.PLStmt) (plCtl, string, error) {
	arr, t, err := x.eval(st.Expr)
	if err != nil {
		return plNext, "", err
	}
	if arr.IsNull() {
		return plNext, "", pgerror.New(pgerror.NullValueNotAllowed, "FOREACH expression must not be null")
	}
	if !t.IsArray() {
		return plNext, "", pgerror.Newf(pgerror.DatatypeMismatch, "FOREACH expression must yield an array, not type %s", t)
	}
	elems, err := types.ArrayElems(nil, arr)
	if err != nil {
		return plNext, "", err
	}
	for _, e := range elems {
		if err := x.assignVar(st.Target[0], e, t.ElemType()); err != nil {
			return plNext, "", err
		}
		if done, ctl, label, err := x.iterate(st); done {
			return ctl, label, err
		}
	}
	return plNext, "", nil
}

// forQuery runs FOR target IN query LOOP: the query's rows are read
// first, then the body runs once per row.
func (x *plExec) forQuery(st *parse.PLStmt) (plCtl, string, error) {
	var rows [][]types.Datum
	collect := func(row []types.Datum) error {
		rows = append(rows, append([]types.Datum(nil), row...))
		return nil
	}
	var cols []planner.Column
	var err error
	if st.Dynamic {
		cols, _, err = x.dynamic(st.Query, st.Using, collect)
	} else {
		cols, _, err = x.query(st.Query, collect)
	}
	if err != nil {
		return plNext, "", err
	}
	// A FOR loop over a query declares its target when it is one name
	// no variable has: a record.
	if len(st.Target) == 1 && x.lookup(st.Target[0]) == nil {
		x.scopes = append(x.scopes, []*plVar{{name: st.Target[0], rec: true}})
		defer func() { x.scopes = x.scopes[:len(x.scopes)-1] }()
	}
	for _, row := range rows {
		if err := x.assignRow(st.Target, cols, row); err != nil {
			return plNext, "", err
		}
		if done, ctl, label, err := x.iterate(st); done {
			x.setFound(true)
			return ctl, label, err
		}
	}
	x.setFound(len(rows) > 0)
	return plNext, "", nil
}

// returnStmt sets the function's result.
func (x *plExec) returnStmt(st *parse.PLStmt) error {
	x.returned = true
	if x.fn == nil || x.fn.RetSet || st.Expr == "" {
		if st.Expr != "" && x.fn == nil {
			return pgerror.New(pgerror.SyntaxError, "RETURN cannot have a parameter in function returning void")
		}
		return nil
	}
	if pv := x.lookup(identOf(st.Expr)); pv != nil && pv.rec {
		if pv.fields == nil && x.fn.Returns == "trigger" {
			return nil // OLD of an INSERT, NEW of a DELETE: NULL
		}
		if pv.fields == nil {
			return pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "record \"%s\" is not assigned yet", pv.name)
		}
		x.retRow, x.retTypes = append([]types.Datum(nil), pv.fvals...), append([]types.T(nil), pv.ftypes...)
		return nil
	}
	v, t, err := x.eval(st.Expr)
	if err != nil {
		return err
	}
	if x.fn.Returns == "void" {
		return nil
	}
	x.ret, err = x.cast(v, t, x.retT)
	return err
}

// returnNext appends a row to a set-returning function's result.
func (x *plExec) returnNext(st *parse.PLStmt) error {
	if x.fn == nil || !x.fn.RetSet {
		return pgerror.New(pgerror.SyntaxError, "cannot use RETURN NEXT in a non-SETOF function")
	}
	if st.Expr == "" {
		var row []types.Datum
		for _, a := range x.fn.OutputArgs() {
			v := types.Null
			if pv := x.lookup(a.Name); pv != nil && a.Name != "" {
				v = pv.val
			}
			row = append(row, v)
		}
		x.rows = append(x.rows, row)
		return nil
	}
	if pv := x.lookup(identOf(st.Expr)); pv != nil && pv.rec {
		x.rows = append(x.rows, append([]types.Datum(nil), pv.fvals...))
		if x.retTypes == nil {
			x.retTypes = append([]types.T(nil), pv.ftypes...)
		}
		return nil
	}
	v, t, err := x.eval(st.Expr)
	if err != nil {
		return err
	}
	if v, err = x.cast(v, t, x.retT); err != nil {
		return err
	}
	x.rows = append(x.rows, []types.Datum{v})
	return nil
}

// returnQuery appends a query's rows to the result.
func (x *plExec) returnQuery(st *parse.PLStmt) error {
	if x.fn == nil || !x.fn.RetSet {
		return pgerror.New(pgerror.SyntaxError, "cannot use RETURN QUERY in a non-SETOF function")
	}
	each := func(row []types.Datum) error {
		x.rows = append(x.rows, append([]types.Datum(nil), row...))
		return nil
	}
	var cols []planner.Column
	var n int64
	var err error
	if st.Dynamic {
		cols, n, err = x.dynamic(st.Query, st.Using, each)
	} else {
		cols, n, err = x.query(st.Query, each)
	}
	if err != nil {
		return err
	}
	if x.retTypes == nil && len(x.fn.OutputArgs()) == 0 {
		for _, c := range cols {
			x.retTypes = append(x.retTypes, c.T)
		}
		if len(cols) == 1 {
			x.retTypes = []types.T{cols[0].T}
		}
	}
	x.rowCount = n
	x.setFound(n > 0)
	return nil
}

// raise runs RAISE: a notice at the levels below EXCEPTION, an error at
// EXCEPTION.
func (x *plExec) raise(st *parse.PLStmt) error {
	if !st.HasFormat && st.Cond == "" && len(st.Options) == 0 {
		// RAISE; re-throws the error being handled.
		if len(x.errs) == 0 {
			return pgerror.New(pgerror.Code("0Z002"), "RAISE without parameters cannot be used outside an exception handler")
		}
		return x.errs[len(x.errs)-1]
	}
	e := &pgerror.Error{Code: pgerror.Code("P0001")}
	if st.Level != "exception" {
		e.Code = pgerror.SuccessfulCompletion
		if st.Level == "warning" {
			e.Code = pgerror.Warning
		}
	}
	if st.Cond != "" {
		e.Code = pgerror.Code(st.Cond)
		e.Message = conditionName(st.Cond)
	}
	if st.HasFormat {
		msg, err := x.format(st.Format, st.Args)
		if err != nil {
			return err
		}
		e.Message = msg
	}
	for _, o := range st.Options {
		v, t, err := x.eval(o[1])
		if err != nil {
			return err
		}
		s, ok, err := x.text(v, t)
		if err != nil {
			return err
		}
		if !ok {
			return pgerror.Newf(pgerror.NullValueNotAllowed, "RAISE statement option cannot be null")
		}
		switch o[0] {
		case "errcode":
			code, known := parse.ConditionCode(s)
			switch {
			case known:
				e.Code = pgerror.Code(code)
			case len(s) == 5:
				e.Code = pgerror.Code(s)
			default:
				return pgerror.Newf(pgerror.UndefinedObject, "unrecognized exception condition \"%s\"", s)
			}
		case "message":
			if st.HasFormat {
				return pgerror.New(pgerror.SyntaxError, "RAISE option already specified: MESSAGE")
			}
			e.Message = s
		case "detail":
			e.Detail = s
		case "hint":
			e.Hint = s
		case "column":
			e.Column = s
		case "constraint":
			e.Constraint = s
		case "datatype":
			e.DataType = s
		case "table":
			e.Table = s
		case "schema":
			e.Schema = s
		}
	}
	if e.Message == "" {
		e.Message = conditionName(string(e.Code))
		if e.Code == "P0001" && !st.HasFormat {
			e.Message = "raise_exception"
		}
	}
	switch st.Level {
	case "exception":
		return e
	case "debug", "log":
		return nil // below client_min_messages' default
	}
	sev := strings.ToUpper(st.Level)
	x.s.mu.Lock()
	x.s.notices = append(x.s.notices, backend.Notice{Severity: sev, Err: e})
	x.s.mu.Unlock()
	return nil
}

// conditionName is the condition name of a SQLSTATE (its message when
// RAISE gives none), or the code itself.
func conditionName(code string) string {
	if name, ok := parse.ConditionName(code); ok {
		return name
	}
	return code
}

// format expands RAISE's format: each % takes the next argument's text
// (NULL as NULL); %% is a percent sign.
func (x *plExec) format(f string, args []string) (string, error) {
	var b strings.Builder
	k := 0
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			b.WriteByte(f[i])
			continue
		}
		if i+1 < len(f) && f[i+1] == '%' {
			b.WriteByte('%')
			i++
			continue
		}
		if k >= len(args) {
			return "", pgerror.New(pgerror.SyntaxError, "too few parameters specified for RAISE")
		}
		v, t, err := x.eval(args[k])
		if err != nil {
			return "", err
		}
		k++
		s, ok, err := x.text(v, t)
		if err != nil {
			return "", err
		}
		if !ok {
			s = "<NULL>"
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

// sqlStmt runs a SQL statement of the body, with INTO's targets.
func (x *plExec) sqlStmt(st *parse.PLStmt) error {
	if len(st.Target) == 0 {
		_, n, err := x.query(st.Query, nil)
		if err == nil {
			x.rowCount = n
			x.setFound(n > 0)
		}
		return err
	}
	return x.into(st, func(each func([]types.Datum) error) ([]planner.Column, int64, error) {
		return x.query(st.Query, each)
	})
}

// into runs a query (run) and stores its first row into st's targets:
// STRICT wants exactly one row (P0002, P0003).
func (x *plExec) into(st *parse.PLStmt, run func(each func([]types.Datum) error) ([]planner.Column, int64, error)) error {
	var first []types.Datum
	got := 0
	cols, n, err := run(func(row []types.Datum) error {
		got++
		if got == 1 {
			first = append([]types.Datum(nil), row...)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if st.Strict {
		switch {
		case got == 0:
			return pgerror.New(pgerror.Code("P0002"), "query returned no rows")
		case got > 1:
			e := pgerror.New(pgerror.Code("P0003"), "query returned more than one row")
			e.Hint = "Make sure the query returns a single row, or use LIMIT 1."
			return e
		}
	}
	x.rowCount = n
	x.setFound(got > 0)
	if first == nil {
		first = make([]types.Datum, len(cols))
	}
	return x.assignRow(st.Target, cols, first)
}

// getDiag runs GET DIAGNOSTICS (ROW_COUNT) and GET STACKED DIAGNOSTICS
// (RETURNED_SQLSTATE, MESSAGE_TEXT, PG_EXCEPTION_DETAIL, _HINT).
func (x *plExec) getDiag(st *parse.PLStmt) error {
	for i, item := range st.Items {
		var v types.Datum
		t := tText
		if st.Label == "stacked" {
			if len(x.errs) == 0 {
				return pgerror.New(pgerror.Code("0Z002"), "GET STACKED DIAGNOSTICS cannot be used outside an exception handler")
			}
			e := x.errs[len(x.errs)-1]
			switch item {
			case "returned_sqlstate":
				v = types.NewText(string(e.Code))
			case "message_text":
				v = types.NewText(e.Message)
			case "pg_exception_detail":
				v = types.NewText(e.Detail)
			case "pg_exception_hint":
				v = types.NewText(e.Hint)
			case "column_name", "constraint_name", "pg_datatype_name", "table_name", "schema_name", "pg_exception_context":
				v = types.NewText(map[string]string{"column_name": e.Column, "constraint_name": e.Constraint,
					"pg_datatype_name": e.DataType, "table_name": e.Table, "schema_name": e.Schema}[item])
			default:
				return pgerror.Newf(pgerror.SyntaxError, "unrecognized GET DIAGNOSTICS item \"%s\"", item)
			}
		} else {
			switch item {
			case "row_count":
				v, t = types.NewInt(x.rowCount), tInt8
			case "pg_context":
				v = types.NewText("")
			default:
				return pgerror.Newf(pgerror.SyntaxError, "unrecognized GET DIAGNOSTICS item \"%s\"", item)
			}
		}
		if err := x.assignVar(st.Target[i], v, t); err != nil {
			return err
		}
	}
	return nil
}

// execute runs EXECUTE: the string's statement, its $n the USING values.
func (x *plExec) execute(st *parse.PLStmt) error {
	if len(st.Target) == 0 {
		_, n, err := x.dynamic(st.Query, st.Using, nil)
		if err == nil {
			x.rowCount = n
		}
		return err
	}
	return x.into(st, func(each func([]types.Datum) error) ([]planner.Column, int64, error) {
		return x.dynamic(st.Query, st.Using, each)
	})
}

// dynamic plans and runs the statement an expression's string holds,
// with USING's values as $1, $2, ... (planned anew every time, as
// PostgreSQL does).
func (x *plExec) dynamic(expr string, using []string, each func([]types.Datum) error) ([]planner.Column, int64, error) {
	v, t, err := x.eval(expr)
	if err != nil {
		return nil, 0, err
	}
	text, ok, err := x.text(v, t)
	if err != nil {
		return nil, 0, err
	}
	if !ok {
		return nil, 0, pgerror.New(pgerror.NullValueNotAllowed, "query string argument of EXECUTE is null")
	}
	var vals []types.Datum
	var ts []types.T
	for _, u := range using {
		uv, ut, err := x.eval(u)
		if err != nil {
			return nil, 0, err
		}
		if ut.Family == types.Unknown {
			ut = tText
		}
		vals, ts = append(vals, uv), append(ts, ut)
	}
	stmts, err := parse.Parse(text)
	if err != nil {
		return nil, 0, err
	}
	if len(stmts) != 1 {
		return nil, 0, pgerror.Newf(pgerror.SyntaxError, "cannot insert multiple commands into a prepared statement")
	}
	p := &stmts[0]
	return x.runStmt(&stmt{s: x.s, p: p, sql: text, declared: ts}, vals, each)
}

// identOf is expr as a variable name when it is one unquoted identifier
// (folded to lower case), else "".
func identOf(expr string) string {
	e := strings.TrimSpace(expr)
	for i, c := range e {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return ""
		}
	}
	return strings.ToLower(e)
}
