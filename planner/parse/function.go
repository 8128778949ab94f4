package parse

import (
	"strconv"
	"strings"

	"github.com/kvsql/kvsql/pgerror"
)

// RoutineStmt is CREATE [OR REPLACE] FUNCTION | PROCEDURE, DROP FUNCTION
// | PROCEDURE | ROUTINE, ALTER FUNCTION | PROCEDURE | ROUTINE and CALL.
// CALL also sets the Statement's AST: SELECT of the call, which the
// binder plans with procedures allowed.
type RoutineStmt struct {
	Op        string // "create", "drop", "alter" or "call"
	Procedure bool   // PROCEDURE (CREATE, and DROP/ALTER PROCEDURE)
	OrReplace bool

	// Name is the routine of CREATE and ALTER; Args its arguments (for
	// ALTER, the signature written, with HasArgs).
	Name    string
	Args    []RoutineArg
	HasArgs bool

	// Returns is the return type's name as the dialect layer spells types
	// ("integer", "text[]", "anyelement", "void", "record", ...); SetOf
	// marks RETURNS SETOF; Table holds RETURNS TABLE's columns (Returns
	// is then "record" and SetOf is set). Empty for a procedure.
	Returns string
	SetOf   bool
	Table   []RoutineArg

	Language string // lower case; "sql" when a SQL-standard body gives none
	// Body is the definition: AS's string (prosrc), or the text of a
	// SQL-standard body, RETURN's expression or BEGIN ATOMIC's
	// statements; Form says which ("as", "return" or "atomic"; "" when
	// there is no body).
	Body string
	Form string
	// Link is AS 'obj_file', 'link_symbol''s second string.
	Link string

	Volatility string // "immutable", "stable" or "volatile" ("" not written)
	Strict     *bool  // STRICT / RETURNS NULL ON NULL INPUT, or CALLED ON NULL INPUT
	Leakproof  bool
	Definer    bool   // SECURITY DEFINER
	Parallel   string // "unsafe", "restricted" or "safe" ("" not written)
	Cost, Rows *float64
	Config     []string // SET name = value, as "name=value"

	// Targets are DROP's routines (and COMMENT ON FUNCTION's one).
	Targets  []RoutineRef
	IfExists bool
	Cascade  bool

	// ALTER's action: RENAME TO, OWNER TO or SET SCHEMA (one is set),
	// or Options: the option fields above (Volatility, Strict, ...).
	NewName, NewOwner, NewSchema string
	Options                      bool
}

// RoutineArg is one argument (or RETURNS TABLE column) of a routine.
type RoutineArg struct {
	Mode    string // "in", "out", "inout" or "variadic"
	Name    string // "" when unnamed
	Type    string // spelled as the dialect layer spells types
	Default string // DEFAULT's expression text, or ""
}

// RoutineRef names a routine with an optional argument-type signature.
type RoutineRef struct {
	Name    string
	Args    []RoutineArg
	HasArgs bool // a signature was written (possibly empty: f())
}

// routine dispatches CREATE FUNCTION / PROCEDURE, DROP and ALTER
// FUNCTION / PROCEDURE / ROUTINE, and CALL.
func (r *rewriter) routine(toks []token) (Statement, error) {
	var st Statement
	c := &cursor{r: r, toks: toks, i: 1}
	rs := &RoutineStmt{Op: toks[0].val}
	st.Routine = rs
	var err error
	switch rs.Op {
	case "create":
		if c.accept("or") {
			if err := c.expect("replace"); err != nil {
				return st, err
			}
			rs.OrReplace = true
		}
		rs.Procedure = c.accept("procedure")
		if !rs.Procedure {
			if err := c.expect("function"); err != nil {
				return st, err
			}
		}
		err = c.createRoutine(rs)
	case "drop":
		rs.Procedure = c.accept("procedure")
		if !rs.Procedure && !c.accept("routine") {
			if err := c.expect("function"); err != nil {
				return st, err
			}
		}
		err = c.dropRoutine(rs)
	case "alter":
		rs.Procedure = c.accept("procedure")
		if !rs.Procedure && !c.accept("routine") {
			if err := c.expect("function"); err != nil {
				return st, err
			}
		}
		err = c.alterRoutine(rs)
	}
	return st, err
}

