package planner

import (
	"strconv"
	"strings"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/types"
)

// vindex is an index as pg_index and pg_class show it: the declared
// primary key (kvsql's master file) or one index file.
type vindex struct {
	oid        int64
	name       string
	t          *catalog.Table
	cols       []int // ordinals into t.Columns
	desc       []bool
	unique     bool
	primary    bool
	constraint bool // made by a UNIQUE table constraint
	// nullsNotDistinct and deferrable are the index's (catalog.Index).
	nullsNotDistinct, deferrable bool
	// pred is a partial index's WHERE predicate as written ("" for none).
	pred string
	// include are the INCLUDE columns (ordinals), after the key columns
	// in pg_index.indkey and pg_attribute.
	include []int
}

// indexes lists every table's primary key and indexes, tables in name
// order, the primary key first.
func (g *vgen) indexes() []vindex {
	var out []vindex
	for _, t := range g.tables() {
		if hasPrimaryKey(t) {
			out = append(out, vindex{oid: oidPrimaryKey(t), name: pkName(t), t: t, cols: t.PrimaryKey,
				desc: t.PrimaryKeyDesc, unique: true, primary: true, deferrable: t.PrimaryKeyDeferrable, include: t.PrimaryKeyInclude})
		}
		for _, idx := range t.Indexes {
			ix := vindex{oid: int64(idx.ID), name: idx.Name, t: t, cols: idx.Columns,
				desc: idx.Desc, unique: idx.Unique, constraint: idx.Constraint,
				nullsNotDistinct: idx.NullsNotDistinct, deferrable: idx.Deferrable, include: idx.Include}
			if o := t.ColumnOrdinal(idx.Predicate); idx.Predicate != "" && o >= 0 {
				ix.pred = t.Columns[o].Generated
			}
			out = append(out, ix)
		}
	}
	return out
}

// columnList renders the index's columns: "a, b DESC".
func (ix vindex) columnList() string {
	parts := make([]string, len(ix.cols))
	for i, c := range ix.cols {
		parts[i] = ix.column(c, false)
		if i < len(ix.desc) && ix.desc[i] {
			parts[i] += " DESC"
		}
	}
	return strings.Join(parts, ", ")
}

// includeClause is " INCLUDE (b, c)", or "" for an index without
// included columns.
func (ix vindex) includeClause() string {
	if len(ix.include) == 0 {
		return ""
	}
	parts := make([]string, len(ix.include))
	for i, c := range ix.include {
		parts[i] = quoteIdent(ix.t.Columns[c].Name)
	}
	return " INCLUDE (" + strings.Join(parts, ", ") + ")"
}

// allCols are the key columns then the included ones: pg_index.indkey's
// and the index's pg_attribute rows.
func (ix vindex) allCols() []int {
	if len(ix.include) == 0 {
		return ix.cols
	}
	return append(append([]int(nil), ix.cols...), ix.include...)
}

// column renders key column c: its name, or for an index over an
// expression the expression as written, parenthesized once more unless
// pretty when it is not a function call (as pg_get_indexdef prints
// "((b + c))", and with pretty "(b + c)").
func (ix vindex) column(c int, pretty bool) string {
	g := ix.t.Columns[c].Generated
	switch {
	case g == "":
		return quoteIdent(ix.t.Columns[c].Name)
	case strings.HasPrefix(g, "(") && !pretty:
		return "(" + g + ")"
	}
	return g
}

// def is pg_get_indexdef(oid) (pretty: pg_get_indexdef(oid, 0, true)):
// the CREATE INDEX statement.
func (ix vindex) def(pretty bool) string {
	u := ""
	if ix.unique {
		u = "UNIQUE "
	}
	parts := make([]string, len(ix.cols))
	for i, c := range ix.cols {
		parts[i] = ix.column(c, pretty)
		if i < len(ix.desc) && ix.desc[i] {
			parts[i] += " DESC"
		}
	}
	on := " ON "
	if ix.t.PartitionBy != nil {
		on = " ON ONLY " // a partitioned table's: each partition has its own
	}
	out := "CREATE " + u + "INDEX " + quoteIdent(ix.name) + on + quoteIdent(catalog.SchemaName(ix.t.Schema)) + "." + quoteIdent(ix.t.Name) +
		" USING btree (" + strings.Join(parts, ", ") + ")" + ix.includeClause()
	if ix.nullsNotDistinct {
		out += " NULLS NOT DISTINCT"
	}
	switch {
	case ix.pred == "":
	case pretty:
		out += " WHERE " + ix.pred
	default:
		out += " WHERE (" + ix.pred + ")"
	}
	return out
}

// attnums renders the index's key attribute numbers space-separated, as
// PostgreSQL prints an int2vector (indkey adds the included ones).
func (ix vindex) attnums(sep string) string {
	return attnumList(ix.t, ix.cols, sep)
}

