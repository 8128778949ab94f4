package planner

import (
	"slices"
	"strings"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"vitess.io/vitess/go/vt/sqlparser"
)

func (b *binder) funcExpr(e *sqlparser.FuncExpr, s *scope) (Expr, error) {
	name := e.Name.Lowered()
	if isAggregate(name) {
		name = aggAlias(name)
		call := AggCall{Func: name}
		if name == "string_agg" {
			call.T = tText
		}
		return b.aggregate(s, call, e.Exprs)
	}
	if len(b.userAggregates(name)) > 0 {
		return b.aggregate(s, AggCall{Func: name, User: &UserAgg{}}, e.Exprs) // useragg.go
	}
	if name == parse.MarkerSortUsing && len(e.Exprs) == 2 {
		op, _ := e.Exprs[0].(*sqlparser.Literal)
		if op == nil {
			return nil, pgerror.New(pgerror.Internal, "malformed ORDER BY USING")
		}
		err := pgerror.Newf(pgerror.WrongObjectType, "operator %s is not a valid ordering operator", op.Val)
		err.Hint = `Ordering operators must be "<" or ">" members of btree operator families.`
		return nil, err
	}
	if name == parse.MarkerRow {
		return b.rowConstructor(sqlparser.ValTuple(e.Exprs), s) // usertype.go
	}
	if (name == parse.MarkerAny || name == parse.MarkerAll) && len(e.Exprs) == 1 {
		return nil, b.anyAllMisused(e.Exprs[0], s) // array.go
	}
	if typeFuncs[name] && len(e.Exprs) == 1 {
		// float8(x), int4(x), ...: PostgreSQL's cast functions. (Where
		// no cast exists, PostgreSQL has no such function: 42883 there,
		// the cast's 42846 here.)
		return b.cast(e.Exprs[0], &sqlparser.ConvertType{Type: name}, s)
	}
	if (name == "jsonb_populate_record" || name == "json_populate_record") && len(e.Exprs) == 2 {
		return b.populateScalar(name, e.Exprs, s) // usertype.go
	}
	if name == parse.MarkerField && len(e.Exprs) == 2 {
		return b.fieldSelect(e.Exprs[0], e.Exprs[1], s) // usertype.go
	}
	if name == parse.MarkerFieldStar {
		return nil, pgerror.New(pgerror.FeatureNotSupported, "(x).* is supported only as a select-list item")
	}
	if name == parse.MarkerAggFilter && len(e.Exprs) == 2 {
		return b.filteredAggregate(e.Exprs[0], e.Exprs[1], s)
	}
	if name == parse.MarkerArraySub && len(e.Exprs) == 1 {
		if sq, ok := e.Exprs[0].(*sqlparser.Subquery); ok {
			return b.subquery(SubArray, sq, nil, "", false, s)
		}
	}
	if name == parse.MarkerNullOf && len(e.Exprs) == 1 {
		x, err := b.expr(e.Exprs[0], s)
		if err != nil {
			return nil, err
		}
		return &Const{Value: types.Null, T: x.Type()}, nil
	}
	if name == parse.MarkerJSONObject {
		name = "json_object"
	}
	if name == parse.MarkerWholeRow && len(e.Exprs) == 1 {
		return b.wholeRowStar(e.Exprs[0], s) // usertype.go
	}
	if name == parse.MarkerVariadic && len(e.Exprs) == 1 {
		x, err := b.expr(e.Exprs[0], s)
		if err != nil {
			return nil, err
		}
		return &Func{Name: name, Args: []Expr{x}, T: x.Type()}, nil
	}
	return b.call(name, e.Exprs, s)
}

// call binds a scalar function call.
func (b *binder) call(name string, args []sqlparser.Expr, s *scope) (Expr, error) {
	if len(args) == 2 && (name == "~" || name == "~*" || name == "!~" || name == "!~*") {
		if f, ok := anyAllMarker(args[1]); ok {
			return b.patternAnyAll(name, args[0], f, s) // x ~ ANY (patterns): array.go
		}
	}
	bound := make([]Expr, len(args))
	argTypes := make([]types.T, len(args))
	for i, a := range args {
		x, err := b.expr(a, s)
		if err != nil {
			return nil, err
		}
		bound[i], argTypes[i] = x, x.Type()
	}
	return b.callBound(name, bound, argTypes, s)
}

