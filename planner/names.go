package planner

import (
	"strings"

	"github.com/kvsql/kvsql/types"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
)

// Name resolution. A relation name as written — t, s.t or db.s.t — is
// turned into the catalog key of the relation it means (catalog.RelKey)
// before anything is looked up: a qualified name names its schema, an
// unqualified one is looked up in each schema of the search path in turn
// (PostgreSQL's RangeVarGetRelid), and a name being created goes into the
// first schema of the path that exists. pg_catalog's and
// information_schema's relations are virtual (pgcatalog.go) and are
// found before this for their qualified names.

// SearchPath parses a search_path setting into the schemas it names, in
// order: "$user" is the session user's name, quoted names keep their
// case, others fold to lower case.
func SearchPath(setting, user string) []string {
	out := []string{}
	for _, part := range strings.Split(setting, ",") {
		name := strings.TrimSpace(part)
		switch {
		case name == "":
			continue
		case name == `"$user"` || name == "$user":
			name = user
		case len(name) >= 2 && name[0] == '"' && name[len(name)-1] == '"':
			name = strings.ReplaceAll(name[1:len(name)-1], `""`, `"`)
		default:
			name = strings.ToLower(name)
		}
		out = append(out, name)
	}
	return out
}

// schemaAlias maps the qualifier pg_temp to the session's own schema of
// temporary relations (Planner.TempSchema), as PostgreSQL does.
func (p *Planner) schemaAlias(schema string) string {
	if schema == "pg_temp" && p.TempSchema != "" {
		return p.TempSchema
	}
	return schema
}

// pathSchemas returns the schemas of the search path that exist, in
// order, without repeats. A planner given no path (nil, as tests and
// internal callers make one) searches public, PostgreSQL's default.
func (p *Planner) pathSchemas() []string {
	path := p.SearchPath
	if path == nil {
		path = []string{catalog.PublicSchema}
	}
	var out []string
	seen := map[string]bool{}
	for _, s := range path {
		if seen[s] {
			continue
		}
		seen[s] = true
		if _, err := p.Catalog.Schema(p.DB, s); err == nil {
			out = append(out, s)
		}
	}
	return out
}

// relationKeyExists reports whether a table, view, sequence or index of
// the database has key.
func (p *Planner) relationKeyExists(key string) bool {
	if _, err := p.Catalog.Table(p.DB, key); err == nil {
		return true
	}
	if _, err := p.Catalog.View(p.DB, key); err == nil {
		return true
	}
	if _, err := p.Catalog.Sequence(p.DB, key); err == nil {
		return true
	}
	if _, _, err := p.Catalog.Index(p.DB, key); err == nil {
		return true
	}
	if p.isPrimaryKeyIndex(key) {
		return true
	}
	return p.Catalog.SerialSequence(p.DB, key) != nil
}

// isPrimaryKeyIndex reports whether key names a table's primary key
// index (t_pkey), which shares its schema's namespace.
func (p *Planner) isPrimaryKeyIndex(key string) bool {
	schema, name := catalog.SplitRelKey(key)
	tables, _ := p.Catalog.Tables(p.DB)
	for _, t := range tables {
		if catalog.SchemaName(t.Schema) == schema && t.PrimaryKeyName == name && len(t.PrimaryKey) > 0 && !t.HiddenRowID {
			return true
		}
	}
	return false
}

// checkQualifier checks a written qualifier: the schema must exist
// (3F000); a database name before it must be the current one (0A000).
func (p *Planner) checkQualifier(db, schema, name string) error {
	if db != "" && db != p.DB {
		return pgerror.Newf(pgerror.FeatureNotSupported, "cross-database references are not implemented: %s.%s.%s", db, schema, name)
	}
	if _, err := p.Catalog.Schema(p.DB, schema); err != nil {
		return err
	}
	return nil
}

