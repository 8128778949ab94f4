package eval

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// jsonb's editing operators and functions (- #- jsonb_set jsonb_insert
// jsonb_strip_nulls), the key-exists operators (? ?| ?&) and the path
// extractors, as PostgreSQL's jsonfuncs.c and jsonb_op.c define them.

// textPath reads a text[] argument: its elements and which are NULL.
func textPath(d types.Datum) (elems []string, nulls []bool, err error) {
	if d.Kind != types.KindArray {
		p, err := jsonPath(d.S)
		return p, make([]bool, len(p)), err
	}
	ds, err := types.ArrayElems(nil, d)
	if err != nil {
		return nil, nil, pgerror.New(pgerror.Internal, "corrupt array")
	}
	for _, e := range ds {
		elems = append(elems, e.S)
		nulls = append(nulls, e.IsNull())
	}
	return elems, nulls, nil
}

// jsonKeyExists is jsonb ? key: an object's key or an array's string
// element (a top-level string scalar is such an array to PostgreSQL).
func jsonKeyExists(v any, key string) bool {
	switch x := v.(type) {
	case *jsonObject:
		_, ok := x.get(key)
		return ok
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok && s == key {
				return true
			}
		}
		return false
	case string:
		return x == key
	}
	return false
}

// jsonDelete is jsonb - text, jsonb - text[] and jsonb - int.
func jsonDelete(v any, key types.Datum) (any, error) {
	switch v.(type) {
	case *jsonObject, []any:
	default:
		return nil, pgerror.New(pgerror.InvalidParameterValue, "cannot delete from scalar")
	}
	if key.Kind == types.KindInt {
		arr, ok := v.([]any)
		if !ok {
			return nil, pgerror.New(pgerror.InvalidParameterValue, "cannot delete from object using integer index")
		}
		i := key.I
		if i < 0 {
			i += int64(len(arr))
		}
		if i < 0 || i >= int64(len(arr)) {
			return v, nil
		}
		return append(append([]any{}, arr[:i]...), arr[i+1:]...), nil
	}
	var keys []string
	if key.Kind == types.KindArray {
		elems, nulls, err := textPath(key)
		if err != nil {
			return nil, err
		}
		for i, k := range elems {
			if !nulls[i] {
				keys = append(keys, k)
			}
		}
	} else {
		keys = []string{key.S}
	}
	drop := func(k string) bool {
		for _, x := range keys {
			if x == k {
				return true
			}
		}
		return false
	}
	switch x := v.(type) {
	case *jsonObject:
		o := &jsonObject{}
		for i, k := range x.keys {
			if !drop(k) {
				o.keys, o.vals = append(o.keys, k), append(o.vals, x.vals[i])
			}
		}
		return o, nil
	case []any:
		out := []any{}
		for _, e := range x {
			if s, ok := e.(string); ok && drop(s) {
				continue
			}
			out = append(out, e)
		}
		return out, nil
	}
	return v, nil
}

// setPath's operations (PostgreSQL's JB_PATH_* flags).
const (
	pathCreate       = 0x1
	pathDelete       = 0x2
	pathReplace      = 0x4
	pathInsertBefore = 0x8
	pathInsertAfter  = 0x10
	pathCreateOrIns  = pathCreate | pathInsertBefore | pathInsertAfter
	pathFillGaps     = 0x20 // subscript assignment: pad arrays, build missing containers
	pathConsistent   = 0x40 // subscript assignment: no prepending by a negative index
)

// errScalarInPath is subscript assignment's error for a path through a
// scalar.
func errScalarInPath() error {
	e := pgerror.New(pgerror.InvalidParameterValue, "cannot replace existing key")
	e.Detail = "The path assumes key is a composite object, but it is a scalar value."
	return e
}

// maxJSONPad bounds the nulls a subscript assignment pads an array with
// (PostgreSQL allows 268435455 elements; kvsql stops earlier, at 16M, to
// bound the memory one statement can ask for).
const maxJSONPad = 1 << 24