func attnumList(t *catalog.Table, cols []int, sep string) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = strconv.Itoa(attnum(t, c))
	}
	return strings.Join(parts, sep)
}

// vconstraint is one pg_constraint row: a primary key, a UNIQUE
// constraint, a CHECK constraint or a foreign key.
type vconstraint struct {
	oid      int64
	name     string
	kind     string // contype: p, u, c, f
	t        *catalog.Table
	index    int64 // conindid
	refTable int64 // confrelid
	keys     string
	refKeys  string
	delType  string // confdeltype: a, r, c, n or d ("" outside foreign keys)
	updType  string // confupdtype, the same for ON UPDATE
	match    string // confmatchtype: f or s ("" outside foreign keys)
	// deferrable and deferred are condeferrable and condeferred.
	deferrable, deferred bool
	def                  string // pg_get_constraintdef
	// qualifiedDef is def with the referenced table schema-qualified
	// (pg_get_constraintdef when public is not on the search path).
	qualifiedDef string
}

// defExpr is pg_get_constraintdef's answer for c.
func (c vconstraint) defExpr() Expr {
	if c.qualifiedDef == "" {
		return textConst(c.def)
	}
	return ifPublicVisible(c.def, c.qualifiedDef)
}

func (g *vgen) constraints() []vconstraint {
	var out []vconstraint
	for _, ix := range g.indexes() {
		switch {
		case ix.primary:
			out = append(out, vconstraint{oid: oidConstraintBase + int64(ix.t.ID), name: ix.name, kind: "p", t: ix.t,
				index: ix.oid, keys: "{" + ix.attnums(",") + "}", def: "PRIMARY KEY (" + ix.columnList() + ")" + ix.includeClause() + deferrableText(ix.deferrable),
				deferrable: ix.deferrable})
		case ix.constraint:
			nnd := ""
			if ix.nullsNotDistinct {
				nnd = "NULLS NOT DISTINCT "
			}
			out = append(out, vconstraint{oid: oidConstraintBase + ix.oid, name: ix.name, kind: "u", t: ix.t,
				index: ix.oid, keys: "{" + ix.attnums(",") + "}", def: "UNIQUE " + nnd + "(" + ix.columnList() + ")" + ix.includeClause() + deferrableText(ix.deferrable),
				deferrable: ix.deferrable})
		}
	}
	for _, t := range g.tables() {
		for i, ck := range t.Checks {
			out = append(out, checkConstraint(t, i, ck)) // pgcatalog_clients.go
		}
	}
	for _, t := range g.tables() {
		for i, fk := range t.ForeignKeys {
			c := vconstraint{oid: oidForeignKeyBase + int64(t.ID)*64 + int64(i), name: fkName(t, fk), kind: "f", t: t}
			var keys, refKeys []string
			for _, col := range fk.Columns {
				keys = append(keys, strconv.Itoa(attnum(t, t.ColumnOrdinal(col))))
			}
			refCols := fk.RefColumns
			if rt, err := g.cat.Table(g.db, fk.RefTable); err == nil {
				c.refTable = int64(rt.ID)
				if len(refCols) == 0 { // REFERENCES t: its primary key
					for _, o := range rt.PrimaryKey {
						refCols = append(refCols, rt.Columns[o].Name)
					}
				}
				for _, col := range refCols {
					refKeys = append(refKeys, strconv.Itoa(attnum(rt, rt.ColumnOrdinal(col))))
				}
			}
			c.keys = "{" + strings.Join(keys, ",") + "}"
			c.refKeys = "{" + strings.Join(refKeys, ",") + "}"
			// PostgreSQL names ON UPDATE's action first.
			action := fk.Clause()
			c.match, c.deferrable, c.deferred = "s", fk.Deferrable, fk.InitiallyDeferred
			if fk.Match == "full" {
				c.match = "f"
			}
			visible, qualified := g.refName(fk.RefTable)
			c.def = "FOREIGN KEY (" + quoteIdents(fk.Columns) + ") REFERENCES " + visible +
				"(" + quoteIdents(refCols) + ")" + action
			c.qualifiedDef = "FOREIGN KEY (" + quoteIdents(fk.Columns) + ") REFERENCES " + qualified +
				"(" + quoteIdents(refCols) + ")" + action
			c.delType, c.updType = fkActionType(fk.OnDelete), fkActionType(fk.OnUpdate)
			out = append(out, c)
		}
	}
	return out
}

// deferrableText is what pg_get_constraintdef adds for a DEFERRABLE key.
func deferrableText(deferrable bool) string {
	if deferrable {
		return " DEFERRABLE"
	}
	return ""
}

