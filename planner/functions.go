package planner

import (
	"strings"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// funcSig describes one scalar function: its arity bounds (maxArgs < 0
// for variadic) and how its result type follows from its argument types.
type funcSig struct {
	minArgs, maxArgs int
	result           func(args []types.T) types.T
}

func fixed(f types.Family) func([]types.T) types.T {
	return func([]types.T) types.T { return types.T{Family: f} }
}

// fixedArray is an array of f.
func fixedArray(f types.Family) func([]types.T) types.T {
	return func([]types.T) types.T { return types.ArrayOf(types.T{Family: f}) }
}

// concatType is the type of ||: bytea for two bytea operands, else text.
func concatType(args []types.T) types.T {
	if len(args) == 2 && args[0].Family == types.Bytea && args[1].Family == types.Bytea {
		return tBytea
	}
	return tText
}

// textOrBytea is bytea for a bytea first argument, else text.
func textOrBytea(args []types.T) types.T {
	if len(args) > 0 && args[0].Family == types.Bytea {
		return tBytea
	}
	return tText
}

// sameAsFirst is the first argument's type (abs keeps smallint, real...).
func sameAsFirst(args []types.T) types.T { return args[0] }

// floatOrNumeric is numeric for a numeric argument, else double precision,
// as PostgreSQL resolves round, floor, sqrt, exp and the like.
func floatOrNumeric(args []types.T) types.T {
	for _, a := range args {
		if a.Family == types.Numeric {
			return types.T{Family: types.Numeric}
		}
	}
	return types.T{Family: types.Float8}
}

// CommonType is the type values of the given types are converted to when
// they meet in COALESCE, GREATEST, LEAST, CASE arms or mod(): Unknown
// (untyped NULL or literal) yields to anything; integers widen; any float
// makes double precision (real if all floats are real); numeric wins over
// integers but yields to floats; otherwise the first known type.
func CommonType(args []types.T) types.T {
	res := types.T{Family: types.Unknown}
	for _, a := range args {
		switch {
		case a.Family == types.Unknown:
		case res.Family == types.Unknown:
			res = a
		case a == res:
		case a.Family == res.Family && a.Elem == res.Elem && a.Comp == res.Comp:
			res = withoutTypmod(a) // varchar(3) and varchar(5): varchar
		case a.Kind() == types.KindInt && res.Kind() == types.KindInt:
			if a.Family > res.Family {
				res = a
			}
		case isNumericFamily(a.Family) && isNumericFamily(res.Family):
			res = types.T{Family: widerNumber(a.Family, res.Family)}
		case a.Kind() == types.KindTimestamp && res.Family == types.Date:
			res = a
		case isText(a.Family) && isText(res.Family) && res.Family != types.Char:
			res = withoutTypmod(res) // the first string type wins, as in resultType
		case a.Kind() == types.KindText && res.Kind() == types.KindText && a != res:
			res = types.T{Family: types.Text}
		}
	}
	return res
}

func isNumericFamily(f types.Family) bool {
	return f.Kind() == types.KindInt || f.Kind() == types.KindFloat || f == types.Numeric
}

func widerNumber(a, b types.Family) types.Family {
	rank := func(f types.Family) int {
		switch f {
		case types.Float8:
			return 5
		case types.Float4:
			return 4
		case types.Numeric:
			return 3
		}
		return int(f) - int(types.Int2) // 0..2
	}
	switch ra, rb := rank(a), rank(b); {
	case ra == 4 && rb == 3, ra == 3 && rb == 4:
		return types.Float8
	case ra >= rb:
		return a
	}
	return b
}

func commonOfAll(args []types.T) types.T { return CommonType(args) }

// funcs is the table of scalar functions; the planner types calls with
// FuncReturnType and eval runs them (funcs.go).
var funcs = map[string]funcSig{
	"abs":                            {1, 1, sameAsFirst},
	"coalesce":                       {1, -1, commonOfAll},
	"nullif":                         {2, 2, sameAsFirst},
	"greatest":                       {1, -1, commonOfAll},
	"least":                          {1, -1, commonOfAll},
	"length":                         {1, 1, fixed(types.Int4)},
	"char_length":                    {1, 1, fixed(types.Int4)},
	"character_length":               {1, 1, fixed(types.Int4)},
	"octet_length":                   {1, 1, fixed(types.Int4)},
	"lower":                          {1, 1, fixed(types.Text)},
	"upper":                          {1, 1, fixed(types.Text)},
	"initcap":                        {1, 1, fixed(types.Text)},
	"reverse":                        {1, 1, fixed(types.Text)},
	"substr":                         {2, 3, textOrBytea},
	"substring":                      {2, 3, textOrBytea},
	"trim":                           {1, 2, fixed(types.Text)},
	"btrim":                          {1, 2, fixed(types.Text)},
	"ltrim":                          {1, 2, fixed(types.Text)},
	"rtrim":                          {1, 2, fixed(types.Text)},
	"replace":                        {3, 3, fixed(types.Text)},
	"concat":                         {0, -1, fixed(types.Text)},
	"concat_ws":                      {1, -1, fixed(types.Text)},
	"left":                           {2, 2, fixed(types.Text)},
	"right":                          {2, 2, fixed(types.Text)},
	"position":                       {2, 2, fixed(types.Int4)},
	"strpos":                         {2, 2, fixed(types.Int4)},
	"split_part":                     {3, 3, fixed(types.Text)},
	"translate":                      {3, 3, fixed(types.Text)},
	"chr":                            {1, 1, fixed(types.Text)},
	"ascii":                          {1, 1, fixed(types.Int4)},
	"starts_with":                    {2, 2, fixed(types.Bool)},
	"format":                         {1, -1, fixed(types.Text)},
	"regexp_replace":                 {3, 4, fixed(types.Text)},
	"regexp_like":                    {2, 3, fixed(types.Bool)},
	"regexp_count":                   {2, 4, fixed(types.Int4)},
	"regexp_substr":                  {2, 5, fixed(types.Text)},
	"regexp_match":                   {2, 3, fixedArray(types.Text)},
	"encode":                         {2, 2, fixed(types.Text)},
	"decode":                         {2, 2, fixed(types.Bytea)},
	"sha224":                         {1, 1, fixed(types.Bytea)},
	"sha256":                         {1, 1, fixed(types.Bytea)},
	"float4send":                     {1, 1, fixed(types.Bytea)},
	"float8send":                     {1, 1, fixed(types.Bytea)},
	"sha384":                         {1, 1, fixed(types.Bytea)},
	"sha512":                         {1, 1, fixed(types.Bytea)},
	"get_byte":                       {2, 2, fixed(types.Int4)},
	"set_byte":                       {3, 3, fixed(types.Bytea)},
	"regexp_split_to_array":          {2, 3, fixedArray(types.Text)},
	"scale":                          {1, 1, fixed(types.Int4)},
	"min_scale":                      {1, 1, fixed(types.Int4)},
	"trim_scale":                     {1, 1, fixed(types.Numeric)},
	"div":                            {2, 2, fixed(types.Numeric)},
	"factorial":                      {1, 1, fixed(types.Numeric)},
	"to_number":                      {2, 2, fixed(types.Numeric)},
	"gcd":                            {2, 2, sameAsFirst},
	"lcm":                            {2, 2, sameAsFirst},
	"repeat":                         {2, 2, fixed(types.Text)},
	"lpad":                           {2, 3, fixed(types.Text)},
	"rpad":                           {2, 3, fixed(types.Text)},
	"md5":                            {1, 1, fixed(types.Text)},
	"round":                          {1, 2, roundType},
	"trunc":                          {1, 2, roundType},
	"floor":                          {1, 1, floatOrNumeric},
	"ceil":                           {1, 1, floatOrNumeric},
	"ceiling":                        {1, 1, floatOrNumeric},
	"sign":                           {1, 1, floatOrNumeric},
	"sqrt":                           {1, 1, floatOrNumeric},
	"exp":                            {1, 1, floatOrNumeric},
	"ln":                             {1, 1, floatOrNumeric},
	"log":                            {1, 2, logType},
	"log10":                          {1, 1, floatOrNumeric},
	"power":                          {2, 2, floatOrNumeric},
	"width_bucket":                   {2, 4, fixed(types.Int4)}, // (operand, thresholds) in array.go
	"pow":                            {2, 2, floatOrNumeric},
	"mod":                            {2, 2, modType},
	"pi":                             {0, 0, fixed(types.Float8)},
	"random":                         {0, 0, fixed(types.Float8)},
	"gen_random_uuid":                {0, 0, fixed(types.UUID)},
	"now":                            {0, 0, fixed(types.TimestampTZ)},
	"current_timestamp":              {0, 0, fixed(types.TimestampTZ)},
	"localtimestamp":                 {0, 0, fixed(types.Timestamp)},
	"current_date":                   {0, 0, fixed(types.Date)},
	"version":                        {0, 0, fixed(types.Text)},
	"ifnull":                         {2, 2, commonOfAll},
	"current_database":               {0, 0, fixed(types.Text)},
	"current_schema":                 {0, 0, fixed(types.Text)},
	"current_user":                   {0, 0, fixed(types.Text)},
	"session_user":                   {0, 0, fixed(types.Text)},
	"pg_backend_pid":                 {0, 0, fixed(types.Int4)},
	"pg_client_encoding":             {0, 0, fixed(types.Text)},
	"getdatabaseencoding":            {0, 0, fixed(types.Text)},
	"pg_jit_available":               {0, 0, fixed(types.Bool)},
	"pg_postmaster_start_time":       {0, 0, fixed(types.TimestampTZ)},
	"pg_notify":                      {2, 2, fixed(types.Text)},
	"pg_conf_load_time":              {0, 0, fixed(types.TimestampTZ)},
	"pg_trigger_depth":               {0, 0, fixed(types.Int4)},
	"pg_notification_queue_usage":    {0, 0, fixed(types.Float8)},
	"inet_server_addr":               {0, 0, fixed(types.Inet)},
	"inet_client_addr":               {0, 0, fixed(types.Inet)},
	"inet_server_port":               {0, 0, fixed(types.Int4)},
	"inet_client_port":               {0, 0, fixed(types.Int4)},
	"txid_current":                   {0, 0, fixed(types.Int8)},
	"txid_current_if_assigned":       {0, 0, fixed(types.Int8)},
	"pg_current_xact_id":             {0, 0, fixed(types.Int8)},
	"pg_current_xact_id_if_assigned": {0, 0, fixed(types.Int8)},
	// pg_cancel_backend and pg_terminate_backend are bound by bindSignal
	// (pgcatalog_stat.go); listed here so they are known functions.
	"pg_cancel_backend":    {1, 1, fixed(types.Bool)},
	"pg_terminate_backend": {1, 2, fixed(types.Bool)},
	// Sequence functions (exec/eval seqFunc; planner/sequence.go binds
	// their first argument). kvsql_seq_* read SELECT * FROM seq's row.
	"quote_ident":            {1, 1, fixed(types.Text)},
	"nextval":                {1, 1, fixed(types.Int8)},
	"currval":                {1, 1, fixed(types.Int8)},
	"setval":                 {2, 3, fixed(types.Int8)},
	"lastval":                {0, 0, fixed(types.Int8)},
	"pg_sequence_last_value": {1, 1, fixed(types.Int8)},
	"kvsql_seq_last_value":   {1, 1, fixed(types.Int8)},
	"kvsql_seq_log_cnt":      {1, 1, fixed(types.Int8)},
	"kvsql_seq_is_called":    {1, 1, fixed(types.Bool)},
	"||":                     {2, 2, concatType},
	"~":                      {2, 2, fixed(types.Bool)},
	"~*":                     {2, 2, fixed(types.Bool)},
	"!~":                     {2, 2, fixed(types.Bool)},
	"!~*":                    {2, 2, fixed(types.Bool)},
	// PostgreSQL catalog functions (exec/eval/funcs_pg.go; the ones that
	// read the catalog are bound in pgcatalog_funcs.go).
	"format_type":                     {2, 2, fixed(types.Text)},
	"pg_get_userbyid":                 {1, 1, fixed(types.Text)},
	"pg_table_is_visible":             {1, 1, fixed(types.Bool)},
	"pg_type_is_visible":              {1, 1, fixed(types.Bool)},
	"pg_relation_is_publishable":      {1, 1, fixed(types.Bool)},
	"has_table_privilege":             {2, 3, fixed(types.Bool)},
	"has_schema_privilege":            {2, 3, fixed(types.Bool)},
	"has_database_privilege":          {2, 3, fixed(types.Bool)},
	"has_column_privilege":            {3, 4, fixed(types.Bool)},
	"has_sequence_privilege":          {2, 3, fixed(types.Bool)},
	"pg_has_role":                     {2, 3, fixed(types.Bool)},
	"pg_is_in_recovery":               {0, 0, fixed(types.Bool)},
	"pg_get_expr":                     {2, 3, fixed(types.Text)},
	"pg_get_partkeydef":               {1, 1, fixed(types.Text)},
	"pg_encoding_to_char":             {1, 1, fixed(types.Text)},
	"pg_get_statisticsobjdef_columns": {1, 1, fixed(types.Text)},
	"pg_size_pretty":                  {1, 1, fixed(types.Text)},
	"set_config":                      {3, 3, fixed(types.Text)},
	"quote_literal":                   {1, 1, fixed(types.Text)},
	"quote_nullable":                  {1, 1, fixed(types.Text)},
	"pg_tablespace_location":          {1, 1, fixed(types.Text)},
	// kvsql_if_public_visible(a, b) is a when schema public is on the
	// search path, else b: catalog functions name relations unqualified
	// only when the search path finds them (pgcatalog_dump.go).
	"kvsql_if_public_visible":            {2, 2, fixed(types.Text)},
	"current_setting":                    {1, 2, fixed(types.Text)},
	"current_schemas":                    {1, 1, func([]types.T) types.T { return types.ArrayOf(types.T{Family: types.Text}) }},
	"pg_get_triggerdef":                  {1, 2, fixed(types.Text)},
	"pg_get_function_identity_arguments": {1, 1, fixed(types.Text)},
	"acldefault":                         {2, 2, fixed(types.Text)},
}

// roundType: round(x) and trunc(x) follow x (numeric stays numeric, others
// become double precision); with a digit count they are numeric.
func roundType(args []types.T) types.T {
	if len(args) == 2 {
		return types.T{Family: types.Numeric}
	}
	return floatOrNumeric(args)
}

// logType: log(x) follows x; log(b, x) is numeric.
func logType(args []types.T) types.T {
	if len(args) == 2 {
		return types.T{Family: types.Numeric}
	}
	return floatOrNumeric(args)
}

// modType: mod of integers is the wider integer type, otherwise numeric.
func modType(args []types.T) types.T {
	c := CommonType(args)
	if c.Kind() == types.KindInt {
		return c
	}
	return types.T{Family: types.Numeric}
}

// FuncReturnType returns the result type of calling scalar function name
// (case-insensitive) with arguments of the given types, or a 42883 error
// "function name(types) does not exist" for an unknown name or a wrong
// number of arguments. It checks arity only: argument types are the
// planner's to coerce.
func FuncReturnType(name string, args []types.T) (types.T, error) {
	sig, ok := funcs[strings.ToLower(name)]
	if !ok || len(args) < sig.minArgs || (sig.maxArgs >= 0 && len(args) > sig.maxArgs) {
		return types.T{}, noSuchFunction(name, args)
	}
	if marks, ok := textParams[strings.ToLower(name)]; ok {
		for i, a := range args {
			if i < len(marks) && marks[i] == 't' && notText(a) {
				return types.T{}, noSuchFunction(name, args)
			}
		}
	}
	return sig.result(args), nil
}

// noSuchFunction is PostgreSQL's 42883 for a call no function matches.
func noSuchFunction(name string, args []types.T) *pgerror.Error {
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = a.String()
	}
	return &pgerror.Error{
		Code:    pgerror.UndefinedFunction,
		Message: "function " + name + "(" + strings.Join(names, ", ") + ") does not exist",
		Hint:    "No function matches the given name and argument types. You might need to add explicit type casts.",
	}
}

// textParams marks ('t') the parameters of string functions that no
// overload declares as a number, boolean or date/time. PostgreSQL has no
// implicit cast from those types to text, so length(42) or upper(true)
// match no function there, and must not here either.
var textParams = map[string]string{
	"length": "t", "char_length": "t", "character_length": "t",
	"upper": "t", "lower": "t", "initcap": "t", "reverse": "t", "ascii": "t", "md5": "t",
	"ltrim": "tt", "rtrim": "tt", "btrim": "tt", "lpad": "t-t", "rpad": "t-t",
	"repeat": "t", "left": "t", "right": "t", "replace": "ttt", "translate": "ttt",
	"strpos": "tt", "split_part": "tt", "starts_with": "tt",
}

// notText reports whether t is a scalar number, boolean or date/time:
// a type that reaches text only through an explicit cast.
func notText(t types.T) bool {
	switch t.Kind() {
	case types.KindInt, types.KindFloat, types.KindDecimal, types.KindBool,
		types.KindDate, types.KindTime, types.KindTimestamp, types.KindInterval:
		return !t.IsArray()
	}
	return false
}

// IsFunc reports whether name (lower case) is a known scalar function.
func IsFunc(name string) bool {
	_, ok := funcs[name]
	return ok
}