// jsonNulls returns n JSON nulls, or 54000 past maxJSONPad.
func jsonNulls(n int64) ([]any, error) {
	if n > maxJSONPad {
		return nil, pgerror.Newf("54000", "number of jsonb array elements exceeds the maximum allowed (%d)", maxJSONPad)
	}
	return make([]any, max(n, 0)), nil
}

// buildPath is PostgreSQL's push_path: the containers path[level+1:]
// names, innermost newval (an integer step an array padded with nulls,
// any other an object).
func buildPath(path []string, level int, newval any) (any, error) {
	v := newval
	for i := len(path) - 1; i > level; i-- {
		if n, err := strconv.ParseInt(path[i], 10, 32); err == nil {
			arr, err := jsonNulls(n)
			if err != nil {
				return nil, err
			}
			v = append(arr, v)
		} else {
			v = &jsonObject{keys: []string{path[i]}, vals: []any{v}}
		}
	}
	return v, nil
}

// setPath is PostgreSQL's setPath over a parsed document: it replaces,
// creates, inserts or deletes the value at path[level:].
func setPath(v any, path []string, nulls []bool, level int, newval any, op int) (any, error) {
	if nulls[level] {
		return nil, pgerror.Newf(pgerror.NullValueNotAllowed, "path element at position %d is null", level+1)
	}
	switch x := v.(type) {
	case []any:
		return setPathArray(x, path, nulls, level, newval, op)
	case *jsonObject:
		return setPathObject(x, path, nulls, level, newval, op)
	}
	if op&pathFillGaps != 0 {
		return nil, errScalarInPath()
	}
	return v, nil
}

func setPathObject(o *jsonObject, path []string, nulls []bool, level int, newval any, op int) (any, error) {
	key := path[level]
	last := level == len(path)-1
	out := &jsonObject{}
	push := func(k string, v any) { out.keys, out.vals = append(out.keys, k), append(out.vals, v) }
	if len(o.keys) == 0 && op&pathCreateOrIns != 0 && last {
		push(key, newval)
	}
	done := false
	for i, k := range o.keys {
		if !done && k == key {
			done = true
			if last {
				if op&(pathInsertBefore|pathInsertAfter) != 0 {
					e := pgerror.New(pgerror.InvalidParameterValue, "cannot replace existing key")
					e.Hint = "Try using the function jsonb_set to replace key value."
					return nil, e
				}
				if op&pathDelete == 0 {
					push(k, newval)
				}
				continue
			}
			nv, err := setPath(o.vals[i], path, nulls, level+1, newval, op)
			if err != nil {
				return nil, err
			}
			push(k, nv)
			continue
		}
		if op&pathCreateOrIns != 0 && !done && last && i == len(o.keys)-1 {
			push(key, newval)
		}
		push(k, o.vals[i])
	}
	if !done && op&pathFillGaps != 0 && !last {
		v, err := buildPath(path, level, newval)
		if err != nil {
			return nil, err
		}
		push(key, v)
	}
	return out, nil
}

