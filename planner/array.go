package planner

import (
	"errors"
	"math"
	"slices"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"vitess.io/vitess/go/vt/sqlparser"
)

// Arrays: ARRAY[...], subscripts and slices (the dialect layer's marker
// calls), the array operators and functions, typed as PostgreSQL's
// polymorphic anyarray/anyelement signatures resolve them; eval runs them
// (exec/eval/array.go).

// arrayCall types an array constructor, subscript, operator or function
// call, coercing its arguments; ok is false for other names, and for the
// operators @> <@ || when no operand is an array.
func arrayCall(name string, args []Expr) (t types.T, ok bool, err error) {
	fail := func() (types.T, bool, error) {
		return t, true, pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, typeList(args))
	}
	// arr makes args[i] an array: an untyped literal or parameter becomes
	// an array of elem (text when elem is unknown too), a text value
	// (pg_catalog's array columns) is read as one.
	arr := func(i int, elem types.T) error {
		at := args[i].Type()
		if at.IsArray() {
			return nil
		}
		if elem.Family == types.Unknown {
			elem = tText
		}
		if at.Family == types.Unknown || isText(at.Family) {
			args[i], err = coerceOrCast(args[i], types.ArrayOf(elem))
			return err
		}
		return pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, typeList(args))
	}
	intArg := func(i int) error {
		args[i], err = coerce(args[i], tInt4)
		if err == nil && !isInteger(args[i].Type().Family) {
			err = pgerror.Newf(pgerror.DatatypeMismatch, "array subscript must have type integer")
		}
		return err
	}
	anyArray := func() bool {
		for _, a := range args {
			if a.Type().IsArray() {
				return true
			}
		}
		return false
	}
	switch name {
	case parse.MarkerArray:
		if anyArray() {
			t, err := subArrays(args)
			return t, true, err
		}
		et := types.T{Family: types.Unknown}
		for _, a := range args {
			if a.Type().Family != types.Unknown {
				if et.Family == types.Unknown {
					et = a.Type()
					continue
				}
				if c := commonType(et, a.Type()); c.Family != types.Unknown {
					et = c
				} else {
					return t, true, pgerror.Newf(pgerror.DatatypeMismatch, "ARRAY types %s and %s cannot be matched", et, a.Type())
				}
			}
		}
		if len(args) == 0 {
			e := pgerror.New("42P18", "cannot determine type of empty array")
			e.Hint = "Explicitly cast to the desired type, for example ARRAY[]::integer[]."
			return t, true, e
		}
		if et.Family == types.Unknown {
			et = tText
		}
		if et.Family == types.Varchar || et.Family == types.Char {
			et.Width = 0
		}
		for i := range args {
			if args[i], err = coerceResult(args[i], et); err != nil {
				return t, true, err
			}
		}
		return types.ArrayOf(et), true, nil
	case parse.MarkerSubscript, parse.MarkerSlice:
		if args[0].Type().Family == types.JSONB {
			t, err := jsonSubscript(name, args) // json.go
			return t, true, err
		}
		if err := arr(0, types.T{}); err != nil {
			return t, true, pgerror.Newf(pgerror.DatatypeMismatch, "cannot subscript type %s because it does not support subscripting", args[0].Type())
		}
		for i := 1; i < len(args); i++ {
			if err := intArg(i); err != nil {
				return t, true, err
			}
		}
		if name == parse.MarkerSlice {
			return args[0].Type(), true, nil
		}
		return args[0].Type().ElemType(), true, nil
	case parse.MarkerSubscriptAssign, parse.MarkerSliceAssign:
		// UPDATE ... SET a[i] = v (the dialect layer's call: a, v, i...)
		// or SET a[lo:hi] = v (a, v, lo, hi...): the array with the
		// element or slice replaced.
		if len(args) < 3 || !args[0].Type().IsArray() {
			return t, false, nil // jsonb's (json.go)
		}
		for i := 2; i < len(args); i++ {
			if err := intArg(i); err != nil {
				return t, true, err
			}
		}
		want := args[0].Type().ElemType()
		if name == parse.MarkerSliceAssign {
			want = args[0].Type()
		}
		if args[1], err = coerceResult(args[1], want); err != nil {
			return t, true, err
		}
		return args[0].Type(), true, nil
	case "@>", "<@", "&&":
		if !anyArray() {
			return t, false, nil
		}
		if err := bothArrays(args); err != nil {
			return t, true, pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s %s %s", args[0].Type(), name, args[1].Type())
		}
		return tBool, true, nil
	case "||":
		if !anyArray() || len(args) != 2 {
			return t, false, nil
		}
		l, r := args[0].Type(), args[1].Type()
		switch {
		case l.IsArray() && r.IsArray(), l.IsArray() && r.Family == types.Unknown, r.IsArray() && l.Family == types.Unknown:
			// An untyped literal beside an array is an array, as
			// PostgreSQL resolves anyarray || unknown.
			if err := bothArrays(args); err != nil {
				return t, true, err
			}
		case l.IsArray():
			if args[1], err = coerceResult(args[1], l.ElemType()); err != nil {
				return t, true, err
			}
		default:
			if args[0], err = coerceResult(args[0], r.ElemType()); err != nil {
				return t, true, err
			}
		}
		if args[0].Type().IsArray() {
			return args[0].Type(), true, nil
		}
		return args[1].Type(), true, nil
	case "array_append", "array_prepend", "array_cat", "array_remove", "array_position", "array_positions", "array_replace":
		ai, ei := 0, 1
		if name == "array_prepend" {
			ai, ei = 1, 0
		}
		want := map[string]int{"array_replace": 3, "array_position": -1}[name]
		if want == 0 {
			want = 2
		}
		if want == -1 && (len(args) < 2 || len(args) > 3) || want > 0 && len(args) != want {
			return fail()
		}
		if name == "array_cat" {
			if err := bothArrays(args); err != nil {
				return fail()
			}
			return args[0].Type(), true, nil
		}
		if err := arr(ai, args[ei].Type()); err != nil {
			return t, true, err
		}
		et := args[ai].Type().ElemType()
		for _, i := range []int{ei, 2} {
			if i < len(args) && !(i == 2 && name == "array_position") {
				if args[i], err = coerceResult(args[i], et); err != nil {
					return t, true, err
				}
			}
		}
		if len(args) == 3 && name == "array_position" {
			if err := intArg(2); err != nil {
				return t, true, err
			}
		}
		switch name {
		case "array_position":
			return tInt4, true, nil
		case "array_positions":
			return types.ArrayOf(tInt4), true, nil
		}
		return args[ai].Type(), true, nil
	case "array_length", "array_lower", "array_upper", "array_ndims", "array_dims", "cardinality":
		n := 2
		if name == "array_ndims" || name == "array_dims" || name == "cardinality" {
			n = 1
		}
		if len(args) != n {
			return fail()
		}
		if err := arr(0, types.T{}); err != nil {
			return t, true, err
		}
		if n == 2 {
			if err := intArg(1); err != nil {
				return t, true, err
			}
		}
		if name == "array_dims" {
			return tText, true, nil
		}
		return tInt4, true, nil
	case "array_fill":
		// array_fill(value, dims int[] [, lower bounds int[]]).
		if len(args) < 2 || len(args) > 3 {
			return fail()
		}
		if args[0].Type().Family == types.Unknown {
			if args[0], err = coerce(args[0], tText); err != nil {
				return t, true, err
			}
		}
		for i := 1; i < len(args); i++ {
			if args[i], err = coerceOrCast(args[i], types.ArrayOf(tInt4)); err != nil || !isInteger(args[i].Type().Elem) {
				return fail()
			}
		}
		return types.ArrayOf(args[0].Type()), true, nil
	case "trim_array":
		if len(args) != 2 {
			return fail()
		}
		if err := arr(0, types.T{}); err != nil {
			return t, true, err
		}
		if err := intArg(1); err != nil {
			return fail()
		}
		return args[0].Type(), true, nil
	case "width_bucket":
		// width_bucket(operand, thresholds): the form over an array; the
		// others are numeric functions.
		if len(args) != 2 || !args[1].Type().IsArray() && args[1].Type().Family != types.Unknown {
			return t, false, nil
		}
		et := args[0].Type()
		if args[1].Type().IsArray() {
			if et = commonType(et, args[1].Type().ElemType()); et.Family == types.Unknown {
				return fail()
			}
		}
		if et.Family == types.Unknown {
			et = tText
		}
		if args[0], err = coerceResult(args[0], et); err != nil {
			return t, true, err
		}
		if args[1], err = coerceOrCast(args[1], types.ArrayOf(et)); err != nil {
			return t, true, err
		}
		return tInt4, true, nil
	case "array_to_string":
		if len(args) < 2 || len(args) > 3 {
			return fail()
		}
		if err := arr(0, types.T{}); err != nil {
			return t, true, err
		}
		for i := 1; i < len(args); i++ {
			if args[i], err = coerce(args[i], tText); err != nil {
				return t, true, err
			}
		}
		return tText, true, nil
	case "string_to_array":
		if len(args) < 2 || len(args) > 3 {
			return fail()
		}
		for i := range args {
			if args[i], err = coerce(args[i], tText); err != nil {
				return t, true, err
			}
		}
		return types.ArrayOf(tText), true, nil
	}
	return t, false, nil
}

