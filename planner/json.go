package planner

import (
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// JSON operators and functions: the operators reach the binder as calls
// named by their symbols (the dialect layer's doing); eval runs them
// (exec/eval/json.go).

var (
	tJSON  = types.T{Family: types.JSON}
	tJSONB = types.T{Family: types.JSONB}
)

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
	switch name {
	case "->", "->>", "#>", "#>>":
		if len(args) != 2 {
			return t, true, pgerror.Newf(pgerror.UndefinedFunction, "operator %s needs two operands", name)
		}
		if err := docArg(0); err != nil {
			return t, true, err
		}
		if err := textArg(1); err != nil {
			return t, true, err
		}
		if f := args[1].Type().Family; f != types.Text && f != types.Varchar && (name[0] == '#' || !isInteger(f)) {
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
		if (name == "to_jsonb" || name == "to_json") && len(args) != 1 {
			return t, true, pgerror.Newf(pgerror.UndefinedFunction, "function %s requires one argument", name)
		}
		if (name == "jsonb_build_object" || name == "json_build_object") && len(args)%2 != 0 {
			return t, true, pgerror.New(pgerror.InvalidParameterValue, "argument list must have even number of elements")
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
