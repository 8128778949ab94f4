package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/exec"
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"vitess.io/vitess/go/vt/sqlparser"
)

// User-defined SQL functions and procedures (docs/routines.md,
// "SQL functions"). The catalog keeps each one's signature and body text;
// a call plans to a planner.Func that eval hands to routineOps.Call with
// the argument values, and the body's statements run here, in the
// calling statement's transaction, each a prepared statement of this
// session whose plan is cached per catalog and argument types. The last
// statement's rows are the result.

// maxRoutineDepth bounds nested calls (recursion): past it a call fails
// with 54001, as PostgreSQL's max_stack_depth stops a runaway recursion.
const maxRoutineDepth = 1000

// createRoutine runs CREATE [OR REPLACE] FUNCTION / PROCEDURE.
func (s *Session) createRoutine(t *txn, rs *parse.RoutineStmt) error {
	if err := checkLanguage(rs.Language); err != nil {
		return err
	}
	fn, err := s.routineDef(s.planner(t.cat), rs)
	if err != nil {
		return err
	}
	if fn.Returns == "trigger" && fn.Language == "plpgsql" {
		if len(fn.InputArgs()) > 0 {
			e := pgerror.New(pgerror.InvalidFunctionDefinition, "trigger functions cannot have declared arguments")
			e.Hint = "The arguments of the trigger can be accessed through TG_NARGS and TG_ARGV instead."
			return e
		}
	} else if _, _, err := s.planner(t.cat).RoutineType(fn.Returns); err != nil && planner.RowTypeColumns(t.cat, s.database, fn.Returns) == nil {
		return err
	}
	for _, a := range fn.InputArgs() {
		if a.Default != "" {
			if err := s.planner(t.cat).CheckDefault(a.Default, a.Type); err != nil {
				return err
			}
		}
	}
	kind := kindWord(fn.Kind == "p")
	old := s.findRoutine(t.cat, fn.Name, routineSig(fn.Args))
	if old != nil && !rs.OrReplace {
		return pgerror.Newf(pgerror.DuplicateFunction, "%s %s(%s) already exists with same argument types", kind, fn.Name, sigText(old))
	}
	if old != nil {
		if old.Kind != fn.Kind {
			e := pgerror.New(pgerror.WrongObjectType, "cannot change routine kind")
			e.Detail = fmt.Sprintf("%q is a %s.", fn.Name, kindWord(old.Kind == "p"))
			return e
		}
		if old.Returns != fn.Returns || old.RetSet != fn.RetSet {
			e := pgerror.New(pgerror.InvalidFunctionDefinition, "cannot change return type of existing function")
			e.Hint = fmt.Sprintf("Use DROP FUNCTION %s(%s) first.", fn.Name, sigText(old))
			return e
		}
	}
	var next *catalog.Catalog
	if old != nil {
		fn.ID, fn.Comment = old.ID, old.Comment
		next, err = t.cat.ReplaceFunction(t.kv, s.database, *fn)
	} else {
		next, _, err = t.cat.CreateFunction(t.kv, s.database, *fn)
	}
	if err != nil {
		return err
	}
	// The body is checked against the catalog that has the function, so
	// it may call itself; SET check_function_bodies = off (pg_dump's
	// scripts) leaves only its syntax checked, as in PostgreSQL.
	if fn.Language == "plpgsql" {
		err = checkPLBody(fn)
	} else if s.checkFunctionBodies() {
		err = s.validateRoutine(next, fn)
	} else {
		_, err = routineBody(fn)
	}
	if err != nil {
		return bodyError(err)
	}
	t.setCatalog(next)
	return nil
}

// kindWord names a routine's kind in messages.
func kindWord(procedure bool) string {
	if procedure {
		return "procedure"
	}
	return "function"
}

// checkLanguage accepts LANGUAGE sql; the procedural and C languages are
// 0A000, as DO is, and other names do not exist (42704).
func checkLanguage(lang string) error {
	switch lang {
	case "sql", "plpgsql":
		return nil
	case "c", "internal", "plperl", "plpython3u", "pltcl":
		return pgerror.Newf(pgerror.FeatureNotSupported, "language %q is not supported", lang)
	}
	return pgerror.Newf(pgerror.UndefinedObject, "language %q does not exist", lang)
}

