package planner

import (
	"strconv"
	"strings"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"vitess.io/vitess/go/vt/sqlparser"
)

// User-defined SQL functions (CREATE FUNCTION ... LANGUAGE sql). A call
// binds to a Func named RoutinePrefix+name whose first argument is the
// function's OID and the rest its arguments, coerced to the declared
// types (polymorphic ones resolved from the call); eval runs the body
// through Env.Routines. In FROM, the call is a TableFunc of the same
// shape. Calls count as volatile: they are never folded, memoized or
// moved past a filter, since a body may write.

// RoutinePrefix starts the Func name of a user-defined function's call.
const RoutinePrefix = "kvsql_routine:"

// RoutineName returns the SQL name of a call's function and whether
// name is a user-defined function's call.
func RoutineName(name string) (string, bool) { return strings.CutPrefix(name, RoutinePrefix) }

// RoutineID returns the OID of the function a routine call (Func or
// TableFunc arguments) names.
func RoutineID(args []Expr) uint64 {
	if c, ok := args[0].(*Const); ok {
		return uint64(c.Value.I)
	}
	return 0
}

// polymorphic type names and what they are resolved to.
const (
	polyNone = iota
	polyElem
	polyArray
	polyNonArray
	polyCompat
	polyCompatArray
	polyCompatNonArray
)

var polyNames = map[string]int{"anyelement": polyElem, "anyarray": polyArray, "anynonarray": polyNonArray,
	"anycompatible": polyCompat, "anycompatiblearray": polyCompatArray, "anycompatiblenonarray": polyCompatNonArray}

// RoutineType maps a routine's argument or result type name to a type;
// poly is non-zero for a polymorphic name. "void" is text (its value is
// empty), "record" an unknown type; "trigger" and other pseudo-types are
// 0A000.
func RoutineType(name string) (t types.T, poly int, err error) {
	if p, ok := polyNames[name]; ok {
		return tUnk, p, nil
	}
	switch name {
	case "void":
		return tText, polyNone, nil
	case "record":
		return tUnk, polyNone, nil
	case "trigger", "event_trigger", "internal", "language_handler", "cstring", "any":
		return types.T{}, polyNone, pgerror.Newf(pgerror.FeatureNotSupported, "functions of type %s are not supported", name)
	}
	t, err = typeFromName(name, nil, nil)
	return t, polyNone, err
}

// RoutineType is the package's RoutineType that also resolves the
// database's user types: a composite type (a record of its fields), an
// enum, a domain (its base type).
func (p *Planner) RoutineType(name string) (t types.T, poly int, err error) {
	t, poly, err = RoutineType(name)
	if err != nil && pgerror.HasCode(err, pgerror.UndefinedObject) {
		if ut, _, uerr := p.ResolveType(name, nil, nil); uerr == nil {
			return ut, polyNone, nil
		}
	}
	return t, poly, err
}

// routineCall binds a call of name when db has user-defined functions
// of that name: ok is false when it has none, so built-in functions are
// tried.
func (b *binder) routineCall(name string, args []Expr) (Expr, bool, error) {
	var fns []*catalog.Function
	for _, fn := range b.p.Catalog.FunctionsNamed(b.p.DB, name) {
		if fn.Kind != "a" { // aggregates bind as aggregates (useragg.go)
			fns = append(fns, fn)
		}
	}
	if len(fns) == 0 && !b.p.Call {
		return nil, false, nil
	}
	fn, coerced, ret, err := b.resolveRoutine(name, fns, args)
	if err != nil {
		return nil, true, err
	}
	if fn.Kind == "p" && !b.p.Call {
		e := pgerror.Newf(pgerror.WrongObjectType, "%s(%s) is a procedure", name, typeList(args))
		e.Hint = "To call a procedure, use CALL."
		return nil, true, e
	}
	if fn.Kind != "p" && b.p.Call {
		e := pgerror.Newf(pgerror.WrongObjectType, "%s(%s) is not a procedure", name, typeList(args))
		e.Hint = "To call a function, use SELECT."
		return nil, true, e
	}
	if fn.RetSet {
		return nil, true, pgerror.Newf(pgerror.FeatureNotSupported, "set-returning function %s in a select list is not supported: call it in FROM", name)
	}
	if len(fn.OutputArgs()) > 1 || fn.Returns == "record" || ret.Family == types.Unknown {
		// A row: its text form, (1,x), as record_out writes it.
		ret = tText
	}
	if x, ok := b.inlineRoutine(fn, coerced, ret); ok { // inline.go
		return x, true, nil
	}
	return &Func{Name: RoutinePrefix + name, Args: append([]Expr{routineOID(fn)}, coerced...), T: ret}, true, nil
}

