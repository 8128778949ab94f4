package planner

import (
	"strings"

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
	return p.Catalog.SerialSequence(p.DB, key) != nil
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
	if schema != "" {
		if err := p.checkQualifier("", schema, name); err != nil {
			return "", err
		}
		return catalog.RelKey(schema, name), nil
	}
	if path := p.pathSchemas(); len(path) > 0 {
		return catalog.RelKey(path[0], name), nil
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
