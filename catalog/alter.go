package catalog

import (
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
)

// AlterTable applies change to a copy of table name and writes it: the
// ALTER TABLE forms that touch one table's descriptor and no data (SET
// and DROP DEFAULT, SET and DROP NOT NULL). Errors: 42P01, and change's.
func (c *Catalog) AlterTable(w kv.Writer, db, name string, change func(*Table) error) (*Catalog, error) {
	t, err := c.Table(db, name)
	if err != nil {
		return nil, err
	}
	if err := CheckForeignDDL(t, "ALTER TABLE"); err != nil {
		return nil, err
	}
	nt := cloneTable(t)
	if err := change(nt); err != nil {
		return nil, err
	}
	if err := writeTable(w, nt); err != nil {
		return nil, err
	}
	n := c.clone()
	n.cloneDB(db).Tables[nt.Key()] = nt
	return n, nil
}

// RenameTable renames a table; the foreign keys of the tables that
// reference it, and its partitions and inheritance children, follow.
// Its indexes keep their names, as in PostgreSQL. Errors: 42P01, 42P07.
func (c *Catalog) RenameTable(w kv.Writer, db, old, name string) (*Catalog, error) {
	d, err := c.Database(db)
	if err != nil {
		return nil, err
	}
	t, err := c.Table(db, old)
	if err != nil {
		return nil, err
	}
	if err := c.relationExists(d, name); err != nil {
		return nil, err
	}
	nt := cloneTable(t)
	nt.Schema, nt.Name = schemaField(name)
	if err := w.Delete(tableKeyOf(db, old)); err != nil {
		return nil, err
	}
	n := c.clone()
	nd := n.cloneDB(db)
	delete(nd.Tables, old)
	nd.Tables[name] = nt
	for _, other := range nd.Tables {
		if other.ID == nt.ID {
			other = nt
		}
		changed := false
		for i, fk := range other.ForeignKeys {
			if fk.RefTable == old {
				if !changed && other != nt {
					other = cloneTable(other)
					nd.Tables[other.Key()] = other
				}
				other.ForeignKeys[i].RefTable = name
				changed = true
			}
		}
		if other.PartitionOf == old || containsString(other.Inherits, old) {
			// A partition or inheritance child follows its parent's name.
			if !changed && other != nt {
				other = cloneTable(other)
				nd.Tables[other.Name] = other
			}
			if other.PartitionOf == old {
				other.PartitionOf = name
			}
			inherits := make([]string, len(other.Inherits))
			for i, p := range other.Inherits {
				inherits[i] = p
				if p == old {
					inherits[i] = name
				}
			}
			other.Inherits = inherits
			changed = true
		}
		if changed && other != nt {
			if err := writeTable(w, other); err != nil {
				return nil, err
			}
		}
	}
	if err := writeTable(w, nt); err != nil {
		return nil, err
	}
	return n, nil
}

// RenameColumn renames column old of table to name: the table's foreign
// keys and those referencing the column follow, and rewrite turns each
// CHECK and generated column expression's text into its text under the
// new name (the catalog parses no SQL). Errors: 42P01, 42703, 42701.
func (c *Catalog) RenameColumn(w kv.Writer, db, table, old, name string, rewrite func(expr string) (string, error)) (*Catalog, error) {
	t, err := c.Table(db, table)
	if err != nil {
		return nil, err
	}
	if err := CheckForeignDDL(t, "ALTER TABLE"); err != nil {
		return nil, err
	}
	i := t.ColumnOrdinal(old)
	if i < 0 || t.Columns[i].Hidden {
		return nil, pgerror.Newf(pgerror.UndefinedColumn, "column %q does not exist", old)
	}
	if t.ColumnOrdinal(name) >= 0 {
		return nil, pgerror.Newf(pgerror.DuplicateColumn, "column %q of relation %q already exists", name, table)
	}
	nt := cloneTable(t)
	nt.Columns[i].Name = name
	for k := range nt.Checks {
		e, err := rewrite(nt.Checks[k].Expr)
		if err != nil {
			return nil, err
		}
		nt.Checks[k].Expr = e
	}
	for k, col := range nt.Columns {
		if col.Generated == "" {
			continue
		}
		e, err := rewrite(col.Generated)
		if err != nil {
			return nil, err
		}
		nt.Columns[k].Generated = e
	}
	renamed := func(cols []string) []string {
		out := append([]string(nil), cols...)
		for j, c := range out {
			if c == old {
				out[j] = name
			}
		}
		return out
	}
	for k, fk := range nt.ForeignKeys {
		nt.ForeignKeys[k].Columns = renamed(fk.Columns)
		if fk.RefTable == table {
			nt.ForeignKeys[k].RefColumns = renamed(fk.RefColumns)
		}
	}
	n := c.clone()
	nd := n.cloneDB(db)
	nd.Tables[table] = nt
	for _, other := range nd.Tables {
		if other == nt {
			continue
		}
		var changed *Table
		for k, fk := range other.ForeignKeys {
			if fk.RefTable == table && containsString(fk.RefColumns, old) {
				if changed == nil {
					changed = cloneTable(other)
				}
				changed.ForeignKeys[k].RefColumns = renamed(fk.RefColumns)
			}
		}
		if changed != nil {
			nd.Tables[changed.Key()] = changed
			if err := writeTable(w, changed); err != nil {
				return nil, err
			}
		}
	}
	if err := writeTable(w, nt); err != nil {
		return nil, err
	}
	return n, nil
}