// LookupKey resolves a relation name for reading it: schema "" means
// unqualified. An unqualified name found in no schema of the path keys
// as catalog.Unresolved(name), which finds nothing and prints as name; a
// name qualified with a schema that does not exist finds nothing either
// (42P01 "relation "s.t" does not exist", as PostgreSQL's parser says;
// DDL checks the schema first, DDLLookupKey).
func (p *Planner) LookupKey(schema, name string) (string, error) {
	if strings.Contains(name, catalog.KeySep) {
		return name, nil // already a key
	}
	schema = p.schemaAlias(schema)
	if schema != "" {
		return catalog.RelKey(schema, name), nil
	}
	for _, s := range p.pathSchemas() {
		if key := catalog.RelKey(s, name); p.relationKeyExists(key) {
			return key, nil
		}
	}
	return catalog.Unresolved(name), nil
}

// DDLLookupKey is LookupKey for DDL, which names a schema that does not
// exist with 3F000.
func (p *Planner) DDLLookupKey(schema, name string) (string, error) {
	schema = p.schemaAlias(schema)
	if schema != "" && !strings.Contains(name, catalog.KeySep) {
		if err := p.checkQualifier("", schema, name); err != nil {
			return "", err
		}
	}
	return p.LookupKey(schema, name)
}

// CreateKey resolves the name of a relation being created: a qualified
// name's schema must exist; an unqualified name goes into the first
// schema of the path that exists (3F000 when none does).
func (p *Planner) CreateKey(schema, name string) (string, error) {
	if strings.Contains(name, catalog.KeySep) {
		return name, nil
	}
	if schema = p.schemaAlias(schema); schema != "" {
		if err := p.checkQualifier("", schema, name); err != nil {
			return "", err
		}
		return catalog.RelKey(schema, name), nil
	}
	for _, s := range p.pathSchemas() {
		if !catalog.IsTempSchema(s) { // a session's temporary schema takes only TEMP relations
			return catalog.RelKey(s, name), nil
		}
	}
	return "", pgerror.New(pgerror.InvalidSchemaName, "no schema has been selected to create in")
}

// SplitRef splits a name the dialect layer wrote as parse.QualifiedRef
// into its database, schema and name ("" where not written).
func SplitRef(ref string) (db, schema, name string) {
	parts := strings.Split(ref, catalog.KeySep)
	switch len(parts) {
	case 1:
		return "", "", parts[0]
	case 2:
		return "", parts[0], parts[1]
	}
	return parts[len(parts)-3], parts[len(parts)-2], parts[len(parts)-1]
}

// LookupRef is LookupKey for a name the dialect layer read into one of
// its own statement structs (parse.QualifiedRef).
func (p *Planner) LookupRef(ref string) (string, error) {
	db, schema, name := SplitRef(ref)
	if db != "" {
		if err := p.checkQualifier(db, schema, name); err != nil {
			return "", err
		}
	}
	return p.DDLLookupKey(schema, name)
}

// CreateRef is CreateKey for a name the dialect layer read.
func (p *Planner) CreateRef(ref string) (string, error) {
	db, schema, name := SplitRef(ref)
	if db != "" {
		if err := p.checkQualifier(db, schema, name); err != nil {
			return "", err
		}
	}
	return p.CreateKey(schema, name)
}

// SchemaVisible reports whether schema is on the search path, so that
// PostgreSQL prints its relations' names unqualified.
func (p *Planner) SchemaVisible(schema string) bool {
	for _, s := range p.pathSchemas() {
		if s == catalog.SchemaName(schema) {
			return true
		}
	}
	return false
}

// serialDefault is the default PostgreSQL shows for a serial column:
// nextval of its sequence, named with its schema outside public
// (pg_get_expr drops the schema again when the path reaches it).
func serialDefault(t *catalog.Table, column string) string {
	name := catalog.SerialSequenceName(t.Name, column)
	if t.Schema != "" {
		name = t.Schema + "." + name
	}
	return "nextval('" + name + "'::regclass)"
}

