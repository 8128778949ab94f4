package planner

import "github.com/kvsql/kvsql/types"

// minMaxAggregate plans a query over one table, without GROUP BY, whose
// aggregates are all min or max of a column, as PostgreSQL's MinMaxAgg
// does (rule minmax_index): each aggregate becomes an uncorrelated
// subquery reading the first non-NULL value of its column in key order,
// forwards for min and backwards for max, through the primary key or an
// index whose order (after the columns the WHERE fixes by equality) is
// that column's. It returns nil when the query does not qualify or some
// aggregate has no such key order; the caller then aggregates as usual.
// The node produces the one row an Aggregate would: the results in call
// order, named by cols.
func (b *binder) minMaxAggregate(from *fromResult, conjuncts []Expr, calls []AggCall, cols []Column) Node {
	if !b.enabled("minmax_index") || len(calls) == 0 || len(from.rels) != 1 {
		return nil
	}
	rel := from.rels[0]
	if rel.table == nil || rel.outer != nil || rel.table.Foreign != nil {
		return nil
	}
	for _, c := range conjuncts {
		if hasSubquery(c) || readsOuter(c) {
			return nil
		}
	}
	proj := &Project{Input: &Values{Rows: [][]Expr{{}}}, Cols: cols}
	for _, call := range calls {
		if call.Func != "min" && call.Func != "max" || call.Distinct || len(call.OrderBy) > 0 || len(call.Args) != 1 {
			return nil
		}
		ref, ok := call.Args[0].(*ColRef)
		if !ok || ref.Outer != 0 || call.T != ref.T {
			return nil
		}
		plan := b.firstInKeyOrder(rel, conjuncts, ref, call.Func == "max")
		if plan == nil {
			return nil
		}
		proj.Exprs = append(proj.Exprs, &Subquery{Kind: SubScalar, Plan: plan, T: call.T})
	}
	return proj
}

// firstInKeyOrder returns a plan of the first non-NULL value of column
// ref of rel's table, in ascending (or descending) order, among the rows
// that pass filters, read in key order; nil if no key has that order.
func (b *binder) firstInKeyOrder(rel *relation, filters []Expr, ref *ColRef, desc bool) Node {
	t := rel.table
	filters = append(append([]Expr{}, filters...), &IsNull{X: ref, Not: true})
	preds := keyPreds(t, filters)
	needed := map[int]bool{ref.Index: true}
	keys := []SortKey{{Expr: ref, Desc: desc, NullsFirst: desc}}
	total := b.tableRows(t)
	candidates := []accessCandidate{{access: FullScan, keyCols: t.PrimaryKey, desc: t.PrimaryKeyDesc}}
	if c, ok := b.keyAccess(t, nil, t.PrimaryKey, t.PrimaryKeyDesc, preds, total); ok {
		candidates = append(candidates, c)
	}
	for _, idx := range t.Indexes {
		if idx.Predicate != "" && !b.implies(t, filters, idx) {
			continue // a partial index lacks the rows its predicate rejects
		}
		if c, ok := b.keyAccess(t, idx, idx.Columns, idx.Desc, preds, total); ok {
			c.indexOnly = b.enabled("index_only") && covers(t, idx, needed) && covers(t, idx, filterCols(filters))
			candidates = append(candidates, c)
		}
	}
	for i := len(candidates) - 1; i >= 0; i-- {
		c := candidates[i]
		// A scan that orders but reads past rows the WHERE rejects is
		// only taken when the WHERE has nothing but the column's own
		// IS NOT NULL to reject: it then stops at its first row.
		if len(filters) > 1 && c.eqPrefix == 0 {
			continue
		}
		sc := &Scan{Table: t, Alias: rel.alias, Cols: rel.cols, Access: c.access, Index: c.index, Spans: c.spans,
			IndexOnly: c.indexOnly, Filter: andOf(filters), Rows: 1}
		sc.Needed = scanNeeded(t, needed, sc.Filter)
		if !scanOrders(sc, []int{ref.Index}, keys) {
			continue
		}
		out := &Project{Input: sc, Exprs: []Expr{ref}, Cols: []Column{{Name: ref.Name, T: ref.T}}}
		return &Limit{Input: out, Count: &Const{Value: types.NewInt(1), T: tInt8}}
	}
	return nil
}

// filterCols returns the columns filters read.
func filterCols(filters []Expr) map[int]bool {
	cols := map[int]bool{}
	for _, f := range filters {
		colRefs(f, cols)
	}
	return cols
}