// routineDef builds the catalog descriptor of a CREATE FUNCTION.
func (s *Session) routineDef(pl *planner.Planner, rs *parse.RoutineStmt) (*catalog.Function, error) {
	fn := &catalog.Function{Name: rs.Name, Kind: "f", Returns: rs.Returns, RetSet: rs.SetOf, Language: rs.Language,
		Body: rs.Body, Form: rs.Form, Volatility: "v", Parallel: "u", Cost: 100, Leakproof: rs.Leakproof,
		Definer: rs.Definer, Config: rs.Config, Owner: s.userName()}
	if rs.Procedure {
		fn.Kind = "p"
	}
	if rs.Volatility != "" {
		fn.Volatility = rs.Volatility[:1]
	}
	if rs.Parallel != "" {
		fn.Parallel = rs.Parallel[:1]
	}
	if rs.Strict != nil {
		fn.Strict = *rs.Strict
	}
	if rs.Cost != nil {
		if *rs.Cost <= 0 {
			return nil, pgerror.New(pgerror.InvalidParameterValue, "COST must be positive")
		}
		fn.Cost = *rs.Cost
	}
	if fn.RetSet {
		fn.Rows = 1000
	}
	if rs.Rows != nil {
		if !fn.RetSet {
			return nil, pgerror.New(pgerror.InvalidParameterValue, "ROWS is not applicable when function does not return a set")
		}
		if *rs.Rows <= 0 {
			return nil, pgerror.New(pgerror.InvalidParameterValue, "ROWS must be positive")
		}
		fn.Rows = *rs.Rows
	}
	seen := map[string]bool{}
	for i, a := range append(append([]parse.RoutineArg(nil), rs.Args...), rs.Table...) {
		arg := catalog.FunctionArg{Name: a.Name, Mode: argMode(a.Mode), Type: a.Type, Default: a.Default}
		if i >= len(rs.Args) {
			arg.Mode = "t"
		}
		if _, _, err := pl.RoutineType(a.Type); err != nil {
			return nil, err
		}
		if a.Name != "" {
			if seen[a.Name] {
				return nil, pgerror.Newf(pgerror.InvalidFunctionDefinition, "parameter name %q used more than once", a.Name)
			}
			seen[a.Name] = true
		}
		if arg.Mode == "v" && i != len(rs.Args)-1 {
			return nil, pgerror.New(pgerror.InvalidFunctionDefinition, "VARIADIC parameter must be the last input parameter")
		}
		if arg.Mode == "v" && !strings.HasSuffix(a.Type, "[]") && a.Type != "anyarray" && a.Type != "anycompatiblearray" {
			return nil, pgerror.New(pgerror.InvalidFunctionDefinition, "VARIADIC parameter must be an array")
		}
		if arg.Mode == "o" && a.Default != "" {
			return nil, pgerror.New(pgerror.InvalidFunctionDefinition, "only input parameters can have default values")
		}
		fn.Args = append(fn.Args, arg)
	}
	if err := checkDefaults(fn.Args); err != nil {
		return nil, err
	}
	out := fn.OutputArgs()
	switch {
	case fn.Kind == "p" && len(out) > 0:
		return nil, pgerror.New(pgerror.FeatureNotSupported, "procedures with OUT or INOUT parameters are not supported")
	case fn.Kind == "p":
		fn.Returns = "void"
	case len(rs.Table) == 1:
		fn.Returns = rs.Table[0].Type
	case len(rs.Table) > 0:
	case len(out) == 1 && (fn.Returns == "" || fn.Returns == out[0].Type):
		fn.Returns = out[0].Type
	case len(out) > 1 && (fn.Returns == "" || fn.Returns == "record"):
		fn.Returns = "record"
	case len(out) > 0:
		return nil, pgerror.Newf(pgerror.InvalidFunctionDefinition, "function result type must be %s because of OUT parameters", outType(out))
	}
	if _, poly, _ := planner.RoutineType(fn.Returns); poly != 0 && !hasPolyInput(fn) {
		e := pgerror.New(pgerror.InvalidFunctionDefinition, "cannot determine result data type")
		e.Detail = "A result of type " + fn.Returns + " requires at least one input of type anyelement, anyarray, anynonarray, anyenum, anyrange, or anymultirange."
		return nil, e
	}
	return fn, nil
}