// subArrays types ARRAY[sub, ...] whose elements are arrays (or untyped
// literals read as arrays): a multidimensional array of their common
// element type.
func subArrays(args []Expr) (types.T, error) {
	et := types.T{Family: types.Unknown}
	for _, a := range args {
		if !a.Type().IsArray() {
			continue
		}
		if et.Family == types.Unknown {
			et = a.Type().ElemType()
			continue
		}
		c := commonType(et, a.Type().ElemType())
		if c.Family == types.Unknown {
			return types.T{}, pgerror.Newf(pgerror.DatatypeMismatch, "ARRAY types %s and %s cannot be matched", types.ArrayOf(et), a.Type())
		}
		et = c
	}
	at := types.ArrayOf(et)
	for i := range args {
		var err error
		if args[i], err = coerceOrCast(args[i], at); err != nil {
			return types.T{}, err
		}
	}
	return at, nil
}

// flattenSubscripts makes one subscript or slice of an array's chain of
// them, a[i][j:k] (the dialect layer nests a call per bracket): a slice
// if any bracket is one, a plain subscript i then the slice 1:i, as in
// PostgreSQL. Other calls, and subscripts of jsonb, come back as they
// are.
func flattenSubscripts(name string, args []Expr) (string, []Expr, error) {
	in, ok := args[0].(*Func)
	if !ok || in.Name != parse.MarkerSubscript && in.Name != parse.MarkerSlice || !in.Args[0].Type().IsArray() {
		return name, args, nil
	}
	inner, outer := in.Args[1:], args[1:]
	switch inSlice, outSlice := in.Name == parse.MarkerSlice, name == parse.MarkerSlice; {
	case inSlice && !outSlice:
		outer, name = fromOne(outer), parse.MarkerSlice
	case outSlice && !inSlice:
		inner = fromOne(inner)
	}
	out := append(append([]Expr{in.Args[0]}, inner...), outer...)
	n := len(out) - 1
	if name == parse.MarkerSlice {
		n /= 2
	}
	if n > types.MaxArrayDims {
		return name, nil, pgerror.Newf(pgerror.ProgramLimitExceeded, "number of array dimensions (%d) exceeds the maximum allowed (%d)", n, types.MaxArrayDims)
	}
	return name, out, nil
}

