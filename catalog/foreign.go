package catalog

import (
	"fmt"
	"sort"

	"github.com/kvsql/kvsql/foreign"
	"github.com/kvsql/kvsql/pgerror"
)

// Foreign databases: a DataBase element with a store attribute
// describes an application's key-value store rather than kvsql's own
// (docs/layout.md, "Foreign layouts"). Its tables carry a ForeignLayout
// and own no key space data: their ids are claimed from nextID only so
// that every relation keeps a unique id (its OID), and their primary
// key is the key template's fields.

// dbDesc is a database's descriptor in the meta key space.
type dbDesc struct {
	Name    string
	Foreign *foreign.StoreSpec `json:",omitempty"`
}

// foreignDoc fills the store attributes of d's document element.
func foreignDoc(d *Database, dd *docDB) {
	if d == nil || d.Foreign == nil {
		return
	}
	dd.Store = d.Foreign.URL
	dd.ReadOnly = "true"
	if d.Foreign.Writable {
		dd.ReadOnly = "false"
	}
	seqs := make([]*Sequence, 0, len(d.Sequences))
	for _, s := range d.Sequences {
		if s.Foreign != nil {
			seqs = append(seqs, s)
		}
	}
	sort.Slice(seqs, func(i, j int) bool { return seqs[i].Name < seqs[j].Name })
	for _, s := range seqs {
		if dd.Counters == nil {
			dd.Counters = &docCounters{}
		}
		dd.Counters.Counter = append(dd.Counters.Counter, s.Foreign.ToDoc(s.Name))
	}
}

// foreignDB reads a foreign DataBase element into d.
func (im *importer) foreignDB(d *Database, ddb *docDB, where string, names map[string]string) error {
	if _, _, err := foreign.ParseStoreURL(ddb.Store); err != nil {
		return docError("%s: %v", where, err)
	}
	spec := &foreign.StoreSpec{URL: ddb.Store}
	switch ddb.ReadOnly {
	case "", "true":
	case "false":
		spec.Writable = true
	default:
		return docError("%s: readonly=%q must be true or false", where, ddb.ReadOnly)
	}
	d.Foreign = spec
	if len(ddb.Views) > 0 || len(ddb.Sequences) > 0 || len(ddb.Functions) > 0 {
		return docError("%s: a foreign database holds only Tables and Counters", where)
	}
	for i := range ddb.Tables {
		t, err := im.foreignTable(d.Name, &ddb.Tables[i], where, names)
		if err != nil {
			return err
		}
		d.Tables[t.Key()] = t
	}
	if ddb.Counters != nil {
		for i := range ddb.Counters.Counter {
			s, err := im.foreignCounter(&ddb.Counters.Counter[i], where, names)
			if err != nil {
				return err
			}
			d.Sequences[s.Key()] = s
		}
	}
	return nil
}

// foreignCounter reads a Counter element: a bigint sequence, increment
// 1, whose state is the application's counter key.
func (im *importer) foreignCounter(dc *foreign.DocCounter, dbWhere string, names map[string]string) (*Sequence, error) {
	where := fmt.Sprintf("%s / Counter %q", dbWhere, dc.Name)
	switch {
	case dc.Name == "":
		return nil, docError("%s / Counter: sequenceName is missing", dbWhere)
	case names[dc.Name] != "":
		return nil, docError("%s: name already used by %s", where, names[dc.Name])
	}
	names[dc.Name] = where
	ctr, err := foreign.CounterFromDoc(dc)
	if err != nil {
		return nil, docError("%s: %v", where, err)
	}
	s := &Sequence{ID: im.nextID, Name: dc.Name, Foreign: ctr}
	im.nextID++
	counterBounds(s)
	return s, nil
}

// counterBounds fills the definition of the sequence that shows
// counter s.Foreign: bigint, from 1 by 1 up to what the counter's
// encoding holds, cache 1, no cycle.
func counterBounds(s *Sequence) {
	s.Type, s.Increment, s.Cache, s.Cycle = "bigint", 1, 1, false
	s.Min, s.Max = s.Foreign.Range()
	s.Start = s.Min
}