func outType(out []catalog.FunctionArg) string {
	if len(out) == 1 {
		return out[0].Type
	}
	return "record"
}

func argMode(m string) string {
	switch m {
	case "out":
		return "o"
	case "inout":
		return "b"
	case "variadic":
		return "v"
	}
	return "i"
}

// checkDefaults refuses an input argument without a default after one
// with a default.
func checkDefaults(args []catalog.FunctionArg) error {
	seenDefault := false
	for _, a := range args {
		if a.Mode == "o" || a.Mode == "t" {
			continue
		}
		if a.Default != "" {
			seenDefault = true
		} else if seenDefault && a.Mode != "v" {
			return pgerror.New(pgerror.InvalidFunctionDefinition, "input parameters after one with a default value must also have defaults")
		}
	}
	return nil
}

func hasPolyInput(fn *catalog.Function) bool {
	for _, a := range fn.InputArgs() {
		if _, poly, _ := planner.RoutineType(a.Type); poly != 0 {
			return true
		}
	}
	return false
}

// routineSig is the input argument types that identify a routine among
// those of its name.
func routineSig(args []catalog.FunctionArg) []string {
	var sig []string
	for _, a := range args {
		if a.Mode != "o" && a.Mode != "t" {
			sig = append(sig, canonicalType(a.Type))
		}
	}
	return sig
}

// canonicalType spells a type name the way the catalog compares them
// (int4 and integer are one type).
func canonicalType(name string) string {
	t, poly, err := planner.RoutineType(name)
	if err != nil || poly != 0 || name == "record" || name == "void" {
		return name
	}
	return t.String()
}

// sigText is the argument list of fn as error messages write it.
func sigText(fn *catalog.Function) string {
	return strings.Join(routineSig(fn.Args), ", ")
}

// findRoutine returns the routine of that name and input signature, or
// nil when there is none.
func (s *Session) findRoutine(cat *catalog.Catalog, name string, sig []string) *catalog.Function {
	for _, f := range cat.FunctionsNamed(s.database, name) {
		if slices.Equal(routineSig(f.Args), sig) {
			return f
		}
	}
	return nil
}

// userName is the session's user as pg_proc.proowner's role name.
func (s *Session) userName() string {
	if s.user == "" {
		return "kvsql"
	}
	return s.user
}

// routineBody parses fn's body into its statements.
func routineBody(fn *catalog.Function) ([]parse.Statement, error) {
	text := fn.Body
	if fn.Form == "return" {
		text = "SELECT " + text
	}
	stmts, err := parse.Parse(text)
	if err != nil {
		return nil, err
	}
	for i := range stmts {
		st := &stmts[i]
		if st.Compound == nil && !isDML(st) {
			if _, ok := st.AST.(sqlparser.TableStatement); !ok {
				return nil, pgerror.Newf(pgerror.FeatureNotSupported, "statement in a SQL function is not supported: %s", st.SQL)
			}
		}
	}
	return stmts, nil
}

// validateRoutine checks a SQL function's body as PostgreSQL does with
// check_function_bodies on: every statement parses and plans against the
// catalog (a missing table is 42P01 now, not at the first call), and the
// last one yields the declared result. A function with polymorphic
// arguments is only parsed: its types are known per call.
func (s *Session) validateRoutine(cat *catalog.Catalog, fn *catalog.Function) error {
	stmts, err := routineBody(fn)
	if err != nil {
		return err
	}
	if hasPolyInput(fn) {
		return nil
	}
	argTypes, names := routineArgTypes(s.planner(cat), fn)
	var last planner.Node
	for i := range stmts {
		pl := s.planner(cat)
		pl.ArgNames, pl.RoutineName = names, fn.Name
		n, _, err := pl.Plan(&stmts[i], argTypes)
		if err != nil {
			return err
		}
		last = n
	}
	return checkResult(s.planner(cat), fn, stmts, last, planner.RowTypeColumns(cat, s.database, fn.Returns))
}

// routineArgTypes returns the declared types and names of fn's input
// arguments (polymorphic ones unknown).
func routineArgTypes(pl *planner.Planner, fn *catalog.Function) ([]types.T, []string) {
	ts := make([]types.T, len(fn.InputArgs()))
	for i, a := range fn.InputArgs() {
		ts[i], _, _ = pl.RoutineType(a.Type)
	}
	return ts, routineArgNames(fn)
}

