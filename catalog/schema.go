package catalog

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// Schemas. A database's tables, views, sequences and indexes each live in
// one schema (PostgreSQL's namespace); two schemas may hold relations of
// the same name. Schema public always exists: descriptors written before
// kvsql had schemas have no schema field and are public's.
//
// Inside a Database a relation is found by its key, RelKey(schema, name):
// the bare name for a relation in public (so the maps, the meta keys and
// every caller that predates schemas are unchanged for it), and the schema
// and the name joined by a NUL byte elsewhere. PostgreSQL identifiers
// cannot contain NUL, so no name of public is ever another schema's key.
// Callers above the catalog resolve a written name, qualified or through
// search_path, to its key before asking for the relation (see
// planner.ResolveRelation).

// PublicSchema is the schema every database starts with; PublicSchemaID
// is its OID, PostgreSQL's.
const (
	PublicSchema   = "public"
	PublicSchemaID = 2200
)

// KeySep joins a schema and a name in a relation key.
const KeySep = "\x00"

// Schema is one CREATE SCHEMA, stored at /1/"schema"/db/name.
type Schema struct {
	// ID is the schema's OID, allocated from the key space counter as a
	// sequence's is (public's is PostgreSQL's 2200).
	ID      uint64 `json:"id"`
	Name    string `json:"name"`
	Owner   string `json:"owner,omitempty"`   // AUTHORIZATION role; "" is the bootstrap superuser
	Comment string `json:"comment,omitempty"` // COMMENT ON SCHEMA's text
	// ACL is GRANT's privileges on the schema (acl.go); nil is the
	// default.
	ACL []ACLItem `json:"acl,omitempty"`
	// Temp marks a session's schema of temporary relations
	// (TempSchemaPrefix), the only schema whose name may begin with pg_.
	Temp bool `json:"temp,omitempty"`
}

const tagSchema = "schema" // /1/"schema"/db/name → JSON Schema

// SchemaKey is the descriptor key of schema name of db.
func SchemaKey(db, name string) []byte { return metaKey(text(tagSchema), text(db), text(name)) }

// RelKey is the key of relation name of schema in its database's maps.
func RelKey(schema, name string) string {
	if schema == "" || schema == PublicSchema {
		return name
	}
	return schema + KeySep + name
}

// Unresolved is the key of a name found in no schema: it names no
// relation, and DisplayName prints it as the bare name.
func Unresolved(name string) string { return KeySep + name }

// SplitRelKey is the inverse of RelKey: the schema (public for a bare
// name) and the name.
func SplitRelKey(key string) (schema, name string) {
	if i := strings.Index(key, KeySep); i >= 0 {
		return key[:i], key[i+1:]
	}
	return PublicSchema, key
}

// DisplayName prints a relation key as PostgreSQL prints the name in
// messages: schema.name outside public, the bare name in it.
func DisplayName(key string) string {
	if strings.HasPrefix(key, KeySep) {
		return key[len(KeySep):]
	}
	return strings.Replace(key, KeySep, ".", 1)
}

// SchemaName is the schema of a table, view or sequence ("" is public).
func SchemaName(schema string) string {
	if schema == "" {
		return PublicSchema
	}
	return schema
}

// schemaField splits a key into a descriptor's Schema field ("" for
// public, as descriptors that predate schemas have it) and its name.
func schemaField(key string) (schema, name string) {
	schema, name = SplitRelKey(key)
	if schema == PublicSchema {
		schema = ""
	}
	return schema, name
}

// Key is the table's key in its database (RelKey).
func (t *Table) Key() string { return RelKey(t.Schema, t.Name) }

// Key is the view's key in its database (RelKey).
func (v *View) Key() string { return RelKey(v.Schema, v.Name) }

// Key is the sequence's key in its database (RelKey).
func (s *Sequence) Key() string { return RelKey(s.Schema, s.Name) }

// tableKeyOf is t's descriptor key: /1/"table"/db/name in public (the key
// every table had before schemas), /1/"table"/db/schema/name elsewhere.
func tableKeyOf(db, key string) []byte {
	schema, name := SplitRelKey(key)
	if schema == PublicSchema {
		return TableKey(db, name)
	}
	return metaKey(text(tagTable), text(db), text(schema), text(name))
}

func viewKeyOf(db, key string) []byte {
	schema, name := SplitRelKey(key)
	if schema == PublicSchema {
		return ViewKey(db, name)
	}
	return metaKey(text(tagView), text(db), text(schema), text(name))
}

func sequenceKeyOf(db, key string) []byte {
	schema, name := SplitRelKey(key)
	if schema == PublicSchema {
		return SequenceDefKey(db, name)
	}
	return metaKey(text(tagSeqDef), text(db), text(schema), text(name))
}

