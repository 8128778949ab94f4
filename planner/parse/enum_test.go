package parse

import (
	"reflect"
	"strings"
	"testing"

	"vitess.io/vitess/go/vt/sqlparser"
)

// TestEnumTypeParse checks CREATE TYPE ... AS ENUM and ALTER TYPE's
// enum and naming actions, and that a schema-qualified type name
// survives a cast.
func TestEnumTypeParse(t *testing.T) {
	cases := []struct {
		sql  string
		want TypeStmt
	}{
		{`CREATE TYPE mood AS ENUM ('sad', 'o''k', E'h\x61ppy')`,
			TypeStmt{Op: "create", Names: []string{"mood"}, Enum: true, Labels: []string{"sad", "o'k", "happy"}}},
		{`CREATE TYPE s.e AS ENUM ()`, TypeStmt{Op: "create", Names: []string{QualifiedRef([]string{"s", "e"})}, Enum: true}},
		{`ALTER TYPE mood ADD VALUE IF NOT EXISTS 'meh' BEFORE 'ok'`,
			TypeStmt{Op: "alter", Names: []string{"mood"}, Alter: "add value", Label: "meh", Neighbor: "ok", Before: true, IfNotExists: true}},
		{`ALTER TYPE mood ADD VALUE 'wow' AFTER 'happy'`,
			TypeStmt{Op: "alter", Names: []string{"mood"}, Alter: "add value", Label: "wow", Neighbor: "happy"}},
		{`ALTER TYPE mood ADD VALUE 'last'`, TypeStmt{Op: "alter", Names: []string{"mood"}, Alter: "add value", Label: "last"}},
		{`ALTER TYPE mood RENAME VALUE 'sad' TO 'blue'`,
			TypeStmt{Op: "alter", Names: []string{"mood"}, Alter: "rename value", Label: "sad", NewName: "blue"}},
		{`ALTER TYPE mood RENAME TO feeling`, TypeStmt{Op: "alter", Names: []string{"mood"}, Alter: "rename", NewName: "feeling"}},
		{`ALTER TYPE public.mood OWNER TO postgres`,
			TypeStmt{Op: "alter", Names: []string{QualifiedRef([]string{"public", "mood"})}, Alter: "owner"}},
	}
	for _, c := range cases {
		stmts, err := Parse(c.sql)
		if err != nil || len(stmts) != 1 || stmts[0].UserType == nil {
			t.Errorf("%s: %v (%d statements)", c.sql, err, len(stmts))
			continue
		}
		if got := *stmts[0].UserType; !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.sql, got, c.want)
		}
	}
	for _, bad := range []string{`CREATE TYPE e AS ENUM ('a' 'b')`, `CREATE TYPE e AS ENUM (a)`, `ALTER TYPE e ADD VALUE 'x' BEFORE`,
		`ALTER TYPE e RENAME VALUE 'a' 'b'`} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%s: parsed", bad)
		}
	}
	stmts, err := Parse(`SELECT 'lo'::s.lvl, CAST('hi' AS "S".lvl[])`)
	if err != nil || len(stmts) != 1 {
		t.Fatalf("casts to schema-qualified types: %v", err)
	}
	if got := sqlparser.String(stmts[0].AST); !strings.Contains(got, "as s.lvl") || !strings.Contains(got, "as S.lvl") {
		t.Errorf("casts to schema-qualified types: %s", got)
	}
}
