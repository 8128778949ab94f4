package eval

import (
	"strings"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
)

// Arrays (types.KindArray): casts, text form, comparison and the
// operators and functions of PostgreSQL's "Array Functions and
// Operators" chapter. An array has up to six dimensions, each with its
// own lower bound (1 unless its text or an assignment says otherwise);
// subscripts and slices are arrayshape.go's.

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
		at, err := types.ParseArrayText(d.S)
		if err != nil {
			return types.Null, planner.ArrayTextError(d.S, err)
		}
		out := make([]types.Datum, len(at.Elems))
		for i, s := range at.Elems {
			if at.Nulls[i] {
				continue
			}
			v, err := CastFrom(types.NewText(s), types.T{Family: types.Unknown}, et)
			if err != nil {
				return types.Null, err
			}
			out[i] = v
		}
		return types.NewArrayShaped(out, at.Shape), nil
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
		return types.NewArrayShaped(xs, types.ArrayShapeOf(d)), nil
	}
	return types.Null, cannotCast(from, to)
}

// appendArrayText appends d in array_out's form: elements in their type's
// output form (booleans as t and f), quoted where needed, NULL unquoted,
// the bounds first when one is not 1.
func appendArrayText(b []byte, d types.Datum, t types.T, st Style) []byte {
	xs, err := elems(d)
	if err != nil {
		return append(b, "{?}"...)
	}
	et := elemType(t)
	var tmp []byte
	return types.AppendArrayText(b, types.ArrayShapeOf(d), func(b []byte, i int) []byte {
		switch x := xs[i]; {
		case x.IsNull():
			return append(b, "NULL"...)
		case x.Kind == types.KindBool:
			return append(b, "ft"[x.I&1])
		default:
			tmp = AppendTextStyle(tmp[:0], x, et, st)
			return types.AppendArrayElemText(b, string(tmp))
		}
	})
}

// compareArrays is PostgreSQL's array_cmp: element by element in
// row-major order (NULL after every value), then the fewer elements
// first, then the fewer dimensions, the shorter dimensions, the lower
// bounds.
func compareArrays(a, b types.Datum) int {
	xs, _ := types.ArrayElems(nil, a)
	ys, _ := types.ArrayElems(nil, b)
	for i := 0; i < len(xs) && i < len(ys); i++ {
		if c := Compare(xs[i], ys[i]); c != 0 {
			return c
		}
	}
	if c := cmpInt(int64(len(xs)), int64(len(ys))); c != 0 {
		return c
	}
	sa, sb := types.ArrayShapeOf(a), types.ArrayShapeOf(b)
	if c := cmpInt(int64(len(sa.Lens)), int64(len(sb.Lens))); c != 0 {
		return c
	}
	for i := range sa.Lens {
		if c := cmpInt(int64(sa.Lens[i]), int64(sb.Lens[i])); c != 0 {
			return c
		}
	}
	for i := range sa.Lower {
		if c := cmpInt(int64(sa.Lower[i]), int64(sb.Lower[i])); c != 0 {
			return c
		}
	}
	return 0
}

