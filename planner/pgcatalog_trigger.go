package planner

import (
	"strconv"
	"strings"

	"github.com/kvsql/kvsql/catalog"
)

// kvsql's triggers (CREATE TRIGGER ... BEGIN statements END, run for each
// row) as pg_trigger shows them, so psql's \d lists them under
// "Triggers:" and pg_dump dumps them. They call no function: tgfoid is 0,
// and pg_get_triggerdef gives the statement kvsql reads back.

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
	if v.tr.Timing == "before" {
		typ |= 2
	}
	switch v.tr.Event {
	case "insert":
		typ |= 4
	case "delete":
		typ |= 8
	case "update":
		typ |= 16
	}
	return typ
}

// def is pg_get_triggerdef: the CREATE TRIGGER statement that makes the
// trigger again (pretty: the table's name unqualified, as psql shows it).
func (v vtrigger) def(pretty bool) string {
	var b strings.Builder
	b.WriteString("CREATE TRIGGER " + quoteIdent(v.tr.Name) + " " + strings.ToUpper(v.tr.Timing) + " " + strings.ToUpper(v.tr.Event))
	if len(v.tr.Columns) > 0 {
		b.WriteString(" OF " + quoteIdents(v.tr.Columns))
	}
	table := "public." + quoteIdent(v.t.Name)
	if pretty {
		table = quoteIdent(v.t.Name)
	}
	b.WriteString(" ON " + table + " FOR EACH ROW")
	if v.tr.When != "" {
		b.WriteString(" WHEN (" + v.tr.When + ")")
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
		out = append(out, vrow(v.oid, int64(v.t.ID), 0, v.tr.Name, 0, v.tgtype(), "O", false, 0, 0, 0,
			false, false, 0, int2Array("{"+strings.Join(attrs, ",")+"}"), "", qual, nil, nil))
	}
	return out
}