func setPathArray(a []any, path []string, nulls []bool, level int, newval any, op int) (any, error) {
	const prepend = math.MinInt
	last := level == len(path)-1
	p := path[level]
	idx, err := strconv.ParseInt(strings.TrimLeft(p, " \t\n\r\v\f"), 10, 32)
	if err != nil {
		return nil, pgerror.Newf(pgerror.InvalidTextRepresentation, "path element at position %d is not an integer: \"%s\"", level+1, p)
	}
	n := int64(len(a))
	i := int(idx)
	if idx < 0 {
		if -idx > n {
			if op&pathConsistent != 0 {
				return nil, pgerror.Newf(pgerror.InvalidParameterValue, "path element at position %d is out of range: %d", level+1, idx)
			}
			i = prepend
		} else {
			i = int(n + idx)
		}
	}
	out := []any{}
	done := false
	if (i == prepend || n == 0) && last && op&pathCreateOrIns != 0 {
		if op&pathFillGaps != 0 && n == 0 && i > 0 {
			pad, err := jsonNulls(int64(i))
			if err != nil {
				return nil, err
			}
			out = append(out, pad...)
		}
		out = append(out, newval)
		done = true
	}
	for j, e := range a {
		if j != i {
			out = append(out, e)
			continue
		}
		done = true
		if !last {
			nv, err := setPath(e, path, nulls, level+1, newval, op)
			if err != nil {
				return nil, err
			}
			out = append(out, nv)
			continue
		}
		if op&(pathInsertBefore|pathCreate) != 0 {
			out = append(out, newval)
		}
		if op&(pathInsertAfter|pathInsertBefore) != 0 {
			out = append(out, e)
		}
		if op&(pathInsertAfter|pathReplace) != 0 {
			out = append(out, newval)
		}
		done = true
	}
	if op&pathCreateOrIns != 0 && !done && last {
		if op&pathFillGaps != 0 && int64(i) > n {
			pad, err := jsonNulls(int64(i) - n)
			if err != nil {
				return nil, err
			}
			out = append(out, pad...)
		}
		out = append(out, newval)
		done = true
	}
	if !done && op&pathFillGaps != 0 && !last {
		if i > 0 {
			pad, err := jsonNulls(int64(i) - n)
			if err != nil {
				return nil, err
			}
			out = append(out, pad...)
		}
		v, err := buildPath(path, level, newval)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func isContainer(v any) bool {
	switch v.(type) {
	case []any, *jsonObject:
		return true
	}
	return false
}

func containerLen(v any) int {
	switch x := v.(type) {
	case []any:
		return len(x)
	case *jsonObject:
		return len(x.keys)
	}
	return 0
}

// jsonSetPath runs jsonb_set (op pathCreate or pathReplace), jsonb_insert
// (pathInsertBefore or pathInsertAfter) and #- (pathDelete).
func jsonSetPath(v any, pathArg types.Datum, newval any, op int) (any, error) {
	if !isContainer(v) {
		if op == pathDelete {
			return nil, pgerror.New(pgerror.InvalidParameterValue, "cannot delete path in scalar")
		}
		return nil, pgerror.New(pgerror.InvalidParameterValue, "cannot set path in scalar")
	}
	path, nulls, err := textPath(pathArg)
	if err != nil {
		return nil, err
	}
	if containerLen(v) == 0 && (op == pathDelete || op == pathReplace) || len(path) == 0 {
		return v, nil
	}
	return setPath(v, path, nulls, 0, newval, op)
}

// jsonStripNulls drops object members whose value is null, at any depth.
func jsonStripNulls(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonStripNulls(e)
		}
		return out
	case *jsonObject:
		o := &jsonObject{}
		for i, k := range x.keys {
			if x.vals[i] != nil {
				o.keys, o.vals = append(o.keys, k), append(o.vals, jsonStripNulls(x.vals[i]))
			}
		}
		return o
	}
	return v
}

// jsonElemText is a SQL value as json_agg and json_object_agg write it:
// a json value's own text, anything else as to_json makes it.
func jsonElemText(d types.Datum, t types.T, loc *time.Location) (string, error) {
	if !d.IsNull() && t.Family == types.JSON {
		return d.S, nil
	}
	v, err := toJSONValue(d, t, loc)
	if err != nil {
		return "", err
	}
	if t.IsArray() || t.Family == types.Record {
		var b strings.Builder
		writeJSONCompact(&b, v) // array_to_json's and row_to_json's spacing
		return b.String(), nil
	}
	return jsonbText(v), nil
}

