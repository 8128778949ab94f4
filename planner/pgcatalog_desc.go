package planner

import (
	"strings"

	"github.com/kvsql/kvsql/types"
)

// vdesc is one COMMENT ON text: the object's OID, and for a column its
// attnum (0 for the object itself).
type vdesc struct {
	oid   int64
	class int64 // the catalog the object is in: 0 for pg_class (1259)
	sub   int
	text  string
}

// descriptions lists the catalog's comments: tables with their columns,
// indexes, views and sequences.
func (g *vgen) descriptions() []vdesc {
	// Schema public's comment, as initdb sets it.
	var out []vdesc
	for _, s := range g.cat.Schemas(g.db) {
		if s.Comment != "" {
			out = append(out, vdesc{oid: int64(s.ID), class: 2615, text: s.Comment})
		}
	}
	for _, t := range g.tables() {
		if t.Comment != "" {
			out = append(out, vdesc{oid: int64(t.ID), text: t.Comment})
		}
		cols, nums := visibleColumns(t)
		for i, c := range cols {
			if c.Comment != "" {
				out = append(out, vdesc{oid: int64(t.ID), sub: nums[i], text: c.Comment})
			}
		}
		for _, idx := range t.Indexes {
			if idx.Comment != "" {
				out = append(out, vdesc{oid: int64(idx.ID), text: idx.Comment})
			}
		}
	}
	for _, c := range g.constraints() {
		if text := c.t.ConstraintComments[c.name]; text != "" {
			out = append(out, vdesc{oid: c.oid, class: 2606, text: text})
		}
	}
	for _, c := range g.domainChecks() {
		if c.Comment != "" {
			out = append(out, vdesc{oid: c.oid, class: 2606, text: c.Comment})
		}
	}
	for _, v := range g.views() {
		if v.Comment != "" {
			out = append(out, vdesc{oid: oidView(v.Key()), text: v.Comment})
		}
	}
	for _, s := range g.sequences() {
		if s.Comment != "" {
			out = append(out, vdesc{oid: int64(s.ID), text: s.Comment})
		}
	}
	for _, f := range g.functions() {
		if f.Comment != "" {
			out = append(out, vdesc{oid: int64(f.ID), class: 1255, text: f.Comment})
		}
	}
	return out
}

// pgDescription is pg_description: every comment, on pg_class objects
// (classoid 1259) and schema public (pg_namespace, 2615).
func pgDescription(g *vgen) [][]Expr {
	var out [][]Expr
	for _, d := range g.descriptions() {
		class := d.class
		if class == 0 {
			class = 1259
		}
		out = append(out, vrow(d.oid, class, d.sub, d.text))
	}
	return out
}

// descriptionCall binds obj_description(oid [, catalog]) and
// col_description(oid, attnum) as a CASE over the comments that exist.
func (g *vgen) descriptionCall(name string, args []Expr) (Expr, error) {
	oid, err := coerce(args[0], tInt8)
	if err != nil {
		return nil, err
	}
	c := &Case{Operand: oid, T: tText}
	if name == "col_description" {
		num, err := coerce(args[1], tInt4)
		if err != nil {
			return nil, err
		}
		byTable := map[int64]*Case{}
		for _, d := range g.descriptions() {
			if d.sub == 0 {
				continue
			}
			inner := byTable[d.oid]
			if inner == nil {
				inner = &Case{Operand: num, T: tText}
				byTable[d.oid] = inner
				c.Whens = append(c.Whens, When{Cond: oidConst(d.oid), Val: inner})
			}
			inner.Whens = append(inner.Whens, When{Cond: intConst(int64(d.sub)), Val: textConst(d.text)})
		}
		return finishCase(c), nil
	}
	// obj_description(oid, 'pg_namespace') reads schema comments,
	// (oid, 'pg_constraint') constraints', (oid, 'pg_proc') routines'; with another catalog or none,
	// relations' comments.
	class := int64(0)
	if len(args) == 2 {
		if k, ok := args[1].(*Const); ok && k.Value.Kind == types.KindText {
			switch strings.TrimPrefix(k.Value.S, "pg_catalog.") {
			case "pg_namespace":
				class = 2615
			case "pg_constraint":
				class = 2606
			case "pg_proc":
				class = 1255
			}
		}
	}
	for _, d := range g.descriptions() {
		if d.sub == 0 && d.class == class {
			c.Whens = append(c.Whens, When{Cond: oidConst(d.oid), Val: textConst(d.text)})
		}
	}
	return finishCase(c), nil
}