// foreignTable reads a Table element of a foreign database. keySpace,
// columnID, nextColumnID and primaryKey may be left out: they are
// derived (the key is the template's fields).
func (im *importer) foreignTable(db string, dt *docTable, dbWhere string, names map[string]string) (*Table, error) {
	where := fmt.Sprintf("%s / Table %q", dbWhere, dt.Name)
	switch {
	case dt.Name == "":
		return nil, docError("%s / Table: tableName is missing", dbWhere)
	case names[dt.Name] != "":
		return nil, docError("%s: name already used by %s", where, names[dt.Name])
	case dt.ForeignLayout == nil:
		return nil, docError("%s: a table of a foreign database needs a ForeignLayout", where)
	case len(dt.IndexFiles) > 0 || len(dt.Triggers) > 0 || len(dt.ForeignKeys) > 0 || dt.Partitioning != "" || dt.HiddenRowID != 0:
		return nil, docError("%s: a foreign table has no IndexFiles, Triggers, foreignKeys, partitioning or hidden row id", where)
	case len(dt.Structure) == 0:
		return nil, docError("%s / Structure: a table needs at least one Attribute", where)
	}
	names[dt.Name] = where
	if dt.KeySpace == 0 {
		dt.KeySpace = num(im.nextID)
		im.nextID++
	}
	if err := im.claim(dt.KeySpace, where); err != nil {
		return nil, err
	}
	t := &Table{ID: uint64(dt.KeySpace), DB: db, Name: dt.Name, PrimaryKeyName: dt.PrimaryKey.Name}
	if t.PrimaryKeyName == "" {
		t.PrimaryKeyName = dt.Name + "_pkey"
	}
	next := uint32(len(dt.Structure) + 1)
	if uint32(dt.NextColumnID) > next {
		next = uint32(dt.NextColumnID)
	}
	t.NextColumnID = next
	cols := make([]foreign.Column, 0, len(dt.Structure))
	for i := range dt.Structure {
		da := dt.Structure[i]
		if da.ColumnID == 0 {
			da.ColumnID = num(i + 1)
		}
		col, err := attribute(&da, where, t)
		if err != nil {
			return nil, err
		}
		if col.Serial || col.Hidden {
			// A serial column's counter would be kvsql's, not the
			// application's: a default nextval of a Counter is.
			return nil, docError("%s / Attribute %q: a foreign table's column is not serial or hidden (a default nextval('counter') takes the application's counter)", where, col.Name)
		}
		t.Columns = append(t.Columns, col)
		cols = append(cols, foreign.Column{Name: col.Name, Type: col.Type})
	}
	l, err := foreign.FromDoc(dt.ForeignLayout, cols)
	if err != nil {
		return nil, docError("%s / ForeignLayout: %v", where, err)
	}
	t.Foreign = l
	t.PrimaryKey = l.KeyFields()
	t.PrimaryKeyDesc = make([]bool, len(t.PrimaryKey))
	for _, o := range t.PrimaryKey {
		t.Columns[o].NotNull = true
	}
	if len(dt.PrimaryKey.Attributes) > 0 {
		if len(dt.PrimaryKey.Attributes) != len(t.PrimaryKey) {
			return nil, docError("%s / primaryKey: a foreign table's key is its key template's fields", where)
		}
		for i, a := range dt.PrimaryKey.Attributes {
			if a.Name != t.Columns[t.PrimaryKey[i]].Name {
				return nil, docError("%s / primaryKey: pkAttribute %q, but the key template's field %d is %q", where, a.Name, i+1, t.Columns[t.PrimaryKey[i]].Name)
			}
		}
	}
	return t, nil
}

// ForeignDatabases reports whether every database of c is foreign (a
// document that only attaches stores).
func (c *Catalog) ForeignDatabases() bool {
	for _, d := range c.dbs {
		if d.Foreign == nil {
			return false
		}
	}
	return len(c.dbs) > 0
}

// ResolveStores makes the relative store paths of c's foreign databases
// relative to dir (the document's directory).
func (c *Catalog) ResolveStores(dir string) error {
	for _, d := range c.dbs {
		if d.Foreign == nil {
			continue
		}
		url, err := foreign.ResolveStoreURL(d.Foreign.URL, dir)
		if err != nil {
			return docError("DataBase %q: %v", d.Name, err)
		}
		d.Foreign.URL = url
	}
	return nil
}

// AttachForeign returns a copy of c with the foreign databases of doc
// added (replacing any of the same name, which must be foreign too).
// Their tables get fresh ids from c's counter.
func (c *Catalog) AttachForeign(doc *Catalog) (*Catalog, error) {
	n := empty(c.nextID)
	n.ids = c.ids
	for k, v := range c.dbs {
		n.dbs[k] = v
	}
	for k, v := range c.stats {
		n.stats[k] = v
	}
	for _, name := range doc.Databases() {
		src := doc.dbs[name]
		if old, ok := n.dbs[name]; ok && old.Foreign == nil {
			return nil, docError("DataBase %q: a database of that name already exists in the store and is not foreign", name)
		}
		d := newDatabase(name)
		d.Foreign = src.Foreign
		for _, t := range src.Tables {
			cp := *t
			cp.ID = n.allocID()
			d.Tables[cp.Key()] = &cp
		}
		for _, s := range src.Sequences {
			cp := *s
			cp.ID = n.allocID()
			d.Sequences[cp.Key()] = &cp
		}
		n.dbs[name] = d
	}
	return n, nil
}

// CheckForeignDDL refuses a schema change (what: "ALTER TABLE",
// "CREATE INDEX", ...) to a foreign table: its columns are fixed by the
// application's keys (change the catalog document and import it again),
// and it has no key space for indexes or for TRUNCATE to empty.
func CheckForeignDDL(t *Table, what string) error {
	if t == nil || t.Foreign == nil {
		return nil
	}
	e := pgerror.Newf(pgerror.WrongObjectType, "%s is not supported on foreign table %q", what, t.Name)
	e.Hint = "A foreign table's columns come from the application's keys: change its catalog document and import it again."
	return e
}

// CheckForeignSequence refuses a change (what: "ALTER SEQUENCE", "DROP
// SEQUENCE", ...) to a sequence that shows an application's counter:
// its definition follows from the Counter element.
func CheckForeignSequence(s *Sequence, what string) error {
	if s == nil || s.Foreign == nil {
		return nil
	}
	e := pgerror.Newf(pgerror.WrongObjectType, "%s is not supported on sequence %q: it is the application's counter %q", what, s.Name, s.Foreign.Key)
	e.Hint = "Change the Counter element of the catalog document and import it again; setval() sets the counter."
	return e
}
