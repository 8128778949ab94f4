package eval

import (
	"strconv"
	"strings"
	"time"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
)

// One-dimensional arrays (types.KindArray): casts, text form, comparison
// and the operators and functions of PostgreSQL's "Array Functions and
// Operators" chapter. Subscripts are 1-based; an array's lower bound is
// always 1.

// elems decodes an array datum; a malformed one (never written by kvsql)
// is XX001.
func elems(d types.Datum) ([]types.Datum, error) {
	out, err := types.ArrayElems(nil, d)
	if err != nil {
		return nil, pgerror.New(pgerror.DataCorrupted, "malformed array value")
	}
	return out, nil
}

// elemType is the element type of an array type, text for an untyped one.
func elemType(t types.T) types.T {
	if t.IsArray() {
		return t.ElemType()
	}
	return types.T{Family: types.Text}
}

// castToArray converts text in array_in's form, or an array of another
// element type, to the array type to.
func castToArray(d types.Datum, from, to types.T) (types.Datum, error) {
	et := to.ElemType()
	switch d.Kind {
	case types.KindText:
		texts, nulls, detail, multi, ok := types.ParseArrayText(d.S)
		if multi {
			return types.Null, pgerror.New(pgerror.FeatureNotSupported, "multidimensional arrays are not supported")
		}
		if !ok {
			err := pgerror.Newf(pgerror.InvalidTextRepresentation, "malformed array literal: %q", d.S)
			err.Detail = detail
			return types.Null, err
		}
		out := make([]types.Datum, len(texts))
		for i, s := range texts {
			if nulls[i] {
				continue
			}
			v, err := CastFrom(types.NewText(s), types.T{Family: types.Unknown}, et)
			if err != nil {
				return types.Null, err
			}
			out[i] = v
		}
		return types.NewArray(out), nil
	case types.KindArray:
		if from.IsArray() && from.ElemType() == et {
			return d, nil
		}
		xs, err := elems(d)
		if err != nil {
			return types.Null, err
		}
		ft := elemType(from)
		for i, x := range xs {
			if xs[i], err = CastFrom(x, ft, et); err != nil {
				return types.Null, err
			}
		}
		return types.NewArray(xs), nil
	}
	return types.Null, cannotCast(from, to)
}

// appendArrayText appends d in array_out's form: elements in their type's
// output form (booleans as t and f), quoted where needed, NULL unquoted.
func appendArrayText(b []byte, d types.Datum, t types.T, loc *time.Location) []byte {
	xs, err := elems(d)
	if err != nil {
		return append(b, "{?}"...)
	}
	et := elemType(t)
	b = append(b, '{')
	var tmp []byte
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		switch {
		case x.IsNull():
			b = append(b, "NULL"...)
		case x.Kind == types.KindBool:
			b = append(b, "ft"[x.I&1])
		default:
			tmp = AppendTextIn(tmp[:0], x, et, loc)
			b = types.AppendArrayElemText(b, string(tmp))
		}
	}
	return append(b, '}')
}

// compareArrays is array_cmp for one-dimensional arrays: element by
// element (NULL after every value), then the shorter first.
func compareArrays(a, b types.Datum) int {
	xs, _ := types.ArrayElems(nil, a)
	ys, _ := types.ArrayElems(nil, b)
	for i := 0; i < len(xs) && i < len(ys); i++ {
		if c := Compare(xs[i], ys[i]); c != 0 {
			return c
		}
	}
	return cmpInt(int64(len(xs)), int64(len(ys)))
}

