package planner

import (
	"math"
	"sort"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/pgerror"
)

// joinTree plans the relations of a flattened FROM clause with the
// conjuncts that apply to them: each conjunct is pushed to the lowest
// place it can run (a scan's filter or access path, a join's keys or
// condition), and relations are joined greedily, smallest estimate first,
// always through an equality when one connects the next relation. The
// result produces rows in FROM order (f.cols). needed lists the columns
// the query reads (nil: all), for index-only scans.
func (b *binder) joinTree(f *fromResult, conjuncts []Expr, needed map[int]bool, s *scope) (Node, error) {
	for _, c := range conjuncts {
		if alwaysFalse(c) && b.enabled("constant_folding") {
			return &Values{Cols: f.cols}, nil
		}
	}
	if len(f.rels) == 0 {
		n := Node(&Values{Rows: [][]Expr{{}}})
		if len(conjuncts) > 0 {
			n = &Filter{Input: n, Pred: andOf(conjuncts)}
		}
		return n, nil
	}
	conjuncts = joinSharedSubqueries(conjuncts)
	hasLateral := false
	for _, r := range f.rels {
		hasLateral = hasLateral || r.lateral
	}
	if hasLateral {
		// A LATERAL subquery reads the columns before it through its
		// own plan: keep them all, and keep FROM order.
		needed = nil
	}
	owner := make([]int, len(f.cols)) // column → relation
	for i, r := range f.rels {
		for j := range r.cols {
			owner[r.offset+j] = i
		}
	}
	relsOf := func(e Expr) map[int]bool {
		cols := map[int]bool{}
		colRefs(e, cols)
		out := map[int]bool{}
		for c := range cols {
			out[owner[c]] = true
		}
		return out
	}

	if needed != nil {
		// Columns read only inside correlated subqueries must survive
		// pruning too.
		deep := map[int]bool{}
		for c := range needed {
			deep[c] = true
		}
		for _, c := range conjuncts {
			if hasCorrelatedSubquery(c) {
				colRefsDeep(c, deep)
			}
		}
		needed = deep
	}

	// Classify conjuncts.
	local := make([][]Expr, len(f.rels)) // per relation, in its own layout
	var multi []Expr                     // over several relations (FROM layout)
	var post []Expr                      // after all joins (FROM layout)
	var gate []Expr                      // judged once, before any row is read
	// Conjuncts with correlated subqueries run where every relation whose
	// columns they (or their subqueries) read has been joined, as
	// PostgreSQL places them: over one relation, on top of its scan.
	type deferred struct {
		c   Expr
		rel map[int]bool
	}
	var corrMulti []deferred
	corrLocal := make([][]Expr, len(f.rels))
	for _, c := range conjuncts {
		rs := relsOf(c)
		if hasCorrelatedSubquery(c) {
			cols := map[int]bool{}
			colRefsDeep(c, cols)
			rs = map[int]bool{}
			for col := range cols {
				rs[owner[col]] = true
			}
		}
		touchesLateral := false
		for ri := range rs {
			touchesLateral = touchesLateral || f.rels[ri].lateral
		}
		switch {
		case alwaysTrue(c) && b.enabled("constant_folding"):
			// WHERE TRUE, or a view's: nothing to judge.
		case b.enabled("one_time_filter") && len(rs) == 0 && !readsVolatile(c):
			gate = append(gate, c)
		case touchesLateral && (len(rs) < 2 || hasCorrelatedSubquery(c) || !b.enabled("filter_pushdown")):
			// Run above the Apply join, never inside its right side,
			// where enclosing rows sit one level further out. Over
			// several relations (multi, below) it is a join condition
			// of the first ordinary relation joined after them all —
			// never of the Apply itself — so a LATERAL function's
			// column can key a hash or lookup join of a later table.
			post = append(post, c)
		case hasCorrelatedSubquery(c) && b.enabled("filter_pushdown") && len(rs) == 1:
			var ri int
			for ri = range rs {
			}
			r := f.rels[ri]
			moved, err := remapDeep(c, shift(r.offset, len(r.cols)))
			if err != nil {
				return nil, err
			}
			corrLocal[ri] = append(corrLocal[ri], moved)
		case hasCorrelatedSubquery(c) && b.enabled("filter_pushdown") && len(rs) > 1:
			corrMulti = append(corrMulti, deferred{c, rs})
		case hasCorrelatedSubquery(c) || !b.enabled("filter_pushdown"):
			post = append(post, c)
		case len(rs) == 0:
			post = append(post, c)
		case len(rs) == 1:
			var ri int
			for ri = range rs {
			}
			r := f.rels[ri]
			local[ri] = append(local[ri], remap(c, shift(r.offset, len(r.cols))))
		default:
			multi = append(multi, c)
		}
	}

	// Plan each relation with its local filters.
	type planned struct {
		node Node // all of the relation's columns
		rows float64
		rel  *relation
		idx  int
		// keep lists the columns the rest of the query reads (nil: all);
		// pruned produces only those, so joins carry narrower rows.
		keep   []int
		pruned Node
	}
	plans := make([]*planned, len(f.rels))
	for i, r := range f.rels {
		var relNeeded map[int]bool
		if needed != nil {
			relNeeded = map[int]bool{}
			for c := range needed {
				if owner[c] == i {
					relNeeded[c-r.offset] = true
				}
			}
			for _, c := range multi {
				cs := map[int]bool{}
				colRefs(c, cs)
				for col := range cs {
					if owner[col] == i {
						relNeeded[col-r.offset] = true
					}
				}
			}
		}
		var n Node
		var rows float64
		if r.tree != nil {
			ap := b.appendScans(r, local[i], relNeeded)
			n, rows = ap, ap.Rows
		} else if r.table != nil {
			sc := b.chooseScan(r.table, r.alias, r.cols, local[i], relNeeded)
			n, rows = sc, sc.Rows
		} else {
			filters := append(local[i], corrLocal[i]...)
			corrLocal[i] = nil
			n = r.node
			if r.outer != nil {
				var err error
				if n, filters, err = b.planOuter(r.outer, filters); err != nil {
					return nil, err
				}
			}
			if r.outer == nil {
				n, filters = b.pushFilters(n, filters) // pushdown.go
			}
			rows = estimateRows(n)
			if len(filters) > 0 {
				n = &Filter{Input: n, Pred: andOf(filters)}
				rows *= math.Pow(0.3, float64(len(filters)))
			}
		}
		if len(corrLocal[i]) > 0 {
			n = &Filter{Input: n, Pred: andOf(corrLocal[i])}
			rows *= math.Pow(0.3, float64(len(corrLocal[i])))
		}
		plans[i] = &planned{node: n, rows: rows, rel: r, idx: i}
	}

	// Column pruning: above a join, only the columns the query reads
	// travel; the others come back as NULLs in the final FROM-order row,
	// where nothing reads them.
	for _, p := range plans {
		p.pruned = p.node
		if needed == nil || len(plans) < 2 || !b.enabled("column_pruning") {
			continue
		}
		for j := range p.rel.cols {
			if needed[p.rel.offset+j] || colUsedBy(multi, p.rel.offset+j) {
				p.keep = append(p.keep, j)
			}
		}
		if len(p.keep) == len(p.rel.cols) {
			p.keep = nil
			continue
		}
		if len(p.keep) == 0 {
			p.keep = []int{0} // a row must still be a row
		}
		cols := p.node.Columns()
		proj := &Project{Input: p.node}
		for _, j := range p.keep {
			proj.Exprs = append(proj.Exprs, &ColRef{Index: j, T: cols[j].T, Name: qualifiedName(cols[j])})
			proj.Cols = append(proj.Cols, cols[j])
		}
		p.pruned = proj
	}
	// positions maps FROM columns of p to positions in p's output (full
	// or pruned), offset by base.
	positions := func(p *planned, full bool, base int) map[int]int {
		m := map[int]int{}
		if full || p.keep == nil {
			for j := range p.rel.cols {
				m[p.rel.offset+j] = base + j
			}
			return m
		}
		for k, j := range p.keep {
			m[p.rel.offset+j] = base + k
		}
		return m
	}

	// Greedy join ordering.
	order := make([]*planned, len(plans))
	copy(order, plans)
	reorder := b.enabled("join_order") && !hasLateral
	if reorder {
		sort.SliceStable(order, func(i, j int) bool { return order[i].rows < order[j].rows })
	}
	cur := order[0]
	joined := map[int]bool{cur.idx: true}
	layout := map[int]int{} // FROM column → position in the current row
	width := 0
	addLayout := func(p *planned, full bool) {
		for c, pos := range positions(p, full, width) {
			layout[c] = pos
		}
		if full || p.keep == nil {
			width += len(p.rel.cols)
		} else {
			width += len(p.keep)
		}
	}
	addLayout(cur, false)
	node, rows := cur.pruned, cur.rows
	remaining := order[1:]
	pending := multi
	for len(remaining) > 0 {
		// Pick the next relation: connected by an equality if possible,
		// smallest estimate first.
		pick := 0
		if reorder {
			best := math.Inf(1)
			for i, p := range remaining {
				keys := 0
				for _, c := range pending {
					if _, _, ok := equiKey(c, relsOf, joined, p.idx); ok {
						keys++
					}
				}
				cost := p.rows
				if keys == 0 {
					cost = p.rows * rows * 1e6 // a cross product: last resort
				}
				if cost < best {
					best, pick = cost, i
				}
			}
		}
		next := remaining[pick]
		remaining = append(remaining[:pick:pick], remaining[pick+1:]...)
		if next.rel.lateral {
			// The subquery's references to the relations before it
			// move from FROM positions to the joined row's.
			right := next.node
			if err := mapOuterRefs(right, 1, func(c *ColRef) (Expr, error) {
				p, ok := layout[c.Index]
				if !ok {
					return nil, pgerror.Newf(pgerror.Internal, "planner: LATERAL reads column %s, which is not joined before it", c.Name)
				}
				return &ColRef{Index: p, Outer: c.Outer, T: c.T, Name: c.Name}, nil
			}); err != nil {
				return nil, err
			}
			joined[next.idx] = true
			cols := append(append([]Column{}, node.Columns()...), right.Columns()...)
			addLayout(next, true)
			node = &Join{Type: InnerJoin, Algo: Apply, Left: node, Right: right, Cols: cols, Rows: rows * next.rows}
			rows *= next.rows
			continue
		}

		// The conjuncts that become evaluable with next joined.
		var lkeys, rkeys, rkeysFull []Expr
		var on []Expr
		var rest []Expr
		for _, c := range pending {
			if l, r, ok := equiKey(c, relsOf, joined, next.idx); ok && b.enabled("hash_join") {
				lkeys = append(lkeys, remap(l, layout))
				rkeys = append(rkeys, remap(r, positions(next, false, 0)))
				rkeysFull = append(rkeysFull, remap(r, positions(next, true, 0)))
				continue
			}
			rs := relsOf(c)
			ok := true
			for ri := range rs {
				if !joined[ri] && ri != next.idx {
					ok = false
				}
			}
			if ok {
				on = append(on, c)
			} else {
				rest = append(rest, c)
			}
		}
		pending = rest
		joined[next.idx] = true
		est := joinEstimate(rows, next.rows, len(lkeys) > 0)
		// A lookup join produces the table's whole row; the other joins
		// the pruned one.
		leftWidth := width
		full := map[int]int{}
		for c, p := range layout {
			full[c] = p
		}
		for c, p := range positions(next, true, leftWidth) {
			full[c] = p
		}
		var onFull Expr
		if len(on) > 0 {
			onFull = remap(andOf(on), full)
		}
		cols := append(append([]Column{}, node.Columns()...), next.node.Columns()...)
		if lj := b.lookupJoin(node, rows, next.node, next.rel, lkeys, rkeysFull, onFull, cols, est); lj != nil {
			node = lj
			addLayout(next, true)
		} else {
			addLayout(next, false)
			var onExpr Expr
			if len(on) > 0 {
				onExpr = remap(andOf(on), layout)
			}
			cols := append(append([]Column{}, node.Columns()...), next.pruned.Columns()...)
			if len(lkeys) > 0 {
				node = &Join{Type: InnerJoin, Algo: HashJoin, Left: node, Right: next.pruned, LeftKeys: lkeys, RightKeys: rkeys,
					BuildRight: next.rows <= rows, On: onExpr, Cols: cols, Rows: est}
			} else {
				node = &Join{Type: InnerJoin, Algo: NestedLoop, Left: node, Right: next.pruned, On: onExpr, Cols: cols, Rows: est}
			}
		}
		rows = est
		if len(on) > 0 {
			rows *= 0.5
		}
		var waiting []deferred
		for _, d := range corrMulti {
			ready := true
			for ri := range d.rel {
				ready = ready && joined[ri]
			}
			if !ready {
				waiting = append(waiting, d)
				continue
			}
			moved, err := remapDeep(d.c, layout)
			if err != nil {
				return nil, err
			}
			node = &Filter{Input: node, Pred: moved}
			rows *= 0.3
		}
		corrMulti = waiting
	}
	for _, d := range corrMulti {
		post = append(post, d.c) // not reached: every relation is joined by now
	}
	post = append(post, pending...)

	// Restore FROM order; pruned columns come back as NULLs.
	identity := len(layout) == len(f.cols)
	for c, p := range layout {
		if c != p {
			identity = false
			break
		}
	}
	if !identity {
		p := &Project{Input: node, Cols: f.cols}
		for c := range f.cols {
			if pos, ok := layout[c]; ok {
				p.Exprs = append(p.Exprs, &ColRef{Index: pos, T: f.cols[c].T, Name: qualifiedName(f.cols[c])})
			} else {
				p.Exprs = append(p.Exprs, &Const{T: f.cols[c].T})
			}
		}
		node = p
	}
	if len(post) > 0 {
		node = &Filter{Input: node, Pred: andOf(post)}
	}
	if len(gate) > 0 {
		node = &Filter{Input: node, Pred: andOf(gate), OneTime: true}
	}
	return node, nil
}

