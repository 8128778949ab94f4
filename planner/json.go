package planner

import (
	"strings"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"vitess.io/vitess/go/vt/sqlparser"
)

// JSON operators and functions: the operators reach the binder as calls
// named by their symbols (the dialect layer's doing); eval runs them
// (exec/eval/json.go).

var (
	tJSON  = types.T{Family: types.JSON}
	tJSONB = types.T{Family: types.JSONB}
)

// jsonOpFuncs are the functions behind jsonb's operators, callable by
// name (jsonb_contains(a, b) is a @> b).
var jsonOpFuncs = map[string]string{
	"jsonb_contains": "@>", "jsonb_contained": "<@", "jsonb_exists": "?", "jsonb_exists_any": "?|",
	"jsonb_exists_all": "?&", "jsonb_delete": "-", "jsonb_delete_path": "#-", "jsonb_concat": "||",
}

// JSONOpFunc returns the operator behind a function of jsonOpFuncs.
func JSONOpFunc(name string) (string, bool) {
	op, ok := jsonOpFuncs[name]
	return op, ok
}

func isJSON(f types.Family) bool { return f == types.JSON || f == types.JSONB }

// jsonCall types a JSON operator or function call, coercing untyped
// arguments as PostgreSQL resolves them (a literal document is jsonb, a
// key or path text); ok is false for other names.
func jsonCall(name string, args []Expr) (t types.T, ok bool, err error) {
	docArg := func(i int) error {
		if args[i].Type().Family == types.Unknown {
			args[i], err = coerce(args[i], tJSONB)
			return err
		}
		if !isJSON(args[i].Type().Family) {
			return pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s %s %s", args[0].Type(), name, args[len(args)-1].Type())
		}
		return nil
	}
	textArg := func(i int) error {
		if args[i].Type().Family == types.Unknown {
			args[i], err = coerce(args[i], tText)
		}
		return err
	}
	// pathArg makes args[i] a text[] path ('{a,0}').
	pathArg := func(i int) error {
		at := args[i].Type()
		if at.IsArray() && isText(at.Elem) {
			return nil
		}
		if at.Family == types.Unknown || isText(at.Family) {
			args[i], err = coerceOrCast(args[i], types.ArrayOf(tText))
			return err
		}
		return pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, typeList(args))
	}
	// sig checks a function's argument count and coerces its document
	// argument (the first) to the family its name says.
	sig := func(minArgs, maxArgs int) error {
		if len(args) < minArgs || len(args) > maxArgs {
			return pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, typeList(args))
		}
		want := tJSONB
		if strings.HasPrefix(name, "json_") {
			want = tJSON
		}
		if args[0].Type().Family == types.Unknown {
			if args[0], err = coerce(args[0], want); err != nil {
				return err
			}
		}
		if args[0].Type().Family != want.Family {
			return pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, typeList(args))
		}
		return nil
	}
	boolArg := func(i int) error {
		if args[i].Type().Family == types.Unknown {
			args[i], err = coerce(args[i], tBool)
		}
		if err == nil && args[i].Type().Family != types.Bool {
			err = pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, typeList(args))
		}
		return err
	}
	if op, ok := jsonOpFuncs[name]; ok {
		// The operators' functions: typed as the operator.
		if op == "||" {
			for i := range args {
				if args[i].Type().Family == types.Unknown {
					if args[i], err = coerce(args[i], tJSONB); err != nil {
						return t, true, err
					}
				}
			}
		}
		t, ok, err := jsonCall(op, args)
		if !ok && err == nil {
			err = pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, typeList(args))
		}
		return t, true, err
	}
	if tableFuncs[name] != 0 {
		return t, true, pgerror.Newf(pgerror.FeatureNotSupported, "set-returning function %s is supported only in FROM or as a whole select item", name)
	}
	switch name {
	case "->", "->>", "#>", "#>>":
		if len(args) != 2 {
			return t, true, pgerror.Newf(pgerror.UndefinedFunction, "operator %s needs two operands", name)
		}
		if err := docArg(0); err != nil {
			return t, true, err
		}
		if name[0] == '#' {
			if err := pathArg(1); err != nil {
				return t, true, err
			}
		} else if err := textArg(1); err != nil {
			return t, true, err
		} else if f := args[1].Type().Family; f != types.Text && f != types.Varchar && !isInteger(f) {
			return t, true, pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s %s %s", args[0].Type(), name, args[1].Type())
		}
		if name == "->>" || name == "#>>" {
			return tText, true, nil
		}
		return args[0].Type(), true, nil
	case "||":
		// jsonb || jsonb merges; anything else is text concatenation.
		if len(args) != 2 || !(args[0].Type().Family == types.JSONB || args[1].Type().Family == types.JSONB) {
			return t, false, nil
		}
		for i := range args {
			if args[i].Type().Family == types.Unknown {
				if args[i], err = coerce(args[i], tJSONB); err != nil {
					return t, true, err
				}
			}
		}
		if args[0].Type().Family != types.JSONB || args[1].Type().Family != types.JSONB {
			return t, false, nil
		}
		return tJSONB, true, nil
	case "@>", "<@":
		for i := range args {
			if args[i].Type().Family == types.Unknown {
				if args[i], err = coerce(args[i], tJSONB); err != nil {
					return t, true, err
				}
			}
			if args[i].Type().Family != types.JSONB {
				return t, true, pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s %s %s", args[0].Type(), name, args[1].Type())
			}
		}
		return tBool, true, nil
	case parse.MarkerSubscriptAssign:
		// UPDATE ... SET col[k]... = v: col, v, then the subscripts.
		if len(args) < 3 || args[0].Type().Family != types.JSONB {
			return t, true, pgerror.Newf(pgerror.FeatureNotSupported, "subscript assignment to type %s is not supported", args[0].Type())
		}
		if args[1].Type().Family == types.Unknown {
			if args[1], err = coerce(args[1], tJSONB); err != nil {
				return t, true, err
			}
		}
		if args[1].Type().Family != types.JSONB {
			col := "column"
			if c, ok := args[0].(*ColRef); ok {
				col = c.Name
				if i := strings.LastIndexByte(col, '.'); i >= 0 {
					col = col[i+1:]
				}
			}
			e := pgerror.Newf(pgerror.DatatypeMismatch, "subscripted assignment to \"%s\" requires type jsonb but expression is of type %s", col, args[1].Type())
			e.Hint = "You will need to rewrite or cast the expression."
			return t, true, e
		}
		for i := 2; i < len(args); i++ {
			if _, err := jsonSubscript(parse.MarkerSubscript, []Expr{args[0], args[i]}); err != nil {
				return t, true, err
			}
			if args[i].Type().Family == types.Unknown {
				if args[i], err = coerce(args[i], tText); err != nil {
					return t, true, err
				}
			}
		}
		return tJSONB, true, nil
	case "?", "?|", "?&":
		if len(args) != 2 {
			return t, true, pgerror.Newf(pgerror.UndefinedFunction, "operator %s needs two operands", name)
		}
		if err := docArg(0); err != nil {
			return t, true, err
		}
		if name == "?" {
			err = textArg(1)
		} else {
			err = pathArg(1)
		}
		if err != nil {
			return t, true, err
		}
		if args[0].Type().Family != types.JSONB || name == "?" && !isText(args[1].Type().Family) {
			return t, true, pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s %s %s", args[0].Type(), name, args[1].Type())
		}
		return tBool, true, nil
	case "-", "#-":
		// jsonb - text | int | text[] (the binder's arithmetic passes a
		// jsonb left operand here) and jsonb #- text[].
		if len(args) != 2 {
			return t, true, pgerror.Newf(pgerror.UndefinedFunction, "operator %s needs two operands", name)
		}
		if err := docArg(0); err != nil {
			return t, true, err
		}
		if name == "#-" {
			err = pathArg(1)
		} else if rt := args[1].Type(); !(rt.IsArray() && isText(rt.Elem)) && !isInteger(rt.Family) {
			err = textArg(1)
		}
		if err != nil {
			return t, true, err
		}
		if rt := args[1].Type(); args[0].Type().Family != types.JSONB || !isText(rt.Family) && !isInteger(rt.Family) && !(rt.IsArray() && isText(rt.Elem)) {
			return t, true, pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s %s %s", args[0].Type(), name, args[1].Type())
		}
		return tJSONB, true, nil
	case "@?", "@@":
		if len(args) != 2 {
			return t, true, pgerror.Newf(pgerror.UndefinedFunction, "operator %s needs two operands", name)
		}
		if err := docArg(0); err != nil {
			return t, true, err
		}
		if err := textArg(1); err != nil {
			return t, true, err
		}
		if args[0].Type().Family != types.JSONB || !isText(args[1].Type().Family) {
			return t, true, pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s %s %s", args[0].Type(), name, args[1].Type())
		}
		return tBool, true, nil
	case "jsonb_set", "jsonb_insert", "jsonb_set_lax":
		maxArgs := 4
		if name == "jsonb_set_lax" {
			maxArgs = 5
			if len(args) == 5 {
				if err := textArg(4); err != nil {
					return t, true, err
				}
				if !isText(args[4].Type().Family) {
					return t, true, pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, typeList(args))
				}
			}
		}
		if err := sig(3, maxArgs); err != nil {
			return t, true, err
		}
		if err := pathArg(1); err != nil {
			return t, true, err
		}
		if args[2].Type().Family == types.Unknown {
			if args[2], err = coerce(args[2], tJSONB); err != nil {
				return t, true, err
			}
		}
		if args[2].Type().Family != types.JSONB {
			return t, true, pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, typeList(args))
		}
		if len(args) == 4 {
			if err := boolArg(3); err != nil {
				return t, true, err
			}
		}
		return tJSONB, true, nil
	case "row_to_json":
		if len(args) < 1 || len(args) > 2 || args[0].Type().Family != types.Record {
			return t, true, pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, typeList(args))
		}
		if len(args) == 2 {
			if err := boolArg(1); err != nil {
				return t, true, err
			}
		}
		return tJSON, true, nil
	case "array_to_json":
		if len(args) < 1 || len(args) > 2 || !args[0].Type().IsArray() {
			return t, true, pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, typeList(args))
		}
		if len(args) == 2 {
			if err := boolArg(1); err != nil {
				return t, true, err
			}
		}
		return tJSON, true, nil
	case "jsonb_object", "json_object":
		if len(args) < 1 || len(args) > 2 {
			return t, true, pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, typeList(args))
		}
		for i := range args {
			if err := pathArg(i); err != nil {
				return t, true, err
			}
		}
		if name == "json_object" {
			return tJSON, true, nil
		}
		return tJSONB, true, nil
	case "jsonb_strip_nulls", "json_strip_nulls":
		if err := sig(1, 1); err != nil {
			return t, true, err
		}
		return args[0].Type(), true, nil
	case "jsonb_extract_path", "json_extract_path", "jsonb_extract_path_text", "json_extract_path_text":
		if err := sig(1, 1<<16); err != nil {
			return t, true, err
		}
		for i := 1; i < len(args); i++ {
			if err := textArg(i); err != nil {
				return t, true, err
			}
			if !isText(args[i].Type().Family) {
				return t, true, pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, typeList(args))
			}
		}
		if strings.HasSuffix(name, "_text") {
			return tText, true, nil
		}
		return args[0].Type(), true, nil
	case "jsonb_path_exists", "jsonb_path_match", "jsonb_path_query_first", "jsonb_path_query_array", "jsonb_path_query":
		if err := sig(2, 4); err != nil {
			return t, true, err
		}
		if err := textArg(1); err != nil {
			return t, true, err
		}
		if !isText(args[1].Type().Family) {
			return t, true, pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, typeList(args))
		}
		if len(args) > 2 {
			if args[2].Type().Family == types.Unknown {
				if args[2], err = coerce(args[2], tJSONB); err != nil {
					return t, true, err
				}
			}
			if args[2].Type().Family != types.JSONB {
				return t, true, pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, typeList(args))
			}
		}
		if len(args) > 3 {
			if err := boolArg(3); err != nil {
				return t, true, err
			}
		}
		if name == "jsonb_path_query_first" || name == "jsonb_path_query_array" || name == "jsonb_path_query" {
			return tJSONB, true, nil
		}
		return tBool, true, nil
	case "jsonb_typeof", "json_typeof", "jsonb_array_length", "json_array_length", "jsonb_pretty":
		if len(args) != 1 {
			return t, true, pgerror.Newf(pgerror.UndefinedFunction, "function %s requires one argument", name)
		}
		want := tJSONB
		if name[:5] == "json_" {
			want = tJSON
		}
		if args[0].Type().Family == types.Unknown {
			if args[0], err = coerce(args[0], want); err != nil {
				return t, true, err
			}
		}
		if args[0].Type().Family != want.Family {
			return t, true, pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, args[0].Type())
		}
		if name == "jsonb_array_length" || name == "json_array_length" {
			return tInt4, true, nil
		}
		return tText, true, nil
	case "jsonb_build_object", "json_build_object", "jsonb_build_array", "json_build_array", "to_jsonb", "to_json":
		if n := len(args); n > 0 && name != "to_jsonb" && name != "to_json" {
			if v, ok := args[n-1].(*Func); ok && v.Name == parse.MarkerVariadic {
				// f(VARIADIC arr): the array's elements are the arguments.
				if n != 1 || len(v.Args) != 1 {
					return t, true, pgerror.New(pgerror.FeatureNotSupported, "VARIADIC after other arguments is not supported")
				}
				at := v.Args[0].Type()
				if at.Family == types.Unknown || isText(at.Family) {
					if v.Args[0], err = coerceOrCast(v.Args[0], types.ArrayOf(tText)); err != nil {
						return t, true, err
					}
				}
				if !v.Args[0].Type().IsArray() {
					return t, true, pgerror.New(pgerror.DatatypeMismatch, "VARIADIC argument must be an array")
				}
				v.T = v.Args[0].Type()
				if name[:5] == "jsonb" {
					return tJSONB, true, nil
				}
				return tJSON, true, nil
			}
		}
		if (name == "to_jsonb" || name == "to_json") && len(args) != 1 {
			return t, true, pgerror.Newf(pgerror.UndefinedFunction, "function %s requires one argument", name)
		}
		if (name == "jsonb_build_object" || name == "json_build_object") && len(args)%2 != 0 {
			e := pgerror.New(pgerror.InvalidParameterValue, "argument list must have even number of elements")
			e.Hint = "The arguments of " + name + "() must consist of alternating keys and values."
			return t, true, e
		}
		for i := range args {
			if err := textArg(i); err != nil {
				return t, true, err
			}
		}
		if name[:5] == "jsonb" || name == "to_jsonb" {
			return tJSONB, true, nil
		}
		return tJSON, true, nil
	}
	return t, false, nil
}

