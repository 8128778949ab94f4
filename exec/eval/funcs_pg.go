package eval

import (
	"regexp"
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
	case "pg_tablespace_location":
		// kvsql's tablespaces are the built-in pg_default and pg_global,
		// which live in the data directory: the empty string.
		return types.NewText(""), true, nil
	case "quote_literal":
		return types.NewText(quoteLiteral(datumText(args[0], e.Args[0].Type()))), true, nil
	case "format_type":
		if len(args) == 2 {
			return types.NewText(planner.FormatType(datumInt(args[0]), datumInt(args[1]))), true, nil
		}
	case "pg_get_userbyid":
		return types.NewText(userByID(env, datumInt(args[0]))), true, nil
	case "has_table_privilege", "has_schema_privilege", "has_sequence_privilege", "pg_has_role":
		if env.Privilege != nil {
			ok, err := env.Privilege(e.Name, args)
			return types.NewBool(ok), true, err
		}
		return types.NewBool(true), true, nil
	case "pg_table_is_visible", "pg_type_is_visible", "pg_relation_is_publishable",
		"has_database_privilege", "has_column_privilege":
		// Every relation lives in public or pg_catalog, both on the
		// search path; databases and columns carry no privileges.
		return types.NewBool(true), true, nil
	case "pg_is_in_recovery":
		return types.NewBool(false), true, nil
	case "pg_get_expr":
		// pg_attrdef.adbin already holds the expression's SQL text; a
		// sequence named in nextval is qualified when the search path
		// does not find it (pg_dump restores with an empty path).
		text := datumText(args[0], e.Args[0].Type())
		visible := publicVisible(env)
		text = nextvalCall.ReplaceAllStringFunc(text, func(m string) string {
			name := nextvalCall.FindStringSubmatch(m)[1]
			switch i := strings.IndexByte(name, '.'); {
			case i < 0 && !visible:
				name = "public." + name
			case i > 0 && (name[:i] == "public" && visible || onSearchPath(env, name[:i])):
				name = name[i+1:]
			}
			return "nextval('" + name + "'::regclass)"
		})
		return types.NewText(text), true, nil
	case "kvsql_if_public_visible":
		if publicVisible(env) {
			return args[0], true, nil
		}
		return args[1], true, nil
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
	case "pg_get_statisticsobjdef_columns", "pg_get_triggerdef", "pg_get_function_identity_arguments":
		// An OID of no such object (the planner answers for triggers
		// that exist; pg_statistic_ext is empty): NULL.
		return types.Null, true, nil
	case "current_setting":
		if env.Settings == nil {
			return types.Null, true, pgerror.New(pgerror.FeatureNotSupported, "current_setting is not available here")
		}
		v, found := env.Settings.Get(args[0].S)
		if !found {
			if len(args) == 2 && args[1].Kind == types.KindBool && args[1].Bool() {
				return types.Null, true, nil
			}
			return types.Null, true, pgerror.Newf(pgerror.UndefinedObject, "unrecognized configuration parameter %q", args[0].S)
		}
		return types.NewText(v), true, nil
	case "set_config":
		if env.Settings == nil {
			return types.Null, true, pgerror.New(pgerror.FeatureNotSupported, "set_config is not available here")
		}
		if _, found := env.Settings.Get(args[0].S); !found && !strings.Contains(args[0].S, ".") {
			// A dotted name is a custom option, which any value may set.
			return types.Null, true, pgerror.Newf(pgerror.UndefinedObject, "unrecognized configuration parameter %q", args[0].S)
		}
		v, err := env.Settings.Set(args[0].S, args[1].S, args[2].Bool())
		if err != nil {
			return types.Null, true, err
		}
		return types.NewText(v), true, nil
	case "current_schemas":
		return types.NewArray(searchPathSchemas(env, args[0].Bool(), nil)), true, nil
	case planner.SchemaPathFunc, planner.CurrentSchemaFunc:
		existing, err := types.ArrayElems(nil, args[len(args)-1])
		if err != nil {
			return types.Null, true, err
		}
		if e.Name == planner.SchemaPathFunc {
			return types.NewArray(searchPathSchemas(env, args[0].Bool(), existing)), true, nil
		}
		if path := searchPathSchemas(env, false, existing); len(path) > 0 {
			return path[0], true, nil
		}
		return types.Null, true, nil
	case "acldefault":
		return types.NewText(aclDefault(args[0].S, userByID(env, datumInt(args[1])))), true, nil
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

// aclDefault is acldefault(objtype, owner) in aclitem[]'s text form: the
// privileges an object of that kind has before any GRANT or REVOKE
// (PostgreSQL's acldefault; kvsql has one role, owning everything).
func aclDefault(objtype, owner string) string {
	o := quoteIdent(owner)
	switch objtype {
	case "r":
		return "{" + o + "=arwdDxt/" + o + "}"
	case "s":
		return "{" + o + "=rwU/" + o + "}"
	case "d":
		return "{=Tc/" + o + "," + o + "=CTc/" + o + "}"
	case "f", "p":
		return "{=X/" + o + "," + o + "=X/" + o + "}"
	case "l", "T":
		return "{=U/" + o + "," + o + "=U/" + o + "}"
	case "n":
		return "{" + o + "=UC/" + o + "}"
	case "F", "S":
		return "{" + o + "=U/" + o + "}"
	case "L":
		return "{" + o + "=rw/" + o + "}"
	case "t":
		return "{" + o + "=C/" + o + "}"
	}
	return "{}"
}

// quoteLiteral is PostgreSQL's quote_literal: the text as a string
// literal, quotes doubled, and an E” literal with doubled backslashes when
// it has any.
func quoteLiteral(s string) string {
	q := "'" + strings.ReplaceAll(s, "'", "''") + "'"
	if strings.Contains(s, `\`) {
		return "E" + strings.ReplaceAll(q, `\`, `\\`)
	}
	return q
}

// userByID is pg_get_userbyid: the role with that OID (10, the bootstrap
// role, is the session's user; 6171 is pg_database_owner).
func userByID(env *Env, oid int64) string {
	if env.RoleName != nil && oid != 6171 {
		return env.RoleName(oid)
	}
	switch oid {
	case 10:
		return orDefault(env.User, "kvsql")
	case 6171:
		return "pg_database_owner"
	}
	return "unknown (OID=" + strconv.FormatInt(oid, 10) + ")"
}

// searchPathSchemas is current_schemas(implicit) for the session's
// search_path: the schemas of the path that exist (the system schemas,
// public, and existing, which the planner lists from the catalog), in
// order, with pg_catalog first when implicit and not on the path.
func searchPathSchemas(env *Env, implicit bool, existing []types.Datum) []types.Datum {
	path := `"$user", public`
	if env.Settings != nil {
		if v, found := env.Settings.Get("search_path"); found {
			path = v
		}
	}
	exists := map[string]bool{"public": true, "pg_catalog": true, "information_schema": true}
	for _, d := range existing {
		exists[d.S] = true
	}
	var names []string
	seen := map[string]bool{}
	for _, name := range planner.SearchPath(path, orDefault(env.User, "kvsql")) {
		if exists[name] && !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	if implicit && !seen["pg_catalog"] {
		names = append([]string{"pg_catalog"}, names...)
	}
	out := make([]types.Datum, len(names))
	for i, n := range names {
		out[i] = types.NewText(n)
	}
	return out
}

// nextvalCall is a nextval call on a constant sequence name, as a column
// default holds it: nextval('name'::regclass), nextval(cast('name' as
// regclass)) or nextval('name'); PostgreSQL prints the first form.
var nextvalCall = regexp.MustCompile(`(?i)nextval\(\s*(?:cast\(\s*)?'([a-z_][a-z0-9_.$]*)'(?:\s+as\s+regclass\s*\)|\s*::\s*regclass)?\s*\)`)

// onSearchPath reports whether the session's search_path names schema
// (a schema other than public, which publicVisible answers for).
func onSearchPath(env *Env, schema string) bool {
	if schema == "public" || env.Settings == nil {
		return false
	}
	path, _ := env.Settings.Get("search_path")
	for _, part := range strings.Split(path, ",") {
		name := strings.TrimSpace(part)
		if len(name) >= 2 && name[0] == '"' && name[len(name)-1] == '"' {
			name = strings.ReplaceAll(name[1:len(name)-1], `""`, `"`)
		} else {
			name = strings.ToLower(name)
		}
		if name == schema {
			return true
		}
	}
	return false
}

// publicVisible reports whether schema public is on the search path, so
// that PostgreSQL prints the names of relations in it unqualified.
func publicVisible(env *Env) bool {
	for _, d := range searchPathSchemas(env, false, nil) {
		if d.S == "public" {
			return true
		}
	}
	return false
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