// JSONAgg is the result of the aggregate name (jsonb_agg, json_agg,
// jsonb_object_agg, json_object_agg) over items, each the call's
// argument values (a value, or a key and a value) in aggregation order.
func JSONAgg(name string, items [][]types.Datum, argTypes []types.T, loc *time.Location) (types.Datum, error) {
	if len(items) == 0 {
		return types.Null, nil
	}
	object := strings.HasSuffix(name, "object_agg")
	if object {
		for _, it := range items {
			if it[0].IsNull() {
				return types.Null, pgerror.New(pgerror.InvalidParameterValue, "field name must not be null")
			}
		}
	}
	if strings.HasPrefix(name, "jsonb") {
		var out any
		if object {
			o := &jsonObject{}
			for _, it := range items {
				v, err := toJSONValue(it[1], argTypes[1], loc)
				if err != nil {
					return types.Null, err
				}
				o.keys, o.vals = append(o.keys, FormatText(it[0], argTypes[0])), append(o.vals, v)
			}
			out = o
		} else {
			arr := make([]any, len(items))
			for i, it := range items {
				v, err := toJSONValue(it[0], argTypes[0], loc)
				if err != nil {
					return types.Null, err
				}
				arr[i] = v
			}
			out = arr
		}
		return types.NewJSONB(jsonbText(normalize(out))), nil
	}
	var b strings.Builder
	if object {
		b.WriteString("{ ")
		for i, it := range items {
			if i > 0 {
				b.WriteString(", ")
			}
			writeJSONString(&b, FormatText(it[0], argTypes[0]))
			b.WriteString(" : ")
			s, err := jsonElemText(it[1], argTypes[1], loc)
			if err != nil {
				return types.Null, err
			}
			b.WriteString(s)
		}
		b.WriteString(" }")
		return types.NewText(b.String()), nil
	}
	b.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			b.WriteString(", ")
			if !it[0].IsNull() && (argTypes[0].IsArray() || argTypes[0].Family == types.Record) {
				b.WriteString("\n ")
			}
		}
		s, err := jsonElemText(it[0], argTypes[0], loc)
		if err != nil {
			return types.Null, err
		}
		b.WriteString(s)
	}
	b.WriteByte(']')
	return types.NewText(b.String()), nil
}

// JSONTableRows computes the rows of a JSON set-returning function over
// the document d: jsonb_each[_text], json_each[_text] (key, value),
// jsonb_array_elements[_text], json_array_elements[_text] (value),
// jsonb_object_keys, json_object_keys (the key).
func JSONTableRows(name string, args []types.Datum) ([][]types.Datum, error) {
	if name == "jsonb_path_query" {
		seq, err := jsonPathItems(args)
		rows := make([][]types.Datum, len(seq))
		for i, v := range seq {
			rows[i] = []types.Datum{types.NewJSONB(jsonbText(v))}
		}
		return rows, err
	}
	d := args[0]
	v, err := parseJSON(d.S)
	if err != nil {
		return nil, err
	}
	isJSONB := strings.HasPrefix(name, "jsonb")
	asText := strings.HasSuffix(name, "_text")
	value := func(v any) types.Datum {
		switch {
		case asText:
			return jsonScalarText(v)
		case isJSONB:
			return types.NewJSONB(jsonbText(v))
		}
		return types.NewText(jsonbText(v))
	}
	what := func() string {
		switch v.(type) {
		case []any:
			return "an array"
		case *jsonObject:
			return "an object"
		}
		return "a scalar"
	}
	var rows [][]types.Datum
	if !isJSONB && !asText {
		// json's parts keep their source text.
		if obj, keys, vals, ok := jsonRawParts(d.S); ok && obj == !strings.Contains(name, "_array_elements") && !strings.Contains(name, "_object_keys") {
			for i, val := range vals {
				if obj {
					rows = append(rows, []types.Datum{types.NewText(keys[i]), types.NewText(val)})
				} else {
					rows = append(rows, []types.Datum{types.NewText(val)})
				}
			}
			return rows, nil
		}
	}
	switch {
	case strings.Contains(name, "_array_elements"):
		arr, ok := v.([]any)
		if !ok {
			if isJSONB {
				return nil, pgerror.Newf(pgerror.InvalidParameterValue, "cannot extract elements from %s", what())
			}
			if _, obj := v.(*jsonObject); obj {
				return nil, pgerror.Newf(pgerror.InvalidParameterValue, "cannot call %s on a non-array", name)
			}
			return nil, pgerror.Newf(pgerror.InvalidParameterValue, "cannot call %s on a scalar", name)
		}
		for _, e := range arr {
			rows = append(rows, []types.Datum{value(e)})
		}
		return rows, nil
	}
	obj, ok := v.(*jsonObject)
	if !ok {
		switch {
		case strings.Contains(name, "_object_keys"):
			return nil, pgerror.Newf(pgerror.InvalidParameterValue, "cannot call %s on %s", name, what())
		case isJSONB:
			return nil, pgerror.Newf(pgerror.InvalidParameterValue, "cannot call %s on a non-object", name)
		}
		if _, arr := v.([]any); arr {
			return nil, pgerror.New(pgerror.InvalidParameterValue, "cannot deconstruct an array as an object")
		}
		return nil, pgerror.New(pgerror.InvalidParameterValue, "cannot deconstruct a scalar")
	}
	for i, k := range obj.keys {
		if strings.Contains(name, "_object_keys") {
			rows = append(rows, []types.Datum{types.NewText(k)})
			continue
		}
		rows = append(rows, []types.Datum{types.NewText(k), value(obj.vals[i])})
	}
	return rows, nil
}

