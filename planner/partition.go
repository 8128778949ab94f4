package planner

import (
	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"vitess.io/vitess/go/vt/sqlparser"
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
	for _, p := range b.p.Catalog.Children(b.p.DB, t.Name) {
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
	st, err := parse.ParseOne("SELECT (" + expr + ")")
	if err != nil {
		return nil, err
	}
	sel, ok := st.AST.(*sqlparser.Select)
	if !ok || len(sel.SelectExprs.Exprs) != 1 {
		return nil, pgerror.New(pgerror.SyntaxError, "syntax error in partition key")
	}
	ae, ok := sel.SelectExprs.Exprs[0].(*sqlparser.AliasedExpr)
	if !ok {
		return nil, pgerror.New(pgerror.SyntaxError, "syntax error in partition key")
	}
	s := tableScope(t, t.Name)
	s.aggContext = "partition key expressions"
	return b.expr(ae.Expr, s)
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
			for _, sib := range b.p.Catalog.Children(b.p.DB, parent.Name) {
				if sib.Name != p.Name && sib.Bound != nil {
					bc.Others = append(bc.Others, sib.Bound)
				}
			}
		}
		out = append(out, bc)
		p = parent
	}
	return out, nil
}
