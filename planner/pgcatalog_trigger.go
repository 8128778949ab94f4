package planner

import (
	"strconv"
	"strings"

	"github.com/kvsql/kvsql/catalog"
)

// kvsql's triggers (CREATE TRIGGER ... BEGIN statements END, run for each
// row) as pg_trigger shows them, so psql's \d lists them under
// "Triggers:" and pg_dump dumps them. SQLite's call no function: tgfoid is
// 0, and pg_get_triggerdef gives the statement kvsql reads back;
// PostgreSQL's (EXECUTE FUNCTION) show their function.

// oidTriggerBase + table id * 64 + ordinal is a trigger's oid.
const oidTriggerBase = 0x60000000

// vtrigger is one pg_trigger row.
type vtrigger struct {
	oid int64
	t   *catalog.Table
	tr  *catalog.Trigger
}

func (g *vgen) triggers() []vtrigger {
	var out []vtrigger
	for _, t := range g.tables() {
		for i, tr := range t.Triggers {
			out = append(out, vtrigger{oid: oidTriggerBase + int64(t.ID)*64 + int64(i), t: t, tr: tr})
		}
	}
	return out
}

// tgtype is PostgreSQL's trigger type bit mask: ROW 1, BEFORE 2, then
// INSERT 4, DELETE 8, UPDATE 16.
func (v vtrigger) tgtype() int64 {
	typ := int64(1)
	if v.tr.Statement {
		typ = 0
	}
	if v.tr.Timing == "before" {
		typ |= 2
	}
	events := v.tr.Events
	if len(events) == 0 {
		events = []string{v.tr.Event}
	}
	for _, e := range events {
		switch e {
		case "insert":
			typ |= 4
		case "delete":
			typ |= 8
		case "update":
			typ |= 16
		}
	}
	return typ
}

// events spells the trigger's events as pg_get_triggerdef does: INSERT,
// DELETE, UPDATE, in that order, joined by OR.
func (v vtrigger) events() string {
	var out []string
	for _, e := range []string{"insert", "delete", "update"} {
		if v.tr.On(e) {
			out = append(out, strings.ToUpper(e))
		}
	}
	return strings.Join(out, " OR ")
}

// def is pg_get_triggerdef: the CREATE TRIGGER statement that makes the
// trigger again (pretty: the table's name unqualified, as psql shows it).
func (v vtrigger) def(pretty bool) string {
	var b strings.Builder
	b.WriteString("CREATE TRIGGER " + quoteIdent(v.tr.Name) + " " + strings.ToUpper(v.tr.Timing) + " " + v.events())
	if len(v.tr.Columns) > 0 {
		b.WriteString(" OF " + quoteIdents(v.tr.Columns))
	}
	table := quoteIdent(catalog.SchemaName(v.t.Schema)) + "." + quoteIdent(v.t.Name)
	if pretty {
		table = quoteIdent(v.t.Name)
	}
	level := " FOR EACH ROW"
	if v.tr.Statement {
		level = " FOR EACH STATEMENT"
	}
	b.WriteString(" ON " + table + level)
	if v.tr.When != "" {
		b.WriteString(" WHEN (" + strings.TrimSuffix(strings.TrimPrefix(v.tr.When, "("), ")") + ")")
	}
	if v.tr.Function != "" {
		args := make([]string, len(v.tr.Args))
		for i, a := range v.tr.Args {
			args[i] = "'" + strings.ReplaceAll(a, "'", "''") + "'"
		}
		b.WriteString(" EXECUTE FUNCTION " + quoteIdent(v.tr.Function) + "(" + strings.Join(args, ", ") + ")")
		return b.String()
	}
	b.WriteString(" BEGIN")
	for _, st := range v.tr.Body {
		b.WriteString(" " + strings.TrimSuffix(strings.TrimSpace(st), ";") + ";")
	}
	b.WriteString(" END")
	return b.String()
}

func pgTrigger(g *vgen) [][]Expr {
	var out [][]Expr
	for _, v := range g.triggers() {
		var attrs []string
		for _, c := range v.tr.Columns {
			if o := v.t.ColumnOrdinal(c); o >= 0 {
				attrs = append(attrs, strconv.Itoa(attnum(v.t, o)))
			}
		}
		var qual any
		if v.tr.When != "" {
			qual = v.tr.When
		}
		var foid int64
		if v.tr.Function != "" {
			for _, f := range g.cat.FunctionsNamed(g.db, v.tr.Function) {
				if f.Returns == "trigger" {
					foid = int64(f.ID)
				}
			}
		}
		var args []string
		for _, a := range v.tr.Args {
			args = append(args, a+`\000`)
		}
		out = append(out, vrow(v.oid, int64(v.t.ID), 0, v.tr.Name, foid, v.tgtype(), "O", false, 0, 0, 0,
			false, false, int64(len(v.tr.Args)), int2Array("{"+strings.Join(attrs, ",")+"}"), strings.Join(args, ""), qual, nil, nil))
	}
	return out
}