// joinSharedSubqueries ANDs together the conjuncts that hold the same
// correlated subquery plan (NOT (x NOT BETWEEN a AND b) binds x once and
// compares it twice): a plan reads its outer row by position, so the
// conjuncts must run over the same row, and move together.
func joinSharedSubqueries(conjuncts []Expr) []Expr {
	parent := make([]int, len(conjuncts))
	for i := range parent {
		parent[i] = i
	}
	root := func(i int) int {
		for parent[i] != i {
			i = parent[i]
		}
		return i
	}
	first := map[Node]int{} // plan → a conjunct holding it
	shared := false
	for i, c := range conjuncts {
		walkExpr(c, func(x Expr) bool {
			if sq, ok := x.(*Subquery); ok && sq.Correlated {
				if g, seen := first[sq.Plan]; seen {
					if a, b := root(g), root(i); a != b {
						parent[b] = a
						shared = true
					}
				} else {
					first[sq.Plan] = i
				}
			}
			return true
		})
	}
	if !shared {
		return conjuncts
	}
	members := map[int][]Expr{}
	for i, c := range conjuncts {
		members[root(i)] = append(members[root(i)], c)
	}
	var out []Expr
	for i := range conjuncts {
		if ms, ok := members[i]; ok {
			out = append(out, andOf(ms))
		}
	}
	return out
}