// jsonRawParts splits a json text (valid JSON) that is an object or an
// array into its members' source texts, as json's functions return them
// (json keeps its input's spacing): keys are decoded, values trimmed.
// ok is false for a scalar.
func jsonRawParts(s string) (obj bool, keys []string, vals []string, ok bool) {
	i := skipJSONSpace(s, 0)
	if i >= len(s) || s[i] != '{' && s[i] != '[' {
		return false, nil, nil, false
	}
	obj = s[i] == '{'
	i = skipJSONSpace(s, i+1)
	for i < len(s) && s[i] != '}' && s[i] != ']' {
		if obj {
			end := skipJSONValue(s, i)
			k, err := parseJSON(s[i:end])
			if err != nil {
				return false, nil, nil, false
			}
			key, _ := k.(string)
			keys = append(keys, key)
			i = skipJSONSpace(s, end)
			i = skipJSONSpace(s, i+1) // the colon
		}
		end := skipJSONValue(s, i)
		vals = append(vals, s[i:end])
		i = skipJSONSpace(s, end)
		if i < len(s) && s[i] == ',' {
			i = skipJSONSpace(s, i+1)
		}
	}
	return obj, keys, vals, true
}

func skipJSONSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// skipJSONValue returns the end of the JSON value starting at s[i].
func skipJSONValue(s string, i int) int {
	depth := 0
	for i < len(s) {
		switch c := s[i]; c {
		case '"':
			i++
			for i < len(s) && s[i] != '"' {
				if s[i] == '\\' {
					i++
				}
				i++
			}
			i++
		case '{', '[':
			depth++
			i++
		case '}', ']':
			if depth == 0 {
				return i
			}
			depth--
			i++
		case ',', ' ', '\t', '\n', '\r', ':':
			if depth == 0 {
				return i
			}
			i++
		default:
			i++
		}
		if depth == 0 && i <= len(s) && (i == len(s) || s[i-1] == '"' || s[i-1] == '}' || s[i-1] == ']') {
			return min(i, len(s))
		}
	}
	return min(i, len(s))
}