// fkActionType is pg_constraint's confdeltype or confupdtype for a
// foreign key action as catalog.ForeignKey spells it.
func fkActionType(action string) string {
	switch action {
	case "restrict":
		return "r"
	case "cascade":
		return "c"
	case "set null":
		return "n"
	case "set default":
		return "d"
	}
	return "a"
}

// fkName is a foreign key's name, PostgreSQL's default when none was
// given.
func fkName(t *catalog.Table, fk catalog.ForeignKey) string { return catalog.ForeignKeyName(t, fk) }

// quoteIdent double-quotes a name when PostgreSQL would: anything but a
// lower-case identifier.
func quoteIdent(s string) string { return QuoteIdent(s) }

// QuoteIdent is quote_ident (catalog.QuoteIdent).
func QuoteIdent(s string) string { return catalog.QuoteIdent(s) }

func quoteIdents(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quoteIdent(n)
	}
	return strings.Join(q, ", ")
}

// vempty is a generator for relations kvsql never has rows in (policies,
// publications, inheritance, descriptions...).
func vempty(*vgen) [][]Expr { return nil }

// pgCatalogRelations are the virtual pg_catalog relations by name.
var pgCatalogRelations map[string]*vrel

func init() {
	pgCatalogRelations = map[string]*vrel{
		"pg_namespace": {vcols("oid", "o", "nspname", "t", "nspowner", "o", "nspacl", "t[]"), pgNamespace},
		"pg_class": {vcols("oid", "o", "relname", "t", "relnamespace", "o", "reltype", "o", "reloftype", "o",
			"relowner", "o", "relam", "o", "relfilenode", "o", "reltablespace", "o", "relpages", "i4",
			"reltuples", "f4", "relallvisible", "i4", "reltoastrelid", "o", "relhasindex", "b", "relisshared", "b",
			"relpersistence", "t", "relkind", "t", "relnatts", "i2", "relchecks", "i2", "relhasrules", "b",
			"relhastriggers", "b", "relhassubclass", "b", "relrowsecurity", "b", "relforcerowsecurity", "b",
			"relispopulated", "b", "relreplident", "t", "relispartition", "b", "relrewrite", "o",
			"relacl", "t[]", "reloptions", "t[]", "relpartbound", "t", "relfrozenxid", "o", "relminmxid", "o"), pgClass},
		"pg_attribute": {vcols("attrelid", "o", "attname", "t", "atttypid", "o", "attstattarget", "i4",
			"attlen", "i2", "attnum", "i2", "attndims", "i4", "attcacheoff", "i4", "atttypmod", "i4",
			"attbyval", "b", "attalign", "t", "attstorage", "t", "attcompression", "t", "attnotnull", "b",
			"atthasdef", "b", "atthasmissing", "b", "attidentity", "t", "attgenerated", "t", "attisdropped", "b",
			"attislocal", "b", "attinhcount", "i4", "attcollation", "o", "attacl", "t[]", "attoptions", "t[]",
			"attfdwoptions", "t[]", "attmissingval", "t"), pgAttribute},
		"pg_type": {vcols("oid", "o", "typname", "t", "typnamespace", "o", "typowner", "o", "typlen", "i2",
			"typbyval", "b", "typtype", "t", "typcategory", "t", "typispreferred", "b", "typisdefined", "b",
			"typdelim", "t", "typrelid", "o", "typsubscript", "o", "typelem", "o", "typarray", "o",
			"typinput", "t", "typoutput", "t", "typreceive", "t", "typsend", "t", "typalign", "t",
			"typstorage", "t", "typnotnull", "b", "typbasetype", "o", "typtypmod", "i4", "typndims", "i4",
			"typcollation", "o", "typdefaultbin", "t", "typdefault", "t", "typacl", "t[]"), pgTypeRows},
		"pg_index": {vcols("indexrelid", "o", "indrelid", "o", "indnatts", "i2", "indnkeyatts", "i2",
			"indisunique", "b", "indnullsnotdistinct", "b", "indisprimary", "b", "indisexclusion", "b",
			"indimmediate", "b", "indisclustered", "b", "indisvalid", "b", "indcheckxmin", "b", "indisready", "b",
			"indislive", "b", "indisreplident", "b", "indkey", "t", "indcollation", "t", "indclass", "t",
			"indoption", "t", "indexprs", "t", "indpred", "t"), pgIndex},
		"pg_database": {vcols("oid", "o", "datname", "t", "datdba", "o", "encoding", "i4", "datlocprovider", "t",
			"datistemplate", "b", "datallowconn", "b", "datconnlimit", "i4", "dattablespace", "o",
			"datcollate", "t", "datctype", "t", "daticulocale", "t", "datcollversion", "t", "datacl", "t[]",
			"datfrozenxid", "o", "datminmxid", "o"), pgDatabase},
		"pg_roles": {vcols("rolname", "t", "rolsuper", "b", "rolinherit", "b", "rolcreaterole", "b",
			"rolcreatedb", "b", "rolcanlogin", "b", "rolreplication", "b", "rolconnlimit", "i4",
			"rolpassword", "t", "rolvaliduntil", "tz", "rolbypassrls", "b", "rolconfig", "t", "oid", "o"), pgRoles},
		"pg_authid": {vcols("oid", "o", "rolname", "t", "rolsuper", "b", "rolinherit", "b", "rolcreaterole", "b",
			"rolcreatedb", "b", "rolcanlogin", "b", "rolreplication", "b", "rolbypassrls", "b",
			"rolconnlimit", "i4", "rolpassword", "t", "rolvaliduntil", "tz"), pgAuthid},
		"pg_user": {vcols("usename", "t", "usesysid", "o", "usecreatedb", "b", "usesuper", "b", "userepl", "b",
			"usebypassrls", "b", "passwd", "t", "valuntil", "tz", "useconfig", "t"), pgUser},
		"pg_auth_members": {vcols("roleid", "o", "member", "o", "grantor", "o", "admin_option", "b"), pgAuthMembers},
		"pg_am":           {vcols("oid", "o", "amname", "t", "amhandler", "t", "amtype", "t"), pgAm},
		"pg_attrdef":      {vcols("oid", "o", "adrelid", "o", "adnum", "i2", "adbin", "t"), pgAttrdef},
		"pg_constraint": {vcols("oid", "o", "conname", "t", "connamespace", "o", "contype", "t",
			"condeferrable", "b", "condeferred", "b", "convalidated", "b", "conrelid", "o", "contypid", "o",
			"conindid", "o", "conparentid", "o", "confrelid", "o", "confupdtype", "t", "confdeltype", "t",
			"confmatchtype", "t", "conislocal", "b", "coninhcount", "i4", "connoinherit", "b",
			"conkey", "i2[]", "confkey", "i2[]", "conbin", "t"), pgConstraint},
		"pg_description":   {vcols("objoid", "o", "classoid", "o", "objsubid", "i4", "description", "t"), pgDescription},
		"pg_shdescription": {vcols("objoid", "o", "classoid", "o", "description", "t"), vempty},
		"pg_inherits":      {vcols("inhrelid", "o", "inhparent", "o", "inhseqno", "i4", "inhdetachpending", "b"), pgInherits},
		"pg_publication": {vcols("oid", "o", "pubname", "t", "pubowner", "o", "puballtables", "b",
			"pubinsert", "b", "pubupdate", "b", "pubdelete", "b", "pubtruncate", "b", "pubviaroot", "b"), vempty},
		"pg_publication_namespace": {vcols("oid", "o", "pnpubid", "o", "pnnspid", "o"), vempty},
		"pg_enum":                  {vcols("oid", "o", "enumtypid", "o", "enumsortorder", "f4", "enumlabel", "t"), pgEnum},
		"pg_range":                 {vcols("rngtypid", "o", "rngsubtype", "o", "rngmultitypid", "o"), vempty},
		"pg_sequence": {vcols("seqrelid", "o", "seqtypid", "o", "seqstart", "i8", "seqincrement", "i8",
			"seqmax", "i8", "seqmin", "i8", "seqcache", "i8", "seqcycle", "b"), pgSequence},
		"pg_sequences": {vcols("schemaname", "t", "sequencename", "t", "sequenceowner", "t", "data_type", "t",
			"start_value", "i8", "min_value", "i8", "max_value", "i8", "increment_by", "i8", "cycle", "b",
			"cache_size", "i8", "last_value", "i8"), pgSequences},
		"pg_collation": {vcols("oid", "o", "collname", "t", "collnamespace", "o", "collowner", "o",
			"collprovider", "t", "collisdeterministic", "b", "collencoding", "i4", "collcollate", "t", "collctype", "t"), pgCollation},
		"pg_tablespace": {vcols("oid", "o", "spcname", "t", "spcowner", "o", "spcacl", "t[]", "spcoptions", "t[]"), pgTablespace},
		"pg_tables": {vcols("schemaname", "t", "tablename", "t", "tableowner", "t", "tablespace", "t",
			"hasindexes", "b", "hasrules", "b", "hastriggers", "b", "rowsecurity", "b"), pgTables},
		"pg_views": {vcols("schemaname", "t", "viewname", "t", "viewowner", "t", "definition", "t"), pgViews},
		"pg_matviews": {vcols("schemaname", "t", "matviewname", "t", "matviewowner", "t", "tablespace", "t",
			"hasindexes", "b", "ispopulated", "b", "definition", "t"), pgMatviews},
		"pg_indexes": {vcols("schemaname", "t", "tablename", "t", "indexname", "t", "tablespace", "t", "indexdef", "t"), pgIndexes},
	}
	for name, rel := range dumpRelations() {
		pgCatalogRelations[name] = rel
	}
}