// jsonTableFunc plans a JSON set-returning function in FROM (the dialect
// layer's kvsql_<name>(doc) derived table): jsonb_each[_text] and
// json_each[_text] have columns key and value, jsonb_array_elements[_text]
// and json_array_elements[_text] value, jsonb_object_keys and
// json_object_keys one named column (as unnest's).
func (b *binder) jsonTableFunc(call *sqlparser.FuncExpr, column string, ordinality bool, s *scope) (Node, error) {
	name := strings.TrimPrefix(call.Name.Lowered(), parse.MarkerPrefix)
	if tableFuncs[name] == 0 || len(call.Exprs) == 0 {
		return nil, pgerror.Newf(pgerror.UndefinedFunction, "function %s does not exist", name)
	}
	args := make([]Expr, len(call.Exprs))
	for i, a := range call.Exprs {
		x, err := b.expr(a, &scope{parent: s.parent, owner: s, aggContext: "FROM"})
		if err != nil {
			return nil, err
		}
		args[i] = x
	}
	if tableFuncs[name] == -2 {
		// A select item's set-returning call (srfSelect) passes just its
		// own arguments; a FROM item's definition list adds more.
		return b.jsonPopulateFunc(name, args, ordinality, column == srfColumn && len(args) == 2)
	}
	if tableFuncs[name] < 0 {
		return b.jsonRecordFunc(name, args, ordinality)
	}
	if name == "jsonb_path_query" {
		if _, _, err := jsonCall("jsonb_path_query_first", args); err != nil { // the same arguments
			return nil, err
		}
		n := &TableFunc{Name: name, Args: args, Ordinality: ordinality, Cols: []Column{{Name: column, T: tJSONB}}}
		if ordinality {
			n.Cols = append(n.Cols, Column{Name: "ordinality", T: tInt8})
		}
		return n, nil
	}
	if len(args) != 1 {
		return nil, pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, typeList(args))
	}
	x := args[0]
	var err error
	want := tJSONB
	if strings.HasPrefix(name, "json_") {
		want = tJSON
	}
	if x.Type().Family == types.Unknown {
		if x, err = coerce(x, want); err != nil {
			return nil, err
		}
	}
	if x.Type().Family != want.Family {
		return nil, pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, x.Type())
	}
	valT := want
	if strings.HasSuffix(name, "_text") {
		valT = tText
	}
	n := &TableFunc{Name: name, Args: []Expr{x}, Ordinality: ordinality}
	switch {
	case strings.Contains(name, "_each"):
		n.Cols = []Column{{Name: "key", T: tText}, {Name: "value", T: valT}}
	case strings.Contains(name, "_array_elements") && column != srfColumn:
		n.Cols = []Column{{Name: "value", T: valT}}
	case strings.Contains(name, "_array_elements"):
		n.Cols = []Column{{Name: column, T: valT}}
	default:
		n.Cols = []Column{{Name: column, T: tText}}
	}
	if ordinality {
		n.Cols = append(n.Cols, Column{Name: "ordinality", T: tInt8})
	}
	return n, nil
}

