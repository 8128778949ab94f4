package planner

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"vitess.io/vitess/go/vt/sqlparser"
)

// oidCase is the CASE a catalog function becomes: its first argument, an
// OID, picks the answer of each object that exists now; any other OID
// answers NULL, as PostgreSQL's functions do for an unknown object.
type oidCase struct{ c *Case }

func newOIDCase(arg Expr, t types.T) (*oidCase, error) {
	oid, err := coerce(arg, tInt8)
	if err != nil {
		return nil, err
	}
	return &oidCase{c: &Case{Operand: oid, T: t}}, nil
}

func (o *oidCase) add(oid int64, val Expr) {
	o.c.Whens = append(o.c.Whens, When{Cond: oidConst(oid), Val: val})
}

func (o *oidCase) expr() Expr { return finishCase(o.c) }

// constTrue reports whether x is the constant true: the pretty flag of
// pg_get_indexdef, pg_get_constraintdef and pg_get_triggerdef.
func constTrue(x Expr) bool {
	c, ok := x.(*Const)
	return ok && c.Value.Kind == types.KindBool && c.Value.Bool()
}

// catalogFunc binds the PostgreSQL catalog functions whose answer depends
// on the schema: the planner knows the catalog snapshot, eval does not, so
// each call becomes a CASE over the objects that exist now
// (pg_get_indexdef(oid) is CASE oid WHEN 16 THEN 'CREATE INDEX ...' ...
// END). ok is false for any other function name. Functions that need no
// catalog (format_type, pg_get_userbyid, ...) are eval's (funcs_pg.go).
func (b *binder) catalogFunc(name string, args []Expr) (e Expr, ok bool, err error) {
	g := &vgen{b: b, cat: b.p.Catalog, db: b.p.DB, boot: b.p.Bootstrap}
	if x, ok, err := g.routineCatalogCall(name, args); ok { // pgcatalog_proc.go
		return x, true, err
	}
	switch name {
	case "to_regclass", "to_regtype", "to_regnamespace":
		// The cast of text to the reg type, NULL where the cast fails
		// for want of the object.
		if len(args) != 1 {
			return nil, false, nil
		}
		x, ok, err := b.regCast(args[0], strings.TrimPrefix(name, "to_"))
		if !ok {
			return nil, true, pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, argTypeList(args))
		}
		if pgerror.HasCode(err, pgerror.UndefinedTable) || pgerror.HasCode(err, pgerror.UndefinedObject) || pgerror.HasCode(err, pgerror.InvalidSchemaName) {
			return &Const{Value: types.Null, T: regType(strings.TrimPrefix(name, "to_"))}, true, nil
		}
		return x, true, err
	case "pg_get_indexdef":
		if len(args) != 1 && len(args) != 3 {
			return nil, false, nil
		}
		c, err := newOIDCase(args[0], tText)
		if err != nil {
			return nil, true, err
		}
		for _, ix := range g.indexes() {
			var val Expr = textConst(ix.def(false))
			if len(args) == 3 {
				col, err := coerce(args[1], tInt4)
				if err != nil {
					return nil, true, err
				}
				pretty := constTrue(args[2])
				// Column number 0 is the whole definition, n the n-th
				// column (key, then included), anything else the empty
				// string.
				byCol := &Case{Operand: col, Whens: []When{{Cond: intConst(0), Val: textConst(ix.def(pretty))}}, Else: textConst(""), T: tText}
				for i, ord := range ix.allCols() {
					byCol.Whens = append(byCol.Whens, When{Cond: intConst(int64(i + 1)), Val: textConst(ix.column(ord, pretty))})
				}
				val = byCol
			}
			c.add(ix.oid, val)
		}
		return c.expr(), true, nil
	case "pg_get_triggerdef":
		if len(args) != 1 && len(args) != 2 {
			return nil, false, nil
		}
		c, err := newOIDCase(args[0], tText)
		if err != nil {
			return nil, true, err
		}
		pretty := len(args) == 2 && constTrue(args[1])
		for _, v := range g.triggers() {
			c.add(v.oid, textConst(v.def(pretty)))
		}
		return c.expr(), true, nil
	case "pg_get_constraintdef":
		if len(args) != 1 && len(args) != 2 {
			return nil, false, nil
		}
		c, err := newOIDCase(args[0], tText)
		if err != nil {
			return nil, true, err
		}
		// pg_get_constraintdef(oid, true), pretty, drops the parentheses
		// around a CHECK's comparison.
		pretty := len(args) == 2 && constTrue(args[1])
		for _, con := range g.constraints() {
			if pretty && con.kind == "c" {
				def := "CHECK " + strings.TrimSuffix(strings.TrimPrefix(con.def, "CHECK ("), ")")
				c.add(con.oid, textConst(def))
				continue
			}
			c.add(con.oid, con.defExpr())
		}
		for _, con := range g.domainChecks() {
			c.add(con.oid, textConst(con.def(pretty)))
		}
		return c.expr(), true, nil
	case "pg_get_partkeydef":
		if len(args) != 1 {
			return nil, false, nil
		}
		c, err := newOIDCase(args[0], tText)
		if err != nil {
			return nil, true, err
		}
		for _, t := range g.tables() {
			if t.PartitionBy != nil {
				c.add(int64(t.ID), textConst(partKeyDef(t.PartitionBy)))
			}
		}
		return c.expr(), true, nil
	case "pg_get_viewdef":
		if len(args) != 1 && len(args) != 2 {
			return nil, false, nil
		}
		c, err := newOIDCase(args[0], tText)
		if err != nil {
			return nil, true, err
		}
		for _, v := range g.views() {
			c.add(oidView(v.Key()), g.viewDef(v))
		}
		for _, t := range g.tables() {
			if t.MatView != "" {
				c.add(int64(t.ID), g.queryDef(t.MatView))
			}
		}
		return c.expr(), true, nil
	case "pg_table_size", "pg_relation_size", "pg_total_relation_size", "pg_indexes_size", "pg_database_size":
		// kvsql does not track sizes per key space: unknown (NULL), which
		// psql prints as an empty Size.
		if len(args) < 1 || len(args) > 2 {
			return nil, false, nil
		}
		return &Const{Value: types.Null, T: tInt8}, true, nil
	case "obj_description", "col_description":
		if len(args) < 1 || len(args) > 2 || (name == "col_description" && len(args) != 2) {
			return nil, false, nil
		}
		x, err := g.descriptionCall(name, args)
		return x, true, err
	case "pg_get_serial_sequence":
		if len(args) != 2 {
			return nil, false, nil
		}
		x, err := g.serialSequenceCall(args) // pgcatalog_clients.go
		return x, true, err
	case "shobj_description":
		// No comments on shared objects (databases, roles).
		if len(args) != 2 {
			return nil, false, nil
		}
		return &Const{Value: types.Null, T: tText}, true, nil
	}
	return nil, false, nil
}