func routineOID(fn *catalog.Function) *Const {
	return &Const{Value: types.NewInt(int64(fn.ID)), T: tInt8}
}

// resolveRoutine chooses among fns the one a call with args means, as
// PostgreSQL's func_select_candidate would in the common cases: every
// argument must convert implicitly; the candidate with the most exact
// matches wins, and a tie is 42725. It returns the arguments coerced to
// the chosen function's types (defaults appended) and its result type.
func (b *binder) resolveRoutine(name string, fns []*catalog.Function, args []Expr) (*catalog.Function, []Expr, types.T, error) {
	var best *catalog.Function
	var bestArgs []Expr
	var bestRet types.T
	bestScore, tie := -1, false
	for _, fn := range fns {
		coerced, ret, score, ok := b.matchRoutine(fn, args)
		if !ok {
			continue
		}
		switch {
		case score > bestScore:
			best, bestArgs, bestRet, bestScore, tie = fn, coerced, ret, score, false
		case score == bestScore:
			tie = true
		}
	}
	if best == nil {
		kind := "function"
		if b.p.Call {
			kind = "procedure"
		}
		e := pgerror.Newf(pgerror.UndefinedFunction, "%s %s(%s) does not exist", kind, name, typeList(args))
		e.Hint = "No " + kind + " matches the given name and argument types. You might need to add explicit type casts."
		return nil, nil, types.T{}, e
	}
	if tie {
		e := pgerror.Newf(pgerror.AmbiguousFunction, "function %s(%s) is not unique", name, typeList(args))
		e.Hint = "Could not choose a best candidate function. You might need to add explicit type casts."
		return nil, nil, types.T{}, e
	}
	return best, bestArgs, bestRet, nil
}

// matchRoutine reports whether fn can take args: their coercions to its
// argument types, its result type and a score (exact matches).
func (b *binder) matchRoutine(fn *catalog.Function, args []Expr) (coerced []Expr, ret types.T, score int, ok bool) {
	in := fn.InputArgs()
	required := 0
	for i, a := range in {
		if a.Default == "" {
			required = i + 1
		}
	}
	variadic := len(in) > 0 && in[len(in)-1].Mode == "v"
	if len(args) < required || len(args) > len(in) && !variadic {
		return nil, ret, 0, false
	}
	// The declared type of each argument position; a VARIADIC tail
	// collects the extra arguments into its array.
	decl := make([]string, len(args))
	spread := false
	for i := range args {
		switch {
		case i < len(in)-1 || i < len(in) && !variadic:
			decl[i] = in[i].Type
		case variadic:
			vt := in[len(in)-1].Type
			if len(args) == len(in) && args[i].Type().IsArray() {
				decl[i] = vt // an array passed for the whole tail
			} else {
				decl[i], spread = variadicElem(vt), true
			}
		}
	}
	var elem, compat types.T
	elemSet := false
	// First pass: resolve the polymorphic types from the arguments.
	for i, a := range args {
		_, poly, err := b.p.RoutineType(decl[i])
		if err != nil {
			return nil, ret, 0, false
		}
		at := a.Type()
		switch poly {
		case polyElem, polyNonArray, polyArray:
			e := at
			if poly == polyArray {
				if at.Family == types.Unknown {
					continue
				}
				if !at.IsArray() {
					return nil, ret, 0, false
				}
				e = at.ElemType()
			}
			if e.Family == types.Unknown {
				continue
			}
			if elemSet && e != elem {
				return nil, ret, 0, false
			}
			elem, elemSet = e, true
		case polyCompat, polyCompatNonArray, polyCompatArray:
			e := at
			if poly == polyCompatArray && at.Family != types.Unknown {
				if !at.IsArray() {
					return nil, ret, 0, false
				}
				e = at.ElemType()
			}
			compat = commonType(compat, e)
		}
	}
	if !elemSet {
		elem = tText
	}
	if compat.Family == types.Unknown {
		compat = tText
	}
	resolve := func(name string) (types.T, error) {
		t, poly, err := b.p.RoutineType(name)
		switch poly {
		case polyElem, polyNonArray:
			t = elem
		case polyArray:
			t = types.ArrayOf(elem)
		case polyCompat, polyCompatNonArray:
			t = compat
		case polyCompatArray:
			t = types.ArrayOf(compat)
		}
		return t, err
	}
	for i, a := range args {
		t, err := resolve(decl[i])
		if err != nil {
			return nil, ret, 0, false
		}
		x, exact, ok := routineArg(a, t)
		if !ok {
			return nil, ret, 0, false
		}
		if exact {
			score++
		}
		coerced = append(coerced, x)
	}
	if spread {
		// f(a, b, c) for f(x, VARIADIC ys t[]): the tail as one array.
		k := len(in) - 1
		tail := coerced[k:]
		vt, _ := resolve(in[k].Type)
		coerced = append(coerced[:k:k], &Func{Name: parse.MarkerArray, Args: tail, T: vt})
	}
	// Defaults fill the arguments not written.
	for i := len(args); i < len(in); i++ {
		if in[i].Mode == "v" && spread {
			break
		}
		t, err := resolve(in[i].Type)
		if err != nil {
			return nil, ret, 0, false
		}
		x, err := b.routineDefault(in[i].Default, t)
		if err != nil {
			return nil, ret, 0, false
		}
		coerced = append(coerced, x)
	}
	rt := fn.Returns
	if rt == "" {
		rt = "void"
	}
	if ret, err := resolve(rt); err == nil {
		return coerced, ret, score, true
	}
	if RowTypeColumns(b.p.Catalog, b.p.DB, rt) != nil {
		return coerced, tUnk, score, true // a table's row type: FROM only
	}
	return nil, ret, 0, false
}