// publicACL is schema public's nspacl, as initdb leaves it: its owner
// may use and create in it, everyone may use it.
var publicACL = []string{"pg_database_owner=UC/pg_database_owner", "=U/pg_database_owner"}

func pgNamespace(g *vgen) [][]Expr {
	pub := any(publicACL)
	if s, err := g.cat.Schema(g.db, catalog.PublicSchema); err == nil && s.ACL != nil {
		pub = g.acl(s.ACL)
	}
	out := [][]Expr{
		vrow(oidPgCatalog, "pg_catalog", oidBootstrapRole, nil),
		vrow(oidPublic, "public", oidDatabaseOwnerRole, pub),
		vrow(oidInformationSchema, "information_schema", oidBootstrapRole, nil),
		vrow(oidPgToast, "pg_toast", oidBootstrapRole, nil),
	}
	for _, s := range g.cat.Schemas(g.db) {
		if s.Name != catalog.PublicSchema {
			owner := int64(oidBootstrapRole)
			if r, err := g.cat.Role(s.Owner); err == nil {
				owner = int64(r.ID)
			}
			out = append(out, vrow(int64(s.ID), s.Name, owner, g.acl(s.ACL)))
		}
	}
	return out
}

// nsp is the OID of a descriptor's schema (pg_namespace.oid).
func (g *vgen) nsp(schema string) int64 { return int64(g.cat.SchemaID(g.db, schema)) }

