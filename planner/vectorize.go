package planner

import (
	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/types"
)

// DefaultVectorMinRows is the estimated table size from which a plan's
// scans, filters, aggregations and hash joins run in batches when
// Planner.VectorMinRows is zero: below it, a batch's buffers cost more
// than the rows they carry.
const DefaultVectorMinRows = 1000

// ParallelMinRows is the estimated table size from which a batch scan
// reads its key range with parallel goroutines
// (PostgreSQL's min_parallel_table_scan_size of 8MB is some 100,000 rows
// of a narrow table). A negative Planner.VectorMinRows makes every such
// scan parallel (tests).
const ParallelMinRows = 100_000

// The vectorize rule marks the subtrees package exec runs a batch of rows
// at a time over typed column vectors (exec/vec*.go): a forward full
// master scan (its filter included), an index-only range scan of a
// unique or key+id index (forward or reverse, its filter included), a Filter, a Project of columns, an
// inner hash join on equality keys, and a hash or scalar aggregation of
// count, sum, avg, min and max. A node is marked (Vectorized) only when
// every expression and type in its subtree has a batch form:
//
//   - column types: bool, smallint, integer, bigint, real, double
//     precision, date, timestamp[tz], time, text, varchar, bytea and
//     numeric (numeric is carried, compared and summed, not grouped);
//   - predicates: comparisons (= <> < <= > >=) of two columns of one
//     kind, or of a column with a literal, parameter or cast of one;
//     AND, OR, NOT, IS [NOT] NULL, boolean columns. Only a cast can
//     fail, and AND and OR evaluate each argument only for the rows the
//     row filter would evaluate it for, so errors match;
//   - aggregates: count(*), count(col), sum(col) and avg(col) of
//     integers and numerics, min(col) and max(col) of integers, floats, text and
//     bytea; no DISTINCT, ORDER BY or FILTER; group keys are integer,
//     bool, date/time, text or bytea columns.
//
// A subtree runs in batches only under a root that gains from it: an
// aggregation, a hash join, or a scan or Filter with a predicate, or
// under a Sort or TopN, which reads the batches of a subtree of scans,
// filters and projections itself; and only when one of its scans reads
// at least the threshold of estimated rows (a full scan: the table's
// rows; an index scan: the rows its range yields). An index-only scan is
// a root by itself. Everything else keeps the
// row operators.
func (b *binder) vectorize(n Node) {
	if !b.enabled("vectorize") {
		return
	}
	min := b.p.VectorMinRows
	if min == 0 {
		min = DefaultVectorMinRows
	}
	v := &vectorizer{min: min, rows: b.tableRows}
	v.walk(n)
}

type vectorizer struct {
	min  float64
	rows func(t *catalog.Table) float64 // a table's estimated rows
	// locking: the walk is under a LockRows (FOR UPDATE/SHARE), whose
	// index scans keep the row path.
	locking bool
}

// walk marks the worthwhile batch subtrees of n and of the plans of the
// subqueries in its expressions.
func (v *vectorizer) walk(n Node) {
	if _, ok := n.(*LockRows); ok && !v.locking {
		v.locking = true
		defer func() { v.locking = false }()
	}
	if v.root(n) && v.rootBatchable(n) && v.bigEnough(n) {
		// Batches of an unordered parallel scan arrive in any order: fine
		// for an aggregation, unless it keeps the first of equal values
		// that print differently (min/max of floats: -0 and 0).
		a, agg := n.(*Aggregate)
		v.mark(n, agg && !floatMinMax(a))
		return
	}
	if in := sortInput(n); in != nil && v.sortBatchable(in) && v.bigEnough(in) {
		// A sort or top-N reads its input's batches itself
		// (exec/sortvec.go). It numbers each row by its part of the key
		// range and its place in that part, which is the serial scan's
		// order, so ties keep that order even when the parts' batches
		// arrive interleaved from an unordered parallel scan.
		v.mark(in, true)
	} else {
		for _, c := range n.Children() {
			v.walk(c)
		}
	}
	for _, sq := range subqueries(n) {
		v.walk(sq.Plan)
	}
}

// sortInput returns the input of a Sort or TopN, else nil.
func sortInput(n Node) Node {
	switch n := n.(type) {
	case *Sort:
		return n.Input
	case *TopN:
		return n.Input
	}
	return nil
}