// arrayFunc runs the array operators and functions; handled is false for
// other names. It sees NULL arguments: most array functions are not
// strict (array_append(NULL, 1) is {1}).
func arrayFunc(env *Env, e *planner.Func, args []types.Datum) (d types.Datum, handled bool, err error) {
	if op, q, ok := strings.Cut(e.Name, " "); ok && (q == "any" || q == "all") {
		d, err := anyAll(op, q == "all", args[0], args[1])
		return d, true, err
	}
	switch e.Name {
	case parse.MarkerArray:
		return types.NewArray(append([]types.Datum(nil), args...)), true, nil
	case parse.MarkerSubscript:
		if args[0].IsNull() || args[1].IsNull() {
			return types.Null, true, nil
		}
		if e.T.Family == types.JSONB {
			return jsonSubscriptValue(args[0], args[1])
		}
		xs, err := elems(args[0])
		if err != nil {
			return types.Null, true, err
		}
		i := args[1].I
		if i < 1 || i > int64(len(xs)) {
			return types.Null, true, nil
		}
		return xs[i-1], true, nil
	case parse.MarkerSlice:
		if args[0].IsNull() {
			return types.Null, true, nil
		}
		xs, err := elems(args[0])
		if err != nil {
			return types.Null, true, err
		}
		lo, hi := int64(1), int64(len(xs))
		if !args[1].IsNull() {
			lo = max(lo, args[1].I)
		}
		if !args[2].IsNull() {
			hi = min(hi, args[2].I)
		}
		if lo > hi {
			return types.NewArray(nil), true, nil
		}
		return types.NewArray(xs[lo-1 : hi]), true, nil
	case "array_append", "array_prepend", "array_cat", "||":
		return arrayConcat(e, args)
	case "string_to_array":
		return stringToArray(args), true, nil
	case parse.MarkerSubscriptAssign:
		if len(args) != 3 || !e.Args[0].Type().IsArray() {
			return types.Null, false, nil // jsonb's (json.go)
		}
		d, err := arraySet(args[0], args[2], args[1])
		return d, true, err
	}
	if len(args) == 0 || !strings.HasPrefix(e.Name, "array") && !(arrayOps[e.Name] && e.Args[0].Type().IsArray()) {
		return types.Null, false, nil
	}
	if args[0].Kind != types.KindArray && !args[0].IsNull() {
		return types.Null, false, nil // another array_* function (array_to_json: json.go)
	}
	for _, a := range args {
		if a.IsNull() && e.Name != "array_position" && e.Name != "array_positions" && e.Name != "array_remove" &&
			e.Name != "array_replace" && e.Name != "array_to_string" {
			return types.Null, true, nil
		}
	}
	if args[0].IsNull() {
		return types.Null, true, nil
	}
	xs, err := elems(args[0])
	if err != nil {
		return types.Null, true, err
	}
	switch e.Name {
	case "array_length", "array_upper":
		if args[1].I != 1 || len(xs) == 0 {
			return types.Null, true, nil
		}
		return types.NewInt(int64(len(xs))), true, nil
	case "array_lower":
		if args[1].I != 1 || len(xs) == 0 {
			return types.Null, true, nil
		}
		return types.NewInt(1), true, nil
	case "array_ndims":
		if len(xs) == 0 {
			return types.Null, true, nil
		}
		return types.NewInt(1), true, nil
	case "array_dims":
		if len(xs) == 0 {
			return types.Null, true, nil
		}
		return types.NewText("[1:" + strconv.Itoa(len(xs)) + "]"), true, nil
	case "cardinality":
		return types.NewInt(int64(len(xs))), true, nil
	case "array_position", "array_positions":
		start := 1
		if len(args) > 2 {
			if args[2].IsNull() {
				return types.Null, true, pgerror.New(pgerror.NullValueNotAllowed, "initial position must not be null")
			}
			start = int(max(args[2].I, 1))
		}
		var found []types.Datum
		for i := start - 1; i < len(xs); i++ {
			if distinctEqual(xs[i], args[1]) {
				if e.Name == "array_position" {
					return types.NewInt(int64(i + 1)), true, nil
				}
				found = append(found, types.NewInt(int64(i+1)))
			}
		}
		if e.Name == "array_position" {
			return types.Null, true, nil
		}
		return types.NewArray(found), true, nil
	case "array_remove":
		out := xs[:0]
		for _, x := range xs {
			if !distinctEqual(x, args[1]) {
				out = append(out, x)
			}
		}
		return types.NewArray(out), true, nil
	case "array_replace":
		for i, x := range xs {
			if distinctEqual(x, args[1]) {
				xs[i] = args[2]
			}
		}
		return types.NewArray(xs), true, nil
	case "array_to_string":
		if args[1].IsNull() {
			return types.Null, true, nil
		}
		et := elemType(e.Args[0].Type())
		var b []byte
		n := 0
		for _, x := range xs {
			if x.IsNull() {
				if len(args) < 3 || args[2].IsNull() {
					continue
				}
				x = args[2]
			}
			if n > 0 {
				b = append(b, args[1].S...)
			}
			n++
			if x.Kind == types.KindBool {
				b = append(b, "ft"[x.I&1])
				continue
			}
			b = AppendText(b, x, et)
		}
		return types.NewText(string(b)), true, nil
	case "@>", "<@", "&&":
		ys, err := elems(args[1])
		if err != nil {
			return types.Null, true, err
		}
		switch e.Name {
		case "@>":
			return types.NewBool(containsAll(xs, ys)), true, nil
		case "<@":
			return types.NewBool(containsAll(ys, xs)), true, nil
		}
		for _, y := range ys {
			if !y.IsNull() && containsAll(xs, []types.Datum{y}) {
				return types.NewBool(true), true, nil
			}
		}
		return types.NewBool(false), true, nil
	}
	return types.Null, false, nil
}

// arrayOps are the operator and function names arrayFunc answers when
// the first operand is an array (the planner makes both arrays).
var arrayOps = map[string]bool{"cardinality": true, "@>": true, "<@": true, "&&": true}