// callBound binds a scalar function call whose arguments are bound.
func (b *binder) callBound(name string, bound []Expr, argTypes []types.T, s *scope) (Expr, error) {
	if x, ok, err := b.routineCall(name, bound); ok { // routine.go
		return x, err
	}
	switch name {
	case "pg_typeof":
		if len(bound) == 1 {
			if name := b.columnDomainName(bound[0], s); name != "" { // usertype.go
				return &Const{Value: types.NewText(name), T: tText}, nil
			}
			t := argTypes[0]
			// A regtype: the type's OID, no modifier.
			if t.Enum != nil || t.Comp != nil && t.Comp.OID != types.Record.OID() {
				return &Const{Value: types.NewText(t.String()), T: tText}, nil
			}
			return &Const{Value: types.NewText(FormatTypeName(columnTypeOID(t))), T: tText}, nil
		}
	case "format_type":
		if x, ok, err := b.formatTypeCall(bound); ok { // enum.go
			return x, err
		}
	case "pg_type_is_visible":
		if x, ok, err := b.typeVisibleCall(bound); ok { // enum.go
			return x, err
		}
	case "pg_cancel_backend", "pg_terminate_backend":
		return bindSignal(name, bound) // pgcatalog_stat.go
	case "pg_advisory_lock", "pg_advisory_lock_shared", "pg_try_advisory_lock", "pg_try_advisory_lock_shared",
		"pg_advisory_xact_lock", "pg_advisory_xact_lock_shared", "pg_try_advisory_xact_lock", "pg_try_advisory_xact_lock_shared",
		"pg_advisory_unlock", "pg_advisory_unlock_shared", "pg_advisory_unlock_all":
		return bindAdvisory(name, bound) // pgcatalog_stat.go
	case "current_database", "current_user", "session_user", "version":
		if len(bound) == 0 {
			return &Func{Name: name, T: tText}, nil
		}
	}
	if x, ok := b.schemaFunc(name, bound); ok { // names.go
		return x, nil
	}
	if x, ok, err := enumFunc(name, bound); ok { // enum.go
		return x, err
	}
	if x, ok, err := b.catalogFunc(name, bound); ok { // pgcatalog_funcs.go
		return x, err
	}
	if seqFuncs[name] {
		if err := b.bindSeqArgs(name, bound); err != nil {
			return nil, err
		}
	}
	if name == lowerBoundFunc {
		return lowerBound(bound), nil // array.go
	}
	if name == parse.MarkerSubscript {
		if x, ok, err := catalogSubscript(bound); ok { // array.go
			return x, err
		}
	}
	if name == parse.MarkerInsertTarget && len(bound) == 0 && s.insertTarget != nil {
		return &Const{Value: types.Null, T: *s.insertTarget}, nil
	}
	if name == parse.MarkerSliceOpen && len(bound) == 0 {
		return &Const{Value: types.NewInt(SliceOpen), T: tInt4}, nil
	}
	if name == parse.MarkerSubscript || name == parse.MarkerSlice {
		var err error
		if name, bound, err = flattenSubscripts(name, bound); err != nil { // array.go
			return nil, err
		}
	}
	if t, ok, err := arrayCall(name, bound); ok { // array.go
		if err != nil {
			return nil, err
		}
		if c := constArray(name, bound, t); c != nil {
			return c, nil
		}
		return &Func{Name: name, Args: bound, T: t}, nil
	}
	if x, ok, err := datetimeCall(name, bound); ok { // datetime.go
		return x, err
	}
	if x, ok, err := inetCall(name, bound); ok { // inet.go
		return x, err
	}
	if t, ok, err := jsonCall(name, bound); ok { // json.go
		if err != nil {
			return nil, err
		}
		return &Func{Name: name, Args: bound, T: t}, nil
	}
	t, err := FuncReturnType(name, argTypes)
	if err != nil {
		return nil, err
	}
	switch name {
	case "coalesce", "greatest", "least", "ifnull", "nullif":
		ct := t
		if name == "nullif" {
			ct = nullifType(argTypes[0], argTypes[1])
			if ct.Family == types.Unknown {
				ct = tText
			}
		} else {
			ct = commonTypmod(ct, bound)
			t = ct
		}
		for i := range bound {
			if bound[i], err = coerceResult(bound[i], ct); err != nil {
				return nil, err
			}
		}
		if name == "ifnull" {
			name = "coalesce"
		}
		if name == "nullif" {
			t = ct
		}
	case "scale", "min_scale", "trim_scale", "div", "factorial":
		// Functions of numeric (factorial's bigint): an unknown literal
		// argument is read as a number.
		for i := range bound {
			if bound[i].Type().Family == types.Unknown {
				if bound[i], err = coerce(bound[i], types.T{Family: types.Numeric}); err != nil {
					return nil, err
				}
			} else if !isNumeric(bound[i].Type().Family) {
				return nil, pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, bound[i].Type())
			}
		}
	case "||":
		// Text concatenation (textcat, anytextcat, textanycat) needs a
		// string on one side; bytea, arrays and jsonb were bound above.
		if len(argTypes) == 2 && !concatOperand(argTypes[0]) && !concatOperand(argTypes[1]) {
			e := pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s || %s", argTypes[0], argTypes[1])
			e.Hint = "No operator matches the given name and argument types. You might need to add explicit type casts."
			return nil, e
		}
		for i := range bound {
			if isOIDAlias(bound[i].Type().Family) {
				bound[i] = b.regOutput(bound[i]) // an OID's text is its object's name
			}
		}
	case "float4send", "float8send":
		// The binary send form of real and double precision: the
		// argument converts to its type implicitly, as PostgreSQL's
		// function call would (no double precision for float4send).
		want := types.T{Family: types.Float4}
		if name == "float8send" {
			want = tFloat8
		}
		f := bound[0].Type().Family
		if !(f == types.Unknown || isInteger(f) || f == types.Numeric || f == types.Float4 || f == want.Family) {
			return nil, pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, bound[0].Type())
		}
		if bound[0], err = coerce(bound[0], want); err != nil {
			return nil, err
		}
	case "width_bucket":
		// width_bucket(numeric, numeric, numeric, int) unless a bound or
		// the operand is a float: then the double precision function.
		if len(bound) != 4 {
			return nil, noFunction("width_bucket", bound)
		}
		want := types.T{Family: types.Numeric}
		for i := range bound[:3] {
			f := bound[i].Type().Family
			if f == types.Float4 || f == types.Float8 {
				want = tFloat8
			} else if f != types.Unknown && !isNumeric(f) {
				return nil, noFunction("width_bucket", bound)
			}
		}
		if f := bound[3].Type().Family; f != types.Unknown && !isInteger(f) {
			return nil, noFunction("width_bucket", bound)
		}
		for i := range bound {
			to := want
			if i == 3 {
				to = tInt4
			}
			if bound[i], err = coerce(bound[i], to); err != nil {
				return nil, err
			}
		}
	case "abs", "mod", "round", "trunc", "floor", "ceil", "ceiling", "sign", "sqrt", "power", "pow", "exp", "ln", "log":
		for i := range bound {
			if bound[i].Type().Family == types.Unknown {
				if bound[i], err = coerce(bound[i], numericLiteralType(bound[i], tUnk)); err != nil {
					return nil, err
				}
			} else if !isNumeric(bound[i].Type().Family) {
				return nil, pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, bound[i].Type())
			}
		}
		if name == "abs" || name == "mod" {
			t = bound[0].Type()
			if name == "mod" {
				t = arithType(bound[0].Type(), bound[1].Type())
			}
		}
	default:
		for i := range bound {
			if bound[i].Type().Family == types.Unknown {
				if bound[i], err = coerce(bound[i], tText); err != nil {
					return nil, err
				}
			}
			if bound[i].Type().Family == types.Char && !charKeepsBlanks[name] {
				// A text function sees CHAR(n) as text, trailing blanks
				// removed (bpchar's cast to text).
				bound[i] = &Cast{X: bound[i], T: tText}
			}
		}
	}
	if c := foldStrictFunc(name, t, bound); c != nil {
		return c, nil
	}
	return &Func{Name: name, Args: bound, T: t}, nil
}