// fromOne turns subscripts into the slices from 1 to each.
func fromOne(idx []Expr) []Expr {
	var out []Expr
	for _, i := range idx {
		out = append(out, &Const{Value: types.NewInt(1), T: tInt4}, i)
	}
	return out
}

// bothArrays brings two array operands to one array type: an untyped
// side takes the other's type; element types meet in their common type.
func bothArrays(args []Expr) (err error) {
	l, r := args[0].Type(), args[1].Type()
	switch {
	case l.IsArray() && !r.IsArray():
		args[1], err = coerceOrCast(args[1], l)
		return err
	case r.IsArray() && !l.IsArray():
		args[0], err = coerceOrCast(args[0], r)
		return err
	}
	et := commonType(l.ElemType(), r.ElemType())
	if et.Family == types.Unknown {
		return pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s || %s", l, r)
	}
	at := types.ArrayOf(types.T{Family: et.Family})
	for i := range args {
		if args[i].Type().ElemType().Family != et.Family {
			args[i] = &Cast{X: args[i], T: at}
		}
	}
	return nil
}

// coerceOrCast converts an untyped literal or parameter, or text, to the
// array type t (text is read in array_in's form at run time).
func coerceOrCast(x Expr, t types.T) (Expr, error) {
	switch xt := x.Type(); {
	case xt.Family == types.Unknown:
		return coerce(x, t)
	case isText(xt.Family):
		return &Cast{X: x, T: t}, nil
	case xt.IsArray():
		if xt.Elem == t.Elem {
			return x, nil
		}
		return &Cast{X: x, T: t}, nil
	}
	return nil, pgerror.Newf(pgerror.DatatypeMismatch, "expression is of type %s but type %s was expected", x.Type(), t)
}