// jsonRawPath follows steps through a json text, keeping the source
// text of the part it reaches; asText gives ->>'s text (a string
// unquoted, null as NULL).
func jsonRawPath(s string, steps []types.Datum, asText bool) types.Datum {
	for _, k := range steps {
		var ok bool
		if s, ok = jsonRawStep(s, k); !ok {
			return types.Null
		}
	}
	if asText {
		switch v, _ := parseJSON(s); x := v.(type) {
		case nil:
			return types.Null
		case string:
			return types.NewText(x)
		}
	}
	return types.NewText(s)
}

// jsonRawStep is one -> step over a json text: the member's source text.
func jsonRawStep(s string, key types.Datum) (string, bool) {
	obj, keys, vals, ok := jsonRawParts(s)
	if !ok {
		return "", false
	}
	if obj {
		if key.Kind != types.KindText {
			return "", false
		}
		for i := len(keys) - 1; i >= 0; i-- {
			if keys[i] == key.S {
				return vals[i], true
			}
		}
		return "", false
	}
	var n int64
	switch key.Kind {
	case types.KindInt:
		n = key.I
	case types.KindText:
		var err error
		if n, err = strconv.ParseInt(key.S, 10, 64); err != nil {
			return "", false
		}
	default:
		return "", false
	}
	if n < 0 {
		n += int64(len(vals))
	}
	if n < 0 || n >= int64(len(vals)) {
		return "", false
	}
	return vals[n], true
}

// jsonSubscriptValue is jsonb[key] (PostgreSQL 14's jsonb subscripting):
// -> by key or index, NULL where there is no such part.
func jsonSubscriptValue(doc, key types.Datum) (types.Datum, bool, error) {
	v, err := parseJSON(doc.S)
	if err != nil {
		return types.Null, true, err
	}
	if _, isArr := v.([]any); isArr && key.Kind == types.KindText {
		n, err := strconv.ParseInt(strings.TrimSpace(key.S), 10, 64)
		if err != nil {
			return types.Null, true, nil
		}
		key = types.NewInt(n)
	}
	part, ok := jsonStep(v, key)
	if !ok {
		return types.Null, true, nil
	}
	return types.NewJSONB(jsonbText(part)), true, nil
}

// jsonObjectFunc is jsonb_object and json_object: an object from a text
// array of alternating keys and values, or from an array of keys and one
// of values (values are strings, NULL is null).
func jsonObjectFunc(e *planner.Func, args []types.Datum) (types.Datum, error) {
	keys, knull, err := textPath(args[0])
	if err != nil {
		return types.Null, err
	}
	var vals []string
	var vnull []bool
	if len(args) == 2 {
		if vals, vnull, err = textPath(args[1]); err != nil {
			return types.Null, err
		}
		if len(vals) != len(keys) {
			return types.Null, pgerror.New(codeArraySubscript, "mismatched array dimensions")
		}
	} else {
		if len(keys)%2 != 0 {
			return types.Null, pgerror.New(codeArraySubscript, "array must have even number of elements")
		}
		for i := 0; i < len(keys); i += 2 {
			vals, vnull = append(vals, keys[i+1]), append(vnull, knull[i+1])
		}
		var k []string
		var kn []bool
		for i := 0; i < len(keys); i += 2 {
			k, kn = append(k, keys[i]), append(kn, knull[i])
		}
		keys, knull = k, kn
	}
	o := &jsonObject{}
	for i, k := range keys {
		if knull[i] {
			return types.Null, pgerror.New(pgerror.NullValueNotAllowed, "null value not allowed for object key")
		}
		var v any
		if !vnull[i] {
			v = vals[i]
		}
		o.keys, o.vals = append(o.keys, k), append(o.vals, v)
	}
	if e.T.Family == types.JSON {
		var b strings.Builder
		writeJSON(&b, o, " : ")
		return types.NewText(b.String()), nil
	}
	return types.NewJSONB(jsonbText(normalize(o))), nil
}

// codeArraySubscript is ARRAY_SUBSCRIPT_ERROR.
const codeArraySubscript = "2202E"

