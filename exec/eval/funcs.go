package eval

import (
	crand "crypto/rand"
	"encoding/hex"
	"math/rand/v2"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
)

// maxInlineArgs is how many evaluated arguments fit in evalFunc's stack
// buffer; calls with more arguments allocate.
const maxInlineArgs = 4

// evalFunc calls a scalar function. The non-strict functions (coalesce,
// nullif, greatest, least, concat, concat_ws) handle their NULLs
// themselves; every other function yields NULL when any argument is NULL.
func evalFunc(env *Env, e *planner.Func, row []types.Datum) (types.Datum, error) {
	if _, ok := planner.RoutineName(e.Name); ok {
		return evalRoutine(env, e, row)
	}
	switch e.Name {
	case "coalesce", "ifnull":
		for _, a := range e.Args {
			d, err := evalTo(env, a, row, e.T)
			if err != nil || !d.IsNull() {
				return d, err
			}
		}
		return types.Null, nil
	case "now", "current_timestamp":
		return types.NewTimestamp(env.Now.UnixMicro()), nil
	case "localtimestamp":
		return types.NewTimestamp(wallMicros(env.Now.UnixMicro(), env.loc())), nil
	case "current_date":
		return types.NewDate(floorDiv(wallMicros(env.Now.UnixMicro(), env.loc()), microsPerDay)), nil
	case "random":
		return types.NewFloat(rand.Float64()), nil
	case "gen_random_uuid":
		return types.NewText(randomUUID()), nil
	case "pi":
		return types.NewFloat(3.141592653589793), nil
	case "version":
		return types.NewText("PostgreSQL 15.0 (kvsql)"), nil
	case "current_database":
		return types.NewText(orDefault(env.Database, "kvsql")), nil
	case "current_schema":
		return types.NewText("public"), nil
	case "current_user":
		return types.NewText(orDefault(env.User, "kvsql")), nil
	case "session_user":
		return types.NewText(orDefault(env.SessionUser, orDefault(env.User, "kvsql"))), nil
	case "pg_backend_pid":
		return types.NewInt(int64(env.BackendPID)), nil
	case "pg_client_encoding", "getdatabaseencoding":
		return types.NewText("UTF8"), nil
	case "pg_jit_available":
		return types.NewBool(false), nil
	case "pg_postmaster_start_time", "txid_current", "pg_current_xact_id", "txid_current_if_assigned", "pg_current_xact_id_if_assigned",
		"pg_conf_load_time", "pg_trigger_depth", "pg_notification_queue_usage", "inet_server_addr", "inet_server_port", "inet_client_addr", "inet_client_port":
		return serverFunc(env, e.Name) // advisory.go
	case "pg_notify":
		return notifyFunc(env, e, row) // advisory.go
	case planner.RowFunc:
		return evalRow(env, e, row)
	case planner.FieldFunc:
		return evalField(env, e, row)
	case "jsonb_populate_record", "json_populate_record":
		return evalPopulate(env, e, row)
	}

	var buf [maxInlineArgs]types.Datum
	args := buf[:0]
	anyNull := false
	for _, a := range e.Args {
		d, err := Eval(env, a, row)
		if err != nil {
			return types.Null, err
		}
		anyNull = anyNull || d.IsNull()
		args = append(args, d)
	}

	if d, ok, err := arrayFunc(env, e, args); ok { // array.go
		return d, err
	}
	switch e.Name {
	case "nullif":
		if len(args) != 2 {
			break
		}
		if !args[0].IsNull() && !args[1].IsNull() {
			c, err := compareSQL(args[0], args[1])
			if err != nil {
				return types.Null, err
			}
			if c == 0 {
				return types.Null, nil
			}
		}
		return args[0], nil
	case "greatest", "least":
		return extreme(args, e.Name == "greatest", e.T), nil
	case "quote_nullable":
		// quote_literal, but the word NULL for a NULL (funcs_pg.go).
		if args[0].IsNull() {
			return types.NewText("NULL"), nil
		}
		return types.NewText(quoteLiteral(datumText(args[0], e.Args[0].Type()))), nil
	case "concat", "concat_ws":
		var n int64
		for _, a := range args {
			n += int64(len(a.S))
		}
		if e.Name == "concat_ws" && len(args) > 0 {
			n += int64(len(args[0].S)) * int64(len(args))
		}
		if n > env.maxValueSize() {
			return types.Null, tooLarge()
		}
	}
	switch e.Name {
	case planner.EnumRangeFunc:
		return enumRange(args)
	case "concat", "concat_ws":
		// concat(VARIADIC NULL) is NULL; its elements otherwise.
		vals, ts, null, err := variadicArgs(e, args)
		if err != nil || null {
			return types.Null, err
		}
		if e.Name == "concat" {
			return concatFunc(vals, ts, ""), nil
		}
		if len(vals) == 0 || vals[0].IsNull() {
			return types.Null, nil
		}
		return concatFunc(vals[1:], ts[1:], vals[0].S), nil
	case "format_type":
		// Not strict in PostgreSQL: a NULL typmod means none (psql's \d
		// of a sequence passes NULL).
		if len(args) == 2 && !args[0].IsNull() && args[1].IsNull() {
			return types.NewText(planner.FormatTypeName(datumInt(args[0]))), nil
		}
	case "format":
		return formatFunc(e, args)
	case "jsonb_build_object", "json_build_object", "jsonb_build_array", "json_build_array":
		d, _, err := jsonFunc(env.loc(), e, args)
		return d, err
	case parse.MarkerVariadic:
		if len(args) == 1 {
			return args[0], nil // the array written after VARIADIC
		}
	case "jsonb_set_lax", parse.MarkerSubscriptAssign:
		d, _, err := jsonFunc(env.loc(), e, args)
		return d, err
	}
	if anyNull {
		return types.Null, nil
	}
	if d, ok, err := inetFunc(e, args); ok { // inet.go
		return d, err
	}
	if d, ok, err := byteaFunc(e, args); ok { // bytea.go
		return d, err
	}
	switch e.Name {
	case "pg_cancel_backend", "pg_terminate_backend":
		return signalBackend(env, e.Name, args)
	case "pg_advisory_lock", "pg_advisory_lock_shared", "pg_try_advisory_lock", "pg_try_advisory_lock_shared",
		"pg_advisory_xact_lock", "pg_advisory_xact_lock_shared", "pg_try_advisory_xact_lock", "pg_try_advisory_xact_lock_shared",
		"pg_advisory_unlock", "pg_advisory_unlock_shared", "pg_advisory_unlock_all":
		return advisoryFunc(env, e.Name, args) // advisory.go
	case "nextval", "currval", "setval", "lastval", "kvsql_seq_last_value", "kvsql_seq_log_cnt", "kvsql_seq_is_called", "pg_sequence_last_value":
		return seqFunc(env, e.Name, args)
	case "||":
		if len(args) == 2 && e.T.Family == types.JSONB {
			return jsonbConcat(args[0], args[1])
		}
		if len(args) == 2 {
			return concat2(args[0], args[1], e.Args[0].Type(), e.Args[1].Type(), env.style()), nil
		}
	case "~", "~*", "!~", "!~*":
		if len(args) == 2 {
			return evalRegexOp(env, e.Name, args[0], args[1])
		}
	case "->", "->>", "#>", "#>>", "@>", "<@", "jsonb_typeof", "json_typeof", "jsonb_array_length",
		"json_array_length", "jsonb_pretty", "to_jsonb", "to_json", "?", "?|", "?&", "-", "#-",
		"jsonb_set", "jsonb_insert", "jsonb_strip_nulls", "json_strip_nulls", "jsonb_extract_path",
		"json_extract_path", "jsonb_extract_path_text", "json_extract_path_text",
		"jsonb_path_exists", "jsonb_path_match", "jsonb_path_query_first", "jsonb_path_query_array", "jsonb_object", "json_object", "array_to_json", "row_to_json", "@?", "@@", "jsonb_contains",
		"jsonb_contained", "jsonb_exists", "jsonb_exists_any", "jsonb_exists_all", "jsonb_delete",
		"jsonb_delete_path", "jsonb_concat":
		d, _, err := jsonFunc(env.loc(), e, args)
		return d, err
	}
	if d, ok, err := datetimeFunc(env, e, args); ok { // datetime_funcs.go
		return d, err
	}
	if d, ok, err := pgFunc(env, e, args); ok { // funcs_pg.go
		return d, err
	}
	if d, ok, err := mathFunc(e, args); ok {
		return d, err
	}
	if err := checkBuildSize(env, e.Name, args); err != nil {
		return types.Null, err
	}
	if d, ok, err := stringFunc(e, args); ok {
		return d, err
	}
	if d, ok, err := textFunc(env, e, args); ok {
		return d, err
	}
	return types.Null, pgerror.Newf(pgerror.UndefinedFunction, "function %s does not exist", e.Name)
}