// charKeepsBlanks are the functions that see a CHAR(n) value with its
// padding: those that take its output form, and octet_length.
var charKeepsBlanks = map[string]bool{"octet_length": true, "concat": true, "concat_ws": true, "format": true,
	"coalesce": true, "nullif": true, "greatest": true, "least": true, "ifnull": true, "pg_typeof": true}

// orderSensitiveAggs are the built-in aggregates whose result depends on
// their input's order.
var orderSensitiveAggs = map[string]bool{"array_agg": true, "string_agg": true, "json_agg": true, "jsonb_agg": true,
	"json_object_agg": true, "jsonb_object_agg": true}

// aggregate binds an aggregate call and returns a placeholder for its
// result.
func (b *binder) aggregate(s *scope, call AggCall, args []sqlparser.Expr) (Expr, error) {
	return b.aggregateOrdered(s, call, args, nil)
}

// aggregateOrdered binds an aggregate whose input is ordered (string_agg
// with ORDER BY).
func (b *binder) aggregateOrdered(s *scope, call AggCall, args []sqlparser.Expr, orderBy sqlparser.OrderBy) (Expr, error) {
	// The arguments are bound before the aggregate's level is known, as
	// PostgreSQL does: an aggregate whose arguments read only enclosing
	// queries' columns belongs to the nearest of those queries.
	ctx := s.aggContext
	filter := b.aggFilter
	b.aggFilter = nil // not for the aggregates of a subquery in the arguments
	collector, win := s.agg, s.win
	s.agg, s.win = nil, nil // no nested aggregates, no window functions inside
	s.aggContext = "aggregate function calls"
	defer func() { s.agg, s.win = collector, win; s.aggContext = "" }()
	for _, a := range args {
		if _, ok := any(a).(*sqlparser.StarExpr); ok && call.Func == "count" {
			call.Func = "count_star"
			continue
		}
		x, err := b.expr(a, s)
		if err != nil {
			return nil, err
		}
		call.Args = append(call.Args, x)
	}
	for _, o := range orderBy {
		if call.Distinct && !slices.ContainsFunc(args, func(a sqlparser.Expr) bool { return sqlparser.String(a) == sqlparser.String(o.Expr) }) {
			return nil, pgerror.New(pgerror.InvalidColumnReference, "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list")
		}
		x, err := b.expr(o.Expr, s)
		if err != nil {
			return nil, err
		}
		desc := o.Direction == sqlparser.DescOrder
		call.OrderBy = append(call.OrderBy, SortKey{Expr: x, Desc: desc, NullsFirst: desc})
	}
	if call.Distinct && len(call.OrderBy) == 0 && (call.User != nil || orderSensitiveAggs[call.Func]) {
		// PostgreSQL sorts a DISTINCT aggregate's input to find the
		// duplicates: an aggregate that keeps its input's order sees
		// its arguments ascending.
		for _, a := range call.Args {
			call.OrderBy = append(call.OrderBy, SortKey{Expr: a})
		}
	}
	if call.Func == "count" && len(call.Args) == 0 {
		call.Func = "count_star"
	}
	if call.User != nil {
		if err := b.bindUserAgg(&call); err != nil { // useragg.go
			return nil, err
		}
	} else if err := aggType(&call); err != nil {
		return nil, err
	}
	if filter != nil {
		s.aggContext = "FILTER"
		cond, err := b.boolExpr(filter, s)
		if err != nil {
			return nil, err
		}
		if err := filterCall(&call, cond); err != nil {
			return nil, err
		}
	}
	level, err := aggLevel(&call)
	if err != nil {
		return nil, err
	}
	if level > 0 {
		return outerAggregate(s, call, level)
	}
	if collector == nil {
		return nil, aggNotAllowed(ctx)
	}
	return collector.add(call), nil
}