// anyAllArray binds x op ANY (arr) and x op ALL (arr) over an array
// value: the array takes x's type when it is untyped (an IN list sent as
// one parameter), and x and the elements compare in their compareType.
func anyAllArray(op string, all bool, x, a Expr) (Expr, error) {
	var err error
	a = catalogVector(a)
	elem := x.Type()
	if elem.Family == types.Unknown {
		if a.Type().IsArray() {
			elem = a.Type().ElemType()
		} else {
			elem = tText
		}
	}
	if !a.Type().IsArray() {
		if a.Type().Family != types.Unknown && !isText(a.Type().Family) {
			return nil, pgerror.Newf(pgerror.DatatypeMismatch, "op ANY/ALL (array) requires array on right side")
		}
		if a, err = coerceOrCast(a, types.ArrayOf(elem)); err != nil {
			return nil, err
		}
	}
	et := a.Type().ElemType()
	if !comparableTypes(x.Type(), et) {
		return nil, pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s %s %s", x.Type(), op, et)
	}
	ct := compareType(x.Type(), et)
	if ct.Family == types.Unknown {
		ct = tText
	}
	if x, err = coerceCompare(x, ct); err != nil {
		return nil, err
	}
	if ct.Family != et.Family && !(isNumeric(ct.Family) && isNumeric(et.Family) && !isFloat(ct.Family)) && !(isText(ct.Family) && isText(et.Family)) {
		a = &Cast{X: a, T: types.ArrayOf(ct)}
	}
	q := " any"
	if all {
		q = " all"
	}
	if op == "!=" {
		op = "<>"
	}
	return &Func{Name: op + q, Args: []Expr{x, a}, T: tBool}, nil
}

// anyAllMarker reports whether x is the dialect layer's ANY (array) or
// ALL (array) operand.
func anyAllMarker(x sqlparser.Expr) (*sqlparser.FuncExpr, bool) {
	f, ok := x.(*sqlparser.FuncExpr)
	return f, ok && len(f.Exprs) == 1 && (f.Name.Lowered() == parse.MarkerAny || f.Name.Lowered() == parse.MarkerAll)
}

// anyAllMisused is the error for op ANY|ALL (x) where op is no
// comparison (the comparisons bind in compare): PostgreSQL checks that x
// is an array first.
func (b *binder) anyAllMisused(arg sqlparser.Expr, s *scope) error {
	x, err := b.expr(arg, s)
	if err != nil {
		return err
	}
	if t := x.Type(); !t.IsArray() && t.Family != types.Unknown {
		return pgerror.New(pgerror.WrongObjectType, "op ANY/ALL (array) requires array on right side")
	}
	return pgerror.New(pgerror.WrongObjectType, "op ANY/ALL (array) requires operator to yield boolean")
}

// likeAnyAll binds x [NOT] LIKE|ILIKE ANY|ALL (array): the match of x
// against each pattern of a text array, with ANY's and ALL's NULL rules.
func (b *binder) likeAnyAll(not, fold bool, left sqlparser.Expr, f *sqlparser.FuncExpr, s *scope) (Expr, error) {
	op := map[[2]bool]string{{false, false}: "~~", {true, false}: "!~~", {false, true}: "~~*", {true, true}: "!~~*"}[[2]bool{not, fold}]
	return b.patternAnyAll(op, left, f, s)
}