// containsAll reports whether every element of ys equals some element of
// xs; a NULL element equals nothing (so {NULL} @> {NULL} is false).
func containsAll(xs, ys []types.Datum) bool {
	for _, y := range ys {
		if y.IsNull() {
			return false
		}
		found := false
		for _, x := range xs {
			if !x.IsNull() && Compare(x, y) == 0 {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// distinctEqual is IS NOT DISTINCT FROM: NULL matches NULL.
func distinctEqual(a, b types.Datum) bool {
	if a.IsNull() || b.IsNull() {
		return a.IsNull() && b.IsNull()
	}
	return Compare(a, b) == 0
}

// arrayConcat is array_append, array_prepend, array_cat and || with an
// array operand: a NULL array is empty, a NULL element is appended.
func arrayConcat(e *planner.Func, args []types.Datum) (types.Datum, bool, error) {
	if len(args) != 2 {
		return types.Null, false, nil
	}
	lt, rt := e.Args[0].Type(), e.Args[1].Type()
	var out []types.Datum
	add := func(d types.Datum, isArray bool) error {
		if !isArray {
			out = append(out, d)
			return nil
		}
		if d.IsNull() {
			return nil
		}
		xs, err := elems(d)
		out = append(out, xs...)
		return err
	}
	if e.Name == "||" && !lt.IsArray() && !rt.IsArray() {
		return types.Null, false, nil
	}
	la := lt.IsArray() || e.Name == "array_append" || e.Name == "array_cat"
	ra := rt.IsArray() && e.Name != "array_append" || e.Name == "array_cat"
	if e.Name == "array_prepend" {
		la, ra = false, true
	}
	if args[0].IsNull() && args[1].IsNull() && la && ra {
		return types.Null, true, nil
	}
	if err := add(args[0], la); err != nil {
		return types.Null, true, err
	}
	if err := add(args[1], ra); err != nil {
		return types.Null, true, err
	}
	return types.NewArray(out), true, nil
}

// anyAll is x op ANY (array) / x op ALL (array) with SQL's NULL rules:
// ANY is true if some comparison is true, else NULL if some was NULL;
// ALL is false if some comparison is false, else NULL if some was NULL.
func anyAll(op string, all bool, x, arr types.Datum) (types.Datum, error) {
	if arr.IsNull() {
		return types.Null, nil
	}
	xs, err := elems(arr)
	if err != nil {
		return types.Null, err
	}
	if len(xs) == 0 {
		return types.NewBool(all), nil
	}
	if x.IsNull() {
		return types.Null, nil
	}
	sawNull := false
	for _, y := range xs {
		if y.IsNull() {
			sawNull = true
			continue
		}
		v, err := compareOp(op, x, y)
		if err != nil {
			return types.Null, err
		}
		if v != all {
			return types.NewBool(v), nil
		}
	}
	if sawNull {
		return types.Null, nil
	}
	return types.NewBool(all), nil
}

// stringToArray is string_to_array(s, delimiter [, null_string]): a NULL
// delimiter splits s into characters, an empty one keeps s whole; an
// empty s is an empty array; elements equal to null_string are NULL.
func stringToArray(args []types.Datum) types.Datum {
	if args[0].IsNull() {
		return types.Null
	}
	s := args[0].S
	if s == "" {
		return types.NewArray(nil)
	}
	var parts []string
	switch {
	case args[1].IsNull():
		for _, r := range s {
			parts = append(parts, string(r))
		}
	case args[1].S == "":
		parts = []string{s}
	default:
		parts = strings.Split(s, args[1].S)
	}
	out := make([]types.Datum, len(parts))
	for i, p := range parts {
		if len(args) < 3 || args[2].IsNull() || p != args[2].S {
			out[i] = types.NewText(p)
		}
	}
	return types.NewArray(out)
}

// arraySet is the array a with element i (1-based) set to v, as an
// UPDATE's a[i] = v stores it: past the end the array grows with NULLs;
// a NULL array becomes {v} for i = 1. Positions below 1, and above 1 for
// a NULL array, would need another lower bound: 0A000.
func arraySet(a, i, v types.Datum) (types.Datum, error) {
	if i.IsNull() {
		return types.Null, pgerror.New(pgerror.NullValueNotAllowed, "array subscript in assignment must not be null")
	}
	var xs []types.Datum
	if !a.IsNull() {
		var err error
		if xs, err = elems(a); err != nil {
			return types.Null, err
		}
	}
	n := i.I
	if n < 1 || len(xs) == 0 && n != 1 {
		return types.Null, pgerror.New(pgerror.FeatureNotSupported, "an array whose lower bound is not 1 is not supported")
	}
	if n > int64(len(xs))+1<<20 {
		return types.Null, pgerror.New(pgerror.ProgramLimitExceeded, "array size exceeds the maximum allowed")
	}
	for int64(len(xs)) < n {
		xs = append(xs, types.Null)
	}
	xs[n-1] = v
	return types.NewArray(xs), nil
}