// aggNotAllowed is the error for an aggregate where ctx (a clause) has
// none.
func aggNotAllowed(ctx string) error {
	if ctx == "aggregate function calls" {
		return pgerror.New(pgerror.GroupingError, "aggregate function calls cannot be nested")
	}
	if ctx == "" {
		ctx = "this context"
	}
	return pgerror.Newf(pgerror.GroupingError, "aggregate functions are not allowed in %s", ctx)
}

// aggLevel is the query level an aggregate call bound in a subquery
// belongs to, as PostgreSQL decides it: the nearest enclosing query its
// arguments (FILTER included) read a column or an aggregate of, 0 when
// they read the subquery's own row or nothing at all. An aggregate of
// that level inside the arguments is 42803.
func aggLevel(call *AggCall) (int, error) {
	exprs := append([]Expr{}, call.Args...)
	for _, k := range call.OrderBy {
		exprs = append(exprs, k.Expr)
	}
	varLevel, aggLevel := -1, -1
	lower := func(cur, l int) int {
		if cur < 0 || l < cur {
			return l
		}
		return cur
	}
	visit := func(c *ColRef, depth int) (Expr, error) {
		if c.Agg {
			aggLevel = lower(aggLevel, c.Outer-depth)
		} else {
			varLevel = lower(varLevel, c.Outer-depth)
		}
		return c, nil
	}
	seen := map[Node]bool{}
	for _, e := range exprs {
		_, _ = mapExprRefs(e, 0, visit, seen)
	}
	level := varLevel
	if aggLevel >= 0 {
		level = lower(level, aggLevel)
	}
	level = max(level, 0)
	if aggLevel == level {
		return 0, pgerror.New(pgerror.GroupingError, "aggregate function calls cannot be nested")
	}
	return level, nil
}