// sortBatchable reports whether a sort's input is a batch subtree whose
// batches carry their part of the key range: scans, filters and
// projections only (a hash join's batches do not).
func (v *vectorizer) sortBatchable(n Node) bool {
	switch n := n.(type) {
	case *Scan:
		return v.batchable(n)
	case *Filter:
		return v.sortBatchable(n.Input) && v.batchable(n)
	case *Project:
		return v.sortBatchable(n.Input) && v.batchable(n)
	}
	return false
}

// BatchSortInput reports whether the Sort or TopN n reads its input
// batch by batch: the input runs in batches and produces them (a batch
// aggregation produces rows).
func BatchSortInput(n Node) bool {
	in := sortInput(n)
	if _, agg := in.(*Aggregate); agg {
		return false
	}
	return in != nil && IsVectorized(in)
}

// root reports whether n gains from running in batches at the top of a
// batch subtree.
func (v *vectorizer) root(n Node) bool {
	switch n := n.(type) {
	case *Aggregate:
		return true
	case *Join:
		return true
	case *Scan:
		// An index-only scan gains without a filter too: its entries
		// decode straight into vectors, and the wire lends the rows.
		return n.Filter != nil || VecIndexScan(n)
	case *Filter:
		return true
	}
	return false
}

// VecIndexScan reports whether a scan's access path has a batch form
// reading an index (exec/vecindex.go): an index-only range scan of a
// unique or key+id index, or a lookup read in parallel parts
// (exec/veclookup.go) — the master rows of one value of a key+id index
// over an integer primary key (indexSplits), or of the search values of
// an inverted-list index read forward (its folded list is cut by
// position). Other index scans that read master rows keep the row path,
// whose batches of master reads sort the keys and split them over two
// goroutines (exec/scanbatch.go).
func VecIndexScan(n *Scan) bool {
	if n.Index == nil || n.Index.Elements || n.Foreign != nil || n.Memo != nil {
		return false // an array's element index holds elements, not the column's value
	}
	switch n.Access {
	case InvertedGet:
		return !n.IndexOnly && !n.Reverse
	case IndexRange:
		return n.Index.Form != catalog.FormInverted && (n.IndexOnly || indexSplits(n))
	}
	return false
}

// spansPlain reports whether a scan's span bounds read neither an
// enclosing query's row nor a subquery: a correlated subquery's scan is
// rebuilt per enclosing row and stays a row scan.
func spansPlain(n *Scan) bool {
	for _, sp := range n.Spans {
		for _, e := range append(append([]Expr(nil), sp.Lo...), sp.Hi...) {
			if e != nil && (readsOuter(e) || hasSubquery(e)) {
				return false
			}
		}
	}
	return true
}

// indexSplits reports whether an index-only scan's range has the shape
// a parallel index scan cuts into parts (exec/vecindexpar.go): one span
// fixing every indexed column of a key+id index by equalities, read
// forward, over a primary key that starts with an ascending integer
// column. (exec checks the evaluated span again: an equality whose value
// becomes a range of keys, see index.KeyRange, is read serially.)
func indexSplits(n *Scan) bool {
	t, idx := n.Table, n.Index
	if len(n.Spans) != 1 || n.Reverse || idx.Form != catalog.FormKeyID || len(t.PrimaryKey) == 0 ||
		(len(t.PrimaryKeyDesc) > 0 && t.PrimaryKeyDesc[0]) || t.Columns[t.PrimaryKey[0]].Type.Kind() != types.KindInt {
		return false
	}
	sp := n.Spans[0]
	if sp.LoExcl || sp.HiExcl || len(sp.Lo) != len(idx.Columns) || len(sp.Hi) != len(idx.Columns) {
		return false
	}
	for i := range sp.Lo {
		if sp.Lo[i] == nil || sp.Lo[i] != sp.Hi[i] {
			return false
		}
	}
	return true
}

// parallelIndexScans turns parallel index-only scans on outside tests
// (a negative VectorMinRows makes every splittable one parallel). Off:
// in the bench's covering 10% lookup on the loaded 2-core test machine
// (load average 11-15) the parallel scan took 236 ms against
// PostgreSQL's 169, the serial batch scan 89 ms against 158; in
// BenchmarkVecIndexScan it cost twice the CPU of the serial one (fresh
// vectors for every queued batch, hand-offs) and was not faster.
const parallelIndexScans = false