// shift maps FROM-layout columns [offset, offset+n) to 0..n-1.
func shift(offset, n int) map[int]int {
	m := make(map[int]int, n)
	for i := 0; i < n; i++ {
		m[offset+i] = i
	}
	return m
}

// equiKey reports whether c is an equality between an expression over the
// joined relations and one over relation next alone, returning the two
// sides (joined side first).
func equiKey(c Expr, relsOf func(Expr) map[int]bool, joined map[int]bool, next int) (Expr, Expr, bool) {
	eq, ok := c.(*BinOp)
	if !ok || eq.Op != "=" {
		return nil, nil, false
	}
	side := func(e Expr) int { // 1: joined only, 2: next only, 0: neither
		rs := relsOf(e)
		if len(rs) == 0 {
			return 0
		}
		if len(rs) == 1 && rs[next] {
			return 2
		}
		for r := range rs {
			if !joined[r] {
				return 0
			}
		}
		return 1
	}
	l, r := side(eq.L), side(eq.R)
	switch {
	case l == 1 && r == 2:
		return eq.L, eq.R, true
	case l == 2 && r == 1:
		return eq.R, eq.L, true
	}
	return nil, nil, false
}

func joinEstimate(l, r float64, equi bool) float64 {
	if equi {
		return math.Max(l, r)
	}
	return l * r
}