// outerAggregate hands call, bound in s but reading only the columns of
// the query level levels out, to that query's aggregates, as PostgreSQL
// does: SELECT (SELECT max(o.x) FROM i) FROM o is one row, the maximum
// over o. Inside s it reads as an outer reference to that aggregate,
// which the enclosing query's grouping points at its Aggregate's output.
func outerAggregate(s *scope, call AggCall, level int) (Expr, error) {
	owner := s
	for range level {
		owner = owner.parent
	}
	if owner.agg == nil {
		return nil, aggNotAllowed(owner.aggContext)
	}
	shift := func(c *ColRef, depth int) (Expr, error) {
		moved := *c
		moved.Outer -= level
		return &moved, nil
	}
	seen := map[Node]bool{}
	for i := range call.Args {
		call.Args[i], _ = mapExprRefs(call.Args[i], 0, shift, seen)
	}
	for i := range call.OrderBy {
		call.OrderBy[i].Expr, _ = mapExprRefs(call.OrderBy[i].Expr, 0, shift, seen)
	}
	s.markCorrelated(owner)
	ref := owner.agg.add(call)
	return &ColRef{Index: ref.i, Outer: level, T: call.T, Name: aggString(call), Agg: true}, nil
}

// concatOperand reports whether a value of type t makes || text
// concatenation: a string, or a literal of no type yet.
func concatOperand(t types.T) bool {
	return isText(t.Family) || t.Family == types.Unknown || t.Family == types.Bytea
}

// aggAlias is the aggregate an alias stands for (every is bool_and), or
// name itself.
func aggAlias(name string) string {
	switch name {
	case "every":
		return "bool_and"
	case "group_concat":
		return "string_agg"
	case "total":
		return "sum"
	case "stddev":
		return "stddev_samp"
	case "variance":
		return "var_samp"
	}
	return name
}

// typeFuncs are the type names PostgreSQL also has as one-argument
// functions converting to the type.
var typeFuncs = map[string]bool{"int2": true, "int4": true, "int8": true, "float4": true, "float8": true}

// filteredAggregate binds call FILTER (WHERE cond): call must be an
// aggregate, which takes cond from b.aggFilter.
func (b *binder) filteredAggregate(call, cond sqlparser.Expr, s *scope) (Expr, error) {
	b.aggFilter = cond
	x, err := b.expr(call, s)
	if err != nil {
		b.aggFilter = nil
		return nil, err
	}
	if b.aggFilter != nil {
		b.aggFilter = nil
		return nil, pgerror.Newf(pgerror.WrongObjectType, "FILTER specified, but %s is not an aggregate function", columnName(call))
	}
	return x, nil
}

// nonStrictAggs are the aggregates that collect NULL inputs, which a
// NULL cannot filter.
var nonStrictAggs = map[string]bool{"array_agg": true, "json_agg": true, "jsonb_agg": true,
	"json_object_agg": true, "jsonb_object_agg": true, "percentile_cont": true, "percentile_disc": true, "mode": true}

// filterCall applies FILTER (WHERE cond) to an aggregate call. One that
// skips rows with a NULL input reads CASE WHEN cond THEN input END, so
// the rows cond does not accept are skipped (count(*) counts cond's TRUE
// rows); one that keeps NULLs takes cond as a last argument the executor
// tests (Filtered).
func filterCall(call *AggCall, cond Expr) error {
	if nonStrictAggs[call.Func] || call.User != nil {
		call.Args = append(call.Args, cond)
		call.Filtered = true
		return nil
	}
	guard := func(x Expr) Expr {
		return &Case{Whens: []When{{Cond: cond, Val: x}}, T: x.Type()}
	}
	if call.Func == "count_star" {
		call.Func = "count"
		call.Args = []Expr{&Const{Value: types.NewBool(true), T: tBool}}
	}
	for i, a := range call.Args {
		call.Args[i] = guard(a)
	}
	for i, k := range call.OrderBy {
		call.OrderBy[i].Expr = guard(k.Expr)
	}
	return nil
}