// refName prints a foreign key's referenced table (a relation key) as
// pg_get_constraintdef does: qualified when its schema is not on the
// search path; qualified is the form for public off the path.
func (g *vgen) refName(key string) (visible, qualified string) {
	schema, name := catalog.SplitRelKey(key)
	if schema == catalog.PublicSchema {
		return quoteIdent(name), "public." + quoteIdent(name)
	}
	q := quoteIdent(schema) + "." + quoteIdent(name)
	if g.b != nil && g.b.p.SchemaVisible(schema) {
		return quoteIdent(name), quoteIdent(name)
	}
	return q, q
}

func pgClass(g *vgen) [][]Expr {
	var out [][]Expr
	// relhastriggers is set on both sides of a foreign key (PostgreSQL
	// enforces them with triggers; pg_dump looks for foreign keys only
	// on such tables).
	fkTables := map[string]bool{}
	for _, t := range g.tables() {
		for _, fk := range t.ForeignKeys {
			fkTables[t.Name], fkTables[fk.RefTable] = true, true
		}
		if len(t.Triggers) > 0 {
			fkTables[t.Name] = true // and on a table with triggers
		}
	}
	rel := func(oid int64, name, schema, kind string, am int64, natts int, hasIndex bool, checks int, owner uint64) {
		out = append(out, vrow(oid, name, g.nsp(schema), 0, 0, int64(catalog.OwnerID(owner)), am, oid, 0, 0,
			-1, 0, 0, hasIndex, false, "p", kind, natts, checks, false,
			kind == "r" && fkTables[name], false, false, false, true, "d", false, 0, nil, nil, nil, 0, 0))
	}
	for _, t := range g.tables() {
		cols, _ := visibleColumns(t)
		kind, am := "r", int64(oidHeapAM)
		switch {
		case t.MatView != "":
			kind = "m"
		case t.Partitioned():
			kind, am = "p", 0
		}
		rel(int64(t.ID), t.Name, t.Schema, kind, am, len(cols), hasPrimaryKey(t) || len(t.Indexes) > 0, len(t.Checks), t.Owner)
		g.setRelACL(out, t.ACL) // pgcatalog_roles.go
		if t.Bound != nil {
			// relispartition and relpartbound (pg_get_expr prints the
			// bound's text as it is).
			row := out[len(out)-1]
			row[len(row)-7] = &Const{Value: types.NewBool(true), T: tBool}
			row[len(row)-3] = textConst(t.Bound.Text)
		}
	}
	for _, ix := range g.indexes() {
		rel(ix.oid, ix.name, ix.t.Schema, "i", oidBtreeAM, len(ix.cols)+len(ix.include), false, 0, ix.t.Owner)
	}
	for _, v := range g.views() {
		rel(oidView(v.Key()), v.Name, v.Schema, "v", 0, len(g.viewColumns(v)), false, 0, v.Owner)
		g.setRelACL(out, v.ACL)
	}
	for _, s := range g.sequences() {
		rel(int64(s.ID), s.Name, s.Schema, "S", 0, 3, false, 0, s.Owner)
		g.setRelACL(out, s.ACL)
	}
	for _, s := range g.serialSequences() {
		rel(int64(s.ID), s.Name, s.Schema, "S", 0, 3, false, 0, 0)
	}
	// A composite type's relation (relkind c), whose attributes are its
	// fields: pg_dump reads them through pg_type.typrelid. Its OID is the
	// type's id, which no table or index takes (one counter).
	for _, u := range g.cat.UserTypes(g.db) {
		if u.Kind == "c" {
			rel(int64(u.ID), u.Name, u.Schema, "c", 0, len(u.Attrs), false, 0, 0)
			out[len(out)-1][3] = vrow(int64(u.OID()))[0]
		}
	}
	return out
}