// routineArgNames returns the names of fn's input arguments.
func routineArgNames(fn *catalog.Function) []string {
	in := fn.InputArgs()
	names := make([]string, len(in))
	for i, a := range in {
		names[i] = a.Name
	}
	return names
}

// checkResult checks that the body's last statement (planned as last)
// returns what fn declares (rowType: the columns of the table whose row
// type it returns, if it does): 42P13 "return type mismatch" otherwise.
func checkResult(pl *planner.Planner, fn *catalog.Function, stmts []parse.Statement, last planner.Node, rowType []planner.Column) error {
	if fn.Returns == "void" {
		return nil
	}
	mismatch := func(detail string) error {
		e := pgerror.Newf(pgerror.InvalidFunctionDefinition, "return type mismatch in function declared to return %s", displayType(fn.Returns))
		e.Detail = detail
		return e
	}
	if len(stmts) == 0 || !returnsRows(&stmts[len(stmts)-1]) {
		return mismatch("Function's final statement must be SELECT or INSERT/UPDATE/DELETE RETURNING.")
	}
	cols := visibleColumns(last)
	out := fn.OutputArgs()
	if fn.Returns == "record" && len(out) == 0 {
		return nil
	}
	var want []types.T // nil: polymorphic, resolved per call
	switch {
	case rowType != nil:
		for _, c := range rowType {
			want = append(want, c.T)
		}
	case len(out) > 1:
		for _, a := range out {
			wt, _, _ := pl.RoutineType(a.Type)
			want = append(want, wt)
		}
	default:
		wt, _, _ := pl.RoutineType(fn.Returns)
		if wt.Family == types.Record && wt.Comp != nil && (len(cols) != 1 || cols[0].T.Family != types.Record) {
			// A composite type's fields, one column each.
			for _, f := range wt.Comp.Fields {
				want = append(want, f.T)
			}
			break
		}
		want = append(want, wt)
	}
	if len(cols) != len(want) {
		if len(want) == 1 && rowType == nil {
			return mismatch("Final statement must return exactly one column.")
		}
		return mismatch(fmt.Sprintf("Final statement returns too %s columns.", map[bool]string{true: "many", false: "few"}[len(cols) > len(want)]))
	}
	for i, wt := range want {
		if wt.Family != types.Unknown && !planner.Assignable(cols[i].T, wt) {
			return mismatch(fmt.Sprintf("Actual return type is %s.", cols[i].T))
		}
	}
	return nil
}

// displayType is a type name as PostgreSQL's messages print it.
func displayType(name string) string {
	if t, poly, err := planner.RoutineType(name); err == nil && poly == 0 && name != "record" && name != "void" {
		return t.String()
	}
	return name
}

// returnsRows reports whether st yields rows: a query, or DML with
// RETURNING.
func returnsRows(st *parse.Statement) bool {
	if isDML(st) {
		return len(st.Returning) > 0
	}
	return true
}

// visibleColumns are a plan's result columns without the hidden ones.
func visibleColumns(n planner.Node) []planner.Column {
	var out []planner.Column
	for _, c := range n.Columns() {
		if !c.Hidden {
			out = append(out, c)
		}
	}
	return out
}

// dropRoutines runs DROP FUNCTION / PROCEDURE / ROUTINE.
func (s *Session) dropRoutines(t *txn, rs *parse.RoutineStmt) error {
	for _, ref := range rs.Targets {
		fn, err := s.routineByRef(t.cat, ref, rs.Procedure)
		if err != nil {
			if rs.IfExists && pgerror.HasCode(err, pgerror.UndefinedFunction) {
				s.notice(routineNotice(ref, rs.Procedure))
				continue
			}
			return err
		}
		next, err := t.cat.DropFunction(t.kv, s.database, fn.ID)
		if err != nil {
			return err
		}
		t.setCatalog(next)
	}
	return nil
}

// routineNotice is DROP ... IF EXISTS's notice for a routine not found.
func routineNotice(ref parse.RoutineRef, procedure bool) *pgerror.Error {
	kind := kindWord(procedure)
	name := ref.Name
	if ref.HasArgs {
		name += "(" + refSig(ref) + ")"
	}
	return pgerror.Newf(pgerror.SuccessfulCompletion, "%s %s does not exist, skipping", kind, name)
}

