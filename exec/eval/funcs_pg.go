package eval

import (
	"strconv"
	"strings"
	"time"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// pgFunc runs the PostgreSQL catalog functions that clients such as psql
// call in their catalog queries and that need no catalog snapshot (those
// that do, pg_get_indexdef and friends, the planner turns into CASE
// expressions). Arrays are text in PostgreSQL's output form ("{a,b}"),
// as the virtual catalog relations hold them. args are non-NULL. ok is
// false when e is not one of these functions.
func pgFunc(env *Env, e *planner.Func, args []types.Datum) (d types.Datum, ok bool, err error) {
	switch e.Name {
	case "quote_ident":
		return types.NewText(quoteIdent(args[0].S)), true, nil
	case "format_type":
		if len(args) == 2 {
			return types.NewText(planner.FormatType(datumInt(args[0]), datumInt(args[1]))), true, nil
		}
	case "pg_get_userbyid":
		switch oid := datumInt(args[0]); oid {
		case 10:
			return types.NewText(orDefault(env.User, "kvsql")), true, nil
		case 6171:
			return types.NewText("pg_database_owner"), true, nil
		default:
			return types.NewText("unknown (OID=" + strconv.FormatInt(oid, 10) + ")"), true, nil
		}
	case "pg_table_is_visible", "pg_type_is_visible", "pg_relation_is_publishable",
		"has_table_privilege", "has_schema_privilege", "has_database_privilege", "has_column_privilege":
		// Every relation lives in public or pg_catalog, both on the
		// search path; the one user may do anything.
		return types.NewBool(true), true, nil
	case "pg_is_in_recovery":
		return types.NewBool(false), true, nil
	case "pg_get_expr":
		// pg_attrdef.adbin already holds the expression's SQL text.
		return types.NewText(datumText(args[0], e.Args[0].Type())), true, nil
	case "pg_encoding_to_char":
		switch datumInt(args[0]) {
		case 0:
			return types.NewText("SQL_ASCII"), true, nil
		case 6:
			return types.NewText("UTF8"), true, nil
		}
		return types.NewText(""), true, nil
	case "pg_size_pretty":
		return types.NewText(sizePretty(datumInt(args[0]))), true, nil
	case planner.CatalogVectorFunc:
		if len(args) == 2 {
			return catalogSubscript(args[0].S, args[1].I)
		}
		return catalogVector(args[0].S)
	case "pg_get_statisticsobjdef_columns":
		return types.Null, true, nil
	}
	return types.Null, false, nil
}

// datumInt reads an integer argument that may arrive as text (an untyped
// literal such as '16384'); unparsable text reads as 0, matching no object.
func datumInt(d types.Datum) int64 {
	switch d.Kind {
	case types.KindInt:
		return d.I
	case types.KindFloat:
		return int64(d.F)
	case types.KindDecimal:
		n, _ := decimalToInt(d)
		return n
	case types.KindText:
		n, _ := strconv.ParseInt(strings.TrimSpace(d.S), 10, 64)
		return n
	}
	return 0
}

func datumText(d types.Datum, t types.T) string {
	if d.Kind == types.KindText {
		return d.S
	}
	return FormatText(d, t)
}

// sizePretty is PostgreSQL's pg_size_pretty(bigint): bytes below 10 kB,
// then the largest unit keeping the number below 20480, rounded half away
// from zero.
func sizePretty(size int64) string {
	const limit = 10 * 1024
	const limit2 = limit*2 - 1
	abs := func(x int64) int64 {
		if x < 0 {
			return -x
		}
		return x
	}
	halfRounded := func(x int64) int64 {
		if x < 0 {
			return (x - 1) / 2
		}
		return (x + 1) / 2
	}
	if abs(size) < limit {
		return strconv.FormatInt(size, 10) + " bytes"
	}
	size >>= 9 // one extra bit for rounding
	for _, unit := range []string{"kB", "MB", "GB", "TB"} {
		if abs(size) < limit2 {
			return strconv.FormatInt(halfRounded(size), 10) + " " + unit
		}
		size >>= 10
	}
	return strconv.FormatInt(halfRounded(size), 10) + " PB"
}

// signalBackend runs pg_cancel_backend(pid) and pg_terminate_backend(pid,
// timeout): true when the session was signalled (and, with a timeout,
// is gone). The arguments are non-NULL (the functions are strict).
func signalBackend(env *Env, name string, args []types.Datum) (types.Datum, error) {
	if env.Backends == nil {
		return types.Null, pgerror.Newf(pgerror.FeatureNotSupported, "%s is not available here", name)
	}
	pid := int32(args[0].I)
	if name == "pg_cancel_backend" {
		return types.NewBool(env.Backends.Cancel(pid)), nil
	}
	var timeout int64
	if len(args) > 1 {
		timeout = args[1].I
	}
	if timeout < 0 {
		return types.Null, pgerror.New(pgerror.NumericValueOutOfRange, "\"timeout\" must not be negative")
	}
	return types.NewBool(env.Backends.Terminate(pid, time.Duration(timeout)*time.Millisecond)), nil
}

// catalogVector reads a virtual catalog's integer array or vector column
// ("{1,2}" or "1 2") as an array of integers.
func catalogVector(s string) (types.Datum, bool, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
		s = s[1 : len(s)-1]
	}
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' })
	out := make([]types.Datum, len(fields))
	for i, f := range fields {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return types.Null, true, pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid input syntax for type smallint: %q", f)
		}
		out[i] = types.NewInt(n)
	}
	return types.NewArray(out), true, nil
}

// catalogSubscript is v[i] over a virtual catalog's integer vector ("1 2",
// subscripts from 0, as PostgreSQL's int2vector) or array ("{1,2}", from
// 1): NULL outside its bounds.
func catalogSubscript(s string, i int64) (types.Datum, bool, error) {
	base := int64(0)
	if strings.HasPrefix(strings.TrimSpace(s), "{") {
		base = 1
	}
	d, _, err := catalogVector(s)
	if err != nil {
		return types.Null, true, err
	}
	elems, err := types.ArrayElems(nil, d)
	if err != nil {
		return types.Null, true, err
	}
	if i-base < 0 || i-base >= int64(len(elems)) {
		return types.Null, true, nil
	}
	return elems[i-base], true, nil
}