// jsonSubscriptAssign is UPDATE ... SET col[k1][k2]... = v (args: the
// column's value, v, the subscripts): jsonb_set's path creation, but
// arrays padded with nulls up to the index, missing containers built
// (an array for an integer step), a NULL column starting as {} (or []
// for an integer first subscript) and a NULL v stored as JSON null.
func jsonSubscriptAssign(e *planner.Func, args []types.Datum) (types.Datum, bool, error) {
	path := make([]string, 0, len(args)-2)
	for i, s := range args[2:] {
		if s.IsNull() {
			return types.Null, true, pgerror.New(pgerror.NullValueNotAllowed, "jsonb subscript in assignment must not be null")
		}
		path = append(path, FormatText(s, e.Args[i+2].Type()))
	}
	var doc any
	if args[0].IsNull() {
		if isIntegerFamily(e.Args[2].Type().Family) {
			doc = []any{}
		} else {
			doc = &jsonObject{}
		}
	} else {
		var err error
		if doc, err = parseJSON(args[0].S); err != nil {
			return types.Null, true, err
		}
	}
	var newval any
	if !args[1].IsNull() {
		var err error
		if newval, err = parseJSON(args[1].S); err != nil {
			return types.Null, true, err
		}
	}
	out, err := setPath(doc, path, make([]bool, len(path)), 0, newval, pathCreate|pathFillGaps|pathConsistent)
	if err != nil {
		return types.Null, true, err
	}
	return types.NewJSONB(jsonbText(normalize(out))), true, nil
}

func isIntegerFamily(f types.Family) bool {
	return f == types.Int2 || f == types.Int4 || f == types.Int8
}

// JSONRecordRows computes jsonb_to_record[set] and json_to_record[set]:
// a row per object (one, or each element of an array), each column the
// member of its name converted to its type as PostgreSQL's
// populate_record does (a string by its text, other scalars by their
// JSON text, containers as JSON or as an array of the column's element
// type; missing or null members NULL).
func JSONRecordRows(name string, d types.Datum, cols []planner.Column) ([][]types.Datum, error) {
	return JSONPopulateRows(name, d, cols, nil)
}

// JSONPopulateRows is JSONRecordRows with defaults (nil for none): a
// column whose member the object lacks takes its default.
func JSONPopulateRows(name string, d types.Datum, cols []planner.Column, defaults []types.Datum) ([][]types.Datum, error) {
	v, err := parseJSON(d.S)
	if err != nil {
		return nil, err
	}
	var objs []*jsonObject
	if strings.HasSuffix(name, "recordset") {
		arr, ok := v.([]any)
		if !ok {
			return nil, pgerror.Newf(pgerror.InvalidParameterValue, "cannot call %s on a non-array", name)
		}
		for _, e := range arr {
			o, ok := e.(*jsonObject)
			if !ok {
				return nil, pgerror.Newf(pgerror.InvalidParameterValue, "argument of %s must be an array of objects", name)
			}
			objs = append(objs, o)
		}
	} else {
		o, ok := v.(*jsonObject)
		if !ok {
			what := "a scalar"
			if _, arr := v.([]any); arr {
				what = "an array"
			}
			return nil, pgerror.Newf(pgerror.InvalidParameterValue, "cannot call populate_composite on %s", what)
		}
		objs = []*jsonObject{o}
	}
	rows := make([][]types.Datum, len(objs))
	for r, o := range objs {
		row := make([]types.Datum, len(cols))
		for i, c := range cols {
			m, ok := o.get(c.Name)
			if !ok {
				if i < len(defaults) {
					row[i] = defaults[i]
				}
				continue
			}
			if c.T.Family == types.Record && c.T.Comp != nil && i < len(defaults) && !defaults[i].IsNull() {
				// A nested object fills in the base's record.
				if o, isObject := m.(*jsonObject); isObject {
					if row[i], err = jsonToRecord(o, c.T, defaults[i]); err != nil {
						return nil, err
					}
					continue
				}
			}
			if row[i], err = jsonToSQL(m, c.T); err != nil {
				return nil, err
			}
		}
		rows[r] = row
	}
	return rows, nil
}