func pgAttribute(g *vgen) [][]Expr {
	var out [][]Expr
	att := func(rel int64, name string, typ int64, num int, mod int64, notNull, hasDef bool, identity string) {
		t, ok := pgTypeByOID(typ)
		if !ok {
			t = g.userPgType(typ) // enum.go
		}
		coll := 0
		if t.category == "S" {
			coll = 100
		}
		ndims := 0
		if t.category == "A" {
			ndims = 1 // kvsql keeps no declared dimensions (int[][] is int[])
		}
		out = append(out, vrow(rel, name, typ, -1, t.len, num, ndims, -1, mod, t.byval, t.align, t.storage(), "",
			notNull, hasDef, false, identity, "", false, true, 0, coll, nil, nil, nil, nil))
	}
	for _, t := range g.tables() {
		cols, nums := visibleColumns(t)
		for i, c := range cols {
			// An identity column (attidentity 'a' for GENERATED
			// ALWAYS, 'd' for BY DEFAULT) has no default; other serial
			// columns have their sequence's nextval as default.
			identity := ""
			if c.IdentityAlways {
				identity = "a"
			} else if c.IdentityByDefault {
				identity = "d"
			}
			typ, mod := g.attType(c)
			att(int64(t.ID), c.Name, typ, nums[i], mod, c.NotNull,
				c.Default != "" || c.Serial && identity == "", identity)
		}
	}
	for _, ix := range g.indexes() {
		for i, c := range ix.allCols() {
			typ, mod := g.attType(ix.t.Columns[c])
			att(ix.oid, ix.t.Columns[c].Name, typ, i+1, mod, false, false, "")
		}
	}
	for _, v := range g.views() {
		for i, c := range g.viewColumns(v) {
			att(oidView(v.Key()), c.Name, columnTypeOID(c.T), i+1, typmod(c.T), false, false, "")
		}
	}
	for _, u := range g.cat.UserTypes(g.db) {
		if u.Kind != "c" {
			continue
		}
		t, _, err := g.b.userType(u, 0)
		if err != nil || t.Comp == nil {
			continue
		}
		for i, f := range t.Comp.Fields {
			att(int64(u.ID), f.Name, columnTypeOID(f.T), i+1, typmod(f.T), false, false, "")
		}
	}
	return out
}

func pgTypeRows(g *vgen) [][]Expr {
	var out [][]Expr
	for _, t := range pgTypes {
		coll := 0
		if t.category == "S" {
			coll = 100
		}
		out = append(out, vrow(t.oid, t.name, oidPgCatalog, oidBootstrapRole, t.len, t.byval, "b", t.category,
			false, true, ",", 0, 0, t.elem, t.array, t.name+"in", t.name+"out", t.name+"recv", t.name+"send",
			t.align, t.storage(), false, 0, -1, 0, coll, nil, nil, nil))
	}
	return append(out, g.userTypeRows()...)
}

func pgIndex(g *vgen) [][]Expr {
	var out [][]Expr
	for _, ix := range g.indexes() {
		// indcollation, indclass and indoption cover the key columns
		// only; indkey the included ones too.
		n := len(ix.cols)
		zeros := strings.TrimSpace(strings.Repeat("0 ", n))
		out = append(out, vrow(ix.oid, int64(ix.t.ID), n+len(ix.include), n, ix.unique, ix.nullsNotDistinct, ix.primary, false,
			!ix.deferrable, false, true, false, true, true, false, attnumList(ix.t, ix.allCols(), " "), zeros, zeros, zeros, ix.exprs(), nilIfEmpty(ix.pred)))
	}
	return out
}

func pgDatabase(g *vgen) [][]Expr {
	var out [][]Expr
	for _, name := range g.cat.Databases() {
		out = append(out, vrow(g.databaseOID(name), name, oidBootstrapRole, 6, "c", false, true, -1, 1663,
			"C", "C", nil, nil, nil, 0, 0))
	}
	return out
}

func pgAm(*vgen) [][]Expr {
	return [][]Expr{
		vrow(oidHeapAM, "heap", "heap_tableam_handler", "t"),
		vrow(oidBtreeAM, "btree", "bthandler", "i"),
		vrow(405, "hash", "hashhandler", "i"),
	}
}