// DropColumn removes a column that is not in the primary key, with the
// indexes that include it (their data too), its table's foreign keys on
// it and the checks dropChecks names; rows keep the column's old values,
// which readers skip (values are keyed by column ID). The caller makes
// sure nothing outside the table depends on the column. Errors: 42P01,
// 42703, 0A000 for a primary-key column.
func (c *Catalog) DropColumn(w kv.Writer, db, table, col string, dropChecks []string) (*Catalog, error) {
	t, err := c.Table(db, table)
	if err != nil {
		return nil, err
	}
	if err := CheckForeignDDL(t, "ALTER TABLE"); err != nil {
		return nil, err
	}
	i := t.ColumnOrdinal(col)
	if i < 0 || t.Columns[i].Hidden {
		return nil, pgerror.Newf(pgerror.UndefinedColumn, "column %q of relation %q does not exist", col, table)
	}
	if containsInt(t.PrimaryKey, i) {
		return nil, pgerror.Newf(pgerror.FeatureNotSupported, "dropping primary key column %q is not supported (the table's keys would change)", col)
	}
	if containsInt(t.PrimaryKeyInclude, i) {
		return nil, pgerror.Newf(pgerror.FeatureNotSupported, "dropping column %q, which the primary key includes, is not supported (the table's keys would change)", col)
	}
	nt := cloneTable(t)
	nt.Columns = append(nt.Columns[:i:i], nt.Columns[i+1:]...)
	shift := func(o int) int {
		if o > i {
			return o - 1
		}
		return o
	}
	for k, o := range nt.PrimaryKey {
		nt.PrimaryKey[k] = shift(o)
	}
	for k, o := range nt.PrimaryKeyInclude {
		nt.PrimaryKeyInclude[k] = shift(o)
	}
	nt.Indexes = nil
	for _, idx := range t.Indexes {
		if containsInt(idx.Columns, i) || containsInt(idx.Include, i) {
			if err := deleteSpace(w, idx.ID); err != nil {
				return nil, err
			}
			continue
		}
		ni := *idx
		ni.Columns = make([]int, len(idx.Columns))
		for k, o := range idx.Columns {
			ni.Columns[k] = shift(o)
		}
		if idx.Include != nil {
			ni.Include = make([]int, len(idx.Include))
			for k, o := range idx.Include {
				ni.Include[k] = shift(o)
			}
		}
		nt.Indexes = append(nt.Indexes, &ni)
	}
	nt.ForeignKeys = nil
	for _, fk := range t.ForeignKeys {
		if !containsString(fk.Columns, col) {
			nt.ForeignKeys = append(nt.ForeignKeys, fk)
		}
	}
	nt.Checks = nil
	for _, ch := range t.Checks {
		if !containsString(dropChecks, ch.Name) {
			nt.Checks = append(nt.Checks, ch)
		}
	}
	if err := writeTable(w, nt); err != nil {
		return nil, err
	}
	n := c.clone()
	n.cloneDB(db).Tables[table] = nt
	return n, nil
}

func containsString(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