// finishCase returns c, or a typed NULL when there are no objects to
// choose among (a CASE must have at least one arm).
func finishCase(c *Case) Expr {
	if len(c.Whens) == 0 {
		return &Const{Value: types.Null, T: c.T}
	}
	return c
}

func textConst(s string) Expr { return &Const{Value: types.NewText(s), T: tText} }
func oidConst(oid int64) Expr { return &Const{Value: types.NewInt(oid), T: tInt8} }

// regCast binds a cast of text to regclass or regtype: a relation or type
// name becomes its OID. A constant name is looked up now (42P01 / 42704
// when it does not exist); any other text becomes a CASE over the names
// that exist, NULL for an unknown one. ok is false when the cast is not
// of text to one of these types (casts of integers keep their value).
func (b *binder) regCast(x Expr, typeName string) (e Expr, ok bool, err error) {
	if x, ok, err := b.routineRegCast(x, typeName); ok { // pgcatalog_proc.go
		return x, true, err
	}
	if typeName == "regproc" && (x.Type().Kind() == types.KindText || x.Type().Family == types.Unknown) {
		// A function's name: the catalogs hold handler functions by name
		// (pg_am.amhandler), which is how regproc prints; kvsql has no
		// pg_proc to look the name up in.
		return x, true, nil
	}
	if typeName != "regclass" && typeName != "regtype" && typeName != "regnamespace" {
		return nil, false, nil
	}
	if k := x.Type().Kind(); k != types.KindText && x.Type().Family != types.Unknown {
		return nil, false, nil
	}
	names := b.regNames(typeName)
	rt := regType(typeName)
	oidOf := func(oid int64) Expr { return &Const{Value: types.NewInt(oid), T: rt} }
	if c, isConst := x.(*Const); isConst && !c.Value.IsNull() {
		if oid, err := strconv.ParseUint(c.Value.S, 10, 32); err == nil {
			return oidOf(int64(oid)), true, nil // '1259'::regclass: an OID's digits read as the OID
		}
	}
	if c, isConst := x.(*Const); isConst && !c.Value.IsNull() && typeName == "regclass" {
		if oid, ok, err := b.regclassOID(c.Value.S); ok || err != nil {
			return oidOf(oid), true, err
		}
	}
	if c, isConst := x.(*Const); isConst && !c.Value.IsNull() {
		name := c.Value.S
		for _, schema := range []string{"public.", "pg_catalog."} {
			name = strings.TrimPrefix(name, schema)
		}
		if oid, found := names[name]; found {
			return oidOf(oid), true, nil
		}
		switch typeName {
		case "regclass":
			return nil, true, pgerror.Newf(pgerror.UndefinedTable, "relation %q does not exist", c.Value.S)
		case "regnamespace":
			return nil, true, pgerror.Newf(pgerror.InvalidSchemaName, "schema %q does not exist", c.Value.S)
		}
		return nil, true, pgerror.Newf(pgerror.UndefinedObject, "type %q does not exist", c.Value.S)
	}
	if x.Type().Family == types.Unknown {
		if x, err = coerce(x, tText); err != nil {
			return nil, true, err
		}
	}
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	c := &Case{Operand: x, T: rt}
	for _, k := range keys {
		c.Whens = append(c.Whens, When{Cond: textConst(k), Val: oidOf(names[k])})
	}
	return finishCase(c), true, nil
}