// call parses CALL name(args): the AST is SELECT name(args), the
// Routine marks it a CALL.
func (r *rewriter) call(toks []token) (Statement, error) {
	var st Statement
	if len(toks) < 2 {
		return st, syntaxErr(r.sql, toks[0].pos, "syntax error at end of input")
	}
	sel := append([]token{raw("select", toks[0].pos)}, toks[1:]...)
	ast, err := r.vitessParse(sel)
	if err != nil {
		return st, err
	}
	st.AST = ast
	st.NumParams = r.numParams()
	st.Routine = &RoutineStmt{Op: "call", Procedure: true}
	return st, nil
}

// routineName reads a routine's name; a qualifier other than public (or
// pg_catalog for the built-in ones) is refused as a schema that does not
// exist.
func (c *cursor) routineName() (string, error) {
	parts, err := c.qualifiedName()
	if err != nil {
		return "", err
	}
	if len(parts) > 2 || len(parts) == 2 && parts[0] != "public" && parts[0] != "pg_catalog" {
		return "", pgerror.Newf(pgerror.InvalidSchemaName, "schema %q does not exist", parts[0])
	}
	return parts[len(parts)-1], nil
}

// createRoutine reads the rest of CREATE FUNCTION / PROCEDURE after its
// keyword: name (args) [RETURNS ...] options.
func (c *cursor) createRoutine(rs *RoutineStmt) error {
	var err error
	if rs.Name, err = c.routineName(); err != nil {
		return err
	}
	if rs.Args, err = c.routineArgs(false); err != nil {
		return err
	}
	rs.HasArgs = true
	if !rs.Procedure && c.accept("returns") {
		if err := c.returns(rs); err != nil {
			return err
		}
	}
	if err := c.routineOptions(rs); err != nil {
		return err
	}
	if rs.Language == "" {
		if rs.Form == "as" || rs.Form == "" {
			return pgerror.New(pgerror.InvalidFunctionDefinition, "no language specified")
		}
		rs.Language = "sql"
	}
	if !rs.Procedure && rs.Returns == "" {
		if outArgs(rs.Args) == 0 {
			return pgerror.New(pgerror.InvalidFunctionDefinition, "function result type must be specified")
		}
	}
	if rs.Form == "" {
		return pgerror.New(pgerror.InvalidFunctionDefinition, "no function body specified")
	}
	return nil
}

// outArgs counts OUT and INOUT arguments.
func outArgs(args []RoutineArg) int {
	n := 0
	for _, a := range args {
		if a.Mode == "out" || a.Mode == "inout" {
			n++
		}
	}
	return n
}

// routineArgs reads ( [arg [, ...]] ). For a DROP or ALTER signature
// (sig), defaults are refused.
func (c *cursor) routineArgs(sig bool) ([]RoutineArg, error) {
	if c.done() || !c.toks[c.i].isPunct("(") {
		return nil, c.errHere()
	}
	end := matchForward(c.toks, c.i)
	if end < 0 {
		return nil, c.errHere()
	}
	inner := c.toks[c.i+1 : end]
	c.i = end + 1
	if len(inner) == 0 {
		return nil, nil
	}
	var args []RoutineArg
	for _, part := range splitTop(inner) {
		a, err := c.routineArg(part, sig)
		if err != nil {
			return nil, err
		}
		args = append(args, a)
	}
	return args, nil
}