func andOf(cs []Expr) Expr {
	if len(cs) == 1 {
		return cs[0]
	}
	return &And{Args: cs}
}

// estimateRows is a node's estimated output.
func estimateRows(n Node) float64 {
	switch v := n.(type) {
	case *Scan:
		return v.Rows
	case *Join:
		return v.Rows
	case *LookupJoin:
		return v.Rows
	case *Values:
		return float64(len(v.Rows))
	case *TableFunc:
		// PostgreSQL's prorows of unnest and of the json set-returning
		// functions.
		return 100
	case *Append:
		return v.Rows
	case *Filter:
		return estimateRows(v.Input) * 0.3
	case *Aggregate:
		if v.Strategy == ScalarAgg {
			return 1
		}
		return math.Max(1, estimateRows(v.Input)*0.1)
	case *Limit, *TopN:
		return 10
	}
	if cs := n.Children(); len(cs) == 1 {
		return estimateRows(cs[0])
	}
	return 1000
}

// lookupJoin returns an index-lookup join of left with the base table of
// rel when the equality keys fix a prefix of its primary key or of an
// index and the left side is small next to the table; otherwise nil. A
// foreign table's primary key is its key template's fields: the lookup
// is one prefix scan of the template per left row (planner/foreign.go).
func (b *binder) lookupJoin(left Node, leftRows float64, right Node, rel *relation, lkeys, rkeys []Expr, on Expr, cols []Column, est float64) Node {
	sc, ok := right.(*Scan)
	if !ok || rel.table == nil || len(lkeys) == 0 || !b.enabled("lookup_join") {
		return nil
	}
	t := rel.table
	tableRows := b.tableRows(t)
	if leftRows*4 > tableRows {
		return nil // a hash join reads the table once; cheaper
	}
	// Which table column does each right key read? A right key may be
	// the column cast to float8 (an integer column equal to a float, see
	// compareType); the left key is then a float8 probe.
	keyCol := map[int]Expr{}
	keyOf := map[int]int{} // column -> the equality it comes from
	for i, rk := range rkeys {
		col, probe, ok := keyOperand(t, rk, lkeys[i])
		if !ok {
			continue
		}
		if _, dup := keyCol[col]; !dup {
			keyCol[col], keyOf[col] = probe, i
		}
	}
	try := func(idx *catalog.Index, cols []int) []Expr {
		var keys []Expr
		for _, c := range cols {
			k, ok := keyCol[c]
			if !ok {
				break
			}
			if idx != nil && idx.Form == catalog.FormInverted && !index.PointImage(t.Columns[c].Type.Family, k.Type().Family) {
				return nil // an equality that is a range of keys
			}
			keys = append(keys, k)
		}
		return keys
	}
	var bestIdx *catalog.Index
	best := try(nil, t.PrimaryKey)
	for _, idx := range t.Indexes {
		if idx.Predicate != "" {
			continue // a partial index lacks rows
		}
		if idx.Form == catalog.FormInverted && len(try(idx, idx.Columns)) < len(idx.Columns) {
			continue
		}
		if k := try(idx, idx.Columns); len(k) > len(best) {
			best, bestIdx = k, idx
		}
	}
	if len(best) == 0 {
		return nil
	}
	// Equalities not used as lookup keys stay in On, over the combined row.
	var extra []Expr
	width := len(left.Columns())
	used := len(best)
	var keyCols []int
	if bestIdx == nil {
		keyCols = t.PrimaryKey[:used]
	} else {
		keyCols = bestIdx.Columns[:used]
	}
	// An equality a key answers exactly (probe and column of one type)
	// is not checked again; any other is, over the combined row.
	exact := map[int]bool{}
	for _, c := range keyCols {
		if t.Foreign != nil {
			break // a probe no key spells narrows less: every equality is checked
		}
		if keyCol[c].Type() == t.Columns[c].Type {
			exact[keyOf[c]] = true
		}
	}
	for i, rk := range rkeys {
		if exact[i] {
			continue
		}
		shifted := remap(rk, offsetMap(len(rel.cols), width))
		eq, err := compareExprs("=", lkeys[i], shifted)
		if err != nil {
			return nil
		}
		extra = append(extra, eq)
	}
	if on != nil {
		extra = append(extra, on)
	}
	var onExpr Expr
	if len(extra) > 0 {
		onExpr = andOf(extra)
	}
	return &LookupJoin{Type: InnerJoin, Left: left, Table: t, Alias: rel.alias, Index: bestIdx, Keys: best,
		Filter: sc.WholeFilter(), On: onExpr, Cols: cols, Rows: est}
}

