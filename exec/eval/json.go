package eval

import (
	"encoding/json"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
)

// JSON and JSONB. A json datum is its input text (validated); a jsonb
// datum is the normalised text PostgreSQL prints for it: object keys
// unique (the last wins) and sorted shorter first, then bytewise,
// numbers as NUMERIC prints them, ", " and ": " between items. Operators
// parse the text into a tree of nil, bool, string, json.Number, []any
// and jsonObject.

// jsonObject keeps an object's members in order; for jsonb the order is
// the sorted one and keys are unique.
type jsonObject struct {
	keys []string
	vals []any
}

func (o *jsonObject) get(k string) (any, bool) {
	for i := len(o.keys) - 1; i >= 0; i-- { // the last duplicate wins
		if o.keys[i] == k {
			return o.vals[i], true
		}
	}
	return nil, false
}

// parseJSON reads one JSON document; errors are 22P02 as json_in's.
func parseJSON(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	v, err := readJSON(dec)
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			err = pgerror.New(pgerror.InvalidTextRepresentation, "trailing data")
		}
	}
	if err != nil {
		return nil, pgerror.New(pgerror.InvalidTextRepresentation, "invalid input syntax for type json") // json's message for jsonb too
	}
	return v, nil
}

func readJSON(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := readJSON(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token()
			return arr, err
		case '{':
			obj := &jsonObject{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := readJSON(dec)
				if err != nil {
					return nil, err
				}
				obj.keys, obj.vals = append(obj.keys, k), append(obj.vals, v)
			}
			_, err := dec.Token()
			return obj, err
		}
		return nil, pgerror.New(pgerror.InvalidTextRepresentation, "unexpected delimiter")
	}
	return tok, nil
}

// jsonRaw is a JSON value already written as json text (json's
// functions keep a json argument's text and write arrays compactly).
type jsonRaw string

// normalize makes v a jsonb value: keys unique (last wins) and sorted.
func normalize(v any) any {
	switch x := v.(type) {
	case []any:
		for i := range x {
			x[i] = normalize(x[i])
		}
	case *jsonObject:
		last := map[string]int{}
		for i, k := range x.keys {
			last[k] = i
		}
		n := &jsonObject{}
		for i, k := range x.keys {
			if last[k] == i {
				n.keys, n.vals = append(n.keys, k), append(n.vals, normalize(x.vals[i]))
			}
		}
		sort.Sort(byJSONBKey{n})
		return n
	}
	return v
}

// byJSONBKey is jsonb's key order: shorter first, then bytewise.
type byJSONBKey struct{ o *jsonObject }

func (b byJSONBKey) Len() int { return len(b.o.keys) }
func (b byJSONBKey) Less(i, j int) bool {
	a, c := b.o.keys[i], b.o.keys[j]
	if len(a) != len(c) {
		return len(a) < len(c)
	}
	return a < c
}
func (b byJSONBKey) Swap(i, j int) {
	b.o.keys[i], b.o.keys[j] = b.o.keys[j], b.o.keys[i]
	b.o.vals[i], b.o.vals[j] = b.o.vals[j], b.o.vals[i]
}

// writeJSON renders v as jsonb_out does (sep ": " and ", "); build is
// json_build_object's spacing (" : ").
func writeJSON(b *strings.Builder, v any, keySep string) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case json.Number:
		var d apd.Decimal
		if types.ParseDecimal(string(x), &d) {
			b.WriteString(types.DecimalText(&d))
		} else {
			b.WriteString(string(x))
		}
	case string:
		writeJSONString(b, x)
	case jsonRaw:
		b.WriteString(string(x))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeJSON(b, e, keySep)
		}
		b.WriteByte(']')
	case *jsonObject:
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writeJSONString(b, k)
			b.WriteString(keySep)
			writeJSON(b, x.vals[i], keySep)
		}
		b.WriteByte('}')
	}
}