func pgAttrdef(g *vgen) [][]Expr {
	var out [][]Expr
	for _, t := range g.tables() {
		cols, nums := visibleColumns(t)
		for i, c := range cols {
			def := c.Default
			if def == "" && c.Serial && !c.IdentityAlways && !c.IdentityByDefault {
				def = serialDefault(t, c.Name)
			}
			if def == "" {
				continue
			}
			def = g.typedLiteralDefault(c, def) // pgcatalog_clients.go
			out = append(out, vrow(oidAttrDefBase+int64(t.ID)*1024+int64(nums[i]), int64(t.ID), nums[i], def))
		}
	}
	return out
}

func pgConstraint(g *vgen) [][]Expr {
	var out [][]Expr
	for _, c := range g.constraints() {
		var refKeys any
		delType, updType, match := " ", " ", " "
		if c.kind == "f" {
			refKeys, delType, updType, match = int2Array(c.refKeys), c.delType, c.updType, c.match
		}
		out = append(out, vrow(c.oid, c.name, g.nsp(c.t.Schema), c.kind, c.deferrable, c.deferred, true, int64(c.t.ID), 0,
			c.index, 0, c.refTable, updType, delType, match, true, 0, true, int2Array(c.keys), refKeys, nil))
	}
	for _, c := range g.domainChecks() {
		out = append(out, vrow(c.oid, c.Name, g.nsp(c.u.Schema), "c", false, false, !c.NotValid, 0, int64(c.u.OID()),
			0, 0, 0, " ", " ", " ", true, 0, false, nil, nil, nil))
	}
	return out
}

// domainCheck is a CHECK constraint of a domain: a pg_constraint row
// with contypid set and no conrelid.
type domainCheck struct {
	oid int64
	u   *catalog.UserType
	catalog.Check
}

// def is pg_get_constraintdef's answer, pretty or not.
func (c domainCheck) def(pretty bool) string {
	def := "CHECK ((" + c.Expr + "))"
	if pretty {
		def = "CHECK (" + c.Expr + ")"
	}
	if c.NotValid {
		def += " NOT VALID"
	}
	return def
}

// domainChecks lists the CHECK constraints of the database's domains.
// Their OIDs share the range of tables' CHECK constraints: types and
// tables take their ids from one counter.
func (g *vgen) domainChecks() []domainCheck {
	var out []domainCheck
	for _, u := range g.cat.UserTypes(g.db) {
		for i, ck := range u.Checks {
			out = append(out, domainCheck{oid: oidCheckBase + int64(u.ID)*64 + int64(i), u: u, Check: ck})
		}
	}
	return out
}

// int2Array is an int2[] constant of attribute numbers written "{1,2}".
func int2Array(text string) Expr {
	var elems []types.Datum
	for _, part := range strings.Split(strings.Trim(text, "{}"), ",") {
		if n, err := strconv.Atoi(part); err == nil {
			elems = append(elems, types.NewInt(int64(n)))
		}
	}
	return &Const{Value: types.NewArray(elems), T: types.ArrayOf(tInt2)}
}

func pgCollation(*vgen) [][]Expr {
	return [][]Expr{
		vrow(100, "default", oidPgCatalog, oidBootstrapRole, "d", true, -1, nil, nil),
		vrow(950, "C", oidPgCatalog, oidBootstrapRole, "c", true, -1, "C", "C"),
		vrow(951, "POSIX", oidPgCatalog, oidBootstrapRole, "c", true, -1, "POSIX", "POSIX"),
	}
}

func pgTablespace(*vgen) [][]Expr {
	return [][]Expr{
		vrow(1663, "pg_default", oidBootstrapRole, nil, nil),
		vrow(1664, "pg_global", oidBootstrapRole, nil, nil),
	}
}

func pgTables(g *vgen) [][]Expr {
	var out [][]Expr
	for _, t := range g.tables() {
		if t.MatView != "" {
			continue
		}
		out = append(out, vrow(catalog.SchemaName(t.Schema), t.Name, g.roleName(catalog.OwnerID(t.Owner)), nil, hasPrimaryKey(t) || len(t.Indexes) > 0, false, false, false))
	}
	return out
}

func pgMatviews(g *vgen) [][]Expr {
	var out [][]Expr
	for _, t := range g.tables() {
		if t.MatView != "" {
			out = append(out, vrow(catalog.SchemaName(t.Schema), t.Name, g.roleName(catalog.OwnerID(t.Owner)), nil, len(t.Indexes) > 0, !t.MatViewEmpty, g.queryDef(t.MatView)))
		}
	}
	return out
}

func pgViews(g *vgen) [][]Expr {
	var out [][]Expr
	for _, v := range g.views() {
		out = append(out, vrow(catalog.SchemaName(v.Schema), v.Name, g.roleName(catalog.OwnerID(v.Owner)), g.viewDef(v)))
	}
	return out
}

