package catalog

import (
	"sort"
	"strings"
)

// Change is what one transaction's DDL did to the catalog, as far as
// other transactions running beside it care (session's commit
// validation): which tables it touched, which names it took, and
// whether it changed something every statement of a database may
// depend on.
type Change struct {
	// Tables are the tables whose definition the change created, altered
	// or dropped (in their old and new versions), with their families:
	// the tables their foreign keys reference, and every table of their
	// partition or inheritance trees. A transaction that wrote or read
	// one of them under the old definition conflicts with the change.
	Tables []*Table
	// Names are the names the change's new or altered objects hold, one
	// string per namespace entry (relations with indexes and types,
	// routines by input signature, schemas, roles): two transactions that
	// both take one would otherwise both commit it.
	Names []string
	// Broad marks a change that no object list describes: a database
	// created or dropped, or a type or domain that existed altered or
	// dropped (tables' columns name types by their spelling).
	Broad bool
}

// Empty reports whether the change touches nothing another transaction
// can depend on (ANALYZE's statistics, for one).
func (ch *Change) Empty() bool { return len(ch.Tables) == 0 && len(ch.Names) == 0 && !ch.Broad }

// Diff returns the change that turned before into after, after being
// derived from before by DDL. Catalogs are copy-on-write: an object
// whose pointer is the same in both is unchanged, so the work is in
// proportion to the databases the DDL touched.
func Diff(before, after *Catalog) Change {
	var ch Change
	for name, d := range after.dbs {
		old := before.dbs[name]
		if old == nil {
			ch.Broad = true
			continue
		}
		if old != d {
			ch.diffDB(old, d)
		}
	}
	for name := range before.dbs {
		if after.dbs[name] == nil {
			ch.Broad = true
		}
	}
	for name, r := range after.roles {
		if before.roles[name] != r {
			ch.Names = append(ch.Names, "role\x00"+name)
		}
	}
	sort.Strings(ch.Names)
	return ch
}

// diffDB adds what turned old into d, two versions of one database.
func (ch *Change) diffDB(old, d *Database) {
	prefix := d.Name + "\x00"
	rel := func(key string) string { return prefix + "rel\x00" + key }
	var changed []*Table
	for key, t := range d.Tables {
		if o := old.Tables[key]; o != t {
			changed = append(changed, t)
			if o != nil {
				changed = append(changed, o)
			}
			ch.Names = append(ch.Names, rel(key))
			for _, idx := range t.Indexes {
				ch.Names = append(ch.Names, rel(RelKey(t.Schema, idx.Name)))
			}
		}
	}
	for key, o := range old.Tables {
		if d.Tables[key] == nil {
			changed = append(changed, o)
		}
	}
	for key, v := range d.Views {
		if old.Views[key] != v {
			ch.Names = append(ch.Names, rel(key))
		}
	}
	for key, s := range d.Sequences {
		if old.Sequences[key] != s {
			ch.Names = append(ch.Names, rel(key))
		}
	}
	for key, u := range d.Types {
		if o := old.Types[key]; o != u {
			ch.Names = append(ch.Names, rel(key))
			if o != nil {
				ch.Broad = true
			}
		}
	}
	for key := range old.Types {
		if d.Types[key] == nil {
			ch.Broad = true
		}
	}
	for id, f := range d.Functions {
		if old.Functions[id] != f {
			var sig strings.Builder
			sig.WriteString(prefix + "routine\x00" + f.Name + "(")
			for i, a := range f.InputArgs() {
				if i > 0 {
					sig.WriteByte(',')
				}
				sig.WriteString(a.Type)
			}
			sig.WriteByte(')')
			ch.Names = append(ch.Names, sig.String())
		}
	}
	for key, s := range d.Schemas {
		if old.Schemas[key] != s {
			ch.Names = append(ch.Names, prefix+"schema\x00"+key)
		}
	}
	ch.Tables = append(ch.Tables, families(changed, old, d)...)
}

// families returns tables with the tables their foreign keys reference
// and every member of their partition and inheritance trees, looked up
// in both versions of the database, each version once.
func families(tables []*Table, dbs ...*Database) []*Table {
	if len(tables) == 0 {
		return nil
	}
	seen := map[*Table]bool{}
	var out []*Table
	add := func(t *Table) {
		if t != nil && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	// children maps a parent's key to the tables that are its partitions
	// or inherit from it, in either version.
	children := map[string][]*Table{}
	for _, d := range dbs {
		for _, t := range d.Tables {
			if t.PartitionOf != "" {
				children[t.PartitionOf] = append(children[t.PartitionOf], t)
			}
			for _, p := range t.Inherits {
				children[p] = append(children[p], t)
			}
		}
	}
	lookup := func(key string) {
		for _, d := range dbs {
			add(d.Tables[key])
		}
	}
	changed := map[*Table]bool{}
	for _, t := range tables {
		changed[t] = true
		add(t)
	}
	// out grows while it is walked: every member's relatives join.
	for i := 0; i < len(out); i++ {
		t := out[i]
		if changed[t] {
			for _, fk := range t.ForeignKeys {
				lookup(fk.RefTable)
			}
		}
		if t.PartitionOf != "" {
			lookup(t.PartitionOf)
		}
		for _, p := range t.Inherits {
			lookup(p)
		}
		for _, c := range children[t.Key()] {
			add(c)
		}
	}
	return out
}
