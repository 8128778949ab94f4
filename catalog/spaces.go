package catalog

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/kvsql/kvsql/encoding"
)

// Space names a key space: the catalog's own (MetaSpace), a table's
// master file or one of its index files. Damage reports (kvsql check, a
// read that meets a damaged block) use it to say what a key range holds.
type Space struct {
	ID uint64
	// DB and Table are the table's database and table; nil Table for
	// the meta space or a space no table owns (a dropped one).
	DB    string
	Table *Table
	// Index is nil for a master file.
	Index *Index
}

// String says what the space holds: `table "t"`, `index "t_v" of table
// "t"`, `the catalog`.
func (s Space) String() string {
	switch {
	case s.ID == MetaSpace:
		return "the catalog"
	case s.Table == nil:
		return fmt.Sprintf("key space %d (no table)", s.ID)
	case s.Index != nil:
		return fmt.Sprintf("index %q of table %q", s.Index.Name, s.Table.Name)
	}
	return fmt.Sprintf("table %q", s.Table.Name)
}

// Rebuildable reports whether the space's contents can be rebuilt from
// other spaces: an index, from its table's master file.
func (s Space) Rebuildable() bool { return s.Index != nil }

// SpaceOf returns the space key belongs to (by its leading key-space id).
func (c *Catalog) SpaceOf(key []byte) (Space, bool) {
	_, id, err := encoding.DecodeUvarintAsc(key)
	if err != nil {
		return Space{}, false
	}
	return c.space(id), true
}

func (c *Catalog) space(id uint64) Space {
	for _, name := range c.Databases() {
		for _, t := range c.dbs[name].Tables {
			if t.ID == id {
				return Space{ID: id, DB: name, Table: t}
			}
			for _, idx := range t.Indexes {
				if idx.ID == id {
					return Space{ID: id, DB: name, Table: t, Index: idx}
				}
			}
		}
	}
	return Space{ID: id}
}

// SpacesIn returns the spaces that have keys in [lo, hi] (both
// inclusive; nil is unbounded), in key order: the meta space and every
// table's and index's space the range touches. Spaces between that no
// table owns are left out.
func (c *Catalog) SpacesIn(lo, hi []byte) []Space {
	var ids []uint64
	ids = append(ids, MetaSpace)
	for _, name := range c.Databases() {
		for _, t := range c.dbs[name].Tables {
			ids = append(ids, t.ID)
			for _, idx := range t.Indexes {
				ids = append(ids, idx.ID)
			}
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	var out []Space
	for _, id := range ids {
		start := SpacePrefix(id)
		end := encoding.PrefixEnd(start)
		if hi != nil && bytes.Compare(start, hi) > 0 {
			continue
		}
		if lo != nil && bytes.Compare(end, lo) <= 0 {
			continue
		}
		out = append(out, c.space(id))
	}
	return out
}