// arrayFunc runs the array operators and functions; handled is false for
// other names. It sees NULL arguments: most array functions are not
// strict (array_append(NULL, 1) is {1}).
func arrayFunc(env *Env, e *planner.Func, args []types.Datum) (d types.Datum, handled bool, err error) {
	if op, q, ok := strings.Cut(e.Name, " "); ok && (q == "any" || q == "all") {
		match := func(x, y types.Datum) (bool, error) { return compareOp(op, x, y) }
		if op == "~" || op == "~*" || op == "!~" || op == "!~*" {
			match = func(x, y types.Datum) (bool, error) {
				d, err := evalRegexOp(env, op, x, y)
				return d.Bool(), err
			}
		}
		d, err := anyAll(match, q == "all", args[0], args[1])
		return d, true, err
	}
	switch e.Name {
	case parse.MarkerArray:
		if len(e.Args) > 0 && e.Args[0].Type().IsArray() {
			d, err := nestArrays(args)
			return d, true, err
		}
		return types.NewArray(append([]types.Datum(nil), args...)), true, nil
	case parse.MarkerSubscript:
		if e.T.Family == types.JSONB || e.Args[0].Type().Family == types.JSONB {
			if args[0].IsNull() || args[1].IsNull() {
				return types.Null, true, nil
			}
			return jsonSubscriptValue(args[0], args[1])
		}
		d, err := subscriptValue(args[0], args[1:])
		return d, true, err
	case parse.MarkerSlice:
		d, err := sliceValue(args[0], args[1:])
		return d, true, err
	case "array_append", "array_prepend", "array_cat", "||":
		return arrayConcat(e, args)
	case "string_to_array":
		return stringToArray(args), true, nil
	case parse.MarkerSubscriptAssign:
		if len(args) < 3 || !e.Args[0].Type().IsArray() {
			return types.Null, false, nil // jsonb's (json.go)
		}
		d, err := arraySet(args[0], args[1], args[2:])
		return d, true, err
	case parse.MarkerSliceAssign:
		d, err := arraySetSlice(args[0], args[1], args[2:])
		return d, true, err
	case "array_fill":
		d, err := arrayFill(args[0], args[1:])
		return d, true, err
	case "trim_array":
		if args[0].IsNull() || args[1].IsNull() {
			return types.Null, true, nil
		}
		d, err := trimArray(args[0], args[1].I)
		return d, true, err
	case "width_bucket":
		if len(args) != 2 || !e.Args[1].Type().IsArray() {
			return types.Null, false, nil
		}
		if args[0].IsNull() || args[1].IsNull() {
			return types.Null, true, nil
		}
		d, err := widthBucket(args[0], args[1])
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
	if d, ok, err := arrayDimsFunc(e.Name, args); ok {
		return d, true, err
	}
	switch e.Name {
	case "array_position", "array_positions":
		d, err := arrayPositions(e.Name == "array_positions", args[0], xs, args[1:])
		return d, true, err
	case "array_remove":
		sh := types.ArrayShapeOf(args[0])
		if len(sh.Lens) > 1 {
			return types.Null, true, pgerror.New(pgerror.FeatureNotSupported, "removing elements from multidimensional arrays is not supported")
		}
		out := xs[:0]
		for _, x := range xs {
			if !distinctEqual(x, args[1]) {
				out = append(out, x)
			}
		}
		if len(out) == 0 {
			return types.NewArray(nil), true, nil
		}
		return types.NewArrayShaped(out, types.ArrayShape{Lens: []int{len(out)}, Lower: sh.Lower}), true, nil
	case "array_replace":
		for i, x := range xs {
			if distinctEqual(x, args[1]) {
				xs[i] = args[2]
			}
		}
		return types.NewArrayShaped(xs, types.ArrayShapeOf(args[0])), true, nil
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
// array operand: a NULL or empty array is no operand, a NULL element is
// appended.
func arrayConcat(e *planner.Func, args []types.Datum) (types.Datum, bool, error) {
	if len(args) != 2 {
		return types.Null, false, nil
	}
	lt, rt := e.Args[0].Type(), e.Args[1].Type()
	if e.Name == "||" && !lt.IsArray() && !rt.IsArray() {
		return types.Null, false, nil
	}
	la := lt.IsArray() || e.Name == "array_append" || e.Name == "array_cat"
	ra := rt.IsArray() && e.Name != "array_append" || e.Name == "array_cat"
	if e.Name == "array_prepend" {
		la, ra = false, true
	}
	a, b := args[0], args[1]
	switch {
	case la && ra:
		switch {
		case a.IsNull() && b.IsNull():
			return types.Null, true, nil
		case a.IsNull() || types.ArrayLen(a) == 0:
			return b, true, nil
		case b.IsNull() || types.ArrayLen(b) == 0:
			return a, true, nil
		}
		d, err := catArrays(a, b)
		return d, true, err
	case la:
		if a.IsNull() || types.ArrayLen(a) == 0 {
			return types.NewArray([]types.Datum{b}), true, nil
		}
		d, err := appendElem(a, b, false)
		return d, true, err
	default:
		if b.IsNull() || types.ArrayLen(b) == 0 {
			return types.NewArray([]types.Datum{a}), true, nil
		}
		d, err := appendElem(b, a, true)
		return d, true, err
	}
}

// anyAll is x op ANY (array) / x op ALL (array), match being op, with
// SQL's NULL rules:
// ANY is true if some comparison is true, else NULL if some was NULL;
// ALL is false if some comparison is false, else NULL if some was NULL.
func anyAll(match func(x, y types.Datum) (bool, error), all bool, x, arr types.Datum) (types.Datum, error) {
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
		v, err := match(x, y)
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

// arrayDimsFunc runs the functions that read an array's shape;
// handled is false for other names. a is not NULL.
func arrayDimsFunc(name string, args []types.Datum) (d types.Datum, handled bool, err error) {
	sh := types.ArrayShapeOf(args[0])
	dim := func() (int, bool) {
		k := args[1].I
		return int(k - 1), k >= 1 && k <= int64(len(sh.Lens))
	}
	switch name {
	case "array_length", "array_upper", "array_lower":
		k, ok := dim()
		if !ok {
			return types.Null, true, nil
		}
		switch name {
		case "array_length":
			return types.NewInt(int64(sh.Lens[k])), true, nil
		case "array_lower":
			return types.NewInt(int64(sh.Lower[k])), true, nil
		}
		return types.NewInt(int64(sh.Lower[k] + sh.Lens[k] - 1)), true, nil
	case "array_ndims":
		if len(sh.Lens) == 0 {
			return types.Null, true, nil
		}
		return types.NewInt(int64(len(sh.Lens))), true, nil
	case "array_dims":
		if len(sh.Lens) == 0 {
			return types.Null, true, nil
		}
		return types.NewText(string(types.AppendArrayDims(nil, sh))), true, nil
	case "cardinality":
		return types.NewInt(int64(sh.Count())), true, nil
	}
	return types.Null, false, nil
}

// arrayPositions is array_position(a, x [, start]) (all false) and
// array_positions(a, x): the subscript of the first element not
// distinct from x at or after start, or all of them. Only for
// one-dimensional arrays.
func arrayPositions(all bool, a types.Datum, xs []types.Datum, args []types.Datum) (types.Datum, error) {
	sh := types.ArrayShapeOf(a)
	if len(sh.Lens) > 1 {
		return types.Null, pgerror.New(pgerror.FeatureNotSupported, "searching for elements in multidimensional arrays is not supported")
	}
	lb := int64(1)
	if len(sh.Lens) == 1 {
		lb = int64(sh.Lower[0])
	}
	start := lb
	if len(args) > 1 {
		if args[1].IsNull() {
			return types.Null, pgerror.New(pgerror.NullValueNotAllowed, "initial position must not be null")
		}
		start = args[1].I
	}
	var found []types.Datum
	for i, x := range xs {
		pos := lb + int64(i)
		if pos < start || !distinctEqual(x, args[0]) {
			continue
		}
		if !all {
			return types.NewInt(pos), nil
		}
		found = append(found, types.NewInt(pos))
	}
	if !all {
		return types.Null, nil
	}
	return types.NewArray(found), nil
}