// regType is the type of a cast to typeName (regclass, regtype,
// regnamespace): regnamespace has no type of its own here, an OID is
// bigint.
func regType(typeName string) types.T {
	switch typeName {
	case "regclass":
		return types.T{Family: types.RegClass}
	case "regtype":
		return types.T{Family: types.RegType}
	}
	return tInt8
}

// regNames maps the names a text cast to typeName (regclass, regtype,
// regnamespace) reads to their OIDs.
func (b *binder) regNames(typeName string) map[string]int64 {
	names := map[string]int64{}
	switch typeName {
	case "regnamespace":
		names = map[string]int64{"pg_catalog": oidPgCatalog, "public": oidPublic, "information_schema": oidInformationSchema}
		for _, s := range b.p.Catalog.Schemas(b.p.DB) {
			names[s.Name] = int64(s.ID)
		}
	case "regclass":
		g := &vgen{b: b, cat: b.p.Catalog, db: b.p.DB, boot: b.p.Bootstrap}
		for _, t := range g.tables() {
			names[t.Name] = int64(t.ID)
		}
		for _, ix := range g.indexes() {
			names[ix.name] = ix.oid
		}
		for _, v := range g.views() {
			names[v.Name] = oidView(v.Key())
		}
		// System catalogs psql names as 'pg_catalog.pg_class'::regclass
		// (\d seq's pg_depend query), under PostgreSQL's OIDs.
		for name, oid := range catalogOIDs {
			names[name] = oid
		}
		for _, s := range g.sequences() {
			names[s.Name] = int64(s.ID)
		}
		for _, s := range g.serialSequences() {
			if _, taken := names[s.Name]; !taken {
				names[s.Name] = int64(s.ID)
			}
		}
	default:
		for _, t := range pgTypes {
			names[t.name] = t.oid
			names[t.format] = t.oid
		}
		for _, u := range b.p.Catalog.UserTypes(b.p.DB) {
			names[catalog.DisplayName(u.Key())] = int64(u.OID())
			names[u.Name] = int64(u.OID())
			if u.Kind != "d" {
				names[u.Name+"[]"] = int64(u.ArrayOID())
				names["_"+u.Name] = int64(u.ArrayOID())
			}
		}
		for _, alias := range []string{"int", "integer", "smallint", "bigint", "real", "double precision",
			"boolean", "varchar", "character varying", "character", "char", "timestamp", "timestamptz", "decimal"} {
			if t, err := typeFromName(alias, nil, nil); err == nil {
				names[alias] = int64(t.Family.OID())
			}
		}
	}
	return names
}

// regOutput shows the OIDs x holds (regclass or regtype) as PostgreSQL's
// output functions do: the object's name, the number for an OID no
// object has.
func (b *binder) regOutput(x Expr) Expr {
	typeName, byOID := "regclass", map[int64]string{}
	if x.Type().Family == types.RegType {
		typeName = "regtype"
		for _, t := range pgTypes {
			byOID[t.oid] = t.format // format_type's name: integer, not int4
		}
		for oid, name := range b.userTypeNames() {
			byOID[oid] = name
		}
	}
	for name, oid := range b.regNames(typeName) {
		if cur, taken := byOID[oid]; !taken || typeName == "regclass" && name < cur {
			byOID[oid] = name
		}
	}
	if typeName == "regclass" {
		// A table the search path does not find by its name alone shows
		// qualified, as regclass_out does.
		tables, _ := b.p.Catalog.Tables(b.p.DB)
		for _, t := range tables {
			byOID[int64(t.ID)] = b.visibleName(t.Key(), t.Name)
		}
	}
	oids := make([]int64, 0, len(byOID))
	for oid := range byOID {
		oids = append(oids, oid)
	}
	slices.Sort(oids)
	c := &Case{Operand: x, T: tText, Else: &Cast{X: x, T: tText}}
	for _, oid := range oids {
		c.Whens = append(c.Whens, When{Cond: &Const{Value: types.NewInt(oid), T: x.Type()}, Val: textConst(byOID[oid])})
	}
	return c
}