// routineArg reads [mode] [name] type [DEFAULT expr | = expr].
func (c *cursor) routineArg(toks []token, sig bool) (RoutineArg, error) {
	var a RoutineArg
	sql := c.r.sql
	if len(toks) == 0 {
		return a, c.errHere()
	}
	// The default, if any, is everything after DEFAULT or =.
	for k, t := range toks {
		if t.is("default") || t.isOp("=") {
			if sig || k+1 >= len(toks) {
				return a, syntaxErr(sql, t.pos, "syntax error at or near %q", tokText(sql, t))
			}
			a.Default = sql[toks[k+1].pos:toks[len(toks)-1].end]
			toks = toks[:k]
			break
		}
	}
	i := 0
	if len(toks) > 1 {
		for _, m := range []string{"in", "out", "inout", "variadic"} {
			if toks[0].is(m) {
				a.Mode, i = m, 1
			}
		}
	}
	if a.Mode == "in" || a.Mode == "" {
		a.Mode = "in"
	}
	tn, next, ok, err := parseType(sql, toks, i)
	if err != nil {
		return a, err
	}
	if !ok || next < len(toks) {
		// name type
		if i >= len(toks) || toks[i].kind != tkIdent && toks[i].kind != tkQIdent {
			return a, syntaxErr(sql, toks[min(i, len(toks)-1)].pos, "syntax error at or near %q", tokText(sql, toks[min(i, len(toks)-1)]))
		}
		a.Name = toks[i].val
		tn, next, ok, err = parseType(sql, toks, i+1)
		if err != nil {
			return a, err
		}
		if !ok || next < len(toks) {
			k := min(next, len(toks)-1)
			return a, syntaxErr(sql, toks[k].pos, "syntax error at or near %q", tokText(sql, toks[k]))
		}
	}
	a.Type = tn.spelled()
	return a, nil
}

// returns reads RETURNS type | SETOF type | TABLE (col type, ...).
func (c *cursor) returns(rs *RoutineStmt) error {
	if c.accept("table") {
		cols, err := c.routineArgs(true)
		if err != nil {
			return err
		}
		for i := range cols {
			if cols[i].Name == "" || cols[i].Mode != "in" {
				return c.errHere()
			}
			cols[i].Mode = "out"
		}
		rs.Table, rs.Returns, rs.SetOf = cols, "record", true
		return nil
	}
	rs.SetOf = c.accept("setof")
	tn, next, ok, err := parseType(c.r.sql, c.toks, c.i)
	if err != nil {
		return err
	}
	if !ok {
		return c.errHere()
	}
	c.i = next
	rs.Returns = tn.spelled()
	return nil
}