// patternAnyAll binds x op ANY|ALL (array) for a pattern operator op:
// LIKE's and ILIKE's (~~, ~~*, negated with !) or a regular
// expression's (~, ~*, !~, !~*), x matched against each pattern of a
// text array.
func (b *binder) patternAnyAll(op string, left sqlparser.Expr, f *sqlparser.FuncExpr, s *scope) (Expr, error) {
	x, err := b.expr(left, s)
	if err != nil {
		return nil, err
	}
	a, err := b.expr(f.Exprs[0], s)
	if err != nil {
		return nil, err
	}
	if x, err = coerce(x, tText); err != nil {
		return nil, err
	}
	if !a.Type().IsArray() || !isText(a.Type().Elem) {
		if a, err = coerceOrCast(a, types.ArrayOf(tText)); err != nil {
			return nil, err
		}
	}
	q := " any"
	if f.Name.Lowered() == parse.MarkerAll {
		q = " all"
	}
	return &Func{Name: op + q, Args: []Expr{x, a}, T: tBool}, nil
}

// typeList is argument types as an error message lists them.
func typeList(args []Expr) string {
	s := ""
	for i, a := range args {
		if i > 0 {
			s += ", "
		}
		s += a.Type().String()
	}
	return s
}

// arrayConst reads a text constant in array_in's form as an array of t's
// elements at plan time, each element converted as castConst converts a
// literal; where an element needs run-time conversion, the whole value
// is cast at run time.
func arrayConst(c *Const, t types.T) (Expr, error) {
	at, err := types.ParseArrayText(c.Value.S)
	if err != nil {
		return nil, ArrayTextError(c.Value.S, err)
	}
	texts, nulls := at.Elems, at.Nulls
	et := t.ElemType()
	out := make([]types.Datum, len(texts))
	for i, s := range texts {
		if nulls[i] {
			continue
		}
		x, err := castConst(&Const{Value: types.NewText(s), T: types.T{Family: types.Unknown}}, et)
		if err != nil {
			return nil, err
		}
		ec, ok := x.(*Const)
		if !ok {
			return &Cast{X: c, T: t}, nil
		}
		out[i] = ec.Value
	}
	return &Const{Value: types.NewArrayShaped(out, at.Shape), T: t}, nil
}

// SliceOpen is the value of a slice's missing bound (a[:2], a[2:]):
// the array's own bound. No int4 subscript has this value.
const SliceOpen = math.MinInt64

// ArrayTextError is the error array_in reports for s, which
// types.ParseArrayText refused with err.
func ArrayTextError(s string, err error) error {
	var te *types.ArrayTextError
	if !errors.As(err, &te) {
		return err
	}
	if te.Message != "" {
		return pgerror.New(pgerror.Code(te.Code), te.Message)
	}
	e := pgerror.Newf(pgerror.Code(te.Code), "malformed array literal: %q", s)
	e.Detail = te.Detail
	return e
}

// CatalogVectorFunc reads a virtual catalog's integer array column (text
// in either PostgreSQL's array form "{1,2}" or the vector form "1 2") as
// an array of integers (eval's funcs_pg.go).
const CatalogVectorFunc = "kvsql_catalog_vector"

// unnestFunc is the name the dialect layer gives unnest in FROM (see
// seriesFunc).
const unnestFunc = "kvsql_unnest"

// tableFuncs are the set-returning functions a FROM item (or a select
// item) may call, with their number of columns.
var tableFuncs = map[string]int{
	"unnest": 1, "generate_series": 1, "pg_partition_ancestors": 1, "string_to_table": 1, "regexp_split_to_table": 1, "jsonb_array_elements": 1, "jsonb_array_elements_text": 1, "json_array_elements": 1,
	"json_array_elements_text": 1, "jsonb_object_keys": 1, "json_object_keys": 1,
	"jsonb_each": 2, "jsonb_each_text": 2, "json_each": 2, "json_each_text": 2, "jsonb_path_query": 1,
	"jsonb_to_record": -1, "jsonb_to_recordset": -1, "json_to_record": -1, "json_to_recordset": -1, // as declared
	"jsonb_populate_record": -2, "jsonb_populate_recordset": -2, "json_populate_record": -2, "json_populate_recordset": -2, // the base's type's
}