// extreme is greatest/least: NULLs are ignored, and the result is NULL only
// when every argument is.
func extreme(args []types.Datum, greatest bool, t types.T) types.Datum {
	best := types.Null
	for _, d := range args {
		if d.IsNull() {
			continue
		}
		if best.IsNull() {
			best = d
			continue
		}
		c := Compare(d, best)
		if (greatest && c > 0) || (!greatest && c < 0) {
			best = d
		}
	}
	return promote(best, t)
}

// concatFunc is concat and concat_ws: NULL arguments are skipped, others
// are rendered with their type's output function, which differs from
// FormatText (the cast to text) only for booleans: "t"/"f".
func concatFunc(args []types.Datum, ts []types.T, sep string) types.Datum {
	var b []byte
	first := true
	for i, d := range args {
		if d.IsNull() {
			continue
		}
		if !first {
			b = append(b, sep...)
		}
		first = false
		b = append(b, textOut(d, ts[i])...)
	}
	return types.NewText(string(b))
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// seqFunc runs a sequence function through env.Seq. The kvsql_seq_*
// functions read a sequence's state for SELECT * FROM seq;
// pg_sequence_last_value is NULL until the first nextval, as in
// PostgreSQL.
func seqFunc(env *Env, name string, args []types.Datum) (types.Datum, error) {
	if env.Seq == nil {
		return types.Null, pgerror.Newf(pgerror.FeatureNotSupported, "%s is not available here", name)
	}
	var v int64
	var err error
	switch name {
	case "nextval":
		v, err = env.Seq.NextVal(args[0])
	case "currval":
		v, err = env.Seq.CurrVal(args[0])
	case "lastval":
		v, err = env.Seq.LastVal()
	case "setval":
		called := true
		if len(args) > 2 {
			called = args[2].I != 0
		}
		v, err = env.Seq.SetVal(args[0], args[1].I, called)
	default:
		last, logCnt, isCalled, serr := env.Seq.State(args[0])
		if serr != nil {
			return types.Null, serr
		}
		switch name {
		case "kvsql_seq_is_called":
			return types.NewBool(isCalled), nil
		case "kvsql_seq_log_cnt":
			return types.NewInt(logCnt), nil
		case "pg_sequence_last_value":
			if !isCalled {
				return types.Null, nil
			}
		}
		return types.NewInt(last), nil
	}
	if err != nil {
		return types.Null, err
	}
	return types.NewInt(v), nil
}

// randomUUID is a version 4 (random) UUID in canonical form.
func randomUUID() string {
	var b [16]byte
	_, _ = crand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