// writeJSONString quotes s as PostgreSQL's escape_json does.
func writeJSONString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				b.WriteString(`\u00`)
				b.WriteString(strconv.FormatInt(int64(r>>4), 16))
				b.WriteString(strconv.FormatInt(int64(r&15), 16))
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

func jsonbText(v any) string {
	var b strings.Builder
	writeJSON(&b, v, ": ")
	return b.String()
}

// castToJSON converts text (or json, or jsonb) to json or jsonb.
func castToJSON(d types.Datum, from, to types.T) (types.Datum, error) {
	if d.Kind != types.KindText {
		return types.Null, cannotCast(from, to)
	}
	if to.Family == types.JSON && (from.Family == types.JSON || from.Family == types.JSONB) {
		return types.NewText(d.S), nil
	}
	if to.Family == types.JSONB && from.Family == types.JSONB {
		d.I = types.TextJSONB
		return d, nil
	}
	v, err := parseJSON(d.S)
	if err != nil {
		return types.Null, err
	}
	if to.Family == types.JSON {
		return types.NewText(d.S), nil
	}
	return types.NewJSONB(jsonbText(normalize(v))), nil
}

// JSONText validates s as a value of family f (JSON or JSONB) and returns
// the datum a column of that type holds: the text itself for json, the
// normalised text for jsonb. The wire server reads parameters with it.
func JSONText(s string, f types.Family) (types.Datum, error) {
	return castToJSON(types.NewText(s), types.T{Family: types.Text}, types.T{Family: f})
}

// jsonScalarText is ->>'s text of a value: strings unquoted, null NULL.
func jsonScalarText(v any) types.Datum {
	switch x := v.(type) {
	case nil:
		return types.Null
	case string:
		return types.NewText(x)
	}
	return types.NewText(jsonbText(v))
}

// jsonStep is one -> step: an object's member by key or an array's
// element by index (negative counts from the end).
func jsonStep(v any, key types.Datum) (any, bool) {
	switch x := v.(type) {
	case *jsonObject:
		if key.Kind == types.KindText {
			return x.get(key.S)
		}
	case []any:
		i := int64(-1)
		switch key.Kind {
		case types.KindInt:
			i = key.I
		case types.KindText:
			n, err := strconv.ParseInt(key.S, 10, 64)
			if err != nil {
				return nil, false
			}
			i = n
		}
		if i < 0 {
			i += int64(len(x))
		}
		if i >= 0 && i < int64(len(x)) {
			return x[i], true
		}
	}
	return nil, false
}

// jsonPath reads a text[] path written as '{a,b,0}'.
func jsonPath(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return nil, pgerror.Newf(pgerror.InvalidTextRepresentation, "malformed array literal: %q", s)
	}
	inner := strings.TrimSpace(s[1 : len(s)-1])
	if inner == "" {
		return nil, nil
	}
	parts := strings.Split(inner, ",")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"`)
	}
	return parts, nil
}