func refSig(ref parse.RoutineRef) string {
	var sig []string
	for _, a := range ref.Args {
		if a.Mode != "out" {
			sig = append(sig, canonicalType(a.Type))
		}
	}
	return strings.Join(sig, ",")
}

// routineByRef finds the routine a DROP, ALTER or COMMENT names: by name
// and signature, or by name alone when that is unique (42725 when it is
// not).
func (s *Session) routineByRef(cat *catalog.Catalog, ref parse.RoutineRef, procedure bool) (*catalog.Function, error) {
	kind := kindWord(procedure)
	fns := cat.FunctionsNamed(s.database, ref.Name)
	if ref.HasArgs {
		var sig []string
		for _, a := range ref.Args {
			if a.Mode != "out" {
				sig = append(sig, canonicalType(a.Type))
			}
		}
		for _, f := range fns {
			if slices.Equal(routineSig(f.Args), sig) {
				return f, checkKind(f, procedure)
			}
		}
		return nil, pgerror.Newf(pgerror.UndefinedFunction, "%s %s(%s) does not exist", kind, ref.Name, strings.Join(sig, ", "))
	}
	switch len(fns) {
	case 0:
		return nil, pgerror.Newf(pgerror.UndefinedFunction, "could not find a %s named %q", kind, ref.Name)
	case 1:
		return fns[0], checkKind(fns[0], procedure)
	}
	e := pgerror.Newf(pgerror.AmbiguousFunction, "%s name %q is not unique", kind, ref.Name)
	e.Hint = "Specify the argument list to select the " + kind + " unambiguously."
	return nil, e
}

// checkKind refuses DROP PROCEDURE of a function and DROP FUNCTION of a
// procedure (42809).
func checkKind(f *catalog.Function, procedure bool) error {
	switch {
	case procedure && f.Kind != "p":
		return pgerror.Newf(pgerror.WrongObjectType, "%s(%s) is not a procedure", f.Name, sigText(f))
	case !procedure && f.Kind == "p":
		e := pgerror.Newf(pgerror.WrongObjectType, "%s(%s) is not a function", f.Name, sigText(f))
		return e
	}
	return nil
}

// alterRoutine runs ALTER FUNCTION ... RENAME TO / OWNER TO / SET SCHEMA.
func (s *Session) alterRoutine(t *txn, rs *parse.RoutineStmt) error {
	fn, err := s.routineByRef(t.cat, parse.RoutineRef{Name: rs.Name, Args: rs.Args, HasArgs: rs.HasArgs}, rs.Procedure)
	if err != nil {
		return err
	}
	nf := *fn
	switch {
	case rs.NewName != "":
		if dup := s.findRoutine(t.cat, rs.NewName, routineSig(fn.Args)); dup != nil {
			return pgerror.Newf(pgerror.DuplicateFunction, "%s %s(%s) already exists in schema \"public\"", kindWord(fn.Kind == "p"), rs.NewName, sigText(fn))
		}
		nf.Name = rs.NewName
	case rs.NewOwner != "":
		_, err := s.resolveRole(t.cat, rs.NewOwner) // role.go
		return err
	case rs.NewSchema != "":
		if rs.NewSchema == "public" {
			return nil
		}
		return pgerror.Newf(pgerror.InvalidSchemaName, "schema %q does not exist", rs.NewSchema)
	case rs.Options:
		if err := alterOptions(&nf, rs); err != nil {
			return err
		}
	}
	next, err := t.cat.ReplaceFunction(t.kv, s.database, nf)
	if err != nil {
		return err
	}
	t.setCatalog(next)
	return nil
}

// commentRoutine runs COMMENT ON FUNCTION / PROCEDURE.
func (s *Session) commentRoutine(t *txn, ref parse.RoutineRef, procedure bool, text string) error {
	fn, err := s.routineByRef(t.cat, ref, procedure)
	if err != nil {
		return err
	}
	nf := *fn
	nf.Comment = text
	next, err := t.cat.ReplaceFunction(t.kv, s.database, nf)
	if err != nil {
		return err
	}
	t.setCatalog(next)
	return nil
}