// Schemas returns db's schemas sorted by name, public included.
func (c *Catalog) Schemas(db string) []*Schema {
	d, ok := c.dbs[db]
	if !ok {
		return nil
	}
	out := []*Schema{d.schema(PublicSchema)}
	for _, s := range d.Schemas {
		if s.Name != PublicSchema {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// schema returns the named schema of d, or nil; public always exists.
func (d *Database) schema(name string) *Schema {
	if s, ok := d.Schemas[name]; ok {
		return s
	}
	if name == PublicSchema {
		return &Schema{ID: PublicSchemaID, Name: PublicSchema, Owner: "pg_database_owner", Comment: "standard public schema"}
	}
	return nil
}

// Schema returns the named schema of db: 3F000 when there is none.
func (c *Catalog) Schema(db, name string) (*Schema, error) {
	d, err := c.Database(db)
	if err != nil {
		return nil, err
	}
	if s := d.schema(name); s != nil {
		return s, nil
	}
	return nil, pgerror.Newf(pgerror.InvalidSchemaName, "schema %q does not exist", name)
}

// CreateSchema adds a schema and gives it an ID: 42P06 if one has the
// name, 42939 for a pg_ name.
func (c *Catalog) CreateSchema(w kv.Writer, db string, s Schema) (*Catalog, error) {
	if err := c.checkNewSchema(db, s.Name, s.Temp && IsTempSchema(s.Name)); err != nil {
		return nil, err
	}
	n := c.clone()
	s.ID = n.allocID()
	if err := writeNextID(w, n.nextID); err != nil {
		return nil, err
	}
	return n.putSchema(w, db, s)
}

func (c *Catalog) checkNewSchema(db, name string, temp bool) error {
	d, err := c.Database(db)
	if err != nil {
		return err
	}
	if d.schema(name) != nil || isSystemSchema(name) {
		return pgerror.Newf(pgerror.DuplicateSchema, "schema %q already exists", name)
	}
	if strings.HasPrefix(name, "pg_") && !temp {
		e := pgerror.Newf(pgerror.ReservedName, "unacceptable schema name %q", name)
		e.Detail = `The prefix "pg_" is reserved for system schemas.`
		return e
	}
	return nil
}

func isSystemSchema(name string) bool {
	return name == "pg_catalog" || name == "information_schema" || name == "pg_toast"
}

func (c *Catalog) putSchema(w kv.Writer, db string, s Schema) (*Catalog, error) {
	if err := writeJSON(w, SchemaKey(db, s.Name), &s); err != nil {
		return nil, err
	}
	n := c.clone()
	n.cloneDB(db).Schemas[s.Name] = &s
	return n, nil
}

// SetSchemaComment sets COMMENT ON SCHEMA's text; 3F000.
func (c *Catalog) SetSchemaComment(w kv.Writer, db, name, comment string) (*Catalog, error) {
	s, err := c.Schema(db, name)
	if err != nil {
		return nil, err
	}
	ns := *s
	ns.Comment = comment
	return c.putSchema(w, db, ns)
}

// SchemaByID returns the schema of db with that OID, or nil.
func (c *Catalog) SchemaByID(db string, id uint64) *Schema {
	for _, s := range c.Schemas(db) {
		if s.ID == id {
			return s
		}
	}
	return nil
}

// SchemaID is the OID of a descriptor's schema ("" is public).
func (c *Catalog) SchemaID(db, schema string) uint64 {
	if s, err := c.Schema(db, SchemaName(schema)); err == nil {
		return s.ID
	}
	return PublicSchemaID
}

// SchemaRelations lists the keys of the relations in schema name of db,
// as DROP SCHEMA's dependents: tables (materialized views among them),
// views and sequences, each sorted.
type SchemaRelations struct {
	Tables, Views, Sequences []string
}

// Empty reports whether the schema holds nothing.
func (r SchemaRelations) Empty() bool {
	return len(r.Tables)+len(r.Views)+len(r.Sequences) == 0
}

// Relations returns what schema name of db holds.
func (c *Catalog) Relations(db, name string) SchemaRelations {
	var r SchemaRelations
	d, ok := c.dbs[db]
	if !ok {
		return r
	}
	for k, t := range d.Tables {
		if SchemaName(t.Schema) == name {
			r.Tables = append(r.Tables, k)
		}
	}
	for k, v := range d.Views {
		if SchemaName(v.Schema) == name {
			r.Views = append(r.Views, k)
		}
	}
	for k, s := range d.Sequences {
		if SchemaName(s.Schema) == name {
			r.Sequences = append(r.Sequences, k)
		}
	}
	sort.Strings(r.Tables)
	sort.Strings(r.Views)
	sort.Strings(r.Sequences)
	return r
}

// DropSchema removes an empty schema (the caller drops what it holds
// first): 3F000, 2BP01 while it holds relations. Public may not be
// dropped here: kvsql keeps it as the home of every older descriptor.
func (c *Catalog) DropSchema(w kv.Writer, db, name string) (*Catalog, error) {
	if _, err := c.Schema(db, name); err != nil {
		return nil, err
	}
	if name == PublicSchema {
		return nil, pgerror.New(pgerror.FeatureNotSupported, "DROP SCHEMA public is not supported")
	}
	if !c.Relations(db, name).Empty() {
		return nil, pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop schema %s because other objects depend on it", name)
	}
	if err := w.Delete(SchemaKey(db, name)); err != nil {
		return nil, err
	}
	n := c.clone()
	delete(n.cloneDB(db).Schemas, name)
	return n, nil
}

// RenameSchema renames schema old to name; the relations in it move
// with it (their keys and descriptor keys change, their key spaces do
// not), as do the foreign keys that reference them. Errors: 3F000,
// 42P06, 0A000 for public.
func (c *Catalog) RenameSchema(w kv.Writer, db, old, name string) (*Catalog, error) {
	s, err := c.Schema(db, old)
	if err != nil {
		return nil, err
	}
	if old == PublicSchema {
		return nil, pgerror.New(pgerror.FeatureNotSupported, "ALTER SCHEMA public RENAME is not supported")
	}
	if err := c.checkNewSchema(db, name, false); err != nil {
		return nil, err
	}
	ns := *s
	ns.Name = name
	n, err := c.putSchema(w, db, ns)
	if err != nil {
		return nil, err
	}
	rels := n.Relations(db, old)
	for _, k := range rels.Tables {
		if n, err = n.SetTableSchema(w, db, k, name); err != nil {
			return nil, err
		}
	}
	nd := n.cloneDB(db)
	for _, k := range rels.Views {
		v := *nd.Views[k]
		if err := w.Delete(viewKeyOf(db, k)); err != nil {
			return nil, err
		}
		v.Schema = name
		delete(nd.Views, k)
		nd.Views[v.Key()] = &v
		if err := writeJSON(w, viewKeyOf(db, v.Key()), &v); err != nil {
			return nil, err
		}
	}
	for _, k := range rels.Sequences {
		sq := *nd.Sequences[k]
		if err := w.Delete(sequenceKeyOf(db, k)); err != nil {
			return nil, err
		}
		sq.Schema = name
		delete(nd.Sequences, k)
		nd.Sequences[sq.Key()] = &sq
		if err := writeJSON(w, sequenceKeyOf(db, sq.Key()), &sq); err != nil {
			return nil, err
		}
	}
	if err := w.Delete(SchemaKey(db, old)); err != nil {
		return nil, err
	}
	delete(nd.Schemas, old)
	return n, nil
}

// SetTableSchema moves table key of db into schema (ALTER TABLE SET
// SCHEMA): its descriptor key changes, its key spaces and rows do not;
// foreign keys that reference it follow. Errors: 42P01, 3F000, 42P07.
func (c *Catalog) SetTableSchema(w kv.Writer, db, key, schema string) (*Catalog, error) {
	t, err := c.Table(db, key)
	if err != nil {
		return nil, err
	}
	if _, err := c.Schema(db, schema); err != nil {
		return nil, err
	}
	return c.RenameTable(w, db, key, RelKey(schema, t.Name))
}

// loadSchema decodes a schema descriptor read by Load.
func loadSchema(c *Catalog, key []byte, parts []types.Datum, value []byte) error {
	s := new(Schema)
	if err := json.Unmarshal(value, s); err != nil {
		return corrupt(key, err)
	}
	d, ok := c.dbs[parts[1].S]
	if !ok {
		return pgerror.Newf(pgerror.DataCorrupted, "catalog: schema %q belongs to a missing database", s.Name)
	}
	d.Schemas[s.Name] = s
	return nil
}

// TempSchemaPrefix begins the name of a session's schema of temporary
// relations, pg_temp_<backend pid> as in PostgreSQL: the session's
// search path looks in it first, CREATE TEMP puts relations in it, and
// the session's end (or the next start after a crash) drops it.
const TempSchemaPrefix = "pg_temp_"

// IsTempSchema reports whether schema holds a session's temporary
// relations.
func IsTempSchema(schema string) bool { return strings.HasPrefix(schema, TempSchemaPrefix) }
