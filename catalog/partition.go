package catalog

import (
	"bytes"
	"sort"

	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// Partitioning and inheritance are catalog metadata over ordinary
// tables: a partition, or a child in an inheritance tree, is a table
// with its own key spaces; its descriptor names its parent(s). A
// partitioned table (PartitionBy set, PostgreSQL's relkind 'p') keeps a
// key space like any table but never holds a row: writes through it are
// routed to its partitions and reads append theirs.

// PartitionSpec is a partitioned table's PARTITION BY clause.
type PartitionSpec struct {
	Strategy string `json:"strategy"` // "range", "list" or "hash"
	// Keys are the partition key's columns or expressions, as SQL text
	// over the table's columns (the catalog parses no SQL).
	Keys []string `json:"keys"`
	// KeyTypes are the keys' types: bound values are stored cast to
	// them.
	KeyTypes []types.T `json:"keyTypes"`
	// KeyColumns[i] is true when Keys[i] is a plain column name.
	KeyColumns []bool `json:"keyColumns"`
}

// RangeDatum is one value of a range bound: Value, or MINVALUE (Inf -1)
// or MAXVALUE (Inf 1).
type RangeDatum struct {
	Value types.Datum `json:"value"`
	Inf   int8        `json:"inf,omitempty"`
}

// PartitionBound is a partition's FOR VALUES clause, its values cast to
// the parent's key types.
type PartitionBound struct {
	Default bool          `json:"default,omitempty"`
	In      []types.Datum `json:"in,omitempty"` // LIST: one value per entry
	// RANGE: rows with From <= key < To.
	From []RangeDatum `json:"from,omitempty"`
	To   []RangeDatum `json:"to,omitempty"`
	// HASH: rows whose key hashes to Remainder modulo Modulus.
	Modulus   int `json:"modulus,omitempty"`
	Remainder int `json:"remainder,omitempty"`
	// Text is the bound as pg_get_expr(relpartbound) prints it.
	Text string `json:"text"`
}

// Partitioned reports whether t is a partitioned table.
func (t *Table) Partitioned() bool { return t.PartitionBy != nil }

// Children returns the tables that are partitions of, or inherit from,
// table name: partitions in their bounds' order (the default last), as
// PostgreSQL scans them; inheritance children in creation order.
func (c *Catalog) Children(db, name string) []*Table {
	d, err := c.Database(db)
	if err != nil {
		return nil
	}
	var out []*Table
	for _, t := range d.Tables {
		if t.PartitionOf == name || containsString(t.Inherits, name) {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Bound, out[j].Bound
		if a != nil && b != nil {
			if c := compareBounds(a, b); c != 0 {
				return c < 0
			}
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// Descendants returns every table below name in its partition or
// inheritance tree, depth first, each once (with multiple inheritance a
// table may be reached by several paths).
func (c *Catalog) Descendants(db, name string) []*Table {
	var out []*Table
	seen := map[string]bool{}
	var walk func(string)
	walk = func(name string) {
		for _, ch := range c.Children(db, name) {
			if !seen[ch.Key()] {
				seen[ch.Key()] = true
				out = append(out, ch)
				walk(ch.Key())
			}
		}
	}
	walk(name)
	return out
}

// compareBounds orders two bounds of one parent: the default last, list
// bounds by their smallest value, range bounds by their lower end, hash
// bounds by modulus then remainder.
func compareBounds(a, b *PartitionBound) int {
	switch {
	case a.Default || b.Default:
		return boolOrder(a.Default) - boolOrder(b.Default)
	case len(a.From) > 0 && len(b.From) > 0:
		return compareRange(a.From, b.From)
	case len(a.In) > 0 && len(b.In) > 0:
		return CompareKey(minDatum(a.In), minDatum(b.In))
	case a.Modulus != b.Modulus:
		return a.Modulus - b.Modulus
	}
	return a.Remainder - b.Remainder
}

func boolOrder(b bool) int {
	if b {
		return 1
	}
	return 0
}

// minDatum is the smallest value of a list bound (NULL sorts last).
func minDatum(vals []types.Datum) types.Datum {
	m := vals[0]
	for _, v := range vals[1:] {
		if CompareKey(v, m) < 0 {
			m = v
		}
	}
	return m
}

// CompareKey compares two values of one key type in their key order
// (encoding's, which sorts NULL last as PostgreSQL's partitions do).
func CompareKey(a, b types.Datum) int {
	if a.IsNull() || b.IsNull() {
		return boolOrder(a.IsNull()) - boolOrder(b.IsNull())
	}
	return bytes.Compare(encoding.EncodeKeyDatum(nil, a, encoding.Ascending), encoding.EncodeKeyDatum(nil, b, encoding.Ascending))
}

// compareRange compares two range bounds column by column; MINVALUE and
// MAXVALUE sort below and above every value.
func compareRange(a, b []RangeDatum) int {
	for i := range a {
		if i >= len(b) {
			break
		}
		if a[i].Inf != 0 || b[i].Inf != 0 {
			if a[i].Inf != b[i].Inf {
				return int(a[i].Inf) - int(b[i].Inf)
			}
			return 0 // PostgreSQL ignores what follows MINVALUE/MAXVALUE
		}
		if c := CompareKey(a[i].Value, b[i].Value); c != 0 {
			return c
		}
	}
	return 0
}

// compareRangeKey compares a row's key with a range bound.
func compareRangeKey(key []types.Datum, b []RangeDatum) int {
	for i := range b {
		if b[i].Inf != 0 {
			return -int(b[i].Inf)
		}
		if c := CompareKey(key[i], b[i].Value); c != 0 {
			return c
		}
	}
	return 0
}

// Contains reports whether a row whose partition key is key (cast to the
// key types) belongs in a partition with bound b (the default partition
// aside: it takes what no other takes). hash is the key's partition hash
// (hash strategy only).
func (b *PartitionBound) Contains(key []types.Datum, hash uint64) bool {
	switch {
	case b.Default:
		return false
	case b.Modulus > 0:
		return int(hash%uint64(b.Modulus)) == b.Remainder
	case len(b.From) > 0:
		for _, k := range key {
			if k.IsNull() {
				return false // a range partition takes no NULL key
			}
		}
		return compareRangeKey(key, b.From) >= 0 && compareRangeKey(key, b.To) < 0
	}
	for _, v := range b.In {
		if v.IsNull() && key[0].IsNull() || !v.IsNull() && !key[0].IsNull() && CompareKey(v, key[0]) == 0 {
			return true
		}
	}
	return false
}

// Overlaps reports whether two bounds of one parent can take the same
// row: the partition they would share is 42P17.
func (b *PartitionBound) Overlaps(o *PartitionBound) bool {
	switch {
	case b.Default || o.Default:
		return b.Default && o.Default
	case b.Modulus > 0 && o.Modulus > 0:
		small, big := b, o
		if small.Modulus > big.Modulus {
			small, big = big, small
		}
		return big.Remainder%small.Modulus == small.Remainder
	case len(b.From) > 0 && len(o.From) > 0:
		return compareRange(b.From, o.To) < 0 && compareRange(o.From, b.To) < 0
	}
	for _, v := range b.In {
		for _, w := range o.In {
			if v.IsNull() && w.IsNull() || !v.IsNull() && !w.IsNull() && CompareKey(v, w) == 0 {
				return true
			}
		}
	}
	return false
}

// CheckNewBound refuses a bound for a new partition named name of parent
// that another partition's bound overlaps (42P17), as PostgreSQL's
// check_new_partition_bound does.
func (c *Catalog) CheckNewBound(db string, parent *Table, name string, b *PartitionBound) error {
	for _, ch := range c.Children(db, parent.Key()) {
		if ch.Bound == nil || ch.Name == name {
			continue
		}
		if b.Default && ch.Bound.Default {
			return pgerror.Newf(pgerror.InvalidObjectDefinition, "partition %q conflicts with existing default partition %q", name, ch.Name)
		}
		if b.Modulus > 0 && ch.Bound.Modulus > 0 {
			small, big := b.Modulus, ch.Bound.Modulus
			if small > big {
				small, big = big, small
			}
			if big%small != 0 {
				e := pgerror.New(pgerror.InvalidObjectDefinition, "every hash partition modulus must be a factor of the next larger modulus")
				return e
			}
		}
		if b.Overlaps(ch.Bound) {
			return pgerror.Newf(pgerror.InvalidObjectDefinition, "partition %q would overlap partition %q", name, ch.Name)
		}
	}
	return nil
}
