package eval

import (
	"reflect"
	"testing"

	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

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
		{fn("pg_encoding_to_char", i4(0)), "SQL_ASCII"},
		{fn("array_to_string", txt("{a,b,c}"), txt(", ")), "a, b, c"},
		{fn("array_to_string", txt("{a,NULL,c}"), txt(",")), "a,c"},
		{fn("array_to_string", txt("{a,NULL,c}"), txt(","), txt("*")), "a,*,c"},
		{fn("array_to_string", txt(`{"x,y","q\"z",NULL}`), txt("|")), `x,y|q"z`},
		{fn("array_to_string", txt("{}"), txt(",")), ""},
		{fn("array_to_string", null(types.Text), txt(",")), "NULL"},
		{fn("= any", txt("d"), txt("{d,f}")), "t"},
		{fn("= any", txt("m"), txt("{d,f}")), "f"},
		{fn("= any", txt("m"), txt("{d,NULL}")), "NULL"},
		{fn("= any", i8(10), txt("{0,10}")), "t"},
		{fn("= any", txt("x"), txt("{}")), "f"},
		{fn("= any", txt("x"), null(types.Text)), "NULL"},
		{fn("pg_is_in_recovery"), "f"},
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

func TestParseArrayText(t *testing.T) {
	cases := []struct {
		in    string
		elems []string
		nulls []bool
	}{
		{"{}", nil, nil},
		{"{a}", []string{"a"}, []bool{false}},
		{"{ a , b }", []string{"a", "b"}, []bool{false, false}},
		{`{"NULL",NULL}`, []string{"NULL", "NULL"}, []bool{false, true}},
		{`{"a\\b","c d"}`, []string{`a\b`, "c d"}, []bool{false, false}},
		{"plain", []string{"plain"}, []bool{false}},
		{"{,}", []string{"", ""}, []bool{false, false}},
	}
	for _, c := range cases {
		elems, nulls := parseArrayText(c.in)
		if !reflect.DeepEqual(elems, c.elems) || !reflect.DeepEqual(nulls, c.nulls) {
			t.Errorf("parseArrayText(%q) = %q %v, want %q %v", c.in, elems, nulls, c.elems, c.nulls)
		}
	}
}