// IndexParallelMinRows is the estimated rows from which a batch index
// scan reads its range with parallel goroutines (exec/vecindexpar.go):
// PostgreSQL plans a parallel index-only scan for an index range of
// this size (min_parallel_index_scan_size is 512kB, some 10,000 short
// entries).
const IndexParallelMinRows = 10_000

// scanRows is the estimated size that decides whether a scan runs in
// batches and in parallel: the table's rows for a full scan, the rows
// the range yields for an index scan.
func (v *vectorizer) scanRows(s *Scan) float64 {
	if VecIndexScan(s) {
		return s.Rows
	}
	return v.rows(s.Table)
}

// bigEnough reports whether a scan under n reads at least v.min rows.
func (v *vectorizer) bigEnough(n Node) bool {
	if s, ok := n.(*Scan); ok {
		return v.min < 0 || v.scanRows(s) >= v.min
	}
	for _, c := range n.Children() {
		if v.bigEnough(c) {
			return true
		}
	}
	return false
}

// rootBatchable is batchable for the root of a batch subtree: an
// aggregation consumes batches but produces rows, so it can only be a
// root.
func (v *vectorizer) rootBatchable(n Node) bool {
	a, ok := n.(*Aggregate)
	if !ok {
		return v.batchable(n)
	}
	if a.Strategy != HashAgg && a.Strategy != ScalarAgg {
		return false
	}
	for _, e := range a.GroupBy {
		if c, ok := e.(*ColRef); !ok || c.Outer != 0 || !vecKeyType(c.T) {
			return false
		}
	}
	for _, call := range a.Aggs {
		if !vecAgg(call) {
			return false
		}
	}
	return v.batchable(a.Input)
}

// batchable reports whether n and everything under it has a batch form
// producing batches.
func (v *vectorizer) batchable(n Node) bool {
	switch n := n.(type) {
	case *Scan:
		if VecIndexScan(n) {
			if v.locking || !spansPlain(n) {
				return false
			}
			for i, c := range n.Table.Columns {
				if (n.Needed == nil || containsInt(n.Needed, i)) && !vecType(c.Type) {
					return false
				}
			}
			return n.Filter == nil || vecPredicate(n.Filter, n.Cols)
		}
		if n.Access != FullScan || n.Reverse || n.Foreign != nil || n.Memo != nil {
			return false
		}
		for i, c := range n.Table.Columns {
			if (n.Needed == nil || containsInt(n.Needed, i) || containsInt(n.Table.PrimaryKey, i)) && !vecType(c.Type) {
				return false
			}
		}
		return n.Filter == nil || vecPredicate(n.Filter, n.Cols)
	case *Filter:
		return !n.OneTime && v.batchable(n.Input) && vecPredicate(n.Pred, n.Input.Columns())
	case *Project:
		for _, e := range n.Exprs {
			if c, ok := e.(*ColRef); !ok || c.Outer != 0 || !vecType(c.T) {
				return false
			}
		}
		return v.batchable(n.Input)
	case *Join:
		if n.Type != InnerJoin || n.Algo != HashJoin || len(n.LeftKeys) == 0 || len(n.LeftKeys) != len(n.RightKeys) {
			return false
		}
		if n.On != nil {
			return false // the batch join evaluates no residual condition
		}
		for i := range n.LeftKeys {
			l, lok := n.LeftKeys[i].(*ColRef)
			r, rok := n.RightKeys[i].(*ColRef)
			if !lok || !rok || l.Outer != 0 || r.Outer != 0 || !vecKeyType(l.T) || l.T.Kind() != r.T.Kind() {
				return false
			}
		}
		return v.batchable(n.Left) && v.batchable(n.Right)
	}
	return false
}

// mark sets Vectorized on n and on the batch subtree under it; unordered
// says nothing above needs the scans' key order (an aggregation).
func (v *vectorizer) mark(n Node, unordered bool) {
	switch n := n.(type) {
	case *Scan:
		n.Vectorized = true
		n.Parallel = v.min < 0 || v.rows(n.Table) >= ParallelMinRows
		if VecIndexScan(n) {
			// A lookup is batched only to run in parallel: its master
			// reads, a seek each, are most of its time.
			n.Parallel = !n.IndexOnly || (v.min < 0 || parallelIndexScans && n.Rows >= IndexParallelMinRows) && indexSplits(n)
		}
		n.Unordered = unordered
	case *Filter:
		n.Vectorized = true
	case *Project:
		n.Vectorized = true
	case *Join:
		n.Vectorized = true
	case *Aggregate:
		n.Vectorized = true
	}
	for _, c := range n.Children() {
		v.mark(c, unordered)
	}
}