// schemaFunc binds the functions that answer from the search path.
// current_schema() and current_schemas(implicit) read search_path when
// they run (set_config may change it earlier in the same statement):
// they become SchemaPathFunc calls given the schemas that exist.
// pg_table_is_visible(oid) is decided now (a plan is rebuilt when
// search_path changes): false for the relations of a schema off the path
// and those hidden by an earlier schema's relation of the same name.
func (b *binder) schemaFunc(name string, args []Expr) (Expr, bool) {
	var names []types.Datum
	for _, s := range b.p.Catalog.Schemas(b.p.DB) {
		names = append(names, types.NewText(s.Name))
	}
	existing := &Const{Value: types.NewArray(names), T: types.ArrayOf(tText)}
	switch {
	case name == "current_schema" && len(args) == 0:
		return &Func{Name: CurrentSchemaFunc, Args: []Expr{existing}, T: tText}, true
	case name == "current_schemas" && len(args) == 1:
		implicit, err := coerce(args[0], tBool)
		if err != nil {
			return nil, false
		}
		return &Func{Name: SchemaPathFunc, Args: []Expr{implicit, existing}, T: types.ArrayOf(tText)}, true
	case name == "pg_table_is_visible" && len(args) == 1:
		hidden := b.p.hiddenRelations()
		if len(hidden) == 0 {
			return nil, false
		}
		list := make([]Expr, len(hidden))
		for i, oid := range hidden {
			list[i] = oidConst(oid)
		}
		return &In{X: args[0], List: list, Not: true}, true
	}
	return nil, false
}

// SchemaPathFunc(implicit, existing) is current_schemas(implicit) over
// the existing schemas (a text array) as exec/eval evaluates it, and
// CurrentSchemaFunc(existing) is current_schema(): the first schema of
// the path that exists, or NULL.
const (
	SchemaPathFunc    = "kvsql_search_path"
	CurrentSchemaFunc = "kvsql_current_schema"
)

// hiddenRelations lists the OIDs of the tables, views and sequences an
// unqualified name does not reach.
func (p *Planner) hiddenRelations() []int64 {
	g := &vgen{cat: p.Catalog, db: p.DB, boot: p.Bootstrap}
	var out []int64
	check := func(oid int64, schema, name string) {
		if key, _ := p.LookupKey("", name); key != catalog.RelKey(schema, name) {
			out = append(out, oid)
		}
	}
	for _, t := range g.tables() {
		check(int64(t.ID), t.Schema, t.Name)
	}
	for _, v := range g.views() {
		check(oidView(v.Key()), v.Schema, v.Name)
	}
	for _, s := range g.sequences() {
		check(int64(s.ID), s.Schema, s.Name)
	}
	for _, ix := range g.indexes() {
		check(ix.oid, ix.t.Schema, ix.name)
	}
	return out
}

// regclassOID resolves 'name'::regclass through the search path: the OID
// of the table, view, sequence or index the name reaches. ok is false
// for a name of pg_catalog or information_schema, or one that reaches
// nothing (the caller's table of system catalogs decides those).
func (b *binder) regclassOID(text string) (oid int64, ok bool, err error) {
	ref, err := SequenceRefName(text)
	if err != nil {
		return 0, false, err
	}
	if _, schema, _ := SplitRef(ref); isVirtualSchema(schema) {
		return 0, false, nil
	}
	key, err := b.p.LookupRef(ref)
	if err != nil {
		return 0, false, err
	}
	cat, db := b.p.Catalog, b.p.DB
	if t, err := cat.Table(db, key); err == nil {
		return int64(t.ID), true, nil
	}
	if v, err := cat.View(db, key); err == nil {
		return oidView(v.Key()), true, nil
	}
	if s, err := cat.Sequence(db, key); err == nil {
		return int64(s.ID), true, nil
	}
	if s := cat.SerialSequence(db, key); s != nil {
		return int64(s.ID), true, nil
	}
	if _, idx, err := cat.Index(db, key); err == nil {
		return int64(idx.ID), true, nil
	}
	return 0, false, nil
}