// jsonArrayReader takes a JSON array of arrays apart as populate_record
// reads a multidimensional array: the depth of the first scalar is the
// number of dimensions, every array at one depth must be as long as the
// others, and a deeper array is an element (read as its text).
type jsonArrayReader struct {
	ndims  int // -1 until the first scalar
	lens   [types.MaxArrayDims]int
	leaves []any
}

func (r *jsonArrayReader) walk(v []any, d int) error {
	for _, e := range v {
		sub, isArray := e.([]any)
		if isArray && (r.ndims < 0 || d+1 < r.ndims) {
			if d+1 == types.MaxArrayDims {
				return tooManyDims(d + 2)
			}
			if err := r.walk(sub, d+1); err != nil {
				return err
			}
			continue
		}
		if r.ndims < 0 {
			r.ndims = d + 1
		} else if d+1 != r.ndims {
			return pgerror.New(pgerror.InvalidTextRepresentation, "expected JSON array")
		}
		r.leaves = append(r.leaves, e)
	}
	switch r.lens[d] {
	case -1:
		r.lens[d] = len(v)
	case len(v):
	default:
		e := pgerror.New(pgerror.InvalidTextRepresentation, "malformed JSON array")
		e.Detail = "Multidimensional arrays must have sub-arrays with matching dimensions."
		return e
	}
	return nil
}

// jsonToSQL converts a JSON value to a value of type t (populate_record's
// rules).
func jsonToSQL(v any, t types.T) (types.Datum, error) {
	if v == nil {
		return types.Null, nil
	}
	switch {
	case t.Family == types.Record && t.Comp != nil:
		return jsonToRecord(v, t, types.Null)
	case t.Family == types.JSONB:
		return types.NewJSONB(jsonbText(v)), nil
	case t.Family == types.JSON:
		return types.NewText(jsonbText(v)), nil
	case t.IsArray():
		arr, ok := v.([]any)
		if s, isString := v.(string); isString {
			// A string is the array's text form ('{1,2,3}').
			return CastFrom(types.NewText(s), types.T{Family: types.Text}, t)
		}
		if !ok {
			return types.Null, pgerror.Newf(pgerror.InvalidTextRepresentation, "expected JSON array")
		}
		r := jsonArrayReader{ndims: -1}
		for i := range r.lens {
			r.lens[i] = -1
		}
		if err := r.walk(arr, 0); err != nil {
			return types.Null, err
		}
		elems := make([]types.Datum, len(r.leaves))
		for i, e := range r.leaves {
			d, err := jsonToSQL(e, t.ElemType())
			if err != nil {
				return types.Null, err
			}
			elems[i] = d
		}
		if len(elems) == 0 {
			return types.NewArray(nil), nil
		}
		sh := types.ArrayShape{Lens: append([]int(nil), r.lens[:r.ndims]...), Lower: make([]int, r.ndims)}
		for i := range sh.Lower {
			sh.Lower[i] = 1
		}
		return types.NewArrayShaped(elems, sh), nil
	}
	s, ok := v.(string)
	if !ok {
		s = jsonbText(v)
	}
	if (t.Family == types.Char || t.Family == types.Varchar) && t.Width > 0 {
		// The type's input function: too long is an error, not a cut.
		trimmed := s
		if t.Family == types.Char {
			trimmed = strings.TrimRight(s, " ")
		}
		if utf8.RuneCountInString(trimmed) > int(t.Width) {
			return types.Null, pgerror.Newf(pgerror.StringDataRightTruncation, "value too long for type %s", t)
		}
	}
	return CastFrom(types.NewText(s), types.T{Family: types.Text}, t)
}