// visibleName is how regclass_out names the relation whose key is key:
// its name when the search path finds it by that name, else qualified by
// its schema (both quoted where needed).
func (b *binder) visibleName(key, name string) string {
	if found, err := b.p.LookupKey("", name); err == nil && found == key {
		return quoteIdent(name)
	}
	schema, _ := catalog.SplitRelKey(key)
	return quoteIdent(schema) + "." + quoteIdent(name)
}

// showOIDNames puts a projection on top of a query whose results hold
// regclass or regtype values, showing each as its object's name. Below
// it the values stay OIDs: they sort and compare as PostgreSQL's do.
func (b *binder) showOIDNames(n Node) Node {
	switch n.(type) {
	case *Insert, *Update, *Delete, *TreeWrite:
		return n
	}
	cols := n.Columns()
	if !slices.ContainsFunc(cols, func(c Column) bool { return isOIDAlias(c.T.Family) }) {
		return n
	}
	p := &Project{Input: n, Cols: slices.Clone(cols)}
	for i, c := range cols {
		var x Expr = &ColRef{Index: i, T: c.T, Name: c.Name}
		if isOIDAlias(c.T.Family) {
			x = b.regOutput(x)
			p.Cols[i].T = tText
		}
		p.Exprs = append(p.Exprs, x)
	}
	return p
}

// partitionAncestors plans pg_partition_ancestors(rel): the relation and
// the tables above it in its partition tree, nearest first; no rows for
// a relation that is neither a partition nor partitioned (or none). It
// is unnest of a CASE over the partition trees as they are when the
// statement is planned.
func (b *binder) partitionAncestors(call *sqlparser.FuncExpr, column string, ordinality bool, s *scope) (Node, error) {
	if len(call.Exprs) != 1 {
		return nil, pgerror.Newf(pgerror.UndefinedFunction, "function pg_partition_ancestors with %d arguments does not exist", len(call.Exprs))
	}
	x, err := b.expr(call.Exprs[0], &scope{parent: s.parent, owner: s, aggContext: "FROM"})
	if err != nil {
		return nil, err
	}
	rc := types.T{Family: types.RegClass}
	if r, ok, err := b.regCast(x, "regclass"); err != nil {
		return nil, err
	} else if ok {
		x = r
	} else if x, err = coerce(x, rc); err != nil {
		return nil, pgerror.Newf(pgerror.UndefinedFunction, "function pg_partition_ancestors(%s) does not exist", x.Type())
	}
	g := &vgen{b: b, cat: b.p.Catalog, db: b.p.DB, boot: b.p.Bootstrap}
	tables := g.tables()
	byKey := map[string]*catalog.Table{}
	for _, t := range tables {
		byKey[t.Key()] = t
	}
	at := types.ArrayOf(rc)
	c := &Case{Operand: x, T: at, Else: &Const{Value: types.NewArray(nil), T: at}}
	for _, t := range tables {
		if t.PartitionOf == "" && !t.Partitioned() {
			continue
		}
		var chain []types.Datum
		for p := t; p != nil && len(chain) <= len(tables); p = byKey[p.PartitionOf] {
			chain = append(chain, types.NewInt(int64(p.ID)))
		}
		c.Whens = append(c.Whens, When{Cond: &Const{Value: types.NewInt(int64(t.ID)), T: rc}, Val: &Const{Value: types.NewArray(chain), T: at}})
	}
	if column != parse.MarkerPrefix+"v" {
		column = "relid" // in FROM, the function's OUT column, whatever the alias
	}
	n := &TableFunc{Name: "unnest", Args: []Expr{c}, Ordinality: ordinality, Cols: []Column{{Name: column, T: rc}}}
	if ordinality {
		n.Cols = append(n.Cols, Column{Name: "ordinality", T: tInt8})
	}
	return n, nil
}
