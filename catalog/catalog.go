package catalog

import (
	"sort"
	"strings"

	"github.com/kvsql/kvsql/foreign"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// DefaultDatabase is the database a new store starts with.
const DefaultDatabase = "kvsql"

// Form is the physical form of an index file.
type Form uint8

const (
	// FormUnique: key = space + indexed values; value = the primary key
	// (then the INCLUDE columns' row encoding, if any).
	FormUnique Form = iota + 1
	// FormKeyID: key = space + indexed values + primary key; value empty
	// (or the INCLUDE columns' row encoding).
	// The default for a non-unique index ("make the search key unique").
	FormKeyID
	// FormInverted: one record (per chunk) per search value whose value is
	// an op log of primary keys ("inverted index").
	FormInverted
)

var formNames = map[Form]string{FormUnique: "unique", FormKeyID: "keyid", FormInverted: "inverted"}

func (f Form) String() string {
	if s, ok := formNames[f]; ok {
		return s
	}
	return "form?"
}

// ParseForm is the inverse of Form.String.
func ParseForm(s string) (Form, bool) {
	for f, n := range formNames {
		if n == s {
			return f, true
		}
	}
	return 0, false
}

// Catalog is an immutable snapshot of every descriptor in a store. DDL
// methods never modify their receiver: they write the changed descriptors
// into a kv.Writer and return a new Catalog sharing the unchanged parts.
// The caller installs the new Catalog only once the writer's batch has
// committed, so a failed statement leaves the old one in force.
//
// Everything reachable from a Catalog (Database, Table, Index, View, Stats)
// is shared between snapshots and must be treated as read-only.
type Catalog struct {
	dbs    map[string]*Database
	stats  map[uint64]*Stats // by table ID
	nextID uint64            // next unused key space id
	roles  map[string]*Role  // by name (role.go)
	ids    *IDs              // the store's id counter, shared (ids.go); nil: nextID alone
}

// Database is a named set of tables and views.
type Database struct {
	Name   string
	Tables map[string]*Table
	Views  map[string]*View
	// Sequences are the database's sequences (CREATE SEQUENCE), in the
	// relation namespace with tables, views and indexes.
	Sequences map[string]*Sequence
	// Functions are the database's routines (CREATE FUNCTION and CREATE
	// PROCEDURE) by ID; nil when there are none.
	Functions map[uint64]*Function
	// Schemas are the schemas CREATE SCHEMA made (public is implicit;
	// schema.go). Tables, Views and Sequences are keyed by RelKey.
	Schemas map[string]*Schema
	// Foreign, set on a database attached from an application's store
	// (catalog/foreign.go), names that store; its tables have Foreign
	// layouts.
	Foreign *foreign.StoreSpec
	// Types are the user's types (CREATE TYPE, CREATE DOMAIN) by
	// RelKey (usertype.go).
	Types map[string]*UserType
}

// Table describes one table and the layout of its master file and index
// files.
//
// Invariants: column IDs are unique and below NextColumnID (IDs are never
// reused, so rows written before a DROP/ADD COLUMN decode correctly);
// PrimaryKey is non-empty; every key space ID (the table's and each
// index's) is unique in the store.
type Table struct {
	// ID is the key space of the master file.
	ID   uint64 `json:"id"`
	DB   string `json:"db"`
	Name string `json:"name"`
	// Schema is the table's schema; "" (every table written before
	// schemas) is public.
	Schema  string   `json:"schema,omitempty"`
	Columns []Column `json:"columns"`
	// PrimaryKey holds ordinals into Columns; the master key is these
	// columns' values, key-encoded with PrimaryKeyDesc's directions.
	PrimaryKey     []int  `json:"primaryKey"`
	PrimaryKeyDesc []bool `json:"primaryKeyDesc"`
	// PrimaryKeyName names the primary key constraint (t_pkey) in errors.
	PrimaryKeyName string `json:"primaryKeyName"`
	// PrimaryKeyDeferrable marks PRIMARY KEY ... DEFERRABLE: an UPDATE
	// checks it when the statement ends (exec/update.go), an INSERT as
	// each row is written; SET CONSTRAINTS cannot defer it to COMMIT.
	PrimaryKeyDeferrable bool `json:"primaryKeyDeferrable,omitempty"`
	// PrimaryKeyInclude is PRIMARY KEY (...) INCLUDE (cols): ordinals of
	// the included columns, in the order written. The master value holds
	// every column already, so only the catalog (pg_index, \d) shows it.
	PrimaryKeyInclude []int `json:"primaryKeyInclude,omitempty"`
	// HiddenRowID is set when no primary key was declared: the key is then
	// a hidden INT8 column "rowid" whose values come from a counter.
	HiddenRowID bool         `json:"hiddenRowID,omitempty"`
	Indexes     []*Index     `json:"indexes,omitempty"`
	ForeignKeys []ForeignKey `json:"foreignKeys,omitempty"`
	// Triggers fire, in this order, on the table's writes; they are
	// dropped with the table.
	Triggers []*Trigger `json:"triggers,omitempty"`
	// Checks are the table's CHECK constraints: a row they find false
	// (not NULL) is refused with 23514.
	Checks []Check `json:"checks,omitempty"`
	// NextColumnID is the ID the next added column gets.
	NextColumnID uint32 `json:"nextColumnID"`
	// Comment is COMMENT ON TABLE's text, "" for none.
	Comment string `json:"comment,omitempty"`
	// ACL is GRANT's privileges on the table (acl.go); nil is the
	// default, the owner's alone. Owner is the owning role's OID, 0 for
	// the bootstrap superuser (OwnerID).
	ACL   []ACLItem `json:"acl,omitempty"`
	Owner uint64    `json:"owner,omitempty"`
	// ConstraintComments are COMMENT ON CONSTRAINT's texts by constraint
	// name (primary key, unique, check or foreign key).
	ConstraintComments map[string]string `json:"constraintComments,omitempty"`
	// MatView, for a materialized view, is its query's SQL text: the
	// table holds the query's rows as of the last REFRESH, and only
	// REFRESH writes it. MatViewEmpty marks one created or refreshed WITH
	// NO DATA, which cannot be read until refreshed.
	MatView      string `json:"matView,omitempty"`
	MatViewEmpty bool   `json:"matViewEmpty,omitempty"`
	// PartitionBy is set on a partitioned table (catalog/partition.go).
	PartitionBy *PartitionSpec `json:"partitionBy,omitempty"`
	// PartitionOf names the partitioned table a partition belongs to,
	// and Bound is its FOR VALUES clause.
	PartitionOf string          `json:"partitionOf,omitempty"`
	Bound       *PartitionBound `json:"bound,omitempty"`
	// Inherits names the parents of a table created with INHERITS, in
	// order; their reads include this table's rows.
	Inherits []string `json:"inherits,omitempty"`
	// Foreign, on a table of a foreign database, is how its rows lie in
	// the application's keys (package foreign); the table then has no
	// master or index files of its own.
	Foreign *foreign.Layout `json:"foreign,omitempty"`
}

// Check is a CHECK constraint: Expr is SQL text over the table's columns,
// parsed when a statement writing the table is planned (the catalog
// parses no SQL).
type Check struct {
	Name string `json:"name"`
	Expr string `json:"expr"`
	// NoInherit (CHECK ... NO INHERIT) keeps the constraint off the
	// table's inheritance children.
	NoInherit bool `json:"noInherit,omitempty"`
	// NotValid marks a domain's constraint added NOT VALID: the values
	// stored before it were not checked (until VALIDATE CONSTRAINT).
	NotValid bool `json:"notValid,omitempty"`
	// Comment is COMMENT ON CONSTRAINT ... ON DOMAIN's text (a table's
	// constraints keep theirs in Table.ConstraintComments).
	Comment string `json:"comment,omitempty"`
}

// Trigger is a row trigger in SQLite's form: before or after each row an
// INSERT, UPDATE or DELETE writes, if When holds, its statements run
// with NEW.column and OLD.column naming the row's new and old values. The
// statements and the condition are SQL text, parsed when the trigger
// fires (the catalog parses no SQL).
type Trigger struct {
	Name   string `json:"name"`
	Timing string `json:"timing"` // "before" or "after"
	Event  string `json:"event"`  // "insert", "update" or "delete"
	// Columns, for an UPDATE trigger, limits it to UPDATEs that assign
	// one of these columns (UPDATE OF a, b); empty means any UPDATE.
	Columns []string `json:"columns,omitempty"`
	When    string   `json:"when,omitempty"`
	Body    []string `json:"body"`
	// Function names the trigger function of PostgreSQL's form (EXECUTE
	// FUNCTION f(args)), whose Body is empty; Args are its TG_ARGV.
	Function string   `json:"function,omitempty"`
	Args     []string `json:"args,omitempty"`
	// Events lists every event of a trigger on several (INSERT OR
	// UPDATE); Event is the first.
	Events []string `json:"events,omitempty"`
	// Statement: FOR EACH STATEMENT (once per statement, no rows).
	Statement bool `json:"statement,omitempty"`
}

// On reports whether tr fires on event.
func (tr *Trigger) On(event string) bool {
	if len(tr.Events) == 0 {
		return tr.Event == event
	}
	for _, e := range tr.Events {
		if e == event {
			return true
		}
	}
	return false
}

// Column is one column of a table.
type Column struct {
	// ID is stable for the column's life and never reused in its table;
	// row values are keyed by it.
	ID      uint32  `json:"id"`
	Name    string  `json:"name"`
	Type    types.T `json:"type"`
	NotNull bool    `json:"notNull,omitempty"`
	// Default is the DEFAULT expression's SQL text, "" for none.
	Default string `json:"default,omitempty"`
	// DefaultValue is Default evaluated once by whoever created the column
	// (the catalog parses no SQL); readers substitute it for a column that
	// a stored row lacks (rows written before ADD COLUMN). NULL when the
	// default is absent or not a constant.
	DefaultValue types.Datum `json:"defaultValue"`
	// Serial columns take their values from a counter (NextSequence).
	Serial bool `json:"serial,omitempty"`
	// IdentityAlways marks a GENERATED ALWAYS AS IDENTITY column (also
	// Serial): INSERT may give it a value only with OVERRIDING SYSTEM
	// VALUE, and UPDATE may set it only to DEFAULT (428C9).
	IdentityAlways bool `json:"identityAlways,omitempty"`
	// IdentityByDefault marks a GENERATED BY DEFAULT AS IDENTITY column
	// (also Serial): it behaves as a serial column, but clients see an
	// identity column (no default, attidentity 'd'), as PostgreSQL shows.
	IdentityByDefault bool `json:"identityByDefault,omitempty"`
	// Hidden columns (the hidden row id) are not part of SELECT *.
	Hidden bool `json:"hidden,omitempty"`
	// Generated is the SQL text of the expression a hidden column holds
	// for an index over an expression or with a WHERE predicate: every
	// INSERT and UPDATE computes it from the row's other columns, so the
	// index itself is an ordinary one over the column (docs/layout.md).
	Generated string `json:"generated,omitempty"`
	// Comment is COMMENT ON COLUMN's text, "" for none.
	Comment string `json:"comment,omitempty"`
	// Domain is the OID of the domain the column was declared with (an
	// array of it when Type is an array and the domain's base is not);
	// 0 for none. Type is the domain's base type, which values are
	// stored as; writes check the domain's constraints.
	Domain uint32 `json:"domain,omitempty"`
	// Composite is the OID of the composite type of a column of one (or
	// of an array of one); 0 for others. Type's Comp, which is not
	// stored, is rebuilt from it when the catalog is loaded
	// (CompositeResolver).
	Composite uint32 `json:"composite,omitempty"`
}

// Index describes one index file.
type Index struct {
	// ID is the index file's own key space.
	ID      uint64 `json:"id"`
	Name    string `json:"name"`
	Columns []int  `json:"columns"` // ordinals into Table.Columns
	Desc    []bool `json:"desc"`
	Unique  bool   `json:"unique,omitempty"`
	Form    Form   `json:"form"`
	Comment string `json:"comment,omitempty"` // COMMENT ON INDEX's text
	// Constraint is set for indexes made from a UNIQUE table constraint.
	Constraint bool `json:"constraint,omitempty"`
	// NullsNotDistinct is UNIQUE NULLS NOT DISTINCT: a NULL equals a
	// NULL, so a second row with the same values, NULLs included, is a
	// duplicate (the entry of a row with a NULL keeps no pk suffix).
	NullsNotDistinct bool `json:"nullsNotDistinct,omitempty"`
	// Deferrable marks a UNIQUE ... DEFERRABLE constraint: an UPDATE
	// checks it when the statement ends (exec/update.go), an INSERT as
	// each row is written; SET CONSTRAINTS cannot defer it to COMMIT.
	Deferrable bool `json:"deferrable,omitempty"`
	// Elements marks an index over the elements of an array column (its
	// one column): an inverted list per distinct element, what
	// PostgreSQL's GIN array_ops keeps; it answers @>, && and = ANY.
	Elements bool `json:"elements,omitempty"`
	// Predicate names the hidden boolean column holding a partial index's
	// WHERE expression (Column.Generated): only rows where it is true have
	// entries. "" for an index over every row.
	Predicate string `json:"predicate,omitempty"`
	// Include holds the ordinals of the INCLUDE columns, in the order
	// written: their values ride in each entry's value (after the
	// primary key in the unique form; the whole value in the key+id
	// form), so a scan reading only key, included and primary-key
	// columns needs no master row (an index-only scan). Not in the
	// inverted form.
	Include []int `json:"include,omitempty"`
}

// Covers reports whether row has entries in idx: always, except in a
// partial index, whose predicate column must be true.
func (t *Table) Covers(idx *Index, row []types.Datum) bool {
	if idx.Predicate == "" {
		return true
	}
	o := t.ColumnOrdinal(idx.Predicate)
	return o >= 0 && o < len(row) && !row[o].IsNull() && row[o].Bool()
}

// ForeignKey is a FOREIGN KEY constraint of a table: the planner binds
// it for every write of its table or of the referenced one
// (planner.FKRef), and exec enforces it.
type ForeignKey struct {
	Name       string   `json:"name,omitempty"`
	Columns    []string `json:"columns"`
	RefTable   string   `json:"refTable"`
	RefColumns []string `json:"refColumns"`
	// OnDelete is what deleting a referenced row does to the referencing
	// ones: "" (NO ACTION) or "restrict" refuse it, "cascade" deletes
	// them, "set null" empties their columns, "set default" gives them
	// their defaults.
	OnDelete string `json:"onDelete,omitempty"`
	// OnUpdate is what changing a referenced key does to the
	// referencing rows: "" (NO ACTION) or "restrict" refuse it,
	// "cascade" changes their columns to the new key, "set null"
	// empties them, "set default" gives them their defaults.
	OnUpdate string `json:"onUpdate,omitempty"`
	// DeleteSetColumns, for ON DELETE SET NULL | SET DEFAULT (cols), are
	// the only columns the action sets (nil: all of Columns).
	DeleteSetColumns []string `json:"deleteSetColumns,omitempty"`
	// Match is "full" for MATCH FULL (a key is all NULL or all
	// non-NULL); "" is MATCH SIMPLE (any NULL exempts the row).
	Match string `json:"match,omitempty"`
	// Deferrable and InitiallyDeferred are the constraint's timing: a
	// deferred key is checked when the transaction commits (or SET
	// CONSTRAINTS ... IMMEDIATE), not as the statement writes.
	Deferrable        bool `json:"deferrable,omitempty"`
	InitiallyDeferred bool `json:"initiallyDeferred,omitempty"`
}

// Clause renders what follows a foreign key's REFERENCES t(cols) as
// pg_get_constraintdef prints it: MATCH FULL, ON UPDATE and ON DELETE
// actions, DEFERRABLE and INITIALLY DEFERRED.
func (fk ForeignKey) Clause() string {
	var b strings.Builder
	if fk.Match == "full" {
		b.WriteString(" MATCH FULL")
	}
	if fk.OnUpdate != "" {
		b.WriteString(" ON UPDATE " + strings.ToUpper(fk.OnUpdate))
	}
	if fk.OnDelete != "" {
		b.WriteString(" ON DELETE " + strings.ToUpper(fk.OnDelete))
		if len(fk.DeleteSetColumns) > 0 {
			quoted := make([]string, len(fk.DeleteSetColumns))
			for i, c := range fk.DeleteSetColumns {
				quoted[i] = QuoteIdent(c)
			}
			b.WriteString(" (" + strings.Join(quoted, ", ") + ")")
		}
	}
	if fk.Deferrable {
		b.WriteString(" DEFERRABLE")
	}
	if fk.InitiallyDeferred {
		b.WriteString(" INITIALLY DEFERRED")
	}
	return b.String()
}

// View is a named query.
type View struct {
	Name   string `json:"name"`
	Schema string `json:"schema,omitempty"` // "" is public
	// SearchPath is the search_path the view was created under: its
	// query's names are resolved through it, as PostgreSQL binds them
	// once at CREATE VIEW.
	SearchPath []string `json:"searchPath,omitempty"`
	SQL        string   `json:"sql"`
	Columns    []string `json:"columns,omitempty"`
	Comment    string   `json:"comment,omitempty"` // COMMENT ON VIEW's text
	// CheckOption is WITH [CASCADED | LOCAL] CHECK OPTION: "cascaded",
	// "local" or "" (none). Rows written through the view must then pass
	// its WHERE (planner/viewdml.go).
	CheckOption string `json:"checkOption,omitempty"`
	// Defaults are ALTER VIEW ... ALTER COLUMN c SET DEFAULT's
	// expressions (PostgreSQL text) by view column name.
	Defaults map[string]string `json:"defaults,omitempty"`
	ACL      []ACLItem         `json:"acl,omitempty"`   // GRANT's privileges (acl.go); nil is the default
	Owner    uint64            `json:"owner,omitempty"` // the owning role's OID, 0 for the bootstrap superuser
}

// Stats are a table's statistics as last computed by ANALYZE.
type Stats struct {
	TableID  uint64 `json:"tableID"`
	RowCount int64  `json:"rowCount"`
	// Distinct maps a column ID to its number of distinct values.
	Distinct map[uint32]int64 `json:"distinct,omitempty"`
}

// ColumnOrdinal returns the ordinal of the named column, or -1.
func (t *Table) ColumnOrdinal(name string) int {
	for i := range t.Columns {
		if t.Columns[i].Name == name {
			return i
		}
	}
	return -1
}

// ValueColumns returns the ordinals of the columns stored in the master
// value: every column not in the primary key, and key columns whose key
// form does not restore the value (types.T.KeyExact), in column order.
func (t *Table) ValueColumns() []int {
	var out []int
	for i := range t.Columns {
		// A NUMERIC key column is also kept in the value: its key holds
		// the number, not its display scale (1.50 keys as 1.5).
		if !containsInt(t.PrimaryKey, i) || !t.Columns[i].Type.KeyExact() {
			out = append(out, i)
		}
	}
	return out
}

// IndexByName returns the table's index with that name, or nil.
func (t *Table) IndexByName(name string) *Index {
	for _, idx := range t.Indexes {
		if idx.Name == name {
			return idx
		}
	}
	return nil
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// Databases returns the database names in sorted order.
func (c *Catalog) Databases() []string {
	names := make([]string, 0, len(c.dbs))
	for n := range c.dbs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Database returns the named database, or 3D000.
func (c *Catalog) Database(db string) (*Database, error) {
	d, ok := c.dbs[db]
	if !ok {
		return nil, pgerror.Newf(pgerror.InvalidCatalogName, "database %q does not exist", db)
	}
	return d, nil
}

// Tables returns the tables of db sorted by name, or 3D000.
func (c *Catalog) Tables(db string) ([]*Table, error) {
	d, err := c.Database(db)
	if err != nil {
		return nil, err
	}
	out := make([]*Table, 0, len(d.Tables))
	for _, t := range d.Tables {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Views returns the views of db sorted by name, or 3D000.
func (c *Catalog) Views(db string) ([]*View, error) {
	d, err := c.Database(db)
	if err != nil {
		return nil, err
	}
	out := make([]*View, 0, len(d.Views))
	for _, v := range d.Views {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Table returns the named table: 3D000 for an unknown database, 42P01
// for an unknown table.
func (c *Catalog) Table(db, name string) (*Table, error) {
	d, err := c.Database(db)
	if err != nil {
		return nil, err
	}
	t, ok := d.Tables[name]
	if !ok {
		return nil, pgerror.Newf(pgerror.UndefinedTable, "relation %q does not exist", DisplayName(name))
	}
	return t, nil
}

// TableByID returns the table whose master key space is id, or nil.
func (c *Catalog) TableByID(id uint64) *Table {
	for _, d := range c.dbs {
		for _, t := range d.Tables {
			if t.ID == id {
				return t
			}
		}
	}
	return nil
}

// Index returns the index of db whose key (RelKey: an index lives in its
// table's schema) is name, and its table, or 42704.
func (c *Catalog) Index(db, name string) (*Table, *Index, error) {
	d, err := c.Database(db)
	if err != nil {
		return nil, nil, err
	}
	schema, bare := SplitRelKey(name)
	for _, t := range d.Tables {
		if SchemaName(t.Schema) != schema {
			continue
		}
		if idx := t.IndexByName(bare); idx != nil {
			return t, idx, nil
		}
	}
	return nil, nil, pgerror.Newf(pgerror.UndefinedObject, "index %q does not exist", DisplayName(name))
}

// View returns the named view, or 42P01.
func (c *Catalog) View(db, name string) (*View, error) {
	d, err := c.Database(db)
	if err != nil {
		return nil, err
	}
	v, ok := d.Views[name]
	if !ok {
		return nil, pgerror.Newf(pgerror.UndefinedTable, "relation %q does not exist", DisplayName(name))
	}
	return v, nil
}

// Stats returns the statistics of table id, or nil if it was never
// analyzed.
func (c *Catalog) Stats(tableID uint64) *Stats { return c.stats[tableID] }

// NextID is the next unused key space id.
func (c *Catalog) NextID() uint64 { return c.nextID }

// clone returns a shallow copy of c whose maps may be modified; the
// databases themselves are still shared (use cloneDB before changing one).
func (c *Catalog) clone() *Catalog {
	n := &Catalog{dbs: make(map[string]*Database, len(c.dbs)), stats: make(map[uint64]*Stats, len(c.stats)), nextID: c.nextID,
		roles: make(map[string]*Role, len(c.roles)), ids: c.ids}
	for k, v := range c.roles {
		n.roles[k] = v
	}
	for k, v := range c.dbs {
		n.dbs[k] = v
	}
	for k, v := range c.stats {
		n.stats[k] = v
	}
	return n
}

// cloneDB replaces db in n (a fresh clone) with a copy whose maps may be
// modified, and returns that copy.
func (n *Catalog) cloneDB(db string) *Database {
	old := n.dbs[db]
	d := &Database{Name: old.Name, Tables: make(map[string]*Table, len(old.Tables)), Views: make(map[string]*View, len(old.Views)),
		Sequences: make(map[string]*Sequence, len(old.Sequences)), Schemas: make(map[string]*Schema, len(old.Schemas)), Foreign: old.Foreign}
	for k, v := range old.Schemas {
		d.Schemas[k] = v
	}
	for k, v := range old.Sequences {
		d.Sequences[k] = v
	}
	for k, v := range old.Tables {
		d.Tables[k] = v
	}
	for k, v := range old.Views {
		d.Views[k] = v
	}
	d.Types = make(map[string]*UserType, len(old.Types))
	for k, v := range old.Types {
		d.Types[k] = v
	}
	d.Functions = make(map[uint64]*Function, len(old.Functions))
	for k, v := range old.Functions {
		d.Functions[k] = v
	}
	n.dbs[db] = d
	return d
}

// cloneTable returns a deep-enough copy of t for a DDL change: slices are
// copied so appending or editing them does not touch t.
func cloneTable(t *Table) *Table {
	n := *t
	n.Columns = append([]Column(nil), t.Columns...)
	n.PrimaryKey = append([]int(nil), t.PrimaryKey...)
	n.PrimaryKeyDesc = append([]bool(nil), t.PrimaryKeyDesc...)
	n.PrimaryKeyInclude = append([]int(nil), t.PrimaryKeyInclude...)
	n.Indexes = append([]*Index(nil), t.Indexes...)
	n.ForeignKeys = append([]ForeignKey(nil), t.ForeignKeys...)
	n.Triggers = append([]*Trigger(nil), t.Triggers...)
	n.Checks = append([]Check(nil), t.Checks...)
	return &n
}

// empty returns a catalog with no databases.
func empty(nextID uint64) *Catalog {
	return &Catalog{dbs: map[string]*Database{}, stats: map[uint64]*Stats{}, nextID: nextID, roles: map[string]*Role{}}
}

func newDatabase(name string) *Database {
	return &Database{Name: name, Tables: map[string]*Table{}, Views: map[string]*View{}, Sequences: map[string]*Sequence{}, Schemas: map[string]*Schema{}, Types: map[string]*UserType{}}
}

// QuoteIdent is quote_ident: s double-quoted (quotes doubled) unless it
// is a plain lower-case identifier (keywords aside).
func QuoteIdent(s string) string {
	plain := s != ""
	for i, r := range s {
		if !(r >= 'a' && r <= 'z' || r == '_' || i > 0 && r >= '0' && r <= '9') {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