// unnest plans unnest(array) [WITH ORDINALITY] in FROM: one row per
// element, in a column called column (and ordinality, bigint). With more
// than one array (FROM only, as in PostgreSQL) the arrays are read side
// by side, each in a column called unnest, the shorter ones padded with
// NULLs (a NULL array reads as empty).
func (b *binder) unnest(call *sqlparser.FuncExpr, column string, ordinality bool, s *scope) (Node, error) {
	if len(call.Exprs) == 0 {
		return nil, pgerror.New(pgerror.UndefinedFunction, "function unnest() does not exist")
	}
	n := &TableFunc{Name: "unnest", Ordinality: ordinality}
	if len(call.Exprs) > 1 {
		column = "unnest"
	}
	for _, a := range call.Exprs {
		x, err := b.expr(a, &scope{parent: s.parent, owner: s, aggContext: "FROM"})
		if err != nil {
			return nil, err
		}
		x = catalogVector(x)
		if !x.Type().IsArray() {
			if x.Type().Family != types.Unknown && !isText(x.Type().Family) {
				return nil, pgerror.Newf(pgerror.UndefinedFunction, "function unnest(%s) does not exist", x.Type())
			}
			if x, err = coerceOrCast(x, types.ArrayOf(tText)); err != nil {
				return nil, err
			}
		}
		n.Args = append(n.Args, x)
		n.Cols = append(n.Cols, Column{Name: column, T: x.Type().ElemType()})
	}
	if ordinality {
		n.Cols = append(n.Cols, Column{Name: "ordinality", T: tInt8})
	}
	return n, nil
}

// splitTables are the set-returning functions that are unnest of an
// array function's answer: string_to_table is unnest(string_to_array(...)),
// regexp_split_to_table unnest(regexp_split_to_array(...)). The dialect
// layer names them kvsql_<name> in FROM.
var splitTables = map[string]struct {
	array        string
	minArgs, max int
}{
	"string_to_table":       {"string_to_array", 2, 3},
	"regexp_split_to_table": {"regexp_split_to_array", 2, 3},
}

// splitTable plans a splitTables function in FROM: the rows of unnest of
// its array function, one per piece.
func (b *binder) splitTable(name string, call *sqlparser.FuncExpr, column string, ordinality bool, s *scope) (Node, error) {
	f := splitTables[name]
	args := make([]Expr, len(call.Exprs))
	for i, a := range call.Exprs {
		x, err := b.expr(a, &scope{parent: s.parent, owner: s, aggContext: "FROM"})
		if err != nil {
			return nil, err
		}
		args[i] = x
	}
	if len(args) < f.minArgs || len(args) > f.max || slices.ContainsFunc(args, func(a Expr) bool { return !isText(a.Type().Family) && a.Type().Family != types.Unknown }) {
		return nil, pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, typeList(args))
	}
	t, _, err := arrayCall(f.array, args)
	if err != nil {
		return nil, err
	}
	x := &Func{Name: f.array, Args: args, T: t}
	n := &TableFunc{Name: "unnest", Args: []Expr{x}, Ordinality: ordinality, Cols: []Column{{Name: column, T: tText}}}
	if ordinality {
		n.Cols = append(n.Cols, Column{Name: "ordinality", T: tInt8})
	}
	return n, nil
}