// jsonContains is jsonb's @>: every member of b is in a (arrays: every
// element of b matches some element of a; a scalar array contains its
// element).
func jsonContains(a, b any) bool {
	switch y := b.(type) {
	case *jsonObject:
		x, ok := a.(*jsonObject)
		if !ok {
			return false
		}
		for i, k := range y.keys {
			v, ok := x.get(k)
			if !ok || !jsonContains(v, y.vals[i]) {
				return false
			}
		}
		return true
	case []any:
		x, ok := a.([]any)
		if !ok {
			return false
		}
		for _, e := range y {
			found := false
			for _, f := range x {
				if _, isArr := e.([]any); !isArr {
					if _, fArr := f.([]any); fArr {
						continue
					}
				}
				if jsonContains(f, e) {
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
	if x, ok := a.([]any); ok {
		for _, f := range x {
			if jsonEqualScalar(f, b) {
				return true
			}
		}
		return false
	}
	return jsonEqualScalar(a, b)
}

func jsonEqualScalar(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		var p, q apd.Decimal
		return types.ParseDecimal(string(x), &p) && types.ParseDecimal(string(y), &q) && p.Cmp(&q) == 0
	case *jsonObject, []any:
		return false
	}
	return a == b
}

func jsonTypeof(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

// nestJSON groups the elements of a multidimensional array (row-major)
// into nested JSON arrays, one level per dimension after the first, as
// array_to_json does; bounds are not kept.
func nestJSON(flat []any, lens []int) []any {
	if len(lens) <= 1 {
		return flat
	}
	rows := make([]any, lens[0])
	step := len(flat) / lens[0]
	for i := range rows {
		rows[i] = nestJSON(flat[i*step:(i+1)*step], lens[1:])
	}
	return rows
}

// toJSONValue is a SQL value as a JSON value (to_jsonb and the build
// functions): numbers stay numbers, booleans booleans, json documents
// documents, everything else its text.
func toJSONValue(d types.Datum, t types.T, loc *time.Location) (any, error) {
	switch {
	case d.IsNull():
		return nil, nil
	case t.Family == types.JSON || t.Family == types.JSONB:
		return parseJSON(d.S)
	case t.IsArray() && d.Kind == types.KindArray:
		elems, err := types.ArrayElems(nil, d)
		if err != nil {
			return nil, pgerror.New(pgerror.Internal, "corrupt array")
		}
		flat := make([]any, len(elems))
		for i, e := range elems {
			if flat[i], err = toJSONValue(e, t.ElemType(), loc); err != nil {
				return nil, err
			}
		}
		return nestJSON(flat, types.ArrayShapeOf(d).Lens), nil
	case t.Family == types.Record && t.Comp != nil && d.Kind == types.KindRecord:
		// A row is an object of its fields, named as its type names them
		// (f1, f2, ... for ROW(...)), in their order.
		fields, err := types.RecordFields(nil, d)
		if err != nil || len(fields) != len(t.Comp.Fields) {
			return nil, pgerror.New(pgerror.Internal, "corrupt record")
		}
		o := &jsonObject{}
		for i, f := range fields {
			v, err := toJSONValue(f, t.Comp.Fields[i].T, loc)
			if err != nil {
				return nil, err
			}
			o.keys, o.vals = append(o.keys, t.Comp.Fields[i].Name), append(o.vals, v)
		}
		return o, nil
	case d.Kind == types.KindTimestamp:
		// JSON's timestamps are ISO 8601: a T, and a zone as +hh:mm.
		s := strings.Replace(string(AppendTextIn(nil, d, t, loc)), " ", "T", 1)
		if t.Family == types.TimestampTZ {
			if i := strings.LastIndexAny(s, "+-"); i > 10 && len(s)-i == 3 {
				s += ":00"
			}
		}
		return s, nil
	case d.Kind == types.KindBool:
		return d.Bool(), nil
	case d.Kind == types.KindInt, d.Kind == types.KindDecimal:
		return json.Number(FormatText(d, t)), nil
	case d.Kind == types.KindFloat:
		s := FormatText(d, t)
		if s == "NaN" || strings.HasSuffix(s, "Infinity") {
			return s, nil
		}
		return json.Number(s), nil
	}
	return FormatText(d, t), nil
}

// jsonFunc runs the JSON operators and functions; ok is false for other
// names. Arguments are non-NULL except for the build functions. A jsonb
// result carries the jsonb mark (types.TextJSONB).
func jsonFunc(loc *time.Location, e *planner.Func, args []types.Datum) (types.Datum, bool, error) {
	if op, ok := planner.JSONOpFunc(e.Name); ok {
		f := *e
		f.Name = op
		e = &f
	}
	d, ok, err := jsonFunc1(loc, e, args)
	if e.T.Family == types.JSONB && d.Kind == types.KindText {
		d.I = types.TextJSONB
	}
	return d, ok, err
}

// jsonResult is v as a value of e's type: jsonb's normalised text, or
// json's compact text.
func jsonResult(e *planner.Func, v any) types.Datum {
	if e.T.Family == types.JSON {
		var b strings.Builder
		writeJSONCompact(&b, v)
		return types.NewText(b.String())
	}
	return types.NewJSONB(jsonbText(normalize(v)))
}

// writeJSONCompact writes v without spaces, as json's processing
// functions (json_strip_nulls) print.
func writeJSONCompact(b *strings.Builder, v any) {
	switch x := v.(type) {
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONCompact(b, e)
		}
		b.WriteByte(']')
	case *jsonObject:
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, k)
			b.WriteByte(':')
			writeJSONCompact(b, x.vals[i])
		}
		b.WriteByte('}')
	default:
		writeJSON(b, v, ": ")
	}
}

func jsonFunc1(loc *time.Location, e *planner.Func, args []types.Datum) (types.Datum, bool, error) {
	doc := func(i int) (any, error) { return parseJSON(args[i].S) }
	switch e.Name {
	case "?", "?|", "?&":
		v, err := doc(0)
		if err != nil {
			return types.Null, true, err
		}
		if e.Name == "?" {
			return types.NewBool(jsonKeyExists(v, args[1].S)), true, nil
		}
		keys, nulls, err := textPath(args[1])
		if err != nil {
			return types.Null, true, err
		}
		all := e.Name == "?&"
		for i, k := range keys {
			if nulls[i] {
				continue
			}
			if jsonKeyExists(v, k) != all {
				return types.NewBool(!all), true, nil
			}
		}
		return types.NewBool(all), true, nil
	case parse.MarkerSubscriptAssign:
		return jsonSubscriptAssign(e, args)
	case "jsonb_set_lax":
		// Not strict: an SQL NULL new value is handled as the fifth
		// argument says.
		if args[0].IsNull() || args[1].IsNull() {
			return types.Null, true, nil
		}
		treatment := "use_json_null"
		if len(args) == 5 {
			if args[4].IsNull() {
				return types.Null, true, pgerror.New(pgerror.InvalidParameterValue, `null_value_treatment must be "delete_key", "return_target", "use_json_null", or "raise_exception"`)
			}
			treatment = args[4].S
		}
		create := len(args) < 4 || !args[3].IsNull() && args[3].Bool()
		set := &planner.Func{Name: "jsonb_set", T: e.T}
		setArgs := []types.Datum{args[0], args[1], args[2], types.NewBool(create)}
		if !args[2].IsNull() {
			return jsonFunc1(loc, set, setArgs)
		}
		switch treatment {
		case "raise_exception":
			err := pgerror.New(pgerror.NullValueNotAllowed, "JSON value must not be null")
			err.Detail = `Exception was raised because null_value_treatment is "raise_exception".`
			err.Hint = "To avoid, either change the null_value_treatment argument or ensure that an SQL NULL is not passed."
			return types.Null, true, err
		case "use_json_null":
			setArgs[2] = types.NewJSONB("null")
			return jsonFunc1(loc, set, setArgs)
		case "delete_key":
			return jsonFunc1(loc, &planner.Func{Name: "#-", T: e.T}, args[:2])
		case "return_target":
			return args[0], true, nil
		}
		return types.Null, true, pgerror.New(pgerror.InvalidParameterValue, `null_value_treatment must be "delete_key", "return_target", "use_json_null", or "raise_exception"`)
	case "-", "#-", "jsonb_set", "jsonb_insert":
		v, err := doc(0)
		if err != nil {
			return types.Null, true, err
		}
		var out any
		switch e.Name {
		case "-":
			out, err = jsonDelete(v, args[1])
		case "#-":
			out, err = jsonSetPath(v, args[1], nil, pathDelete)
		default:
			nv, perr := doc(2)
			if perr != nil {
				return types.Null, true, perr
			}
			flag := len(args) == 4 && args[3].Bool()
			op := pathCreate // jsonb_set's create_if_missing defaults to true
			switch {
			case e.Name == "jsonb_set" && len(args) == 4 && !flag:
				op = pathReplace
			case e.Name == "jsonb_insert" && flag:
				op = pathInsertAfter
			case e.Name == "jsonb_insert":
				op = pathInsertBefore
			}
			out, err = jsonSetPath(v, args[1], nv, op)
		}
		if err != nil {
			return types.Null, true, err
		}
		return jsonResult(e, out), true, nil
	case "jsonb_object", "json_object":
		d, err := jsonObjectFunc(e, args)
		return d, true, err
	case "array_to_json":
		// array_to_json's spacing: none, or with pretty a line break and
		// a space before every element after the first.
		elems, err := types.ArrayElems(nil, args[0])
		if err != nil {
			return types.Null, true, pgerror.New(pgerror.Internal, "corrupt array")
		}
		sep := ","
		if len(args) == 2 && args[1].Bool() {
			sep = ",\n "
		}
		// A multidimensional array nests, pretty only at the top level.
		lens := types.ArrayShapeOf(args[0]).Lens
		var b strings.Builder
		next := 0
		var write func(d int) error
		write = func(d int) error {
			b.WriteByte('[')
			n := len(elems)
			if d < len(lens) {
				n = lens[d]
			}
			for i := 0; i < n; i++ {
				if i > 0 {
					b.WriteString(map[bool]string{true: sep, false: ","}[d == 0])
				}
				if d+1 < len(lens) {
					if err := write(d + 1); err != nil {
						return err
					}
					continue
				}
				s, err := jsonElemText(elems[next], e.Args[0].Type().ElemType(), loc)
				if err != nil {
					return err
				}
				b.WriteString(s)
				next++
			}
			b.WriteByte(']')
			return nil
		}
		if err := write(0); err != nil {
			return types.Null, true, err
		}
		return types.NewText(b.String()), true, nil
	case "jsonb_strip_nulls", "json_strip_nulls":
		v, err := doc(0)
		if err != nil {
			return types.Null, true, err
		}
		return jsonResult(e, jsonStripNulls(v)), true, nil
	case "jsonb_extract_path", "json_extract_path", "jsonb_extract_path_text", "json_extract_path_text":
		if e.Name[4] == '_' {
			return jsonRawPath(args[0].S, args[1:], strings.HasSuffix(e.Name, "_text")), true, nil
		}
		v, err := doc(0)
		if err != nil {
			return types.Null, true, err
		}
		for _, k := range args[1:] {
			var ok bool
			if v, ok = jsonStep(v, k); !ok {
				return types.Null, true, nil
			}
		}
		if strings.HasSuffix(e.Name, "_text") {
			return jsonScalarText(v), true, nil
		}
		return types.NewText(jsonbText(v)), true, nil
	case "jsonb_path_exists", "jsonb_path_match", "jsonb_path_query_first", "jsonb_path_query_array":
		return jsonPathFunc(e, args)
	case "@?", "@@":
		// jsonb_path_exists and jsonb_path_match, silent.
		f := &planner.Func{Name: "jsonb_path_exists", T: e.T}
		if e.Name == "@@" {
			f.Name = "jsonb_path_match"
		}
		return jsonPathFunc(f, []types.Datum{args[0], args[1], types.NewJSONB("{}"), types.NewBool(true)})
	case "||":
		d, err := jsonbConcat(args[0], args[1])
		return d, true, err
	case "->", "->>", "#>", "#>>":
		v, err := doc(0)
		if err != nil {
			return types.Null, true, err
		}
		var steps []types.Datum
		if e.Name[0] == '#' {
			path, nulls, err := textPath(args[1])
			if err != nil {
				return types.Null, true, err
			}
			for i, p := range path {
				if nulls[i] {
					return types.Null, true, nil
				}
				steps = append(steps, types.NewText(p))
			}
		} else {
			steps = []types.Datum{args[1]}
		}
		if e.Args[0].Type().Family == types.JSON {
			return jsonRawPath(args[0].S, steps, e.Name == "->>" || e.Name == "#>>"), true, nil
		}
		for _, k := range steps {
			var ok bool
			if v, ok = jsonStep(v, k); !ok {
				return types.Null, true, nil
			}
		}
		if e.Name == "->>" || e.Name == "#>>" {
			return jsonScalarText(v), true, nil
		}
		// json's parts print in jsonb's form: kvsql keeps no source
		// text of a part.
		return types.NewText(jsonbText(v)), true, nil
	case "@>", "<@":
		a, err := doc(0)
		if err != nil {
			return types.Null, true, err
		}
		b, err := doc(1)
		if err != nil {
			return types.Null, true, err
		}
		if e.Name == "<@" {
			a, b = b, a
		}
		return types.NewBool(jsonContains(a, b)), true, nil
	case "jsonb_typeof", "json_typeof":
		v, err := doc(0)
		if err != nil {
			return types.Null, true, err
		}
		return types.NewText(jsonTypeof(v)), true, nil
	case "jsonb_array_length", "json_array_length":
		v, err := doc(0)
		if err != nil {
			return types.Null, true, err
		}
		arr, ok := v.([]any)
		if !ok {
			what := "scalar"
			if _, obj := v.(*jsonObject); obj {
				what = "non-array"
			}
			return types.Null, true, pgerror.Newf(pgerror.InvalidParameterValue, "cannot get array length of a %s", what)
		}
		return types.NewInt(int64(len(arr))), true, nil
	case "jsonb_pretty":
		v, err := doc(0)
		if err != nil {
			return types.Null, true, err
		}
		var b strings.Builder
		writePretty(&b, v, 0)
		return types.NewText(b.String()), true, nil
	case "row_to_json":
		// row_to_json's spacing: none, or with pretty a line break and a
		// space before every field after the first.
		v, err := toJSONValue(args[0], e.Args[0].Type(), loc)
		o, ok := v.(*jsonObject)
		if err != nil {
			return types.Null, true, err
		}
		if !ok {
			return types.Null, true, pgerror.Newf(pgerror.FeatureNotSupported, "row_to_json of a value of type %s is not supported: its fields have no names", e.Args[0].Type())
		}
		var b strings.Builder
		b.WriteByte('{')
		for i, k := range o.keys {
			if i > 0 {
				b.WriteByte(',')
				if len(args) == 2 && args[1].Bool() {
					b.WriteString("\n ")
				}
			}
			writeJSONString(&b, k)
			b.WriteByte(':')
			writeJSONCompact(&b, o.vals[i])
		}
		b.WriteByte('}')
		return types.NewText(b.String()), true, nil
	case "to_jsonb", "to_json":
		if e.Name == "to_json" {
			s, err := jsonElemText(args[0], e.Args[0].Type(), loc)
			return types.NewText(s), true, err
		}
		v, err := toJSONValue(args[0], e.Args[0].Type(), loc)
		if err != nil {
			return types.Null, true, err
		}
		return types.NewText(jsonbText(normalize(v))), true, nil
	case "jsonb_build_object", "json_build_object", "jsonb_build_array", "json_build_array":
		if len(e.Args) == 1 {
			if v, ok := e.Args[0].(*planner.Func); ok && v.Name == parse.MarkerVariadic {
				// f(VARIADIC arr): the elements are the arguments.
				if args[0].IsNull() {
					return types.Null, true, nil
				}
				elems, err := types.ArrayElems(nil, args[0])
				if err != nil {
					return types.Null, true, pgerror.New(pgerror.Internal, "corrupt array")
				}
				f := &planner.Func{Name: e.Name, T: e.T, Args: make([]planner.Expr, len(elems))}
				for i := range elems {
					f.Args[i] = &planner.Const{Value: types.Null, T: v.T.ElemType()}
				}
				if strings.HasSuffix(e.Name, "object") && len(elems)%2 != 0 {
					err := pgerror.New(pgerror.InvalidParameterValue, "argument list must have even number of elements")
					err.Hint = "The arguments of " + e.Name + "() must consist of alternating keys and values."
					return types.Null, true, err
				}
				return jsonFunc1(loc, f, elems)
			}
		}
		vals := make([]any, len(args))
		for i := range args {
			var v any
			var err error
			if e.Name[:5] == "json_" {
				var s string
				s, err = jsonElemText(args[i], e.Args[i].Type(), loc)
				v = jsonRaw(s)
			} else {
				v, err = toJSONValue(args[i], e.Args[i].Type(), loc)
			}
			if err != nil {
				return types.Null, true, err
			}
			vals[i] = v
		}
		var out any = vals
		if strings.HasSuffix(e.Name, "object") {
			obj := &jsonObject{}
			for i := 0; i < len(args); i += 2 {
				if args[i].IsNull() {
					if e.Name == "json_build_object" {
						return types.Null, true, pgerror.Newf(pgerror.InvalidParameterValue, "argument %d cannot be null", i+1)
					}
					return types.Null, true, pgerror.Newf(pgerror.InvalidParameterValue, "argument %d: key must not be null", i+1)
				}
				if kt := e.Args[i].Type(); kt.IsArray() || isJSONFamily(kt.Family) {
					return types.Null, true, pgerror.New(pgerror.InvalidParameterValue, "key value must be scalar, not array, composite, or json")
				}
				obj.keys, obj.vals = append(obj.keys, FormatText(args[i], e.Args[i].Type())), append(obj.vals, vals[i+1])
			}
			out = obj
		}
		var b strings.Builder
		if e.Name[:5] == "jsonb" {
			writeJSON(&b, normalize(out), ": ")
		} else {
			writeJSON(&b, out, " : ")
		}
		return types.NewText(b.String()), true, nil
	}
	return types.Null, false, nil
}

// writePretty is jsonb_pretty's layout: four-space indents, one member
// or element a line.
func writePretty(b *strings.Builder, v any, depth int) {
	indent := func(n int) { b.WriteString(strings.Repeat("    ", n)) }
	switch x := v.(type) {
	case []any:
		if len(x) == 0 {
			b.WriteString("[\n")
			indent(depth)
			b.WriteString("]")
			return
		}
		b.WriteString("[\n")
		for i, e := range x {
			indent(depth + 1)
			writePretty(b, e, depth+1)
			if i < len(x)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		indent(depth)
		b.WriteByte(']')
	case *jsonObject:
		if len(x.keys) == 0 {
			b.WriteString("{\n")
			indent(depth)
			b.WriteString("}")
			return
		}
		b.WriteString("{\n")
		for i, k := range x.keys {
			indent(depth + 1)
			writeJSONString(b, k)
			b.WriteString(": ")
			writePretty(b, x.vals[i], depth+1)
			if i < len(x.keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		indent(depth)
		b.WriteByte('}')
	default:
		b.WriteString(jsonbText(v))
	}
}

// jsonbConcat is jsonb || jsonb: two objects merge (the right side's
// values win); otherwise both sides, a non-array wrapped as a
// one-element array, are concatenated as arrays.
func jsonbConcat(l, r types.Datum) (types.Datum, error) {
	a, err := parseJSON(l.S)
	if err != nil {
		return types.Null, err
	}
	b, err := parseJSON(r.S)
	if err != nil {
		return types.Null, err
	}
	ao, aObj := a.(*jsonObject)
	bo, bObj := b.(*jsonObject)
	if aObj && bObj {
		m := &jsonObject{keys: append(append([]string(nil), ao.keys...), bo.keys...), vals: append(append([]any(nil), ao.vals...), bo.vals...)}
		return types.NewJSONB(jsonbText(normalize(m))), nil
	}
	asArray := func(v any) []any {
		if arr, ok := v.([]any); ok {
			return arr
		}
		return []any{v}
	}
	return types.NewJSONB(jsonbText(append(asArray(a), asArray(b)...))), nil
}

func isJSONFamily(f types.Family) bool { return f == types.JSON || f == types.JSONB }
