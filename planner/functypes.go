package planner

import (
	"strings"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

var (
	tBool   = types.T{Family: types.Bool}
	tInt2   = types.T{Family: types.Int2}
	tInt4   = types.T{Family: types.Int4}
	tInt8   = types.T{Family: types.Int8}
	tFloat8 = types.T{Family: types.Float8}
	tText   = types.T{Family: types.Text}
	tBytea  = types.T{Family: types.Bytea}
	tDate   = types.T{Family: types.Date}
	tTS     = types.T{Family: types.Timestamp}
	tTSTZ   = types.T{Family: types.TimestampTZ}
	tUnk    = types.T{Family: types.Unknown}
)

// funcSig gives a scalar function's arity range and how its result type
// follows from its arguments.
type funcSig struct {
	min, max int // max -1: variadic
	result   func(args []types.T) types.T
}

func fixed(t types.T) func([]types.T) types.T { return func([]types.T) types.T { return t } }

// firstArg is the type of the first argument, with unknown literals read
// as text.
func firstArg(args []types.T) types.T {
	if len(args) == 0 || args[0].Family == types.Unknown {
		return tText
	}
	return args[0]
}

// commonArgs is the common type of all arguments (COALESCE, GREATEST...).
func commonArgs(args []types.T) types.T {
	t := tUnk
	for _, a := range args {
		t = commonType(t, a)
	}
	if t.Family == types.Unknown {
		return tText
	}
	return t
}

// numericArg keeps float for float input and the integer type otherwise.
func numericArg(args []types.T) types.T {
	if len(args) == 0 {
		return tFloat8
	}
	switch args[0].Family {
	case types.Int2, types.Int4, types.Int8:
		return args[0]
	case types.Numeric:
		return args[0]
	}
	return tFloat8
}

var funcs = map[string]funcSig{
	"abs":               {1, 1, numericArg},
	"coalesce":          {1, -1, commonArgs},
	"nullif":            {2, 2, firstArg},
	"greatest":          {1, -1, commonArgs},
	"least":             {1, -1, commonArgs},
	"ifnull":            {2, 2, commonArgs},
	"length":            {1, 1, fixed(tInt4)},
	"char_length":       {1, 1, fixed(tInt4)},
	"character_length":  {1, 1, fixed(tInt4)},
	"octet_length":      {1, 1, fixed(tInt4)},
	"lower":             {1, 1, fixed(tText)},
	"upper":             {1, 1, fixed(tText)},
	"substr":            {2, 3, fixed(tText)},
	"substring":         {2, 3, fixed(tText)},
	"trim":              {1, 2, fixed(tText)},
	"btrim":             {1, 2, fixed(tText)},
	"ltrim":             {1, 2, fixed(tText)},
	"rtrim":             {1, 2, fixed(tText)},
	"replace":           {3, 3, fixed(tText)},
	"concat":            {1, -1, fixed(tText)},
	"concat_ws":         {2, -1, fixed(tText)},
	"left":              {2, 2, fixed(tText)},
	"right":             {2, 2, fixed(tText)},
	"position":          {2, 2, fixed(tInt4)},
	"strpos":            {2, 2, fixed(tInt4)},
	"repeat":            {2, 2, fixed(tText)},
	"reverse":           {1, 1, fixed(tText)},
	"lpad":              {2, 3, fixed(tText)},
	"rpad":              {2, 3, fixed(tText)},
	"initcap":           {1, 1, fixed(tText)},
	"md5":               {1, 1, fixed(tText)},
	"||":                {2, 2, fixed(tText)},
	"~":                 {2, 2, fixed(tBool)},
	"~*":                {2, 2, fixed(tBool)},
	"!~":                {2, 2, fixed(tBool)},
	"!~*":               {2, 2, fixed(tBool)},
	"round":             {1, 2, fixed(tFloat8)},
	"trunc":             {1, 2, fixed(tFloat8)},
	"floor":             {1, 1, fixed(tFloat8)},
	"ceil":              {1, 1, fixed(tFloat8)},
	"ceiling":           {1, 1, fixed(tFloat8)},
	"sign":              {1, 1, fixed(tFloat8)},
	"sqrt":              {1, 1, fixed(tFloat8)},
	"power":             {2, 2, fixed(tFloat8)},
	"pow":               {2, 2, fixed(tFloat8)},
	"exp":               {1, 1, fixed(tFloat8)},
	"ln":                {1, 1, fixed(tFloat8)},
	"log":               {1, 2, fixed(tFloat8)},
	"mod":               {2, 2, numericArg},
	"random":            {0, 0, fixed(tFloat8)},
	"now":               {0, 0, fixed(tTSTZ)},
	"current_timestamp": {0, 0, fixed(tTSTZ)},
	"current_date":      {0, 0, fixed(tDate)},
	"version":           {0, 0, fixed(tText)},
	"current_database":  {0, 0, fixed(tText)},
	"current_schema":    {0, 0, fixed(tText)},
	"current_user":      {0, 0, fixed(tText)},
	"session_user":      {0, 0, fixed(tText)},
	"pg_backend_pid":    {0, 0, fixed(tInt4)},
}

// funcType returns the result type of a scalar function call, or 42883.
func funcType(name string, args []types.T) (types.T, error) {
	sig, ok := funcs[name]
	if !ok || len(args) < sig.min || (sig.max >= 0 && len(args) > sig.max) {
		names := make([]string, len(args))
		for i, a := range args {
			names[i] = a.String()
		}
		return types.T{}, pgerror.Newf(pgerror.UndefinedFunction,
			"function %s(%s) does not exist", name, strings.Join(names, ", "))
	}
	return sig.result(args), nil
}

// isAggregate reports whether name is an aggregate function.
func isAggregate(name string) bool {
	switch name {
	case "count", "sum", "avg", "min", "max", "string_agg", "bool_and", "bool_or", "every", "total", "group_concat":
		return true
	}
	return false
}
