package planner

import (
	"strings"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// UserAgg is how a call of a user-defined aggregate (CREATE AGGREGATE)
// computes, bound for its argument types: for each input row exec
// evaluates Trans over the row (state, inputs...) into the new state,
// and at the end Final over (state), or returns the state when Final is
// nil. Init is the first state (a NULL constant without INITCOND).
//
// With a strict transition function (TransStrict) a row with a NULL
// input is skipped, without INITCOND the first input becomes the state,
// and a NULL state stays NULL, as in PostgreSQL's
// advance_transition_function; a strict final function of a NULL state
// is NULL.
type UserAgg struct {
	Trans, Final, Init       Expr
	SType                    types.T
	TransStrict, FinalStrict bool
}

// nonStrictBuiltins are the built-in functions a user aggregate may name
// that take NULL arguments (PostgreSQL's proisstrict false); every other
// built-in one is strict.
var nonStrictBuiltins = map[string]bool{
	"array_append": true, "array_prepend": true, "array_cat": true, "concat": true, "concat_ws": true,
	"coalesce": true, "json_build_array": true, "jsonb_build_array": true, "json_build_object": true,
	"jsonb_build_object": true, "format": true, "num_nulls": true, "num_nonnulls": true,
}

// userAggregates returns the database's aggregates named name.
func (b *binder) userAggregates(name string) []*catalog.Function {
	var out []*catalog.Function
	for _, fn := range b.p.Catalog.FunctionsNamed(b.p.DB, name) {
		if fn.Kind == "a" {
			out = append(out, fn)
		}
	}
	return out
}

// isAgg reports whether name is an aggregate, built-in or the user's.
func (b *binder) isAgg(name string) bool {
	return isAggregate(name) || len(b.userAggregates(name)) > 0
}

// bindUserAgg resolves call, a call of the user aggregate call.Func
// whose arguments are bound: the aggregate its arguments choose, its
// functions bound for them (call.User), and its result type.
func (b *binder) bindUserAgg(call *AggCall) error {
	fn, coerced, _, err := b.resolveRoutine(call.Func, b.userAggregates(call.Func), call.Args)
	if err != nil {
		return err
	}
	call.Args = coerced
	argTypes := make([]types.T, len(coerced))
	for i, a := range coerced {
		argTypes[i] = a.Type()
	}
	call.User, call.T, err = b.userAggFuncs(fn, argTypes)
	return err
}

// userAggFuncs binds aggregate fn's functions for inputs of argTypes.
func (b *binder) userAggFuncs(fn *catalog.Function, argTypes []types.T) (*UserAgg, types.T, error) {
	spec := fn.Agg
	st, poly, err := b.p.RoutineType(spec.SType)
	if err != nil {
		return nil, types.T{}, err
	}
	if poly != polyNone {
		st = polyStateType(poly, fn.InputArgs(), argTypes)
	}
	refs := []Expr{&ColRef{Index: 0, T: st, Name: "state"}}
	for i, t := range argTypes {
		refs = append(refs, &ColRef{Index: i + 1, T: t, Name: "input"})
	}
	trans, err := b.aggFuncCall(spec.SFunc, refs)
	if err != nil {
		return nil, types.T{}, err
	}
	if trans, err = coerceResult(trans, st); err != nil {
		return nil, types.T{}, err
	}
	ua := &UserAgg{Trans: trans, SType: st, TransStrict: b.strictFunc(spec.SFunc, refs), Init: &Const{Value: types.Null, T: st}}
	if ua.TransStrict && spec.InitCond == nil && (len(argTypes) == 0 || !sameTypeFamily(argTypes[0], st)) {
		// The first input would become the state: it must be one.
		return nil, types.T{}, pgerror.New(pgerror.InvalidFunctionDefinition, "must not omit initial value when transition function is strict and transition type is not compatible with input type")
	}
	if spec.InitCond != nil {
		if ua.Init, err = coerce(&Const{Value: types.NewText(*spec.InitCond), T: tUnk}, st); err != nil {
			return nil, types.T{}, err
		}
	}
	result := st
	if spec.FinalFunc != "" {
		state := []Expr{&ColRef{Index: 0, T: st, Name: "state"}}
		if ua.Final, err = b.aggFuncCall(spec.FinalFunc, state); err != nil {
			return nil, types.T{}, err
		}
		ua.FinalStrict = b.strictFunc(spec.FinalFunc, state)
		result = ua.Final.Type()
	}
	return ua, result, nil
}

// aggFuncCall binds a call of an aggregate's function name over args:
// the user's function, a built-in one, or one of the functions behind
// PostgreSQL's operators that aggregates name (int4pl, float8larger, ...).
func (b *binder) aggFuncCall(name string, args []Expr) (Expr, error) {
	if len(b.p.Catalog.FunctionsNamed(b.p.DB, name)) == 0 {
		if x, ok, err := b.operatorFunc(name, args); ok {
			return x, err
		}
	}
	ts := make([]types.T, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	return b.callBound(name, args, ts, &scope{})
}

// strictFunc reports whether the function a call of name over args
// means is strict: the user's, by its STRICT, or a built-in one.
func (b *binder) strictFunc(name string, args []Expr) bool {
	var fns []*catalog.Function
	for _, fn := range b.p.Catalog.FunctionsNamed(b.p.DB, name) {
		if fn.Kind != "a" {
			fns = append(fns, fn)
		}
	}
	if len(fns) == 0 {
		return !nonStrictBuiltins[name]
	}
	fn, _, _, err := b.resolveRoutine(name, fns, args)
	return err == nil && fn.Strict
}

// polyStateType resolves a polymorphic state type (anyelement,
// anyarray, ...) from the aggregate's declared inputs and the call's
// argument types.
func polyStateType(poly int, declared []catalog.FunctionArg, argTypes []types.T) types.T {
	elem := tUnk
	for i, a := range declared {
		if i >= len(argTypes) {
			break
		}
		_, p, _ := RoutineType(a.Type)
		switch {
		case p == polyNone:
		case argTypes[i].IsArray() && (p == polyArray || p == polyCompatArray):
			elem = argTypes[i].ElemType()
		default:
			elem = argTypes[i]
		}
		if elem.Family != types.Unknown {
			break
		}
	}
	if elem.Family == types.Unknown {
		elem = tText // inputs of unknown type only
	}
	if poly == polyArray || poly == polyCompatArray {
		return types.ArrayOf(elem)
	}
	return elem
}

// CheckAggregate binds a new aggregate's functions for its declared
// input types, as CREATE AGGREGATE does (42883 when its SFUNC or
// FINALFUNC takes no such arguments), and returns the name of its result
// type. The aggregate need not be in the catalog yet.
func (p *Planner) CheckAggregate(fn *catalog.Function) (string, error) {
	b := &binder{p: p}
	var argTypes []types.T
	for _, a := range fn.InputArgs() {
		t, poly, err := b.p.RoutineType(a.Type)
		if err != nil {
			return "", err
		}
		if poly != polyNone {
			// Bound where it is called, for the types it is called with.
			return b.polyResultName(fn), nil
		}
		argTypes = append(argTypes, t)
	}
	_, t, err := b.userAggFuncs(fn, argTypes)
	if err != nil {
		return "", err
	}
	if t.Comp != nil {
		return t.String(), nil // a composite type (or an array of one)
	}
	return FormatTypeName(columnTypeOID(t)), nil
}

// polyResultName is the declared result type of a polymorphic aggregate:
// its final function's, else its state's.
func (b *binder) polyResultName(fn *catalog.Function) string {
	if f := fn.Agg.FinalFunc; f != "" {
		for _, g := range b.p.Catalog.FunctionsNamed(b.p.DB, f) {
			if g.Kind != "a" {
				return g.Returns
			}
		}
	}
	return fn.Agg.SType
}

// operatorFunc binds a call of a function behind one of PostgreSQL's
// operators (pg_operator.oprcode), which kvsql has as the operators
// only; ok is false for other names.
func (b *binder) operatorFunc(name string, args []Expr) (Expr, bool, error) {
	for _, suffix := range []struct{ suffix, op string }{{"pl", "+"}, {"mi", "-"}, {"mul", "*"}, {"div", "/"}, {"_add", "+"}, {"_sub", "-"}} {
		base, ok := strings.CutSuffix(name, suffix.suffix)
		if ok && numericTypeName[base] && len(args) == 2 {
			x, err := arith(suffix.op, args[0], args[1])
			return x, true, err
		}
	}
	for _, suffix := range []struct{ suffix, fn string }{{"larger", "greatest"}, {"smaller", "least"}, {"_larger", "greatest"}, {"_smaller", "least"}} {
		base, ok := strings.CutSuffix(name, suffix.suffix)
		if ok && (numericTypeName[base] || base == "text" || base == "date" || base == "timestamp" || base == "interval") && len(args) == 2 {
			x, err := b.callBound(suffix.fn, args, []types.T{args[0].Type(), args[1].Type()}, &scope{})
			return x, true, err
		}
	}
	switch {
	case name == "textcat" && len(args) == 2:
		x, err := b.callBound("concat", args, []types.T{args[0].Type(), args[1].Type()}, &scope{})
		return x, true, err
	case (name == "int8inc" && len(args) == 1) || (name == "int8inc_any" && len(args) == 2):
		x, err := arith("+", args[0], &Const{Value: types.NewInt(1), T: tInt8})
		return x, true, err
	}
	return nil, false, nil
}

// numericTypeName holds the type names PostgreSQL's arithmetic operator
// functions start with (int4pl, float8mi, numeric_add, int48pl, ...).
var numericTypeName = map[string]bool{
	"int2": true, "int4": true, "int8": true, "float4": true, "float8": true, "numeric": true, "interval": true, "cash": true,
	"int24": true, "int42": true, "int28": true, "int82": true, "int48": true, "int84": true, "float48": true, "float84": true,
}

// sameTypeFamily reports whether values of a can stand for values of b
// (PostgreSQL's binary coercibility, as far as an aggregate's first
// input becoming its state needs it).
func sameTypeFamily(a, b types.T) bool {
	if a.Family != b.Family {
		return false
	}
	return a.Family != types.Array || sameTypeFamily(a.ElemType(), b.ElemType())
}