// hypotheticalType types a hypothetical-set aggregate, rank(v) WITHIN
// GROUP (ORDER BY x) with Args [x, v]: v takes x's type (text when both
// are unknown); rank and dense_rank are bigint, the others float8.
func hypotheticalType(call *AggCall) error {
	if len(call.Args) != 2 || len(call.OrderBy) != 1 {
		return pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", call.Func, typeList(call.Args))
	}
	x, v := call.Args[0], call.Args[1]
	t := x.Type()
	if t.Family == types.Unknown {
		t = v.Type()
	}
	if t.Family == types.Unknown {
		t = tText
	}
	var err error
	if call.Args[0], err = coerce(x, t); err != nil {
		return err
	}
	if call.OrderBy[0].Expr, err = coerce(call.OrderBy[0].Expr, t); err != nil {
		return err
	}
	if v.Type().Family != types.Unknown && !comparableTypes(v.Type(), t) {
		return pgerror.Newf(pgerror.DatatypeMismatch, "WITHIN GROUP types %s and %s cannot be matched", t, v.Type())
	}
	if call.Args[1], err = coerce(v, t); err != nil {
		return err
	}
	call.T = tFloat8
	if call.Func == "rank" || call.Func == "dense_rank" {
		call.T = tInt8
	}
	return nil
}

func oneArg(call AggCall) error {
	if len(call.Args) != 1 {
		return pgerror.Newf(pgerror.UndefinedFunction, "function %s requires one argument", call.Func)
	}
	return nil
}

// subquery plans a nested query used as a value.
func (b *binder) subquery(kind SubqueryKind, sq *sqlparser.Subquery, left sqlparser.Expr, op string, not bool, s *scope) (Expr, error) {
	inner := &scope{parent: s}
	plan, err := b.selectStatement(sq.Select, inner)
	if err != nil {
		return nil, err
	}
	cols := plan.Columns()
	if inner.correlated {
		b.memoizeScans(plan)
	}
	out := &Subquery{Kind: kind, Plan: plan, Op: op, Not: not, Correlated: inner.correlated, T: tBool}
	switch kind {
	case SubExists:
		return out, nil
	case SubScalar, SubArray:
		if len(cols) != 1 {
			return nil, pgerror.New(pgerror.SyntaxError, "subquery must return only one column")
		}
		out.T = cols[0].T
		if out.T.Family == types.Unknown {
			out.T = tText
		}
		if kind == SubArray && !out.T.IsArray() {
			out.T = types.ArrayOf(out.T) // an array of arrays is multidimensional
		}
		return out, nil
	}
	if len(cols) != 1 {
		return nil, pgerror.New(pgerror.SyntaxError, "subquery has too many columns")
	}
	x, err := b.expr(left, s)
	if err != nil {
		return nil, err
	}
	if !comparableTypes(x.Type(), cols[0].T) {
		err = pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s = %s", x.Type(), cols[0].T)
	} else {
		t := compareType(x.Type(), cols[0].T)
		if t.Family == types.Unknown {
			t = tText
		}
		var cx Expr
		if cx, err = coerceCompare(x, t); err == nil {
			out.X = cx
			col := &ColRef{Index: 0, T: cols[0].T, Name: cols[0].Name}
			if cc, cerr := coerceCompare(col, t); cerr == nil && cc != Expr(col) {
				// The subquery's integers are compared in float8.
				out.Plan = &Project{Input: plan, Cols: []Column{{Name: cols[0].Name, T: cc.Type()}}, Exprs: []Expr{cc}}
			}
			return out, nil
		}
	}
	if c, ok := x.(*Const); ok && kind == SubIn && !c.Value.IsNull() {
		// A constant that is no value of the subquery's type equals none
		// of its rows: compared as text, it matches nothing, and NULL
		// rows still make IN NULL (SQLite's answer; PostgreSQL raises
		// 22P02 or 42883: docs/conformance.md).
		out.X = asText(x)
		out.Plan = &Project{Input: plan, Cols: []Column{{Name: cols[0].Name, T: tText}},
			Exprs: []Expr{&Cast{X: &ColRef{Index: 0, T: cols[0].T, Name: cols[0].Name}, T: tText}}}
		return out, nil
	}
	return nil, err
}

