package eval

import (
	"strings"
	"testing"

	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// vec is a subscript of a catalog vector column, as the planner binds
// indkey[i].
func vec(v, i planner.Expr) planner.Expr {
	return &planner.Func{Name: planner.CatalogVectorFunc, Args: []planner.Expr{v, i}, T: types.T{Family: types.Int2}}
}

func TestPgFuncs(t *testing.T) {
	env := testEnv()
	env.User = "alice"
	cases := []struct {
		e    planner.Expr
		want string
	}{
		{fn("format_type", i8(23), i4(-1)), "integer"},
		{fn("format_type", i8(1043), i4(14)), "character varying(10)"},
		{fn("format_type", i8(1043), i4(-1)), "character varying"},
		{fn("format_type", i8(1042), i4(9)), "character(5)"},
		{fn("format_type", i8(1700), i4((10<<16|2)+4)), "numeric(10,2)"},
		{fn("format_type", i8(1184), i4(-1)), "timestamp with time zone"},
		{fn("format_type", i8(1007), i4(-1)), "integer[]"},
		{fn("format_type", i8(99999), i4(-1)), "???"},
		{fn("format_type", null(types.Int8), i4(-1)), "NULL"},
		{fn("pg_get_userbyid", i8(10)), "alice"},
		{fn("pg_get_userbyid", i8(6171)), "pg_database_owner"},
		{fn("pg_get_userbyid", i8(77)), "unknown (OID=77)"},
		{fn("pg_table_is_visible", i8(16384)), "t"},
		{fn("pg_table_is_visible", null(types.Int8)), "NULL"},
		{fn("has_table_privilege", txt("t"), txt("select")), "t"},
		{fn("pg_get_expr", txt("'x'"), i8(1)), "'x'"},
		{fn("pg_encoding_to_char", i4(6)), "UTF8"},
		// Catalog vectors: "3 1" counts from 0 (int2vector), "{3,1}" from 1.
		{vec(txt("3 1"), i4(0)), "3"},
		{vec(txt("3 1"), i4(1)), "1"},
		{vec(txt("3 1"), i4(2)), "NULL"},
		{vec(txt("{3,1}"), i4(1)), "3"},
		{vec(txt("{3,1}"), i4(0)), "NULL"},
		{vec(txt("{3,1}"), i4(-1)), "NULL"},
		{fn("pg_encoding_to_char", i4(0)), "SQL_ASCII"},
		{arrFn("array_to_string", tText, textArr("a", "b", "c"), txt(", ")), "a, b, c"},
		{arrFn("array_to_string", tText, textArr("a", nil, "c"), txt(",")), "a,c"},
		{arrFn("array_to_string", tText, textArr("a", nil, "c"), txt(","), txt("*")), "a,*,c"},
		{arrFn("array_to_string", tText, textArr(), txt(",")), ""},
		{arrFn("array_to_string", tText, &planner.Const{T: types.ArrayOf(tText)}, txt(",")), "NULL"},
		{arrFn("= any", tBool, txt("d"), textArr("d", "f")), "t"},
		{arrFn("= any", tBool, txt("m"), textArr("d", "f")), "f"},
		{arrFn("= any", tBool, txt("m"), textArr("d", nil)), "NULL"},
		{arrFn("<> all", tBool, txt("m"), textArr("d", "f")), "t"},
		{arrFn("= any", tBool, txt("x"), textArr()), "f"},
		{arrFn("= all", tBool, txt("x"), textArr()), "t"},
		{arrFn("= any", tBool, txt("x"), &planner.Const{T: types.ArrayOf(tText)}), "NULL"},
		{fn("pg_is_in_recovery"), "f"},
		{fn("quote_literal", txt("it's")), "'it''s'"},
		{fn("quote_literal", txt(`a\b`)), `E'a\\b'`},
		{fn("acldefault", txt("r"), i8(10)), "{alice=arwdDxt/alice}"},
		{fn("acldefault", txt("n"), i8(6171)), "{pg_database_owner=UC/pg_database_owner}"},
		{fn("acldefault", txt("f"), i8(10)), "{=X/alice,alice=X/alice}"},
		{fn("pg_get_expr", txt("nextval(cast('s' as regclass))"), i8(1)), "nextval('s'::regclass)"},
		{fn("kvsql_if_public_visible", txt("a"), txt("public.a")), "a"},
		{fn("pg_size_pretty", i8(0)), "0 bytes"},
		{fn("pg_size_pretty", i8(10239)), "10239 bytes"},
		{fn("pg_size_pretty", i8(10240)), "10 kB"},
		{fn("pg_size_pretty", i8(8<<20)), "8192 kB"},
		{fn("pg_size_pretty", i8(20<<20)), "20 MB"},
		{fn("pg_size_pretty", i8(-20<<20)), "-20 MB"},
		{fn("pg_size_pretty", i8(5<<50)), "5120 TB"},
		{fn("pg_size_pretty", i8(40<<50)), "40 PB"},
	}
	for _, c := range cases {
		d, err := Eval(env, c.e, nil)
		if got := render(d, c.e.Type(), err); got != c.want {
			t.Errorf("%v: got %q, want %q", c.e, got, c.want)
		}
	}
}

var (
	tText = types.T{Family: types.Text}
	tBool = types.T{Family: types.Bool}
)

// arrFn is a call of an array function or ANY/ALL comparison, typed by
// hand (the planner types these through arrayCall, not FuncReturnType).
func arrFn(name string, t types.T, args ...planner.Expr) planner.Expr {
	return &planner.Func{Name: name, Args: args, T: t}
}

// textArr is a text[] constant; a nil element is NULL.
func textArr(elems ...any) planner.Expr {
	ds := make([]types.Datum, len(elems))
	for i, e := range elems {
		if s, ok := e.(string); ok {
			ds[i] = types.NewText(s)
		}
	}
	return &planner.Const{Value: types.NewArray(ds), T: types.ArrayOf(tText)}
}

// pathSetting is a Settings holding only search_path.
type pathSetting string

func (p pathSetting) Get(name string) (string, bool) { return string(p), name == "search_path" }
func (p pathSetting) Set(string, string, bool) (string, error) {
	return "", nil
}

func TestSearchPathSchemas(t *testing.T) {
	cases := []struct {
		path     string
		implicit bool
		want     string
	}{
		{`"$user", public`, false, "public"},
		{`"$user", public`, true, "pg_catalog,public"},
		{"", false, ""},
		{"", true, "pg_catalog"},
		{"public, pg_catalog", true, "public,pg_catalog"},
		{`"Public", nope, information_schema, public, public`, false, "information_schema,public"},
		{`sales, "$user", public`, true, "pg_catalog,sales,public"},
		{`"$user", sales`, false, "sales"}, // no schema alice
		{`"$user"`, false, ""},
	}
	existing := []types.Datum{types.NewText("sales")}
	for _, c := range cases {
		var names []string
		env := &Env{User: "alice", Settings: pathSetting(c.path)}
		for _, d := range searchPathSchemas(env, c.implicit, existing) {
			names = append(names, d.S)
		}
		if got := strings.Join(names, ","); got != c.want {
			t.Errorf("searchPathSchemas(%q, %v) = %q, want %q", c.path, c.implicit, got, c.want)
		}
	}
}
