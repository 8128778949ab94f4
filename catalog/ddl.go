package catalog

import (
	"maps"
	"slices"

	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// TableDef is what CREATE TABLE declares. Column IDs in Columns are
// ignored and assigned by CreateTable.
type TableDef struct {
	Name           string
	Owner          uint64 // the owning role's OID; 0 is the bootstrap superuser
	Columns        []Column
	PrimaryKey     []string // column names; empty means a hidden row id
	PrimaryKeyDesc []bool   // optional, one per PrimaryKey entry
	// PrimaryKeyDeferrable marks PRIMARY KEY ... DEFERRABLE.
	PrimaryKeyDeferrable bool
	// PrimaryKeyInclude is PRIMARY KEY (...) INCLUDE (cols).
	PrimaryKeyInclude []string
	Uniques           []UniqueDef
	ForeignKeys       []ForeignKey
	Checks            []Check // names already chosen (see session)
}

// UniqueDef is a UNIQUE table constraint; it becomes a unique index.
type UniqueDef struct {
	Name    string // "" picks table_col1_col2_key
	Columns []string
	// NullsNotDistinct and Deferrable are the index's (see Index).
	NullsNotDistinct, Deferrable bool
	// Include is UNIQUE (...) INCLUDE (cols) (Index.Include).
	Include []string
}

// IndexDef is what CREATE INDEX declares.
type IndexDef struct {
	Name    string
	Table   string
	Columns []string
	Desc    []bool // optional
	Unique  bool
	// Form of a non-unique index: FormKeyID (the default when zero) or
	// FormInverted. Ignored for unique indexes, which are FormUnique.
	Form Form
	// Elements indexes the elements of one array column (Index.Elements;
	// the inverted form).
	Elements bool
	// Predicate names the hidden column of a partial index's WHERE
	// expression (Index.Predicate).
	Predicate string
	// NullsNotDistinct is UNIQUE ... NULLS NOT DISTINCT (Index's).
	NullsNotDistinct bool
	// Include names the INCLUDE columns (Index.Include).
	Include []string
	// Constraint marks the index of a UNIQUE table constraint (only
	// the wording of a missing column's error differs).
	Constraint bool
}

// HiddenRowIDName is the name of the hidden key column of a table declared
// without a primary key (suffixed with _ until it is unique).
const HiddenRowIDName = "rowid"

// CreateDatabase adds an empty database; 42P04 if it exists.
func (c *Catalog) CreateDatabase(w kv.Writer, name string) (*Catalog, error) {
	if _, ok := c.dbs[name]; ok {
		return nil, pgerror.Newf(pgerror.DuplicateDatabase, "database %q already exists", name)
	}
	if err := writeDatabase(w, name); err != nil {
		return nil, err
	}
	n := c.clone()
	n.dbs[name] = newDatabase(name)
	return n, nil
}

// DropDatabase drops a database with all its tables and views; 3D000 if
// it does not exist.
func (c *Catalog) DropDatabase(w kv.Writer, name string) (*Catalog, error) {
	d, err := c.Database(name)
	if err != nil {
		return nil, err
	}
	n := c.clone()
	for _, t := range d.Tables {
		if err := dropTableData(w, t); err != nil {
			return nil, err
		}
		delete(n.stats, t.ID)
	}
	for _, s := range d.Sequences {
		if err := w.Delete(SeqStateKey(s.ID)); err != nil {
			return nil, err
		}
	}
	for _, p := range [][]byte{tablePrefix(name), viewPrefix(name), sequenceDefPrefix(name), metaKey(text(tagFunction), text(name)), metaKey(text(tagSchema), text(name)), metaKey(text(tagType), text(name))} {
		if err := w.DeleteRange(p, encoding.PrefixEnd(p)); err != nil {
			return nil, err
		}
	}
	if err := w.Delete(DatabaseKey(name)); err != nil {
		return nil, err
	}
	delete(n.dbs, name)
	return n, nil
}

// relationExists reports 42P07 when a relation of d has key (RelKey):
// tables, views, sequences and indexes share a schema's namespace.
func (c *Catalog) relationExists(d *Database, key string) error {
	schema, name := SplitRelKey(key)
	exists := pgerror.Newf(pgerror.DuplicateTable, "relation %q already exists", name)
	if _, ok := d.Tables[key]; ok {
		return exists
	}
	if _, ok := d.Views[key]; ok {
		return exists
	}
	if _, ok := d.Sequences[key]; ok {
		return exists
	}
	for _, t := range d.Tables {
		if SchemaName(t.Schema) == schema && (t.IndexByName(name) != nil || t.PrimaryKeyName == name) {
			return exists
		}
	}
	return nil
}

// CreateTable adds a table described by def to db. It assigns the table's
// key space, column IDs and the key spaces of its UNIQUE constraints'
// indexes. Errors: 3D000, 42P07 duplicate relation, 42701 duplicate
// column, 42703 unknown key column.
func (c *Catalog) CreateTable(w kv.Writer, db string, def TableDef) (*Catalog, error) {
	d, err := c.Database(db)
	if err != nil {
		return nil, err
	}
	if err := c.relationExists(d, def.Name); err != nil {
		return nil, err
	}
	if len(def.Columns) == 0 && len(def.PrimaryKey) > 0 {
		return nil, pgerror.Newf(pgerror.UndefinedColumn, "column %q named in key does not exist", def.PrimaryKey[0])
	}
	n := c.clone()
	schema, name := schemaField(def.Name)
	t := &Table{ID: n.allocID(), DB: db, Name: name, Schema: schema, PrimaryKeyName: ObjectName(name, "", "pkey"), NextColumnID: 1, Owner: def.Owner}
	for _, col := range def.Columns {
		if t.ColumnOrdinal(col.Name) >= 0 {
			return nil, pgerror.Newf(pgerror.DuplicateColumn, "column %q specified more than once", col.Name)
		}
		col.ID = t.NextColumnID
		t.NextColumnID++
		t.Columns = append(t.Columns, col)
	}
	if len(def.PrimaryKey) == 0 {
		name := HiddenRowIDName
		for t.ColumnOrdinal(name) >= 0 {
			name += "_"
		}
		t.NextColumnID++
		t.Columns = append(t.Columns, Column{ID: t.NextColumnID - 1, Name: name, Type: types.T{Family: types.Int8}, NotNull: true, Serial: true, Hidden: true})
		t.PrimaryKey = []int{len(t.Columns) - 1}
		t.PrimaryKeyDesc = []bool{false}
		t.HiddenRowID = true
	} else {
		ords, err := ordinals(t, def.PrimaryKey)
		if err != nil {
			return nil, err
		}
		for i, o := range ords {
			if containsInt(ords[:i], o) {
				return nil, pgerror.Newf(pgerror.DuplicateColumn, "column %q appears twice in primary key constraint", t.Columns[o].Name)
			}
			t.Columns[o].NotNull = true
		}
		t.PrimaryKey = ords
		t.PrimaryKeyDesc = directions(def.PrimaryKeyDesc, len(ords))
		t.PrimaryKeyDeferrable = def.PrimaryKeyDeferrable
		if t.PrimaryKeyInclude, err = includeOrdinals(t, def.PrimaryKeyInclude, true); err != nil {
			return nil, err
		}
	}
	for _, u := range def.Uniques {
		ords, err := ordinals(t, u.Columns)
		if err != nil {
			return nil, err
		}
		name := u.Name
		if name == "" {
			// PostgreSQL numbers a generated name past the relations
			// that hold it: t_a_key, t_a_key1.
			name = ChooseName(t.Name, NameAddition(append(append([]string(nil), u.Columns...), u.Include...)), "key", func(n string) bool {
				return c.relationExists(d, RelKey(t.Schema, n)) != nil || t.IndexByName(n) != nil || n == t.PrimaryKeyName || n == t.Name
			})
		}
		if err := c.relationExists(d, RelKey(t.Schema, name)); err != nil {
			return nil, err
		}
		if t.IndexByName(name) != nil || name == t.PrimaryKeyName || name == t.Name {
			return nil, pgerror.Newf(pgerror.DuplicateTable, "relation %q already exists", name)
		}
		inc, err := includeOrdinals(t, u.Include, true)
		if err != nil {
			return nil, err
		}
		t.Indexes = append(t.Indexes, &Index{ID: n.allocID(), Name: name, Columns: ords, Desc: make([]bool, len(ords)), Unique: true, Form: FormUnique, Constraint: true,
			NullsNotDistinct: u.NullsNotDistinct, Deferrable: u.Deferrable, Include: inc})
	}
	for _, fk := range def.ForeignKeys {
		if _, err := ordinals(t, fk.Columns); err != nil {
			return nil, err
		}
		t.NameForeignKey(&fk)
		t.ForeignKeys = append(t.ForeignKeys, fk)
	}
	t.Checks = append(t.Checks, def.Checks...)
	if err := writeTable(w, t); err != nil {
		return nil, err
	}
	if err := writeNextID(w, n.nextID); err != nil {
		return nil, err
	}
	n.cloneDB(db).Tables[t.Key()] = t
	return n, nil
}

func ordinals(t *Table, names []string) ([]int, error) {
	out := make([]int, len(names))
	for i, name := range names {
		o := t.ColumnOrdinal(name)
		if o < 0 {
			return nil, pgerror.Newf(pgerror.UndefinedColumn, "column %q named in key does not exist", name)
		}
		if t.Columns[o].Composite != 0 {
			// No key encoding of a record (docs/layout.md).
			return nil, pgerror.Newf(pgerror.FeatureNotSupported, "column %q: keys over a column of a composite type are not supported", name)
		}
		out[i] = o
	}
	return out, nil
}

// includeOrdinals resolves INCLUDE column names to ordinals: 42703 for
// a column that does not exist, worded as PostgreSQL words it for a
// constraint (named in key) or CREATE INDEX.
func includeOrdinals(t *Table, names []string, constraint bool) ([]int, error) {
	if len(names) == 0 {
		return nil, nil
	}
	out := make([]int, len(names))
	for i, name := range names {
		o := t.ColumnOrdinal(name)
		if o < 0 || t.Columns[o].Hidden {
			if constraint {
				return nil, pgerror.Newf(pgerror.UndefinedColumn, "column %q named in key does not exist", name)
			}
			return nil, pgerror.Newf(pgerror.UndefinedColumn, "column %q does not exist", name)
		}
		out[i] = o
	}
	return out, nil
}

func directions(desc []bool, n int) []bool {
	out := make([]bool, n)
	copy(out, desc)
	return out
}

// dropTableData deletes the master file, every index file and the
// counters of t.
func dropTableData(w kv.Writer, t *Table) error {
	spaces := []uint64{t.ID}
	for _, idx := range t.Indexes {
		spaces = append(spaces, idx.ID)
	}
	for _, s := range spaces {
		if err := deleteSpace(w, s); err != nil {
			return err
		}
	}
	p := sequencePrefix(t.ID)
	if err := w.DeleteRange(p, encoding.PrefixEnd(p)); err != nil {
		return err
	}
	return w.Delete(StatsKey(t.ID))
}

// SpacePrefix is the prefix of every key in key space id.
func SpacePrefix(id uint64) []byte { return encoding.EncodeUvarintAsc(nil, id) }

func deleteSpace(w kv.Writer, id uint64) error {
	p := SpacePrefix(id)
	return w.DeleteRange(p, encoding.PrefixEnd(p))
}

// DropTable removes a table, its data and its indexes' data (one
// DeleteRange per key space, in w); 42P01 if it does not exist.
func (c *Catalog) DropTable(w kv.Writer, db, name string) (*Catalog, error) {
	t, err := c.Table(db, name)
	if err != nil {
		return nil, err
	}
	if err := dropTableData(w, t); err != nil {
		return nil, err
	}
	if err := w.Delete(tableKeyOf(db, name)); err != nil {
		return nil, err
	}
	n := c.clone()
	delete(n.cloneDB(db).Tables, name)
	delete(n.stats, t.ID)
	return n, nil
}

// CreateIndex adds an index to a table and returns the new catalog. It
// writes only the descriptor: the caller fills the index file from the
// existing rows with index.Backfill. Errors: 42P01, 42P07, 42703.
func (c *Catalog) CreateIndex(w kv.Writer, db string, def IndexDef) (*Catalog, error) {
	d, err := c.Database(db)
	if err != nil {
		return nil, err
	}
	t, err := c.Table(db, def.Table)
	if err != nil {
		return nil, err
	}
	if err := CheckForeignDDL(t, "CREATE INDEX"); err != nil {
		return nil, err
	}
	if err := c.relationExists(d, RelKey(t.Schema, def.Name)); err != nil {
		return nil, err
	}
	ords, err := ordinals(t, def.Columns)
	if err != nil {
		return nil, err
	}
	if len(ords) == 0 {
		return nil, pgerror.New(pgerror.SyntaxError, "an index needs at least one column")
	}
	form := def.Form
	switch {
	case def.Unique:
		form = FormUnique
	case form == 0:
		form = FormKeyID
	case form == FormUnique:
		return nil, pgerror.Newf(pgerror.InvalidParameterValue, "index %q: the unique form needs a UNIQUE index", def.Name)
	case form != FormKeyID && form != FormInverted:
		return nil, pgerror.Newf(pgerror.InvalidParameterValue, "index %q: unknown index form %d", def.Name, form)
	}
	if def.Elements {
		if def.Unique || len(ords) != 1 || !ElementsIndexable(t.Columns[ords[0]].Type) {
			return nil, pgerror.Newf(pgerror.FeatureNotSupported, "index %q: an element index is a non-unique index of one array or jsonb column", def.Name)
		}
		form = FormInverted
	}
	inc, err := includeOrdinals(t, def.Include, def.Constraint)
	if err != nil {
		return nil, err
	}
	if len(inc) > 0 && form == FormInverted {
		return nil, pgerror.Newf(pgerror.FeatureNotSupported, "index %q: the inverted-list form does not support included columns (its value is a list of primary keys)", def.Name)
	}
	n := c.clone()
	idx := &Index{ID: n.allocID(), Name: def.Name, Columns: ords, Desc: directions(def.Desc, len(ords)), Unique: def.Unique, Form: form, Elements: def.Elements, Predicate: def.Predicate,
		NullsNotDistinct: def.Unique && def.NullsNotDistinct, Include: inc}
	nt := cloneTable(t)
	nt.Indexes = append(nt.Indexes, idx)
	if err := writeTable(w, nt); err != nil {
		return nil, err
	}
	if err := writeNextID(w, n.nextID); err != nil {
		return nil, err
	}
	n.cloneDB(db).Tables[nt.Key()] = nt
	return n, nil
}

// DropIndex removes an index and its index file; 42704 if it does not
// exist.
func (c *Catalog) DropIndex(w kv.Writer, db, name string) (*Catalog, error) {
	t, idx, err := c.Index(db, name)
	if err != nil {
		return nil, err
	}
	nt := cloneTable(t)
	nt.Indexes = nt.Indexes[:0]
	for _, x := range t.Indexes {
		if x != idx {
			nt.Indexes = append(nt.Indexes, x)
		}
	}
	dropGeneratedColumns(nt, idx)
	if err := deleteSpace(w, idx.ID); err != nil {
		return nil, err
	}
	if err := writeTable(w, nt); err != nil {
		return nil, err
	}
	n := c.clone()
	n.cloneDB(db).Tables[nt.Key()] = nt
	return n, nil
}

// AddColumn appends a column to a table without rewriting rows: rows
// written earlier lack the column's ID and readers substitute
// col.DefaultValue. Errors: 42P01, 42701.
func (c *Catalog) AddColumn(w kv.Writer, db, table string, col Column) (*Catalog, error) {
	t, err := c.Table(db, table)
	if err != nil {
		return nil, err
	}
	if err := CheckForeignDDL(t, "ALTER TABLE"); err != nil {
		return nil, err
	}
	if t.ColumnOrdinal(col.Name) >= 0 {
		return nil, pgerror.Newf(pgerror.DuplicateColumn, "column %q of relation %q already exists", col.Name, table)
	}
	nt := cloneTable(t)
	col.ID = nt.NextColumnID
	nt.NextColumnID++
	// Appended after any hidden row id: ordinals already in use (the
	// primary key, indexes) must not shift.
	nt.Columns = append(nt.Columns, col)
	if err := writeTable(w, nt); err != nil {
		return nil, err
	}
	n := c.clone()
	n.cloneDB(db).Tables[nt.Key()] = nt
	return n, nil
}

// SetPrimaryKey gives a table created without a primary key one (ALTER
// TABLE ... ADD PRIMARY KEY): the key columns become NOT NULL and the
// hidden row id column goes away (index ordinals are remapped). Only the
// descriptor changes: the master file's keys change with it, so the
// caller rewrites every row and index entry in the same transaction.
// Errors: 42P01, 42P16 (the table has a primary key), 42703, 42701, 42P07.
func (c *Catalog) SetPrimaryKey(w kv.Writer, db, table, name string, cols, include []string) (*Catalog, error) {
	d, err := c.Database(db)
	if err != nil {
		return nil, err
	}
	t, err := c.Table(db, table)
	if err != nil {
		return nil, err
	}
	if err := CheckForeignDDL(t, "ALTER TABLE"); err != nil {
		return nil, err
	}
	if !t.HiddenRowID {
		return nil, pgerror.Newf(pgerror.InvalidTableDefinition, "multiple primary keys for table %q are not allowed", table)
	}
	if name == "" {
		// table may be a key (schema.name): the name is the table's own.
		name = ObjectName(t.Name, "", "pkey")
	}
	if t.IndexByName(name) != nil {
		return nil, pgerror.Newf(pgerror.DuplicateTable, "relation %q already exists", name)
	}
	if name != t.PrimaryKeyName { // t_pkey is reserved for t from its creation
		if err := c.relationExists(d, RelKey(t.Schema, name)); err != nil {
			return nil, err
		}
	}
	nt := cloneTable(t)
	rowid := nt.PrimaryKey[0]
	nt.Columns = append(nt.Columns[:rowid:rowid], nt.Columns[rowid+1:]...)
	shift := func(o int) int {
		if o > rowid {
			return o - 1
		}
		return o
	}
	for i, idx := range nt.Indexes {
		ni := *idx
		ni.Columns = make([]int, len(idx.Columns))
		for j, o := range idx.Columns {
			ni.Columns[j] = shift(o)
		}
		if idx.Include != nil {
			ni.Include = make([]int, len(idx.Include))
			for j, o := range idx.Include {
				ni.Include[j] = shift(o)
			}
		}
		nt.Indexes[i] = &ni
	}
	ords, err := ordinals(nt, cols)
	if err != nil {
		return nil, err
	}
	if nt.PrimaryKeyInclude, err = includeOrdinals(nt, include, true); err != nil {
		return nil, err
	}
	for i, o := range ords {
		if containsInt(ords[:i], o) {
			return nil, pgerror.Newf(pgerror.DuplicateColumn, "column %q appears twice in primary key constraint", nt.Columns[o].Name)
		}
		nt.Columns[o].NotNull = true
	}
	nt.PrimaryKey, nt.PrimaryKeyDesc, nt.PrimaryKeyName, nt.HiddenRowID = ords, make([]bool, len(ords)), name, false
	if err := writeTable(w, nt); err != nil {
		return nil, err
	}
	n := c.clone()
	n.cloneDB(db).Tables[nt.Key()] = nt
	return n, nil
}

// CreateView adds a view; 42P07 if the name is taken.
func (c *Catalog) CreateView(w kv.Writer, db string, v View) (*Catalog, error) {
	d, err := c.Database(db)
	if err != nil {
		return nil, err
	}
	if err := c.relationExists(d, v.Name); err != nil {
		return nil, err
	}
	nv := v
	nv.Schema, nv.Name = schemaField(v.Name)
	nv.Columns = append([]string(nil), v.Columns...)
	if err := writeView(w, db, &nv); err != nil {
		return nil, err
	}
	n := c.clone()
	n.cloneDB(db).Views[nv.Key()] = &nv
	return n, nil
}

// SetViewComment replaces a view's COMMENT ON text; 42P01 if there is no
// such view.
func (c *Catalog) SetViewComment(w kv.Writer, db, name, comment string) (*Catalog, error) {
	v, err := c.View(db, name)
	if err != nil {
		return nil, err
	}
	nv := *v
	nv.Columns = append([]string(nil), v.Columns...)
	nv.Comment = comment
	if err := writeView(w, db, &nv); err != nil {
		return nil, err
	}
	n := c.clone()
	n.cloneDB(db).Views[name] = &nv
	return n, nil
}

// SetViewDefault sets (def "" drops) the default of view column col;
// 42P01 if there is no such view.
func (c *Catalog) SetViewDefault(w kv.Writer, db, name, col, def string) (*Catalog, error) {
	v, err := c.View(db, name)
	if err != nil {
		return nil, err
	}
	nv := *v
	nv.Defaults = maps.Clone(v.Defaults)
	if def == "" {
		delete(nv.Defaults, col)
	} else {
		if nv.Defaults == nil {
			nv.Defaults = map[string]string{}
		}
		nv.Defaults[col] = def
	}
	if err := writeView(w, db, &nv); err != nil {
		return nil, err
	}
	n := c.clone()
	n.cloneDB(db).Views[name] = &nv
	return n, nil
}

// DropView removes a view; 42P01 if it does not exist.
func (c *Catalog) DropView(w kv.Writer, db, name string) (*Catalog, error) {
	if _, err := c.View(db, name); err != nil {
		return nil, err
	}
	if err := w.Delete(viewKeyOf(db, name)); err != nil {
		return nil, err
	}
	n := c.clone()
	delete(n.cloneDB(db).Views, name)
	return n, nil
}

// SetStats records ANALYZE's statistics for a table under their own meta
// key, so the table descriptor is not rewritten.
func (c *Catalog) SetStats(w kv.Writer, s Stats) (*Catalog, error) {
	if c.TableByID(s.TableID) == nil {
		return nil, pgerror.Newf(pgerror.UndefinedTable, "no table with id %d", s.TableID)
	}
	ns := s
	ns.Distinct = make(map[uint32]int64, len(s.Distinct))
	for k, v := range s.Distinct {
		ns.Distinct[k] = v
	}
	if err := writeStats(w, &ns); err != nil {
		return nil, err
	}
	n := c.clone()
	n.stats[s.TableID] = &ns
	return n, nil
}

// Trigger finds the trigger called name in db and the table it is on;
// 42704 if there is none.
func (c *Catalog) Trigger(db, name string) (*Table, *Trigger, error) {
	d, err := c.Database(db)
	if err != nil {
		return nil, nil, err
	}
	for _, t := range d.Tables {
		for _, tr := range t.Triggers {
			if tr.Name == name {
				return t, tr, nil
			}
		}
	}
	return nil, nil, pgerror.Newf(pgerror.UndefinedObject, "trigger %q does not exist", name)
}

// CreateTrigger adds tr to table, after the table's other triggers.
// Trigger names are unique in a database. Errors: 42P01, 42710, 42703
// (an UPDATE OF column the table lacks), 22023 (timing or event).
func (c *Catalog) CreateTrigger(w kv.Writer, db, table string, tr Trigger) (*Catalog, error) {
	t, err := c.Table(db, table)
	if err != nil {
		return nil, err
	}
	if err := CheckForeignDDL(t, "CREATE TRIGGER"); err != nil {
		return nil, err
	}
	if _, _, err := c.Trigger(db, tr.Name); err == nil {
		return nil, pgerror.Newf(pgerror.DuplicateObject, "trigger %q already exists", tr.Name)
	}
	switch {
	case tr.Timing != "before" && tr.Timing != "after":
		return nil, pgerror.Newf(pgerror.InvalidParameterValue, "trigger %q: unknown timing %q", tr.Name, tr.Timing)
	case tr.Event != "insert" && tr.Event != "update" && tr.Event != "delete":
		return nil, pgerror.Newf(pgerror.InvalidParameterValue, "trigger %q: unknown event %q", tr.Name, tr.Event)
	case len(tr.Columns) > 0 && tr.Event != "update":
		return nil, pgerror.Newf(pgerror.InvalidParameterValue, "trigger %q: only an UPDATE trigger names columns", tr.Name)
	}
	for _, col := range tr.Columns {
		if t.ColumnOrdinal(col) < 0 {
			return nil, pgerror.Newf(pgerror.UndefinedColumn, "column %q of relation %q does not exist", col, t.Name)
		}
	}
	nt := cloneTable(t)
	nt.Triggers = append(nt.Triggers, &tr)
	if err := writeTable(w, nt); err != nil {
		return nil, err
	}
	n := c.clone()
	n.cloneDB(db).Tables[nt.Key()] = nt
	return n, nil
}

// DropTrigger removes the trigger called name; 42704 if there is none.
func (c *Catalog) DropTrigger(w kv.Writer, db, name string) (*Catalog, error) {
	t, tr, err := c.Trigger(db, name)
	if err != nil {
		return nil, err
	}
	nt := cloneTable(t)
	nt.Triggers = nt.Triggers[:0]
	for _, x := range t.Triggers {
		if x != tr {
			nt.Triggers = append(nt.Triggers, x)
		}
	}
	if err := writeTable(w, nt); err != nil {
		return nil, err
	}
	n := c.clone()
	n.cloneDB(db).Tables[nt.Key()] = nt
	return n, nil
}

// DropForeignKey removes the foreign key fk from table name (DROP TABLE
// ... CASCADE of the table it references).
func (c *Catalog) DropForeignKey(w kv.Writer, db, name string, fk ForeignKey) (*Catalog, error) {
	t, err := c.Table(db, name)
	if err != nil {
		return nil, err
	}
	nt := cloneTable(t)
	nt.ForeignKeys = nt.ForeignKeys[:0]
	for _, x := range t.ForeignKeys {
		if x.Name != fk.Name || x.RefTable != fk.RefTable || !slices.Equal(x.Columns, fk.Columns) {
			nt.ForeignKeys = append(nt.ForeignKeys, x)
		}
	}
	if err := writeTable(w, nt); err != nil {
		return nil, err
	}
	n := c.clone()
	n.cloneDB(db).Tables[nt.Key()] = nt
	return n, nil
}

// ElementsIndexable reports whether a column of type t can have an
// element index: an array (its elements) or jsonb (its leaves).
func ElementsIndexable(t types.T) bool { return t.IsArray() || t.Family == types.JSONB }

// ForeignKeyName is fk's name: the one it was given (foreign keys made
// since names were chosen at creation, NameForeignKey, all have one),
// else PostgreSQL's table_columns_fkey cut to fit (ObjectName).
func ForeignKeyName(t *Table, fk ForeignKey) string {
	if fk.Name != "" {
		return fk.Name
	}
	return ObjectName(t.Name, NameAddition(fk.Columns), "fkey")
}

// NameForeignKey gives fk, about to be added to t, the name PostgreSQL
// would choose when it has none: table_columns_fkey cut to fit, numbered
// (fkey1, fkey2, ...) past the names of t's constraints, so that two
// unnamed foreign keys over the same columns differ and a later RENAME
// of the table leaves the name as it was.
func (t *Table) NameForeignKey(fk *ForeignKey) {
	if fk.Name != "" {
		return
	}
	fk.Name = ChooseName(t.Name, NameAddition(fk.Columns), "fkey", t.HasConstraint)
}

// HasConstraint reports whether t has a constraint called name: its
// primary key, a UNIQUE constraint, a CHECK or a foreign key (a plain
// index is no constraint).
func (t *Table) HasConstraint(name string) bool {
	if t.PrimaryKeyName == name && len(t.PrimaryKey) > 0 {
		return true
	}
	for _, idx := range t.Indexes {
		if idx.Constraint && idx.Name == name {
			return true
		}
	}
	for _, ch := range t.Checks {
		if ch.Name == name {
			return true
		}
	}
	for _, fk := range t.ForeignKeys {
		if ForeignKeyName(t, fk) == name {
			return true
		}
	}
	return false
}

// dropGeneratedColumns removes from nt the hidden generated columns that
// dropped index idx kept (its expressions and predicate) and no remaining
// index uses, remapping the ordinals of the primary key and the other
// indexes. Rows keep the old values, which readers skip (values are keyed
// by column ID).
func dropGeneratedColumns(nt *Table, idx *Index) {
	drop := append([]int(nil), idx.Columns...)
	if o := nt.ColumnOrdinal(idx.Predicate); idx.Predicate != "" && o >= 0 {
		drop = append(drop, o)
	}
	gone := map[int]bool{}
	for _, o := range drop {
		if nt.Columns[o].Generated == "" || usedByIndex(nt, o) {
			continue
		}
		gone[o] = true
	}
	if len(gone) == 0 {
		return
	}
	to := make([]int, len(nt.Columns))
	var cols []Column
	for i, c := range nt.Columns {
		to[i] = len(cols)
		if !gone[i] {
			cols = append(cols, c)
		}
	}
	nt.Columns = cols
	for k, o := range nt.PrimaryKey {
		nt.PrimaryKey[k] = to[o]
	}
	for k, x := range nt.Indexes {
		nx := *x
		nx.Columns = make([]int, len(x.Columns))
		for j, o := range x.Columns {
			nx.Columns[j] = to[o]
		}
		nt.Indexes[k] = &nx
	}
}

// usedByIndex reports whether column ordinal o is a key column or the
// predicate of one of t's indexes.
func usedByIndex(t *Table, o int) bool {
	for _, x := range t.Indexes {
		if containsInt(x.Columns, o) || x.Predicate == t.Columns[o].Name {
			return true
		}
	}
	return false
}