// variadicElem is the element type name of a VARIADIC argument's array
// type name.
func variadicElem(name string) string {
	switch name {
	case "anyarray":
		return "anyelement"
	case "anycompatiblearray":
		return "anycompatible"
	}
	return strings.TrimSuffix(name, "[]")
}

// routineArg converts an argument to its parameter's type t as a call
// may: exact reports an argument already of that type.
func routineArg(a Expr, t types.T) (x Expr, exact, ok bool) {
	at := a.Type()
	if f, isRow := a.(*Func); isRow && f.Name == RowFunc && t.Family == types.Record && t.Comp != nil && at.Comp != t.Comp {
		// ROW(...) for an argument of a composite type, as PostgreSQL
		// coerces it: field by field.
		x, err := castRow(a, t) // usertype.go
		return x, false, err == nil
	}
	if at == t || at.Family == t.Family && !at.IsArray() && (isText(t.Family) || t.Family == types.Numeric) ||
		at.IsArray() && t.IsArray() && at.Elem == t.Elem {
		return a, true, true
	}
	if isNumeric(at.Family) && isNumeric(t.Family) && numericRank(at.Family) > numericRank(t.Family) {
		return nil, false, false // narrowing is no implicit cast
	}
	x, err := coerce(a, t)
	if err != nil {
		return nil, false, false
	}
	return x, false, true
}

// routineDefault binds an argument's DEFAULT expression text.
func (b *binder) routineDefault(text string, t types.T) (Expr, error) {
	e, err := exprText(text, "an argument default") // generated.go
	if err != nil {
		return nil, err
	}
	x, err := b.expr(e, &scope{})
	if err != nil {
		return nil, err
	}
	return assign(x, t)
}