// aggType checks an aggregate call's arguments, coercing them where
// PostgreSQL would, and sets its result type.
func aggType(call *AggCall) error {
	var err error
	switch call.Func {
	case "count", "count_star":
		call.T = tInt8
	case "sum":
		if err := oneArg(*call); err != nil {
			return err
		}
		x := call.Args[0]
		if x.Type().Family == types.Unknown {
			if call.Args[0], err = coerce(x, tFloat8); err != nil {
				return err
			}
		}
		switch f := call.Args[0].Type().Family; {
		case f == types.Int8, f == types.Numeric:
			call.T = types.T{Family: types.Numeric}
		case isInteger(f):
			call.T = tInt8
		case isNumeric(f):
			call.T = call.Args[0].Type()
		case f == types.Interval:
			call.T = tInterval
		default:
			return pgerror.Newf(pgerror.UndefinedFunction, "function sum(%s) does not exist", call.Args[0].Type())
		}
	case "avg":
		if err := oneArg(*call); err != nil {
			return err
		}
		if call.Args[0].Type().Family == types.Unknown {
			if call.Args[0], err = coerce(call.Args[0], tFloat8); err != nil {
				return err
			}
		}
		if call.Args[0].Type().Family == types.Interval {
			call.T = tInterval
			break
		}
		if !isNumeric(call.Args[0].Type().Family) {
			return pgerror.Newf(pgerror.UndefinedFunction, "function avg(%s) does not exist", call.Args[0].Type())
		}
		call.T = tFloat8
		if isInteger(call.Args[0].Type().Family) || call.Args[0].Type().Family == types.Numeric {
			call.T = types.T{Family: types.Numeric}
		}
	case "stddev_samp", "stddev_pop", "var_samp", "var_pop":
		if err := oneArg(*call); err != nil {
			return err
		}
		if call.Args[0].Type().Family == types.Unknown {
			if call.Args[0], err = coerce(call.Args[0], tFloat8); err != nil {
				return err
			}
		}
		switch f := call.Args[0].Type().Family; {
		case isInteger(f), f == types.Numeric:
			call.T = types.T{Family: types.Numeric}
		case isFloat(f):
			call.T = tFloat8
		default:
			return pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", call.Func, call.Args[0].Type())
		}
	case "corr", "covar_pop", "covar_samp", "regr_count", "regr_sxx", "regr_syy", "regr_sxy",
		"regr_avgx", "regr_avgy", "regr_r2", "regr_slope", "regr_intercept":
		// Only (double precision, double precision) exists: other numbers
		// are cast to it, as PostgreSQL's implicit casts do.
		if len(call.Args) != 2 {
			return noFunction(call.Func, call.Args)
		}
		for i, a := range call.Args {
			if f := a.Type().Family; f != types.Unknown && !isNumeric(f) {
				return noFunction(call.Func, call.Args)
			}
			if call.Args[i], err = coerce(a, tFloat8); err != nil {
				return err
			}
		}
		call.T = tFloat8
		if call.Func == "regr_count" {
			call.T = tInt8
		}
	case "min", "max":
		if err := oneArg(*call); err != nil {
			return err
		}
		if call.Args[0].Type().Family == types.Unknown {
			if call.Args[0], err = coerce(call.Args[0], tText); err != nil {
				return err
			}
		}
		call.T = call.Args[0].Type()
		if isJSON(call.T.Family) {
			return pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", call.Func, call.T)
		}
	case "percentile_cont", "percentile_disc", "mode":
		want := 2
		if call.Func == "mode" {
			want = 1
		}
		if len(call.Args) != want {
			return pgerror.Newf(pgerror.UndefinedFunction, "function %s needs %d direct argument(s) and WITHIN GROUP (ORDER BY x)", call.Func, want-1)
		}
		x := call.Args[0]
		direct := ""
		fractions := false // an array of fractions: an array of percentiles
		if want == 2 {
			direct = call.Args[1].Type().String() + ", "
			if call.Args[1].Type().Family == types.Unknown {
				direct = "unknown, "
			}
			ft := tFloat8
			if fractions = call.Args[1].Type().IsArray(); fractions {
				ft = types.ArrayOf(tFloat8)
			}
			fraction, err := coerce(call.Args[1], ft)
			if err != nil {
				return pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s%s) does not exist", call.Func, direct, x.Type())
			}
			call.Args[1] = fraction
		}
		switch {
		case call.Func == "percentile_cont":
			if x.Type().Family == types.Unknown || isNumeric(x.Type().Family) {
				if call.Args[0], err = coerce(x, tFloat8); err != nil {
					return err
				}
			} else {
				e := pgerror.Newf(pgerror.UndefinedFunction, "function percentile_cont(%s%s) does not exist", direct, x.Type())
				e.Hint = "No function matches the given name and argument types. You might need to add explicit type casts."
				return e
			}
			call.T = tFloat8
		case x.Type().Family == types.Unknown:
			if call.Args[0], err = coerce(x, tText); err != nil {
				return err
			}
			call.T = tText
		default:
			call.T = x.Type()
		}
		if fractions {
			call.T = types.ArrayOf(call.T)
		}
	case "rank", "dense_rank", "percent_rank", "cume_dist":
		return hypotheticalType(call)
	case "array_agg":
		if err := oneArg(*call); err != nil {
			return err
		}
		if call.Args[0].Type().Family == types.Unknown {
			if call.Args[0], err = coerce(call.Args[0], tText); err != nil {
				return err
			}
		}
		call.T = call.Args[0].Type()
		if !call.T.IsArray() {
			call.T = types.ArrayOf(call.T) // of arrays: multidimensional
		}
		if call.Distinct && len(call.OrderBy) == 0 {
			// PostgreSQL sorts a DISTINCT aggregate's input.
			call.OrderBy = []SortKey{{Expr: call.Args[0]}}
		}
	case "jsonb_agg", "json_agg", "jsonb_object_agg", "json_object_agg":
		n := 1
		if strings.HasSuffix(call.Func, "object_agg") {
			n = 2
		}
		if len(call.Args) != n {
			return pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", call.Func, typeList(call.Args))
		}
		for i := range call.Args {
			if call.Args[i].Type().Family == types.Unknown {
				if call.Args[i], err = coerce(call.Args[i], tText); err != nil {
					return err
				}
			}
		}
		call.T = tJSON
		if strings.HasPrefix(call.Func, "jsonb") {
			call.T = tJSONB
		}
		if call.Distinct && len(call.OrderBy) == 0 {
			call.OrderBy = []SortKey{{Expr: call.Args[0]}}
		}
	case "string_agg":
		if len(call.Args) != 2 {
			return pgerror.New(pgerror.UndefinedFunction, "function string_agg requires two arguments")
		}
		// string_agg(bytea, bytea) joins bytes, an untyped literal or NULL
		// taking the other's type; bytea with anything else has no form.
		// Every other value is text (kvsql also joins non-text values as
		// text, for SQLite's group_concat, which is bound as string_agg).
		t := tText
		if call.Args[0].Type().Family == types.Bytea {
			t = tBytea
		}
		for _, a := range call.Args {
			if f := a.Type().Family; f != types.Unknown && (f == types.Bytea) != (t.Family == types.Bytea) {
				return noFunction("string_agg", call.Args)
			}
		}
		for i := range call.Args {
			if call.Args[i], err = assign(call.Args[i], t); err != nil {
				return err
			}
		}
		call.T = t
	case "bool_and", "bool_or":
		if err := oneArg(*call); err != nil {
			return err
		}
		if call.Args[0], err = coerceBool(call.Args[0]); err != nil {
			return err
		}
		call.T = tBool
	}
	return nil
}

// modifiedAggregate binds name(DISTINCT args ORDER BY keys), which the
// dialect layer spells as vitess's group_concat with name in the
// separator (parse.MarkerOrderedAgg).
func (b *binder) modifiedAggregate(s *scope, name string, e *sqlparser.GroupConcatExpr, args []sqlparser.Expr) (Expr, error) {
	if !b.isAgg(name) {
		what := "DISTINCT"
		if !e.Distinct {
			what = "ORDER BY"
		}
		return nil, pgerror.Newf(pgerror.WrongObjectType, "%s specified, but %s is not an aggregate function", what, name)
	}
	call := AggCall{Func: aggAlias(name), Distinct: e.Distinct}
	if !isAggregate(name) {
		call = AggCall{Func: name, Distinct: e.Distinct, User: &UserAgg{}}
	}
	return b.aggregateOrdered(s, call, args, e.OrderBy)
}