// elementPreds are the conjuncts an element index over an array column
// can answer, as equalities on one element: col @> ARRAY[...] (and
// ARRAY[...] <@ col) with a constant, non-empty array without NULLs,
// through its first element (the whole predicate stays in the scan's
// filter), and x = ANY (col) for a constant x.
func elementPreds(t *catalog.Table, filters []Expr) []keyPred {
	out := []keyPred{}
	for _, f := range filters {
		fn, ok := f.(*Func)
		if !ok || len(fn.Args) != 2 {
			continue
		}
		arr, val := fn.Args[0], fn.Args[1]
		switch fn.Name {
		case "<@":
			arr, val = val, arr
			fallthrough
		case "@>":
			ref, ok := arr.(*ColRef)
			if cast, isCast := val.(*Cast); isCast && cast.T.Family == types.JSONB {
				val = cast.X // a literal document, parsed when the statement runs
			}
			c, isConst := val.(*Const)
			if ok && ref.Outer == 0 && isConst && !c.Value.IsNull() && t.Columns[ref.Index].Type.Family == types.JSONB {
				// A jsonb document contains the constant only if it has
				// all of its leaves: look up one.
				if leaves, ok := types.JSONLeaves(c.Value.S); ok && len(leaves) > 0 {
					out = append(out, keyPred{col: ref.Index, op: "=", vals: []Expr{&Const{Value: types.NewText(leaves[0]), T: tText}}})
				}
				continue
			}
			if !ok || ref.Outer != 0 || !isConst || c.Value.Kind != types.KindArray {
				continue
			}
			elems, err := types.ArrayElems(nil, c.Value)
			if err != nil || len(elems) == 0 {
				continue
			}
			hasNull := false
			for _, e := range elems {
				hasNull = hasNull || e.IsNull()
			}
			if hasNull {
				continue
			}
			out = append(out, keyPred{col: ref.Index, op: "=", vals: []Expr{&Const{Value: elems[0], T: c.T.ElemType()}}})
		case "= any":
			ref, ok := val.(*ColRef)
			if !ok || ref.Outer != 0 || !isConstant(arr) || !t.Columns[ref.Index].Type.IsArray() {
				continue
			}
			out = append(out, keyPred{col: ref.Index, op: "=", vals: []Expr{arr}})
		}
	}
	return out
}

// constArray folds ARRAY[...] of constants into one constant (so that an
// element index can see the elements at plan time), or returns nil.
func constArray(name string, args []Expr, t types.T) Expr {
	if name != parse.MarkerArray || len(args) > 0 && args[0].Type().IsArray() {
		return nil // sub-arrays are nested at run time (eval's nestArrays)
	}
	elems := make([]types.Datum, len(args))
	for i, a := range args {
		c, ok := a.(*Const)
		if !ok {
			return nil
		}
		elems[i] = c.Value
	}
	return &Const{Value: types.NewArray(elems), T: t}
}

// EachElement names the key value that stands for every element of an
// array known only at execution (a parameter: WHERE k = ANY ($1), how
// drivers send an IN list): exec makes one point span per element.
const EachElement = "kvsql_each_element"

// anyArrayPred reads col = ANY (constant array) as the key predicate
// col IN (its non-NULL elements), and col = ANY (array parameter or
// other expression constant for the execution) as col = EachElement(it);
// ok is false for anything else.
func anyArrayPred(t *catalog.Table, f *Func) (keyPred, bool) {
	if f.Name != "= any" || len(f.Args) != 2 {
		return keyPred{}, false
	}
	c, ok := f.Args[1].(*Const)
	if !ok {
		a := f.Args[1]
		if !a.Type().IsArray() || !isConstant(a) {
			return keyPred{}, false
		}
		each := &Func{Name: EachElement, Args: []Expr{a}, T: a.Type().ElemType()}
		col, v, ok := keyOperand(t, f.Args[0], each)
		if !ok || v != Expr(each) {
			return keyPred{}, false // the elements would need a conversion
		}
		return keyPred{col: col, op: "=", vals: []Expr{v}}, true
	}
	if c.Value.Kind != types.KindArray {
		return keyPred{}, false
	}
	elems, err := types.ArrayElems(nil, c.Value)
	if err != nil || len(elems) > maxKeyPrefixes {
		return keyPred{}, false
	}
	p := keyPred{col: -1, op: "in"}
	et := c.T.ElemType()
	for _, e := range elems {
		if e.IsNull() {
			continue
		}
		col, v, ok := keyOperand(t, f.Args[0], &Const{Value: e, T: et})
		if !ok || (p.col >= 0 && col != p.col) {
			return keyPred{}, false
		}
		p.col = col
		p.vals = append(p.vals, v)
	}
	return p, p.col >= 0
}