// routineTable plans a function call in FROM (the dialect layer's
// kvsql_routine marker): a user-defined function's rows, or a built-in
// scalar function's one row.
func (b *binder) routineTable(call *sqlparser.FuncExpr, column string, ordinality bool, s *scope) (Node, error) {
	if len(call.Exprs) < 2 {
		return nil, pgerror.New(pgerror.Internal, "malformed function call in FROM")
	}
	nameLit, ok1 := call.Exprs[0].(*sqlparser.Literal)
	countLit, ok2 := call.Exprs[1].(*sqlparser.Literal)
	if !ok1 || !ok2 {
		return nil, pgerror.New(pgerror.Internal, "malformed function call in FROM")
	}
	name := nameLit.Val
	n, err := strconv.Atoi(countLit.Val)
	if err != nil || 2+n > len(call.Exprs) {
		return nil, pgerror.New(pgerror.Internal, "malformed function call in FROM")
	}
	argScope := &scope{parent: s.parent, owner: s, aggContext: "FROM"}
	args := make([]Expr, n)
	for i, e := range call.Exprs[2 : 2+n] {
		if args[i], err = b.expr(e, argScope); err != nil {
			return nil, err
		}
	}
	defs, err := b.columnDefList(call.Exprs[2+n:], argScope)
	if err != nil {
		return nil, err
	}
	fns := b.p.Catalog.FunctionsNamed(b.p.DB, name)
	if len(fns) == 0 {
		if ordinality {
			return nil, pgerror.Newf(pgerror.FeatureNotSupported, "%s(...) WITH ORDINALITY is not supported", name)
		}
		return b.scalarInFrom(name, call.Exprs[2:2+n], column, defs, s)
	}
	fn, coerced, ret, err := b.resolveRoutine(name, fns, args)
	if err != nil {
		return nil, err
	}
	if fn.Kind == "p" {
		e := pgerror.Newf(pgerror.WrongObjectType, "%s(%s) is a procedure", name, typeList(args))
		e.Hint = "To call a procedure, use CALL."
		return nil, e
	}
	cols, err := b.routineColumns(fn, ret, column, defs)
	if err != nil {
		return nil, err
	}
	if ordinality {
		cols = append(cols, Column{Name: "ordinality", T: tInt8})
	}
	return &TableFunc{Name: RoutinePrefix + name, Args: append([]Expr{routineOID(fn)}, coerced...), Ordinality: ordinality, Cols: cols}, nil
}

// columnDefList binds a column definition list that travels as pairs
// 'name', NULL::type.
func (b *binder) columnDefList(pairs []sqlparser.Expr, s *scope) ([]Column, error) {
	var cols []Column
	for i := 0; i+1 < len(pairs); i += 2 {
		lit, ok := pairs[i].(*sqlparser.Literal)
		if !ok {
			return nil, pgerror.New(pgerror.Internal, "malformed column definition list")
		}
		x, err := b.expr(pairs[i+1], s)
		if err != nil {
			return nil, err
		}
		cols = append(cols, Column{Name: lit.Val, T: x.Type()})
	}
	return cols, nil
}

// routineColumns are the columns fn's rows have in FROM: a table's
// columns for its row type, its OUT arguments (RETURNS TABLE's columns),
// a column definition list for a record, or one column named column.
func (b *binder) routineColumns(fn *catalog.Function, ret types.T, column string, defs []Column) ([]Column, error) {
	out := fn.OutputArgs()
	if cols := RowTypeColumns(b.p.Catalog, b.p.DB, fn.Returns); cols != nil && len(out) == 0 {
		if defs != nil {
			return nil, pgerror.New(pgerror.SyntaxError, "a column definition list is only allowed for functions returning \"record\"")
		}
		return cols, nil
	}
	switch {
	case len(out) > 1:
		if defs != nil {
			return nil, pgerror.New(pgerror.SyntaxError, "a column definition list is redundant for a function with OUT parameters")
		}
		cols := make([]Column, len(out))
		for i, a := range out {
			t, _, err := b.p.RoutineType(a.Type)
			if err != nil {
				return nil, err
			}
			if t.Family == types.Unknown {
				return nil, pgerror.New(pgerror.FeatureNotSupported, "polymorphic OUT arguments are not supported")
			}
			name := a.Name
			if name == "" {
				name = "column" + strconv.Itoa(i+1)
			}
			cols[i] = Column{Name: name, T: t}
		}
		return cols, nil
	case fn.Returns == "record" && len(out) == 0:
		if defs == nil {
			return nil, pgerror.New(pgerror.SyntaxError, "a column definition list is required for functions returning \"record\"")
		}
		return defs, nil
	case defs != nil:
		return nil, pgerror.New(pgerror.SyntaxError, "a column definition list is only allowed for functions returning \"record\"")
	}
	if len(out) == 1 {
		t, _, err := b.p.RoutineType(out[0].Type)
		if err != nil {
			return nil, err
		}
		ret = t
		if column == fn.Name && out[0].Name != "" {
			column = out[0].Name
		}
	}
	return []Column{{Name: column, T: ret}}, nil
}