// offsetMap maps columns 0..n-1 to offset..offset+n-1.
func offsetMap(n, offset int) map[int]int {
	m := make(map[int]int, n)
	for i := 0; i < n; i++ {
		m[i] = offset + i
	}
	return m
}

// outerJoinNode plans left LEFT JOIN right ON on (bound over the combined
// layout, left columns first): an index-lookup join when right is one base
// table (rightRel) with a usable key and the left side is small, else a
// hash join on the equalities of ON, else nested loops.
func (b *binder) outerJoinNode(left, right Node, rightRel *relation, on []Expr, leftWidth int, cols []Column) Node {
	lkeys, rkeys, onExpr := equiKeys(on, leftWidth, len(cols), b.enabled("hash_join"))
	est := math.Max(estimateRows(left), estimateRows(right))
	if rightRel != nil && len(lkeys) > 0 {
		if lj := b.lookupJoin(left, estimateRows(left), right, rightRel, lkeys, rkeys, onExpr, cols, est); lj != nil {
			lj := lj.(*LookupJoin)
			lj.Type = LeftJoin
			return lj
		}
	}
	j := &Join{Type: LeftJoin, Algo: NestedLoop, Left: left, Right: right, On: onExpr, Cols: cols, Rows: est}
	if len(lkeys) > 0 {
		j.Algo, j.LeftKeys, j.RightKeys, j.BuildRight = HashJoin, lkeys, rkeys, true
	}
	return j
}