// vecType reports whether the batch engine carries values of type t.
func vecType(t types.T) bool {
	switch t.Family {
	case types.Bool, types.Int2, types.Int4, types.Int8, types.Float4, types.Float8,
		types.Date, types.Timestamp, types.TimestampTZ, types.Time,
		types.Text, types.Varchar, types.Bytea, types.Numeric:
		return true
	}
	return false
}

// vecKeyType reports whether the batch engine hashes and groups values of
// type t: equal values have equal bytes or integers.
func vecKeyType(t types.T) bool {
	return vecType(t) && t.Family != types.Numeric && t.Kind() != types.KindFloat
}

// vecPredicate reports whether e, over rows of the given columns, has a
// batch form.
func vecPredicate(e Expr, cols []Column) bool {
	colType := func(x Expr) (types.T, bool) {
		c, ok := x.(*ColRef)
		if !ok || c.Outer != 0 || c.Index >= len(cols) || !vecType(c.T) {
			return types.T{}, false
		}
		return c.T, true
	}
	// A scalar is one value per statement: a literal, a parameter, or a
	// cast of one ($1::integer, as drivers send them). A cast that fails
	// fails where the row filter would evaluate it (exec/vecfilter.go).
	scalar := func(x Expr) bool {
		if c, ok := x.(*Cast); ok && c.Domain == nil {
			x = c.X
		}
		switch x.(type) {
		case *Const, *Param:
			return true
		}
		return false
	}
	switch e := e.(type) {
	case *And:
		for _, a := range e.Args {
			if !vecPredicate(a, cols) {
				return false
			}
		}
		return true
	case *Or:
		for _, a := range e.Args {
			if !vecPredicate(a, cols) {
				return false
			}
		}
		return true
	case *UnaryOp:
		return e.Op == "NOT" && vecPredicate(e.X, cols)
	case *IsNull:
		_, ok := colType(e.X)
		return ok
	case *ColRef:
		t, ok := colType(e)
		return ok && t.Family == types.Bool
	case *Const:
		return e.Value.IsNull() || e.Value.Kind == types.KindBool
	case *BinOp:
		switch e.Op {
		case "=", "<>", "!=", "<", "<=", ">", ">=":
		default:
			return false
		}
		lt, lok := colType(e.L)
		rt, rok := colType(e.R)
		switch {
		case lok && rok:
			return lt.Kind() == rt.Kind()
		case lok && scalar(e.R):
			return lt.Kind() == e.R.Type().Kind()
		case rok && scalar(e.L):
			return rt.Kind() == e.L.Type().Kind()
		}
	}
	return false
}

// vecAgg reports whether an aggregate call has a batch form.
func vecAgg(a AggCall) bool {
	if a.Distinct || len(a.OrderBy) > 0 || a.Filtered || a.User != nil {
		return false
	}
	if a.Func == "count_star" {
		return len(a.Args) == 0
	}
	if len(a.Args) != 1 {
		return false
	}
	c, ok := a.Args[0].(*ColRef)
	if !ok || c.Outer != 0 || !vecType(c.T) {
		return false
	}
	switch a.Func {
	case "count":
		return true
	case "sum", "avg":
		return c.T.Kind() == types.KindInt && c.T.Family != types.Bool || c.T.Family == types.Numeric
	case "min", "max":
		return c.T.Family != types.Numeric && c.T.Family != types.Bool
	}
	return false
}

func containsInt(s []int, x int) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// IsVectorized reports whether the vectorize rule marked n.
func IsVectorized(n Node) bool {
	switch n := n.(type) {
	case *Scan:
		return n.Vectorized
	case *Filter:
		return n.Vectorized
	case *Project:
		return n.Vectorized
	case *Join:
		return n.Vectorized
	case *Aggregate:
		return n.Vectorized
	}
	return false
}

// floatMinMax reports whether a computes min or max of a float column.
func floatMinMax(a *Aggregate) bool {
	for _, c := range a.Aggs {
		if (c.Func == "min" || c.Func == "max") && len(c.Args) == 1 && c.Args[0].Type().Kind() == types.KindFloat {
			return true
		}
	}
	return false
}