// routineOptions reads the options after the signature, in any order:
// LANGUAGE, volatility, strictness, LEAKPROOF, SECURITY, PARALLEL, COST,
// ROWS, SET, AS, RETURN and BEGIN ATOMIC. An option written twice is
// 42601, as PostgreSQL's "conflicting or redundant options".
func (c *cursor) routineOptions(rs *RoutineStmt) error {
	seen := map[string]bool{}
	once := func(name string) error {
		if seen[name] {
			e := pgerror.New(pgerror.SyntaxError, "conflicting or redundant options")
			e.Position = charPos(c.r.sql, c.toks[c.i-1].pos)
			return e
		}
		seen[name] = true
		return nil
	}
	for !c.done() {
		t := c.toks[c.i]
		c.i++
		var err error
		switch {
		case t.is("language"):
			if err = once("language"); err == nil {
				rs.Language, err = c.name()
				rs.Language = strings.ToLower(rs.Language)
			}
		case t.is("immutable"), t.is("stable"), t.is("volatile"):
			if err = once("volatility"); err == nil {
				rs.Volatility = t.val
			}
		case t.is("strict"):
			if err = once("strict"); err == nil {
				rs.Strict = boolPtr(true)
			}
		case t.is("called"):
			if err = c.words("on", "null", "input"); err == nil {
				if err = once("strict"); err == nil {
					rs.Strict = boolPtr(false)
				}
			}
		case t.is("returns"):
			if err = c.words("null", "on", "null", "input"); err == nil {
				if err = once("strict"); err == nil {
					rs.Strict = boolPtr(true)
				}
			}
		case t.is("not") && c.peek("leakproof"), t.is("leakproof"):
			c.accept("leakproof")
			if err = once("leakproof"); err == nil {
				rs.Leakproof = t.is("leakproof")
			}
		case t.is("external") && c.peek("security"), t.is("security"):
			c.accept("security")
			if err = once("security"); err == nil {
				switch {
				case c.accept("definer"):
					rs.Definer = true
				case c.accept("invoker"):
				default:
					err = c.errHere()
				}
			}
		case t.is("parallel"):
			if err = once("parallel"); err == nil {
				var p string
				if p, err = c.name(); err == nil {
					if p != "safe" && p != "restricted" && p != "unsafe" {
						err = pgerror.Newf(pgerror.InvalidParameterValue, "parameter \"parallel\" must be SAFE, RESTRICTED, or UNSAFE")
					}
					rs.Parallel = p
				}
			}
		case t.is("cost"), t.is("rows"):
			if err = once(t.val); err == nil {
				var v float64
				if v, err = c.number(); err == nil {
					if t.is("cost") {
						rs.Cost = &v
					} else {
						rs.Rows = &v
					}
				}
			}
		case t.is("set"):
			var kv string
			if kv, err = c.configItem(); err == nil {
				rs.Config = append(rs.Config, kv)
			}
		case t.is("as"):
			if err = once("as"); err == nil {
				err = c.asBody(rs)
			}
		case t.is("return"):
			if err = once("as"); err == nil {
				if c.done() {
					return c.errHere()
				}
				rs.Form, rs.Body = "return", c.r.sql[c.toks[c.i].pos:c.toks[len(c.toks)-1].end]
				c.i = len(c.toks)
			}
		case t.is("begin") && c.peek("atomic"):
			if err = once("as"); err == nil {
				err = c.atomicBody(rs)
			}
		case t.is("window"), t.is("support"), t.is("transform"):
			return unsupported(c.r.sql, t.pos, "CREATE FUNCTION ... %s is not supported", strings.ToUpper(t.val))
		default:
			c.i--
			return c.errHere()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func boolPtr(b bool) *bool { return &b }

// words consumes the keywords ws in order.
func (c *cursor) words(ws ...string) error {
	for _, w := range ws {
		if err := c.expect(w); err != nil {
			return err
		}
	}
	return nil
}

// number reads a numeric literal.
func (c *cursor) number() (float64, error) {
	if c.done() || c.toks[c.i].kind != tkNumber {
		return 0, c.errHere()
	}
	v, err := strconv.ParseFloat(c.toks[c.i].val, 64)
	if err != nil {
		return 0, c.errHere()
	}
	c.i++
	return v, nil
}

// configItem reads SET's name {TO | =} value | FROM CURRENT as
// "name=value" (proconfig's form).
func (c *cursor) configItem() (string, error) {
	parts, err := c.qualifiedName()
	if err != nil {
		return "", err
	}
	name := strings.Join(parts, ".")
	if c.accept("from") {
		return "", unsupported(c.r.sql, c.toks[c.i-1].pos, "SET ... FROM CURRENT in a function is not supported")
	}
	if !c.accept("to") {
		if c.done() || !c.toks[c.i].isOp("=") {
			return "", c.errHere()
		}
		c.i++
	}
	var vals []string
	for !c.done() {
		t := c.toks[c.i]
		if t.kind != tkString && t.kind != tkNumber && t.kind != tkIdent && t.kind != tkQIdent {
			break
		}
		if t.kind == tkIdent && routineOptionWord[t.val] {
			break
		}
		vals = append(vals, t.val)
		c.i++
		if c.done() || !c.toks[c.i].isPunct(",") {
			break
		}
		c.i++
	}
	if len(vals) == 0 {
		return "", c.errHere()
	}
	return name + "=" + strings.Join(vals, ", "), nil
}

// routineOptionWord are the words that begin a CREATE FUNCTION option,
// so SET's value list stops before them.
var routineOptionWord = map[string]bool{"language": true, "immutable": true, "stable": true, "volatile": true,
	"strict": true, "called": true, "returns": true, "leakproof": true, "not": true, "security": true,
	"external": true, "parallel": true, "cost": true, "rows": true, "set": true, "as": true, "return": true,
	"begin": true}

// asBody reads AS 'definition' [, 'link symbol'].
func (c *cursor) asBody(rs *RoutineStmt) error {
	if c.done() || c.toks[c.i].kind != tkString {
		return c.errHere()
	}
	rs.Form, rs.Body = "as", c.toks[c.i].val
	c.i++
	if !c.done() && c.toks[c.i].isPunct(",") {
		c.i++
		if c.done() || c.toks[c.i].kind != tkString {
			return c.errHere()
		}
		rs.Link = c.toks[c.i].val
		c.i++
	}
	return nil
}

// atomicBody reads BEGIN ATOMIC statements END: the body is the text
// between ATOMIC and the END that closes it.
func (c *cursor) atomicBody(rs *RoutineStmt) error {
	c.i++ // ATOMIC
	start := c.i
	depth := 1
	for ; c.i < len(c.toks); c.i++ {
		t := c.toks[c.i]
		switch {
		case t.is("case"):
			depth++
		case t.is("end"):
			depth--
		}
		if depth == 0 {
			break
		}
	}
	if depth != 0 {
		return syntaxErr(c.r.sql, c.toks[len(c.toks)-1].end, "syntax error at end of input")
	}
	rs.Form = "atomic"
	if c.i > start {
		rs.Body = c.r.sql[c.toks[start].pos:c.toks[c.i-1].end]
	}
	c.i++ // END
	return nil
}

// dropRoutine reads DROP FUNCTION [IF EXISTS] name[(args)] [, ...]
// [CASCADE | RESTRICT].
func (c *cursor) dropRoutine(rs *RoutineStmt) error {
	var err error
	rs.IfExists, rs.Cascade, err = c.dropList(func() error {
		ref, err := c.routineRef()
		rs.Targets = append(rs.Targets, ref)
		return err
	})
	return err
}

// routineRef reads name [( [argtype, ...] )].
func (c *cursor) routineRef() (RoutineRef, error) {
	var ref RoutineRef
	var err error
	if ref.Name, err = c.routineName(); err != nil {
		return ref, err
	}
	if !c.done() && c.toks[c.i].isPunct("(") {
		ref.HasArgs = true
		if ref.Args, err = c.routineArgs(true); err != nil {
			return ref, err
		}
	}
	return ref, nil
}

// alterRoutine reads ALTER FUNCTION name[(args)] RENAME TO new | OWNER TO
// role | SET SCHEMA schema. Other actions (changing volatility, ...) are
// 0A000.
func (c *cursor) alterRoutine(rs *RoutineStmt) error {
	ref, err := c.routineRef()
	if err != nil {
		return err
	}
	rs.Name, rs.Args, rs.HasArgs = ref.Name, ref.Args, ref.HasArgs
	switch {
	case c.accept("rename"):
		if err := c.expect("to"); err != nil {
			return err
		}
		rs.NewName, err = c.name()
	case c.accept("owner"):
		if err := c.expect("to"); err != nil {
			return err
		}
		rs.NewOwner, err = c.name()
	case c.peek("set") && c.i+1 < len(c.toks) && c.toks[c.i+1].is("schema"):
		c.i += 2
		rs.NewSchema, err = c.name()
	default:
		// Options: IMMUTABLE, STRICT, COST n, ... [RESTRICT].
		if c.done() {
			return c.errHere()
		}
		if n := len(c.toks); c.toks[n-1].is("restrict") {
			c.toks = c.toks[:n-1]
		}
		start := c.toks[c.i]
		if err := c.routineOptions(rs); err != nil {
			return err
		}
		if rs.Form != "" || rs.Language != "" {
			return syntaxErr(c.r.sql, start.pos, "syntax error at or near %q", tokText(c.r.sql, start))
		}
		rs.Options = true
	}
	if err != nil {
		return err
	}
	return c.end()
}

// inAtomicBody reports whether toks, the tokens of a statement so far,
// are a CREATE FUNCTION or PROCEDURE whose BEGIN ATOMIC ... END body has
// not ended: a ; there belongs to the body.
func inAtomicBody(toks []token) bool {
	if len(toks) < 2 || !toks[0].is("create") {
		return false
	}
	depth := -1
	for k, t := range toks {
		switch {
		case depth < 0:
			if t.is("begin") && k+1 < len(toks) && toks[k+1].is("atomic") {
				depth = 1
			}
		case t.is("case"):
			depth++
		case t.is("end"):
			depth--
		}
	}
	return depth > 0
}

// doBlock parses DO [LANGUAGE lang] 'code' (either order): a
// RoutineStmt of Op "do" whose Body is the code.
func doBlock(sql string, toks []token) (Statement, error) {
	var st Statement
	rs := &RoutineStmt{Op: "do", Language: "plpgsql", Form: "as"}
	seenCode := false
	for k := 1; k < len(toks); k++ {
		switch t := toks[k]; {
		case t.is("language") && k+1 < len(toks) && (toks[k+1].kind == tkIdent || toks[k+1].kind == tkQIdent || toks[k+1].kind == tkString):
			rs.Language = strings.ToLower(toks[k+1].val)
			k++
		case t.kind == tkString && !seenCode:
			rs.Body, seenCode = t.val, true
		default:
			return st, syntaxErr(sql, t.pos, "syntax error at or near %q", tokText(sql, t))
		}
	}
	if !seenCode {
		return st, pgerror.New(pgerror.SyntaxError, "no inline code specified")
	}
	st.Routine = rs
	return st, nil
}

// notFromFunc are the words that, followed by a parenthesis, start a FROM
// item that is not a function call.
var notFromFunc = map[string]bool{"lateral": true, "select": true, "values": true, "table": true, "only": true,
	"with": true, "rows": true}

// MarkerRoutine names the call of a function in FROM other than the
// built-in set-returning ones: name(args) [AS] alias[(columns)] becomes
// (SELECT kvsql_routine('name', n, args..., ['c1', NULL::type1, ...]) AS
// column FROM dual) AS alias[(columns)], n counting the arguments, the
// column definition list (AS t(a int, b text)) travelling as pairs after
// them. The binder plans it as a table function.
const MarkerRoutine = markerPrefix + "routine"

// routineInFrom appends the rewritten call at toks[i] (its argument list
// ending at toks[end]) to out and returns the index after what it
// consumed. WITH ORDINALITY adds the ordinality marker column, as for
// generate_series.
func routineInFrom(out, toks []token, i, end int) ([]token, int) {
	t := toks[i]
	args := toks[i+2 : end]
	n := 0
	if len(args) > 0 {
		n = len(splitTop(args))
	}
	out = append(out, raw("( select "+MarkerRoutine+"(", t.pos), token{kind: tkString, val: t.val, pos: t.pos, end: t.pos},
		raw(", "+strconv.Itoa(n), t.pos))
	if n > 0 {
		out = append(append(out, raw(",", t.pos)), args...)
	}
	if defs, alias, after, ok := columnDefs(toks, end+1, t); ok {
		for _, d := range defs {
			out = append(out, raw(",", t.pos), token{kind: tkString, val: d.name.val, pos: d.name.pos, end: d.name.pos}, raw(",", t.pos),
				token{kind: tkIdent, val: "null", pos: d.name.pos, end: d.name.pos}, token{kind: tkOp, val: "::", pos: d.name.pos, end: d.name.pos})
			out = append(out, d.typ...)
		}
		out = append(out, raw(") as "+t.val+" from dual ) as", t.pos), alias)
		return out, after
	}
	tail, next := fromCallTail(toks, t, end+1) // passes.go
	out = append(out, raw(")", t.pos))
	return append(out, tail...), next
}

// unqualifyFromCalls drops the public. (or pg_catalog.) qualifier of a
// function call that starts a FROM item (FROM public.f(1)), so
// seriesInFrom sees the call: kvsql's functions all live in public.
func unqualifyFromCalls(toks []token) []token {
	out := make([]token, 0, len(toks)+4)
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if (t.is("public") || t.is("pg_catalog")) && i > 0 && i+3 < len(toks) && toks[i+1].isPunct(".") &&
			toks[i+2].kind == tkIdent && toks[i+3].isPunct("(") &&
			(toks[i-1].is("from") || toks[i-1].is("join") || toks[i-1].is("lateral") || toks[i-1].isPunct(",")) {
			i++ // the qualifier and its dot
			continue
		}
		out = append(out, t)
	}
	return out
}