// equiKeys splits a join condition over the combined row (left columns
// below leftWidth) into hash keys, the equalities between an expression
// of the left side and one of the right (the right one remapped to the
// right row), and the rest. Without hash, every conjunct is rest.
func equiKeys(on []Expr, leftWidth, width int, hash bool) (lkeys, rkeys []Expr, rest Expr) {
	var others []Expr
	for _, c := range on {
		eq, ok := c.(*BinOp)
		if ok && eq.Op == "=" && hash {
			ls, rs := sideOf(eq.L, leftWidth), sideOf(eq.R, leftWidth)
			if ls == 1 && rs == 2 {
				lkeys = append(lkeys, eq.L)
				rkeys = append(rkeys, remap(eq.R, shiftDown(leftWidth, width)))
				continue
			}
			if ls == 2 && rs == 1 {
				lkeys = append(lkeys, eq.R)
				rkeys = append(rkeys, remap(eq.L, shiftDown(leftWidth, width)))
				continue
			}
		}
		others = append(others, c)
	}
	if len(others) > 0 {
		rest = andOf(others)
	}
	return lkeys, rkeys, rest
}

// fullJoinNode plans a FULL JOIN as a hash join on the condition's
// equalities; as in PostgreSQL, a condition without one is refused.
func fullJoinNode(left, right Node, on []Expr, leftWidth int, cols []Column) (Node, error) {
	lkeys, rkeys, rest := equiKeys(on, leftWidth, len(cols), true)
	if len(lkeys) == 0 {
		return nil, pgerror.New(pgerror.FeatureNotSupported, "FULL JOIN is only supported with merge-joinable or hash-joinable join conditions")
	}
	est := estimateRows(left) + estimateRows(right)
	return &Join{Type: FullJoin, Algo: HashJoin, Left: left, Right: right, LeftKeys: lkeys, RightKeys: rkeys,
		BuildRight: estimateRows(right) <= estimateRows(left), On: rest, Cols: cols, Rows: est}, nil
}

// sideOf: 1 if e reads only columns < w, 2 if only columns >= w, 0 if
// both or neither.
func sideOf(e Expr, w int) int {
	cols := map[int]bool{}
	colRefs(e, cols)
	if len(cols) == 0 || hasCorrelatedSubquery(e) {
		return 0
	}
	l, r := false, false
	for c := range cols {
		if c < w {
			l = true
		} else {
			r = true
		}
	}
	switch {
	case l && !r:
		return 1
	case r && !l:
		return 2
	}
	return 0
}

func shiftDown(w, n int) map[int]int {
	m := make(map[int]int, n)
	for i := w; i < n; i++ {
		m[i] = i - w
	}
	return m
}

// colUsedBy reports whether any of the expressions reads FROM column c.
func colUsedBy(es []Expr, c int) bool {
	cols := map[int]bool{}
	for _, e := range es {
		colRefs(e, cols)
	}
	return cols[c]
}