func pgIndexes(g *vgen) [][]Expr {
	var out [][]Expr
	for _, ix := range g.indexes() {
		out = append(out, vrow(catalog.SchemaName(ix.t.Schema), ix.t.Name, ix.name, nil, ix.def(false)))
	}
	return out
}

// pgInherits lists each partition under its partitioned table and each
// inheritance child under its parents, in their order.
func pgInherits(g *vgen) [][]Expr {
	var out [][]Expr
	ids := map[string]int64{}
	for _, t := range g.tables() {
		ids[t.Key()] = int64(t.ID)
	}
	for _, t := range g.tables() {
		parents := t.Inherits
		if t.PartitionOf != "" {
			parents = []string{t.PartitionOf}
		}
		for i, p := range parents {
			out = append(out, vrow(int64(t.ID), ids[p], i+1, false))
		}
	}
	return append(out, partitionIndexInherits(g)...)
}

// partitionIndexInherits are the pg_inherits rows of a partition's
// indexes: each is attached to its parent table's index over the same
// columns (the primary key to the primary key), as PostgreSQL attaches
// them; pg_dump reads them to write ALTER INDEX ... ATTACH PARTITION.
// kvsql keeps no such link, so it is found by matching definitions.
func partitionIndexInherits(g *vgen) [][]Expr {
	byTable := map[string][]vindex{}
	for _, ix := range g.indexes() {
		byTable[ix.t.Key()] = append(byTable[ix.t.Key()], ix)
	}
	var out [][]Expr
	for _, t := range g.tables() {
		if t.PartitionOf == "" {
			continue
		}
		parentIdx := byTable[t.PartitionOf]
		taken := map[int64]bool{}
		for _, ix := range byTable[t.Key()] {
			for _, p := range parentIdx {
				if !taken[p.oid] && p.primary == ix.primary && p.unique == ix.unique && sameIndexColumns(p, ix) {
					taken[p.oid] = true
					out = append(out, vrow(ix.oid, p.oid, 1, false))
					break
				}
			}
		}
	}
	return out
}

// sameIndexColumns reports whether two indexes of a parent and its
// partition have the same key and included columns, by name, in order.
func sameIndexColumns(a, b vindex) bool {
	ac, bc := a.allCols(), b.allCols()
	if len(ac) != len(bc) || len(a.cols) != len(b.cols) {
		return false
	}
	for i := range ac {
		if a.t.Columns[ac[i]].Name != b.t.Columns[bc[i]].Name {
			return false
		}
	}
	return true
}

// pgPartitionedTable describes each partitioned table: its strategy
// ('r', 'l' or 'h'), key columns (0 for an expression) and default
// partition.
func pgPartitionedTable(g *vgen) [][]Expr {
	var out [][]Expr
	for _, t := range g.tables() {
		spec := t.PartitionBy
		if spec == nil {
			continue
		}
		var def int64
		for _, ch := range g.cat.Children(g.db, t.Key()) {
			if ch.Bound != nil && ch.Bound.Default {
				def = int64(ch.ID)
			}
		}
		attrs := make([]string, len(spec.Keys))
		var exprs []string
		for i, k := range spec.Keys {
			attrs[i] = "0"
			if spec.KeyColumns[i] {
				attrs[i] = strconv.Itoa(t.ColumnOrdinal(k) + 1)
			} else {
				exprs = append(exprs, k)
			}
		}
		var partexprs any
		if len(exprs) > 0 {
			partexprs = strings.Join(exprs, ", ")
		}
		out = append(out, vrow(int64(t.ID), spec.Strategy[:1], len(spec.Keys), def,
			"{"+strings.Join(attrs, ",")+"}", nil, nil, partexprs))
	}
	return out
}

// partKeyDef is pg_get_partkeydef: the PARTITION BY clause's body.
func partKeyDef(spec *catalog.PartitionSpec) string {
	keys := make([]string, len(spec.Keys))
	for i, k := range spec.Keys {
		if spec.KeyColumns[i] {
			keys[i] = quoteIdent(k)
		} else {
			keys[i] = "(" + k + ")"
		}
	}
	return strings.ToUpper(spec.Strategy) + " (" + strings.Join(keys, ", ") + ")"
}

// exprs is pg_index.indexprs: NULL for an index of columns, else the key
// expressions as written (PostgreSQL keeps a node tree; clients test it
// for NULL).
func (ix vindex) exprs() any {
	var out []string
	for _, c := range ix.cols {
		if g := ix.t.Columns[c].Generated; g != "" {
			out = append(out, g)
		}
	}
	if out == nil {
		return nil
	}
	return strings.Join(out, ", ")
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
