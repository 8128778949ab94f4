package exec

import (
	"strings"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// partitionKey evaluates a partition key over row.
func partitionKey(env *eval.Env, keys []planner.Expr, row []types.Datum) ([]types.Datum, error) {
	out := make([]types.Datum, len(keys))
	for i, k := range keys {
		d, err := eval.Eval(env, k, row)
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	return out, nil
}

// BoundAdmits reports whether a row with partition key key belongs in
// a partition bounded by b; others are its siblings' bounds, which a
// default partition's row must all fail; ts are the key's types.
func BoundAdmits(b *catalog.PartitionBound, others []*catalog.PartitionBound, key []types.Datum, ts []types.T) bool {
	h := partitionHash(key, ts)
	if !b.Default {
		return b.Contains(key, h)
	}
	for _, o := range others {
		if o.Contains(key, h) {
			return false
		}
	}
	return true
}

// route finds the leaf partition of r that takes row (a full-width row
// of r.Table) and returns it with row mapped onto the leaf's columns.
// No partition is 23514, as in PostgreSQL.
func route(env *eval.Env, r *planner.PartitionRoute, row []types.Datum) (*planner.PartitionTarget, []types.Datum, error) {
	key, err := partitionKey(env, r.Keys, row)
	if err != nil {
		return nil, nil, err
	}
	h := partitionHash(key, r.Table.PartitionBy.KeyTypes)
	var pick *planner.PartitionTarget
	for i := range r.Targets {
		tg := &r.Targets[i]
		if tg.Bound.Default {
			if pick == nil {
				pick = tg
			}
			continue
		}
		if tg.Bound.Contains(key, h) {
			pick = tg
			break
		}
	}
	if pick == nil {
		e := pgerror.Newf(pgerror.CheckViolation, "no partition of relation %q found for row", r.Table.Name)
		e.Detail = "Partition key of the failing row contains (" + strings.Join(r.Table.PartitionBy.Keys, ", ") + ") = (" + formatKey(key, r.Table.PartitionBy.KeyTypes) + ")."
		e.Schema, e.Table = "public", r.Table.Name
		return nil, nil, e
	}
	mapped := make([]types.Datum, len(pick.Map))
	for i, o := range pick.Map {
		if o >= 0 {
			mapped[i] = row[o]
		}
	}
	if pick.Sub != nil {
		return route(env, pick.Sub, mapped)
	}
	return pick, mapped, nil
}

func formatKey(key []types.Datum, ts []types.T) string {
	vals := make([]string, len(key))
	for i, d := range key {
		if d.IsNull() {
			vals[i] = "null"
		} else {
			vals[i] = eval.FormatText(d, ts[i])
		}
	}
	return strings.Join(vals, ", ")
}

// checkBounds refuses a row written straight into a partition that its
// bound (at any level of the tree) does not take: 23514.
func checkBounds(env *eval.Env, t *catalog.Table, checks []planner.BoundCheck, row []types.Datum) error {
	for _, bc := range checks {
		key, err := partitionKey(env, bc.Keys, row)
		if err != nil {
			return err
		}
		ts := make([]types.T, len(bc.Keys))
		for i, k := range bc.Keys {
			ts[i] = k.Type()
		}
		if BoundAdmits(bc.Bound, bc.Others, key, ts) {
			continue
		}
		e := pgerror.Newf(pgerror.CheckViolation, "new row for relation %q violates partition constraint", t.Name)
		e.Detail = "Failing row contains (" + formatRow(t, row) + ")."
		e.Schema, e.Table = "public", t.Name
		return e
	}
	return nil
}

// formatRow prints a row's visible values as a DETAIL shows them.
func formatRow(t *catalog.Table, row []types.Datum) string {
	vals := make([]string, 0, len(row))
	for i, v := range row {
		if t.Columns[i].Hidden {
			continue
		}
		switch {
		case v.IsNull():
			vals = append(vals, "null")
		case v.Kind == types.KindBool && v.Bool():
			vals = append(vals, "t") // the output function's, not the cast's "true"
		case v.Kind == types.KindBool:
			vals = append(vals, "f")
		default:
			vals = append(vals, eval.Clip(eval.FormatText(v, t.Columns[i].Type), valueShown))
		}
	}
	return strings.Join(vals, ", ")
}

// valueShown is the most bytes of a value a "Failing row contains"
// detail shows, as PostgreSQL's ExecBuildValueDescription.
const valueShown = 64

// routedInsert writes a row inserted into a partitioned table into its
// leaf partition, through one insertOp per leaf, and returns the row as
// the partitioned table's (for RETURNING).
func (o *insertOp) routedInsert(in []types.Datum) ([]types.Datum, error) {
	t := o.table
	row := append([]types.Datum(nil), in...)
	if err := coerceRow(o.rs, t, row, true, true); err != nil {
		return nil, err
	}
	// A partitioned table that is a partition itself has a bound too.
	if err := checkBounds(o.env, t, o.node.Bounds, row); err != nil {
		return nil, err
	}
	tg, mapped, err := route(o.env, o.node.Route, row)
	if err != nil {
		return nil, err
	}
	leaf := o.leaves[tg.Leaf.Table.ID]
	if leaf == nil {
		leaf = &insertOp{node: tg.Leaf, dmlBase: dmlBase{rs: o.rs, env: o.env, table: tg.Leaf.Table, t: ticker{rs: o.rs}}}
		if o.leaves == nil {
			o.leaves = map[uint64]*insertOp{}
		}
		o.leaves[tg.Leaf.Table.ID] = leaf
	}
	written, err := leaf.insert(mapped)
	if written == nil || err != nil {
		return nil, err
	}
	for i, c := range t.Columns {
		if o := tg.Leaf.Table.ColumnOrdinal(c.Name); o >= 0 {
			row[i] = written[o]
		}
	}
	o.oid = int64(tg.Leaf.Table.ID) // RETURNING tableoid
	return row, nil
}

// treeWriteOp runs the UPDATEs or DELETEs of a TreeWrite in turn.
type treeWriteOp struct {
	writes   []DMLOperator
	i        int
	affected int64
}

var _ DMLOperator = (*treeWriteOp)(nil)

func newTreeWrite(rs *runState, env *eval.Env, n *planner.TreeWrite) (Operator, error) {
	tw := &treeWriteOp{}
	for _, w := range n.Writes {
		op, err := rs.build(env, w)
		if err != nil {
			_ = tw.Close()
			return nil, err
		}
		d, ok := op.(DMLOperator)
		if !ok {
			_ = op.Close()
			_ = tw.Close()
			return nil, pgerror.New(pgerror.Internal, "exec: a tree write's member is not a write")
		}
		tw.writes = append(tw.writes, d)
	}
	return tw, nil
}

func (t *treeWriteOp) Next() ([]types.Datum, error) {
	for t.i < len(t.writes) {
		row, err := t.writes[t.i].Next()
		if row != nil || err != nil {
			return row, err
		}
		t.affected += t.writes[t.i].RowsAffected()
		t.i++
	}
	return nil, nil
}

func (t *treeWriteOp) RowsAffected() int64 { return t.affected }

func (t *treeWriteOp) Close() error {
	ops := make([]Operator, len(t.writes))
	for i, w := range t.writes {
		ops[i] = w
	}
	return closeAll(ops...)
}

// moveRow moves an updated row whose new partition key its partition
// does not take: it is deleted there and inserted through the
// partitioned table the UPDATE named, which routes it.
func (o *updateOp) moveRow(old []types.Datum) ([]types.Datum, error) {
	if err := index.Delete(o.rs.ctx.RW, o.table, old); err != nil {
		return nil, err
	}
	root := o.node.Move.Table
	row := make([]types.Datum, len(root.Columns))
	for i, c := range root.Columns {
		if k := o.table.ColumnOrdinal(c.Name); k >= 0 && !c.Hidden {
			row[i] = o.newRow[k]
		}
	}
	if o.mover == nil {
		o.mover = &insertOp{node: o.node.Move, dmlBase: dmlBase{rs: o.rs, env: o.env, table: root, t: ticker{rs: o.rs}}}
	}
	if _, err := o.mover.routedInsert(row); err != nil {
		return nil, err
	}
	o.oid = o.mover.oid // RETURNING tableoid: where the row went
	return o.newRow, nil
}
