package planner

import (
	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// PartitionRoute sends each row written into a partitioned table to the
// partition whose bound takes it (exec/partition.go).
type PartitionRoute struct {
	Table   *catalog.Table
	Keys    []Expr // the partition key over Table's full-width row
	Targets []PartitionTarget
}

// PartitionTarget is one partition of a route: a row for it is mapped
// onto its columns by Map (the Table ordinal of each of its columns, -1
// for a column the parent lacks), then routed again by Sub when it is
// partitioned itself, or written by Leaf (the leaf's constraints; no
// Input).
type PartitionTarget struct {
	Bound *catalog.PartitionBound
	Map   []int
	Sub   *PartitionRoute
	Leaf  *Insert
}

// BoundCheck is a partition's constraint over its own rows: Keys (over
// the partition's full-width row) must fall in Bound, or, for the
// default partition, in none of Others (its siblings' bounds).
type BoundCheck struct {
	Keys   []Expr
	Bound  *catalog.PartitionBound
	Others []*catalog.PartitionBound
}

// partitionRoute plans the routing of rows written into t.
func (b *binder) partitionRoute(t *catalog.Table) (*PartitionRoute, error) {
	keys, err := b.partitionKeys(t.PartitionBy, t)
	if err != nil {
		return nil, err
	}
	r := &PartitionRoute{Table: t, Keys: keys}
	for _, p := range b.p.Catalog.Children(b.p.DB, t.Key()) {
		tg := PartitionTarget{Bound: p.Bound}
		for _, c := range p.Columns {
			o := t.ColumnOrdinal(c.Name)
			if c.Hidden {
				o = -1 // a hidden row id comes from the partition's own counter
			}
			tg.Map = append(tg.Map, o)
		}
		if p.Partitioned() {
			if tg.Sub, err = b.partitionRoute(p); err != nil {
				return nil, err
			}
		} else {
			tg.Leaf = &Insert{Table: p}
			if tg.Leaf.Checks, tg.Leaf.FKs, tg.Leaf.Referenced, err = b.constraints(p); err != nil {
				return nil, err
			}
		}
		r.Targets = append(r.Targets, tg)
	}
	return r, nil
}

// partitionKeys binds a partition key over table t's rows (t is the
// partitioned table or one of its partitions, which share its column
// names).
func (b *binder) partitionKeys(spec *catalog.PartitionSpec, t *catalog.Table) ([]Expr, error) {
	var out []Expr
	for i, k := range spec.Keys {
		if spec.KeyColumns[i] {
			o := t.ColumnOrdinal(k)
			if o < 0 {
				return nil, pgerror.Newf(pgerror.UndefinedColumn, "column %q named in partition key does not exist", k)
			}
			out = append(out, &ColRef{Index: o, T: t.Columns[o].Type, Name: k})
			continue
		}
		x, err := keyExprOf(b, t, k)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

// keyExprOf binds a partition key expression over t's columns.
func keyExprOf(b *binder, t *catalog.Table, expr string) (Expr, error) {
	return b.rowExpr(t, expr, "partition key expressions") // generated.go
}

// PartitionKeyType binds a partition key expression over t and returns
// its type (CREATE TABLE ... PARTITION BY records it).
func (p *Planner) PartitionKeyType(t *catalog.Table, expr string) (types.T, error) {
	x, err := keyExprOf(&binder{p: p}, t, expr)
	if err != nil {
		return types.T{}, err
	}
	return x.Type(), nil
}

// boundChecks returns the partition constraints of t: one per level of
// its partition tree, t's bound in its parent's, its parent's in the
// grandparent's, and so on.
func (b *binder) boundChecks(t *catalog.Table) ([]BoundCheck, error) {
	var out []BoundCheck
	for p := t; p.PartitionOf != "" && p.Bound != nil; {
		parent, err := b.p.Catalog.Table(b.p.DB, p.PartitionOf)
		if err != nil || parent.PartitionBy == nil {
			return out, nil
		}
		keys, err := b.partitionKeys(parent.PartitionBy, t)
		if err != nil {
			return nil, err
		}
		bc := BoundCheck{Keys: keys, Bound: p.Bound}
		if p.Bound.Default {
			for _, sib := range b.p.Catalog.Children(b.p.DB, parent.Key()) {
				if sib.Key() != p.Key() && sib.Bound != nil {
					bc.Others = append(bc.Others, sib.Bound)
				}
			}
		}
		out = append(out, bc)
		p = parent
	}
	return out, nil
}

// fkParts fills r.Parts when r's referenced table is partitioned: for
// each leaf partition, its key with the referenced columns, which every
// partition has (PostgreSQL requires the partition key in a partitioned
// table's unique keys, and each partition holds its own).
func (b *binder) fkParts(r *FKRef) error {
	if !r.Parent.Partitioned() {
		return nil
	}
	names := make([]string, len(r.ParentCols))
	for i, o := range r.ParentCols {
		names[i] = r.Parent.Columns[o].Name
	}
	for _, m := range b.p.Catalog.Descendants(b.p.DB, r.Parent.Key()) {
		if m.Partitioned() {
			continue
		}
		part, ok := keyNamed(m, names)
		if !ok {
			return pgerror.Newf(pgerror.InvalidForeignKey, "there is no unique constraint matching given keys for referenced table %q", m.Name)
		}
		r.Parts = append(r.Parts, part)
	}
	return nil
}

// keyNamed finds t's primary key or unique index over exactly the
// columns names, in that order.
func keyNamed(t *catalog.Table, names []string) (FKPart, bool) {
	same := func(cols []int) bool {
		if len(cols) != len(names) {
			return false
		}
		for i, o := range cols {
			if t.Columns[o].Name != names[i] {
				return false
			}
		}
		return true
	}
	if !t.HiddenRowID && same(t.PrimaryKey) {
		return FKPart{Table: t}, true
	}
	for _, idx := range t.Indexes {
		if idx.Unique && same(idx.Columns) {
			return FKPart{Table: t, Index: idx}, true
		}
	}
	return FKPart{}, false
}

// ancestors returns the names of the partitioned tables above t.
func (b *binder) ancestors(t *catalog.Table) map[string]bool {
	out := map[string]bool{}
	for p := t; p.PartitionOf != "" && !out[p.PartitionOf]; {
		out[p.PartitionOf] = true
		parent, err := b.p.Catalog.Table(b.p.DB, p.PartitionOf)
		if err != nil {
			break
		}
		p = parent
	}
	return out
}

// fkOnPartition restates a foreign key referencing a partitioned table
// as referencing its partition t, whose rows a write of t changes: the
// referenced columns become t's, by name.
func fkOnPartition(r FKRef, t *catalog.Table) FKRef {
	cols := make([]int, len(r.ParentCols))
	for i, o := range r.ParentCols {
		cols[i] = t.ColumnOrdinal(r.Parent.Columns[o].Name)
	}
	r.Parent, r.ParentCols, r.ParentIndex, r.Parts = t, cols, nil, nil
	return r
}