// scalarInFrom plans a built-in function in FROM as its one row:
// FROM upper('x') AS u is SELECT upper('x') AS u.
func (b *binder) scalarInFrom(name string, args []sqlparser.Expr, column string, defs []Column, s *scope) (Node, error) {
	if defs != nil {
		return nil, pgerror.New(pgerror.SyntaxError, "a column definition list is only allowed for functions returning \"record\"")
	}
	x, err := b.call(name, args, &scope{parent: s.parent, owner: s, aggContext: "FROM"})
	if err != nil {
		return nil, err
	}
	if x.Type().Family == types.Unknown {
		x = &Cast{X: x, T: tText}
	}
	return &Values{Rows: [][]Expr{{x}}, Cols: []Column{{Name: column, T: x.Type()}}}, nil
}

// routineArgParam resolves an unqualified (or function-qualified) name
// to a parameter of the function body being planned (Planner.ArgNames),
// after the query's own columns: PostgreSQL's rule for SQL functions.
func (b *binder) routineArgParam(qualifier, name string) (Expr, bool) {
	if qualifier != "" && qualifier != b.p.RoutineName {
		// A PL/pgSQL record's field travels as a parameter named
		// rec.field.
		for i, a := range b.p.ArgNames {
			if len(a) == len(qualifier)+1+len(name) && a == qualifier+"."+name {
				return b.param(i + 1), true
			}
		}
		return nil, false
	}
	for i, a := range b.p.ArgNames {
		if a != "" && a == name {
			return b.param(i + 1), true
		}
	}
	return nil, false
}

// routineFromCall recognises the dialect layer's form of a function call
// in FROM (parse.MarkerRoutine) and returns the call and its column name.
func routineFromCall(sel *sqlparser.Select) (call *sqlparser.FuncExpr, column string, ordinality, ok bool) {
	if sel.SelectExprs == nil || len(sel.SelectExprs.Exprs) < 1 || len(sel.SelectExprs.Exprs) > 2 || sel.Where != nil || sel.GroupBy != nil {
		return nil, "", false, false
	}
	if len(sel.SelectExprs.Exprs) == 2 {
		o, isAliased := sel.SelectExprs.Exprs[1].(*sqlparser.AliasedExpr)
		if !isAliased {
			return nil, "", false, false
		}
		if c, isCol := o.Expr.(*sqlparser.ColName); !isCol || c.Name.Lowered() != parse.MarkerOrdinality {
			return nil, "", false, false
		}
		ordinality = true
	}
	ae, isAliased := sel.SelectExprs.Exprs[0].(*sqlparser.AliasedExpr)
	if !isAliased {
		return nil, "", false, false
	}
	f, isFunc := ae.Expr.(*sqlparser.FuncExpr)
	if !isFunc || f.Name.Lowered() != parse.MarkerRoutine {
		return nil, "", false, false
	}
	return f, ae.As.String(), ordinality, true
}

// RoutineCalls returns the OIDs of the user-defined functions plan n
// calls, in its expressions, its subqueries and its FROM items.
func RoutineCalls(n Node) []uint64 {
	var ids []uint64
	visited := map[Node]bool{}
	var walkPlan func(n Node)
	walkPlan = func(n Node) {
		if n == nil || visited[n] {
			return
		}
		visited[n] = true
		if tf, ok := n.(*TableFunc); ok {
			if _, ok := RoutineName(tf.Name); ok {
				ids = append(ids, RoutineID(tf.Args))
			}
		}
		for _, e := range nodeExprs(n) {
			walkExpr(e, func(x Expr) bool {
				switch x := x.(type) {
				case *Func:
					if _, ok := RoutineName(x.Name); ok {
						ids = append(ids, RoutineID(x.Args))
					}
				case *Subquery:
					walkPlan(x.Plan)
				}
				return true
			})
		}
		for _, c := range n.Children() {
			walkPlan(c)
		}
	}
	walkPlan(n)
	return ids
}