// jsonSubscript types jsonb[key]: a key of text or an integer type (an
// untyped literal is text), the result jsonb (-> with SQL's NULL for a
// NULL key).
func jsonSubscript(name string, args []Expr) (types.T, error) {
	if name == parse.MarkerSlice {
		return tJSONB, pgerror.New(pgerror.DatatypeMismatch, "jsonb subscript does not support slices")
	}
	var err error
	if args[1].Type().Family == types.Unknown {
		if args[1], err = coerce(args[1], tText); err != nil {
			return tJSONB, err
		}
	}
	if f := args[1].Type().Family; !isText(f) && !isInteger(f) {
		e := pgerror.Newf(pgerror.DatatypeMismatch, "subscript type %s is not supported", args[1].Type())
		e.Hint = "jsonb subscript must be coercible to either integer or text."
		return tJSONB, e
	}
	return tJSONB, nil
}

// jsonRecordFunc plans jsonb_to_record[set] and json_to_record[set]: the
// dialect layer passes the column definition list as arguments after
// the document, a name and a NULL of the column's type each.
func (b *binder) jsonRecordFunc(name string, args []Expr, ordinality bool) (Node, error) {
	if len(args) < 3 || len(args)%2 != 1 {
		return nil, pgerror.New(pgerror.SyntaxError, `a column definition list is required for functions returning "record"`)
	}
	want := tJSONB
	if strings.HasPrefix(name, "json_") {
		want = tJSON
	}
	var err error
	if args[0].Type().Family == types.Unknown {
		if args[0], err = coerce(args[0], want); err != nil {
			return nil, err
		}
	}
	if args[0].Type().Family != want.Family {
		return nil, pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, args[0].Type())
	}
	n := &TableFunc{Name: name, Args: args[:1], Ordinality: ordinality}
	for i := 1; i < len(args); i += 2 {
		c, ok := args[i].(*Const)
		if !ok || c.Value.Kind != types.KindText {
			return nil, pgerror.New(pgerror.SyntaxError, "malformed column definition list")
		}
		n.Cols = append(n.Cols, Column{Name: c.Value.S, T: args[i+1].Type()})
	}
	if ordinality {
		n.Cols = append(n.Cols, Column{Name: "ordinality", T: tInt8})
	}
	return n, nil
}
