package planner

import (
	"strings"
	"unicode"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/types"
	"strconv"
)

// serialSequenceCall binds pg_get_serial_sequence(table text, column
// text): the schema-qualified name of the sequence behind a serial or
// identity column, NULL for any other column. SQLAlchemy's inspector
// calls it with a.attrelid::regclass::text, which is the table's OID as
// text in kvsql (a regclass keeps its integer value), so each table
// answers to its name, public.name and its OID.
func (g *vgen) serialSequenceCall(args []Expr) (Expr, error) {
	tbl, err := coerce(args[0], tText)
	if err != nil {
		return nil, err
	}
	col, err := coerce(args[1], tText)
	if err != nil {
		return nil, err
	}
	c := &Case{Operand: tbl, T: tText}
	for _, t := range g.tables() {
		byCol := &Case{Operand: col, T: tText}
		for _, cl := range t.Columns {
			if cl.Serial && !cl.Hidden {
				byCol.Whens = append(byCol.Whens, When{Cond: textConst(cl.Name), Val: textConst("public." + t.Name + "_" + cl.Name + "_seq")})
			}
		}
		if len(byCol.Whens) == 0 {
			continue
		}
		for _, name := range []string{t.Name, "public." + t.Name, quoteIdent(t.Name), strconv.FormatInt(int64(t.ID), 10)} {
			c.Whens = append(c.Whens, When{Cond: textConst(name), Val: byCol})
		}
	}
	return finishCase(c), nil
}

// oidCheckBase + table id * 64 + ordinal is a CHECK constraint's OID.
const oidCheckBase = 0x5c000000

// checkConstraint is the pg_constraint row of a table's i-th CHECK
// constraint: conkey lists the columns its expression names, and
// pg_get_constraintdef wraps the expression as PostgreSQL prints a
// single comparison, CHECK ((qty >= 0)).
func checkConstraint(t *catalog.Table, i int, ck catalog.Check) vconstraint {
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(ck.Expr), func(r rune) bool {
		return !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r))
	}) {
		words[w] = true
	}
	var keys []string
	cols, nums := visibleColumns(t)
	for j, c := range cols {
		if words[strings.ToLower(c.Name)] {
			keys = append(keys, strconv.Itoa(nums[j]))
		}
	}
	return vconstraint{oid: oidCheckBase + int64(t.ID)*64 + int64(i), name: ck.Name, kind: "c", t: t,
		keys: "{" + strings.Join(keys, ",") + "}", def: "CHECK ((" + ck.Expr + "))"}
}

// typedLiteralDefault is a column default as PostgreSQL prints it
// (pg_get_expr of pg_attrdef.adbin): a string literal default of a text
// or varchar column carries its cast, 'acme'::text.
func typedLiteralDefault(c catalog.Column, def string) string {
	if len(def) < 2 || def[0] != '\'' || def[len(def)-1] != '\'' || strings.Contains(def[1:len(def)-1], "'") {
		return def
	}
	switch c.Type.Family {
	case types.Text:
		return def + "::text"
	case types.Varchar:
		return def + "::character varying"
	}
	return def
}