// Assignable reports whether a value of type from can be stored as type
// to (an assignment cast exists): a SQL function's result is converted
// so to its declared type.
func Assignable(from, to types.T) bool {
	_, err := assign(&Param{N: 1, T: from}, to)
	return err == nil
}

// routineSRFSelect rewrites a query whose select list has a call of a
// set-returning SQL function as a whole item (SELECT f(x) FROM t: one
// output row per row the function returns, per input row) into the same
// query over FROM t, LATERAL (the call as a FROM item), the item reading
// its column, as srfSelect does for unnest. ok is false when the list has
// no such item.
func (b *binder) routineSRFSelect(sel *sqlparser.Select) (out *sqlparser.Select, ok bool, err error) {
	if sel.SelectExprs == nil {
		return nil, false, nil
	}
	at := -1
	for i, se := range sel.SelectExprs.Exprs {
		ae, isAliased := se.(*sqlparser.AliasedExpr)
		if !isAliased {
			continue
		}
		f, isFunc := ae.Expr.(*sqlparser.FuncExpr)
		if !isFunc || !f.Qualifier.IsEmpty() || !b.setReturning(f.Name.Lowered()) {
			continue
		}
		if at >= 0 {
			return nil, true, pgerror.New(pgerror.FeatureNotSupported, "more than one set-returning function in a select list is not supported")
		}
		at = i
	}
	if at < 0 {
		return nil, false, nil
	}
	if sel.GroupBy != nil || sel.Having != nil {
		return nil, true, pgerror.New(pgerror.FeatureNotSupported, "set-returning functions in a grouped query are not supported")
	}
	ae := sel.SelectExprs.Exprs[at].(*sqlparser.AliasedExpr)
	f := ae.Expr.(*sqlparser.FuncExpr)
	fname := f.Name.Lowered()
	args := append([]sqlparser.Expr{sqlparser.NewStrLiteral(fname), sqlparser.NewIntLiteral(strconv.Itoa(len(f.Exprs)))}, f.Exprs...)
	call := &sqlparser.FuncExpr{Name: sqlparser.NewIdentifierCI(parse.MarkerRoutine), Exprs: args}
	cp := withLateralSRF(sel, []sqlparser.SelectExpr{&sqlparser.AliasedExpr{Expr: call, As: sqlparser.NewIdentifierCI(srfColumn)}}) // array.go
	exprs := append([]sqlparser.SelectExpr(nil), sel.SelectExprs.Exprs...)
	name := ae.As
	if name.IsEmpty() {
		name = sqlparser.NewIdentifierCI(fname)
	}
	exprs[at] = &sqlparser.AliasedExpr{Expr: sqlparser.NewColNameWithQualifier(srfColumn, sqlparser.NewTableName(srfAlias)), As: name}
	cp.SelectExprs = &sqlparser.SelectExprs{Exprs: exprs}
	return &cp, true, nil
}

// setReturning reports whether name is a set-returning SQL function of
// one column (a SETOF function whose every overload is one).
func (b *binder) setReturning(name string) bool {
	fns := b.p.Catalog.FunctionsNamed(b.p.DB, name)
	for _, fn := range fns {
		if !fn.RetSet || len(fn.OutputArgs()) > 1 || fn.Returns == "record" {
			return false
		}
	}
	return len(fns) > 0
}

// RowTypeColumns returns the columns of the table whose name a routine's
// type is (RETURNS SETOF tablename: the table's row type), or nil when
// the name is no table of db.
func RowTypeColumns(cat *catalog.Catalog, db, name string) []Column {
	t, err := cat.Table(db, name)
	if err != nil {
		return nil
	}
	cols, _ := visibleColumns(t)
	out := make([]Column, len(cols))
	for i, c := range cols {
		out[i] = Column{Name: c.Name, T: c.Type}
	}
	return out
}

// CheckDefault binds an argument's DEFAULT expression text as CREATE
// FUNCTION checks it: 42703 for a column reference, 42804 for a value
// its argument's type does not take.
func (p *Planner) CheckDefault(text, typeName string) error {
	t, poly, err := p.RoutineType(typeName)
	if err != nil || poly != 0 {
		return err
	}
	_, err = (&binder{p: p}).routineDefault(text, t)
	return err
}