// callProcedure runs CALL: the statement's AST is SELECT proc(args),
// planned with procedures allowed.
func (s *Session) callProcedure(ctx context.Context, t *txn, p *parse.Statement) error {
	pl := s.planner(t.cat)
	pl.Call = true
	plan, _, err := pl.Plan(&parse.Statement{AST: p.AST, SQL: p.SQL}, nil)
	if err != nil {
		return err
	}
	op, err := exec.Build(s.execCtx(ctx, t, nil), plan)
	if err != nil {
		return err
	}
	_, err = exec.Drain(op, nil)
	return err
}

// routineOps runs the calls of user-defined functions that one statement
// makes (eval.Routines), in its transaction.
type routineOps struct {
	s   *Session
	t   *txn
	ctx context.Context
}

var _ eval.Routines = routineOps{}

// compiledRoutine is a function's body as this session's prepared
// statements, for one list of argument types.
type compiledRoutine struct {
	stmts []*stmt
}

type routineKey struct {
	fn  *catalog.Function
	sig string
}

// compiledRoutine returns fn's statements prepared for argTypes, made
// once per function descriptor and argument types.
func (s *Session) compiledRoutine(fn *catalog.Function, argTypes []types.T) (*compiledRoutine, error) {
	var sig strings.Builder
	for _, t := range argTypes {
		sig.WriteString(t.String())
		sig.WriteByte(',')
	}
	key := routineKey{fn: fn, sig: sig.String()}
	if c, ok := s.routines[key]; ok {
		return c, nil
	}
	stmts, err := routineBody(fn)
	if err != nil {
		return nil, err
	}
	names := routineArgNames(fn)
	c := &compiledRoutine{}
	for i := range stmts {
		c.stmts = append(c.stmts, &stmt{s: s, p: &stmts[i], sql: stmts[i].SQL, declared: argTypes, argNames: names, routine: fn.Name})
	}
	if s.routines == nil || len(s.routines) > 1000 {
		s.routines = map[routineKey]*compiledRoutine{}
	}
	s.routines[key] = c
	return c, nil
}

// routineResult is what a call's body returned: the last statement's
// rows and their column types.
type routineResult struct {
	fn    *catalog.Function
	rows  [][]types.Datum
	types []types.T
}

// run runs fn's body with args and returns the last statement's rows
// (all of them when all is set, else at most the first).
func (o routineOps) run(id uint64, argTypes []types.T, args []types.Datum, all bool) (routineResult, error) {
	s, t := o.s, o.t
	fn := t.cat.FunctionByID(s.database, id)
	if fn == nil {
		return routineResult{}, pgerror.Newf(pgerror.UndefinedFunction, "function with OID %d does not exist", id)
	}
	if fn.Strict && slices.ContainsFunc(args, types.Datum.IsNull) {
		return routineResult{fn: fn}, nil
	}
	if s.routineDepth >= maxRoutineDepth {
		e := pgerror.New(pgerror.StatementTooComplex, "stack depth limit exceeded")
		e.Hint = "SQL functions nest more than " + strconv.Itoa(maxRoutineDepth) + " calls deep."
		return routineResult{fn: fn}, e
	}
	s.routineDepth++
	defer func() { s.routineDepth-- }()
	if len(fn.Config) > 0 {
		restore, err := s.applyConfig(fn.Config)
		defer restore()
		if err != nil {
			return routineResult{fn: fn}, err
		}
	}
	if fn.Language == "plpgsql" {
		return o.runPL(fn, argTypes, args) // plpgsql.go
	}
	c, err := s.compiledRoutine(fn, argTypes)
	if err != nil {
		return routineResult{fn: fn}, err
	}
	res := routineResult{fn: fn}
	for i, st := range c.stmts {
		if err := st.ensurePlan(t.cat); err != nil {
			return routineResult{fn: fn}, err
		}
		if isDML(st.p) {
			if t.readOnly {
				return routineResult{fn: fn}, pgerror.Newf(pgerror.ReadOnlySQLTransaction, "cannot execute %s in a read-only transaction", dmlVerb(st.p))
			}
			if fn.Volatility != "v" {
				return routineResult{fn: fn}, pgerror.Newf(pgerror.FeatureNotSupported, "%s is not allowed in a non-volatile function", dmlVerb(st.p))
			}
		}
		op, err := exec.Build(s.execCtx(o.ctx, t, args), st.plan)
		if err != nil {
			return routineResult{fn: fn}, err
		}
		lastStmt := i == len(c.stmts)-1
		if lastStmt {
			for _, col := range visibleColumns(st.plan) {
				res.types = append(res.types, col.T)
			}
		}
		n, err := exec.Drain(op, func(row []types.Datum) {
			if lastStmt && (all || len(res.rows) == 0) {
				res.rows = append(res.rows, slices.Clone(row[:len(res.types)]))
			}
		})
		if err != nil {
			return routineResult{fn: fn}, err
		}
		trackRows(t, st.plan, n)
	}
	return res, nil
}

func dmlVerb(p *parse.Statement) string {
	switch p.AST.(type) {
	case *sqlparser.Insert:
		return "INSERT"
	case *sqlparser.Update:
		return "UPDATE"
	}
	return "DELETE"
}

// Call implements eval.Routines.
func (o routineOps) Call(id uint64, argTypes []types.T, args []types.Datum, ret types.T) (types.Datum, error) {
	res, err := o.run(id, argTypes, args, false)
	switch {
	case err != nil:
		return types.Null, err
	case res.fn.Returns == "void":
		return types.NewText(""), nil
	case len(res.rows) == 0:
		return types.Null, nil
	case ret.Family == types.Record && ret.Comp != nil && (len(res.types) != 1 || res.types[0].Family != types.Record):
		return o.record(res.rows[0], res.types, ret.Comp)
	case isRowResult(o.s.planner(o.t.cat), res.fn):
		return o.recordText(res.rows[0], res.types)
	}
	return o.convert(res.rows[0][0], res.types[0], ret)
}

// record is a value of composite type c made of a row the body
// returned, one column per field.
func (o routineOps) record(row []types.Datum, ts []types.T, c *types.Composite) (types.Datum, error) {
	if len(row) != len(c.Fields) {
		return types.Null, pgerror.Newf(pgerror.DatatypeMismatch, "function return row and query-specified return row do not match")
	}
	vals := make([]types.Datum, len(row))
	for i, f := range c.Fields {
		v, err := o.convert(row[i], ts[i], f.T)
		if err != nil {
			return types.Null, err
		}
		vals[i] = v
	}
	return types.NewRecord(vals), nil
}

// isRowResult reports whether fn returns a row (OUT arguments, record or
// a table's row type) rather than one value.
func isRowResult(pl *planner.Planner, fn *catalog.Function) bool {
	if len(fn.OutputArgs()) > 1 || fn.Returns == "record" {
		return true
	}
	_, _, err := pl.RoutineType(fn.Returns)
	return err != nil
}

// recordText is a row's text form as PostgreSQL's record_out writes it:
// (a,b), a NULL as nothing, a value with a separator, quote, backslash,
// parenthesis or space (or an empty one) in double quotes.
func (o routineOps) recordText(row []types.Datum, ts []types.T) (types.Datum, error) {
	var b strings.Builder
	b.WriteByte('(')
	for i, d := range row {
		if i > 0 {
			b.WriteByte(',')
		}
		if d.IsNull() {
			continue
		}
		v, err := o.convert(d, ts[i], types.T{Family: types.Text})
		if err != nil {
			return types.Null, err
		}
		s := v.S
		if s == "" || strings.ContainsAny(s, "(),\"\\ \t\n") {
			s = `"` + strings.NewReplacer(`"`, `""`, `\`, `\\`).Replace(s) + `"`
		}
		b.WriteString(s)
	}
	b.WriteByte(')')
	return types.NewText(b.String()), nil
}

// convert casts a value the body returned to the type the call has.
func (o routineOps) convert(d types.Datum, from, to types.T) (types.Datum, error) {
	if from == to || d.IsNull() {
		return d, nil
	}
	return eval.CastFromIn(d, from, to, o.s.Location())
}

// Rows implements eval.Routines.
func (o routineOps) Rows(id uint64, argTypes []types.T, args []types.Datum, cols []types.T) ([][]types.Datum, error) {
	res, err := o.run(id, argTypes, args, true)
	if err != nil {
		return nil, err
	}
	fn, rows := res.fn, res.rows
	if fn.Returns == "void" {
		return [][]types.Datum{{types.NewText("")}}, nil
	}
	if !fn.RetSet && len(rows) == 0 {
		// A function that is not SETOF gives one row in FROM, NULL when
		// its query found none (or a strict one's argument was NULL).
		return [][]types.Datum{make([]types.Datum, len(cols))}, nil
	}
	if len(res.types) != len(cols) {
		e := pgerror.New(pgerror.DatatypeMismatch, "function return row and query-specified return row do not match")
		e.Detail = fmt.Sprintf("Returned row contains %d attributes, but query expects %d.", len(res.types), len(cols))
		return nil, e
	}
	for _, r := range rows {
		for i := range r {
			if r[i], err = o.convert(r[i], res.types[i], cols[i]); err != nil {
				return nil, err
			}
		}
	}
	return rows, nil
}

// routineStmt runs a parse.RoutineStmt and returns its command tag.
func (s *Session) routineStmt(ctx context.Context, t *txn, p *parse.Statement) (string, error) {
	rs := p.Routine
	kind := strings.ToUpper(kindWord(rs.Procedure))
	switch rs.Op {
	case "create":
		return "CREATE " + kind, s.createRoutine(t, rs)
	case "drop":
		return "DROP " + kind, s.dropRoutines(t, rs)
	case "alter":
		return "ALTER " + kind, s.alterRoutine(t, rs)
	case "do":
		return "DO", s.doStmt(ctx, t, rs) // plpgsql.go
	}
	return "CALL", s.callProcedure(ctx, t, p)
}

// callsVolatileRoutine reports whether st's plan calls a VOLATILE SQL
// function: its body may write, so the statement runs in a transaction
// that can commit, as DML does, not in a read-only snapshot.
func (s *Session) callsVolatileRoutine(st *stmt) bool {
	cat := s.catalog()
	if st.kind() != kindPlan || st.ensurePlan(cat) != nil {
		return false
	}
	for _, id := range st.calls {
		if fn := cat.FunctionByID(s.database, id); fn != nil && fn.Volatility == "v" {
			return true
		}
	}
	return false
}

// alterOptions applies ALTER FUNCTION's options to nf.
func alterOptions(nf *catalog.Function, rs *parse.RoutineStmt) error {
	nf.Config = append(nf.Config, rs.Config...)
	if rs.Volatility != "" {
		nf.Volatility = rs.Volatility[:1]
	}
	if rs.Strict != nil {
		nf.Strict = *rs.Strict
	}
	if rs.Parallel != "" {
		nf.Parallel = rs.Parallel[:1]
	}
	nf.Leakproof = nf.Leakproof || rs.Leakproof
	nf.Definer = nf.Definer || rs.Definer
	if rs.Cost != nil {
		if *rs.Cost <= 0 {
			return pgerror.New(pgerror.InvalidParameterValue, "COST must be positive")
		}
		nf.Cost = *rs.Cost
	}
	if rs.Rows != nil {
		if !nf.RetSet {
			return pgerror.New(pgerror.InvalidParameterValue, "ROWS is not applicable when function does not return a set")
		}
		nf.Rows = *rs.Rows
	}
	return nil
}

// checkFunctionBodies reads the check_function_bodies setting (on unless
// set to a false boolean).
func (s *Session) checkFunctionBodies() bool {
	switch strings.ToLower(strings.TrimSpace(s.Setting("check_function_bodies"))) {
	case "off", "false", "no", "0", "f", "n", "of":
		return false
	}
	return true
}

// applyConfig sets a function's SET items (proconfig's "name=value") for
// the length of a call; restore puts back the values they replaced.
func (s *Session) applyConfig(config []string) (restore func(), err error) {
	type saved struct{ name, value string }
	var undo []saved
	restore = func() {
		for i := len(undo) - 1; i >= 0; i-- {
			u := undo[i]
			_, _ = s.set(&parse.SetStmt{Name: u.name, Value: []string{u.value}})
		}
	}
	for _, item := range config {
		name, value, _ := strings.Cut(item, "=")
		old := s.Setting(name)
		if _, err := s.set(&parse.SetStmt{Name: name, Value: strings.Split(value, ", ")}); err != nil {
			return restore, err
		}
		undo = append(undo, saved{name, old})
	}
	return restore, nil
}

// bodyError is an error found in a function's body: its position is
// within the body's text, not the CREATE statement's, so it is dropped.
func bodyError(err error) error {
	var pe *pgerror.Error
	if errors.As(err, &pe) && pe.Position > 0 {
		cp := *pe
		cp.Position = 0
		return &cp
	}
	return err
}
