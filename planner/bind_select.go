package planner

import (
	"strconv"
	"strings"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"vitess.io/vitess/go/vt/sqlparser"
)

// selectStatement plans a SELECT, a UNION or a VALUES statement. s is a
// fresh scope whose parent is the enclosing query's scope (or nil).
func (b *binder) selectStatement(st sqlparser.TableStatement, s *scope) (Node, error) {
	branch := b.setOpBranch
	b.setOpBranch = false
	var with *sqlparser.With
	switch st := st.(type) {
	case *sqlparser.Select:
		with = st.With
	case *sqlparser.Union:
		with = st.With
	}
	restore, err := b.with(with, st)
	defer restore()
	if err != nil {
		return nil, err
	}
	switch st := st.(type) {
	case *sqlparser.Select:
		if branch && st.Lock != sqlparser.NoLock {
			return nil, setOpLockError(st.Lock)
		}
		if call, name, ord, ok := routineFromCall(st); ok {
			return b.routineTable(call, name, ord, s) // routine.go
		}
		if call, name, ord, ok := seriesCall(st); ok {
			if call.Name.Lowered() == unnestFunc {
				return b.unnest(call, name, ord, s) // array.go
			}
			if fn := strings.TrimPrefix(call.Name.Lowered(), parse.MarkerPrefix); splitTables[fn].array != "" {
				return b.splitTable(fn, call, name, ord, s) // array.go
			}
			if call.Name.Lowered() == parse.MarkerPrefix+"pg_partition_ancestors" {
				return b.partitionAncestors(call, name, ord, s) // pgcatalog_funcs.go
			}
			if call.Name.Lowered() != seriesFunc {
				return b.jsonTableFunc(call, name, ord, s) // json.go
			}
			if ord {
				return nil, pgerror.New(pgerror.FeatureNotSupported, "generate_series WITH ORDINALITY is not supported")
			}
			return b.series(call, name, s)
		}
		if rewritten, ok, err := b.routineSRFSelect(st); ok { // routine.go
			if err != nil {
				return nil, err
			}
			st = rewritten
		}
		if rewritten, ok, err := zipUnnests(st); ok { // array.go
			if err != nil {
				return nil, err
			}
			st = rewritten
		}
		if rewritten, ok, err := srfSelect(st); ok { // array.go
			if err != nil {
				return nil, err
			}
			st = rewritten
		}
		if n, ok, err := b.groupingSetsQuery(st, s); ok {
			return n, err
		}
		b.keepUnknown = branch
		return b.selectNode(st, s)
	case *sqlparser.Union:
		if st.Lock != sqlparser.NoLock {
			return nil, setOpLockError(st.Lock)
		}
		b.setOpBranch = true
		left, err := b.selectStatement(st.Left, &scope{parent: s.parent, owner: s})
		if err != nil {
			return nil, err
		}
		b.setOpBranch = true
		right, err := b.selectStatement(st.Right, &scope{parent: s.parent, owner: s})
		if err != nil {
			return nil, err
		}
		n, err := setOp(Union, !st.Distinct, left, right)
		if err != nil {
			return nil, err
		}
		return b.orderLimitOutput(n, st.OrderBy, st.Limit, s)
	case *sqlparser.ValuesStatement:
		n, err := b.values(st.Rows, s)
		if err != nil {
			return nil, err
		}
		return b.orderLimitOutput(n, st.Order, st.Limit, s)
	}
	return nil, pgerror.Newf(pgerror.FeatureNotSupported, "unsupported query: %s", sqlparser.String(st))
}

// values plans VALUES (...), (...) with column names column1, column2...
func (b *binder) values(rows sqlparser.Values, s *scope) (Node, error) {
	if len(rows) == 0 {
		return nil, pgerror.New(pgerror.SyntaxError, "VALUES needs at least one row")
	}
	n := &Values{}
	width := len(rows[0])
	colTypes := make([]types.T, width)
	for _, r := range rows {
		if len(r) != width {
			return nil, pgerror.New(pgerror.SyntaxError, "VALUES lists must all be the same length")
		}
		row := make([]Expr, width)
		for i, e := range r {
			x, err := b.expr(e, s)
			if err != nil {
				return nil, err
			}
			row[i] = x
			colTypes[i] = resultType(colTypes[i], x.Type())
		}
		n.Rows = append(n.Rows, row)
	}
	for i, t := range colTypes {
		if t.Family == types.Unknown {
			t = tText
		}
		col := make([]Expr, len(n.Rows))
		for r, row := range n.Rows {
			col[r] = row[i]
		}
		t = commonTypmod(t, col)
		colTypes[i] = t
		n.Cols = append(n.Cols, Column{Name: "column" + strconv.Itoa(i+1), T: t})
	}
	for _, row := range n.Rows {
		for i := range row {
			x, err := coerceResult(row[i], colTypes[i])
			if err != nil {
				return nil, err
			}
			row[i] = x
		}
	}
	return n, nil
}

// setOp combines two query results, resolving column types.
func setOp(op SetOpKind, all bool, left, right Node) (Node, error) {
	lc, rc := left.Columns(), right.Columns()
	if len(lc) != len(rc) {
		return nil, pgerror.New(pgerror.SyntaxError, "each UNION/INTERSECT/EXCEPT query must have the same number of columns")
	}
	cols := make([]Column, len(lc))
	lx, rx := make([]Expr, len(lc)), make([]Expr, len(lc))
	needL, needR := false, false
	for i := range lc {
		t := resultType(lc[i].T, rc[i].T)
		if t.Family == types.Unknown {
			if lc[i].T.Family != types.Unknown && rc[i].T.Family != types.Unknown {
				return nil, mismatch("UNION", lc[i].T, rc[i].T)
			}
			t = tText
		}
		if lc[i].T != rc[i].T {
			t = withoutTypmod(t) // select_common_typmod: the arms differ
		}
		cols[i] = Column{Name: lc[i].Name, T: t}
		var err error
		l := Expr(&ColRef{Index: i, T: lc[i].T, Name: lc[i].Name})
		r := Expr(&ColRef{Index: i, T: rc[i].T, Name: rc[i].Name})
		if lx[i], err = coerceResult(l, t); err != nil {
			return nil, err
		}
		if rx[i], err = coerceResult(r, t); err != nil {
			return nil, err
		}
		needL = needL || lx[i] != l
		needR = needR || rx[i] != r
	}
	if needL {
		left = &Project{Input: left, Exprs: lx, Cols: cols}
	}
	if needR {
		right = &Project{Input: right, Exprs: rx, Cols: cols}
	}
	return &SetOp{Op: op, All: all, Left: left, Right: right, Cols: cols}, nil
}

// orderLimitOutput applies ORDER BY and LIMIT to the result of a set
// operation, where ORDER BY names output columns or ordinals.
func (b *binder) orderLimitOutput(n Node, orderBy sqlparser.OrderBy, limit *sqlparser.Limit, s *scope) (Node, error) {
	if len(orderBy) > 0 {
		cols := n.Columns()
		out := &scope{cols: cols, parent: s.parent, owner: s}
		var keys []SortKey
		for _, o := range orderBy {
			var x Expr
			if i, ok := ordinal(o.Expr); ok {
				if i < 1 || i > len(cols) {
					return nil, pgerror.Newf(pgerror.InvalidColumnReference, "ORDER BY position %d is not in select list", i)
				}
				x = &ColRef{Index: i - 1, T: cols[i-1].T, Name: cols[i-1].Name}
			} else {
				var err error
				if x, err = b.expr(o.Expr, out); err != nil {
					return nil, err
				}
			}
			desc := o.Direction == sqlparser.DescOrder
			keys = append(keys, SortKey{Expr: x, Desc: desc, NullsFirst: desc})
		}
		n = &Sort{Input: n, Keys: keys}
		return b.limit(n, limit, s, keys)
	}
	return b.limit(n, limit, s, nil)
}

func ordinal(e sqlparser.Expr) (int, bool) {
	if lit, ok := e.(*sqlparser.Literal); ok && lit.Type == sqlparser.IntVal {
		i, err := strconv.Atoi(lit.Val)
		return i, err == nil
	}
	return 0, false
}

// limit applies LIMIT/OFFSET, turning Sort+LIMIT into TopN; keys are
// the ORDER BY keys over n's rows, which FETCH ... WITH TIES compares.
func (b *binder) limit(n Node, limit *sqlparser.Limit, s *scope, keys []SortKey) (Node, error) {
	if limit == nil || (limit.Rowcount == nil && limit.Offset == nil) {
		return n, nil
	}
	withTies := false
	if f, ok := limit.Rowcount.(*sqlparser.FuncExpr); ok && f.Name.Lowered() == parse.MarkerWithTies && len(f.Exprs) == 1 {
		if len(keys) == 0 {
			return nil, pgerror.New(pgerror.SyntaxError, "WITH TIES cannot be specified without ORDER BY clause")
		}
		withTies = true
		cp := *limit
		cp.Rowcount = f.Exprs[0]
		limit = &cp
	}
	bind := func(e sqlparser.Expr) (Expr, error) {
		if e == nil {
			return nil, nil
		}
		x, err := b.expr(e, &scope{parent: s.parent, owner: s})
		if err != nil {
			return nil, err
		}
		if !isConstant(x) {
			return nil, pgerror.New(pgerror.SyntaxError, "argument of LIMIT must not contain variables")
		}
		return coerce(x, tInt8)
	}
	count, err := bind(limit.Rowcount)
	if err != nil {
		return nil, err
	}
	offset, err := bind(limit.Offset)
	if err != nil {
		return nil, err
	}
	if withTies {
		return &Limit{Input: n, Count: count, Offset: offset, TiesOn: keys}, nil
	}
	if sort, ok := n.(*Sort); ok && count != nil && b.enabled("topn") {
		return &TopN{Input: sort.Input, Keys: sort.Keys, Count: count, Offset: offset}, nil
	}
	return &Limit{Input: n, Count: count, Offset: offset}, nil
}

// selectItem is one bound output column of a select list.
type selectItem struct {
	expr Expr
	name string
	col  Column
}

// selectNode plans one SELECT block.
func (b *binder) selectNode(sel *sqlparser.Select, s *scope) (Node, error) {
	forceGroup, keepUnknown := b.forceGroup, b.keepUnknown
	b.forceGroup, b.keepUnknown = false, false
	from, err := b.fromClause(sel.From, s)
	if err != nil {
		return nil, err
	}
	s.cols, s.star, s.using = from.cols, from.star, from.using

	// WHERE.
	var conjuncts []Expr
	conjuncts = append(conjuncts, from.conds...)
	if sel.Where != nil {
		s.aggContext = "WHERE"
		w, err := b.boolExpr(sel.Where.Expr, s)
		if err != nil {
			return nil, err
		}
		conjuncts = append(conjuncts, splitAnd(w)...)
	}

	// The select list, with aggregates and window functions collected.
	agg := &aggCollector{}
	win := &winCollector{named: map[string]*sqlparser.WindowSpecification{}}
	if err := win.define(sel.Windows); err != nil {
		return nil, err
	}
	s.agg, s.aggContext, s.win = agg, "", win
	var items []selectItem
	selectExprs, distinctOn := splitDistinctOn(sel.SelectExprs.Exprs)
	for _, se := range selectExprs {
		switch se := se.(type) {
		case *sqlparser.StarExpr:
			q := se.TableName.Name.String()
			found := false
			col := func(i int) {
				c := s.cols[i]
				if c.Table == srfAlias {
					return // the select list's own unnest (srfSelect)
				}
				found = true
				items = append(items, selectItem{expr: &ColRef{Index: i, T: c.T, Name: qualifiedName(c)}, name: c.Name, col: c})
			}
			switch {
			case q != "":
				for i, c := range s.cols {
					if !c.Hidden && c.Table == q {
						col(i)
					}
				}
				for _, u := range s.using {
					if u.alias == q { // USING (a) AS q: q.* is the merged columns
						found = true
						items = append(items, selectItem{expr: u.expr, name: u.name, col: Column{Name: u.name, T: u.expr.Type()}})
					}
				}
			case s.star != nil:
				for _, it := range s.star {
					if it.u == nil {
						col(it.col)
						continue
					}
					found = true
					c := Column{Name: it.u.name, T: it.u.expr.Type()}
					if ref, ok := it.u.expr.(*ColRef); ok {
						c = s.cols[ref.Index]
						c.Merged, c.Table = false, ""
					}
					items = append(items, selectItem{expr: it.u.expr, name: it.u.name, col: c})
				}
			default:
				for i, c := range s.cols {
					if !c.Hidden && !c.Merged {
						col(i)
					}
				}
			}
			if !found && q != "" {
				return nil, pgerror.Newf(pgerror.UndefinedTable, "missing FROM-clause entry for table %q", q)
			}
			if !found && len(s.cols) == 0 {
				return nil, pgerror.New(pgerror.SyntaxError, "SELECT * with no tables specified is not valid")
			}
		case *sqlparser.AliasedExpr:
			if fields, ok, err := b.fieldStar(se.Expr, s); ok { // usertype.go
				if err != nil {
					return nil, err
				}
				items = append(items, fields...)
				continue
			}
			x, err := b.expr(se.Expr, s)
			if err != nil {
				return nil, err
			}
			name := se.As.String()
			if name == "" {
				name = columnName(se.Expr)
			}
			col := Column{Name: name, T: x.Type()}
			if ref, ok := x.(*ColRef); ok && ref.Outer == 0 {
				src := s.cols[ref.Index]
				col.TableID, col.Attr = src.TableID, src.Attr
			}
			items = append(items, selectItem{expr: x, name: name, col: col})
		default:
			return nil, pgerror.New(pgerror.FeatureNotSupported, "unsupported select item")
		}
	}
	aliases := map[string]Expr{}
	for _, it := range items {
		if _, dup := aliases[it.name]; dup {
			aliases[it.name] = nil // ambiguous: not usable by name
			continue
		}
		aliases[it.name] = it.expr
	}

	// GROUP BY.
	s.win = nil
	var groupBy []Expr
	if sel.GroupBy != nil {
		s.agg, s.aggContext = nil, "GROUP BY"
		for _, g := range sel.GroupBy.Exprs {
			var x Expr
			if i, ok := ordinal(g); ok {
				if i < 1 || i > len(items) {
					return nil, pgerror.Newf(pgerror.InvalidColumnReference, "GROUP BY position %d is not in select list", i)
				}
				x = items[i-1].expr
				if containsAggRef(x) {
					return nil, pgerror.New(pgerror.GroupingError, "aggregate functions are not allowed in GROUP BY")
				}
				if containsWinRef(x) {
					return nil, pgerror.New(pgerror.WindowingError, "window functions are not allowed in GROUP BY")
				}
			} else {
				s.aliases = aliases
				var err error
				x, err = b.expr(g, s)
				s.aliases = nil
				if err != nil {
					return nil, err
				}
				if containsAggRef(x) {
					return nil, pgerror.New(pgerror.GroupingError, "aggregate functions are not allowed in GROUP BY")
				}
			}
			groupBy = append(groupBy, x)
		}
	}

	// HAVING.
	var having Expr
	if sel.Having != nil {
		s.agg, s.aggContext = agg, ""
		h, err := b.boolExpr(sel.Having.Expr, s)
		if err != nil {
			return nil, err
		}
		having = h
	}

	// ORDER BY: output ordinals and aliases, or expressions over the input.
	type orderItem struct {
		expr   Expr
		output int // index into items, or -1
		desc   bool
	}
	var order []orderItem
	s.agg, s.aggContext, s.win = agg, "", win
	orderItemOf := func(e sqlparser.Expr, desc bool, clause string) (orderItem, error) {
		oi := orderItem{output: -1, desc: desc}
		if i, ok := ordinal(e); ok {
			if i < 1 || i > len(items) {
				return oi, pgerror.Newf(pgerror.InvalidColumnReference, "%s position %d is not in select list", clause, i)
			}
			oi.output = i - 1
		} else if cn, ok := e.(*sqlparser.ColName); ok && cn.Qualifier.IsEmpty() && outputIndex(items, cn.Name.String()) >= 0 {
			oi.output = outputIndex(items, cn.Name.String())
		} else {
			x, err := b.expr(e, s)
			if err != nil {
				return oi, err
			}
			oi.expr = x
			for i, it := range items {
				if it.expr.String() == x.String() {
					oi.output = i
					break
				}
			}
		}
		return oi, nil
	}
	for _, o := range sel.OrderBy {
		oi, err := orderItemOf(o.Expr, o.Direction == sqlparser.DescOrder, "ORDER BY")
		if err != nil {
			return nil, err
		}
		order = append(order, oi)
	}
	// DISTINCT ON's expressions follow ORDER BY's rules.
	var dons []orderItem
	for _, e := range distinctOn {
		oi, err := orderItemOf(e, false, "SELECT DISTINCT ON")
		if err != nil {
			return nil, err
		}
		dons = append(dons, oi)
	}
	s.agg, s.win = nil, nil

	grouped := len(groupBy) > 0 || len(agg.calls) > 0 || having != nil || forceGroup
	correlated := false
	for _, c := range conjuncts {
		correlated = correlated || hasCorrelatedSubquery(c)
	}
	for _, it := range items {
		correlated = correlated || hasCorrelatedSubquery(it.expr)
	}

	// The columns the query needs from FROM, for index-only scans.
	needed := map[int]bool{}
	all := append([]Expr{}, conjuncts...)
	for _, it := range items {
		all = append(all, it.expr)
	}
	all = append(all, groupBy...)
	all = append(all, having)
	for _, o := range order {
		all = append(all, o.expr)
	}
	for _, o := range dons {
		all = append(all, o.expr)
	}
	for _, c := range agg.calls {
		all = append(all, c.Args...)
		for _, k := range c.OrderBy {
			all = append(all, k.Expr)
		}
	}
	all = append(all, win.exprs()...)
	for _, e := range all {
		colRefs(e, needed)
		// A correlated subquery in ORDER BY, HAVING, GROUP BY or an
		// aggregate's arguments reads FROM columns that colRefs cannot see.
		correlated = correlated || hasCorrelatedSubquery(e)
	}
	if correlated {
		needed = nil // every column may be read through outer references
	}

	input, err := b.joinTree(from, conjuncts, needed, s)
	if err != nil {
		return nil, err
	}

	// Aggregation.
	if grouped {
		// The aggregate reads the join tree's output directly, not through
		// the projection that restores FROM order.
		aggInput, aggGroupBy, aggCalls := peelLayout(input, groupBy, agg.calls)
		aggNode := &Aggregate{Input: aggInput, GroupBy: aggGroupBy, Aggs: aggCalls, Strategy: HashAgg}
		switch {
		case len(groupBy) == 0:
			aggNode.Strategy = ScalarAgg
		case b.enabled("stream_agg") && groupedInOrder(input, groupBy):
			aggNode.Strategy = StreamAgg
		}
		for i, g := range groupBy {
			name := "?column?"
			if ref, ok := g.(*ColRef); ok {
				name = s.cols[ref.Index].Name
			}
			_ = i
			aggNode.Cols = append(aggNode.Cols, Column{Name: name, T: g.Type()})
		}
		for _, c := range agg.calls {
			aggNode.Cols = append(aggNode.Cols, Column{Name: c.Func, T: c.T})
		}
		rewrite := func(e Expr) (Expr, error) {
			e, err := groupRewrite(e, groupBy, agg.calls)
			if err != nil || !correlated {
				return e, err
			}
			return groupOuterRefs(e, groupBy)
		}
		for i := range items {
			if items[i].expr, err = rewrite(items[i].expr); err != nil {
				return nil, err
			}
		}
		if having != nil {
			if having, err = rewrite(having); err != nil {
				return nil, err
			}
		}
		for i := range order {
			if order[i].expr != nil {
				if order[i].expr, err = rewrite(order[i].expr); err != nil {
					return nil, err
				}
			}
		}
		for i := range dons {
			if dons[i].expr != nil {
				if dons[i].expr, err = rewrite(dons[i].expr); err != nil {
					return nil, err
				}
			}
		}
		if err := win.rewrite(rewrite); err != nil {
			return nil, err
		}
		input = aggNode
		if len(groupBy) == 0 {
			if mm := b.minMaxAggregate(from, conjuncts, agg.calls, aggNode.Cols); mm != nil {
				input = mm
			}
		}
		if having != nil {
			if empty := emptyIfFalse(aggNode, having); empty != nil && b.enabled("constant_folding") {
				input = empty
			} else {
				input = &Filter{Input: input, Pred: having}
			}
		}
	}

	// Window functions, over the (grouped) rows.
	if len(win.calls) > 0 {
		var cols []int
		input, cols = b.windows(input, win)
		for i := range items {
			items[i].expr = replaceWinRefs(items[i].expr, cols)
		}
		for i := range order {
			if order[i].expr != nil {
				order[i].expr = replaceWinRefs(order[i].expr, cols)
			}
		}
		for i := range dons {
			if dons[i].expr != nil {
				dons[i].expr = replaceWinRefs(dons[i].expr, cols)
			}
		}
	}

	// Projection: the select list, then ORDER BY expressions not in it.
	proj := &Project{Input: input}
	for _, it := range items {
		proj.Exprs = append(proj.Exprs, it.expr)
		c := it.col
		c.Name, c.T = it.name, it.expr.Type()
		if c.T.Family == types.Unknown && !keepUnknown {
			// A set operation's branch leaves an untyped NULL or
			// literal to the operation, which resolves it against the
			// other branch (SELECT NULL UNION SELECT 1 is an integer).
			c.T = tText
			proj.Exprs[len(proj.Exprs)-1], _ = coerce(it.expr, tText)
		}
		proj.Cols = append(proj.Cols, c)
	}
	var keys []SortKey
	for _, o := range order {
		idx := o.output
		if idx < 0 {
			if sel.Distinct {
				return nil, pgerror.New(pgerror.InvalidColumnReference, "for SELECT DISTINCT, ORDER BY expressions must appear in select list")
			}
			proj.Exprs = append(proj.Exprs, o.expr)
			proj.Cols = append(proj.Cols, Column{Name: o.expr.String(), T: o.expr.Type(), Hidden: true})
			idx = len(proj.Exprs) - 1
		}
		keys = append(keys, SortKey{Expr: &ColRef{Index: idx, T: proj.Cols[idx].T, Name: proj.Cols[idx].Name}, Desc: o.desc, NullsFirst: o.desc})
	}
	// DISTINCT ON: its columns, which the sort must put first.
	var donCols []int
	for _, o := range dons {
		idx := o.output
		for i, e := range proj.Exprs {
			if idx < 0 && o.expr != nil && e.String() == o.expr.String() {
				idx = i // an ORDER BY expression's hidden column
			}
		}
		if idx < 0 {
			proj.Exprs = append(proj.Exprs, o.expr)
			proj.Cols = append(proj.Cols, Column{Name: o.expr.String(), T: o.expr.Type(), Hidden: true})
			idx = len(proj.Exprs) - 1
		}
		donCols = append(donCols, idx)
	}
	if len(donCols) > 0 {
		if len(keys) == 0 {
			for _, c := range donCols {
				keys = append(keys, SortKey{Expr: &ColRef{Index: c, T: proj.Cols[c].T, Name: proj.Cols[c].Name}})
			}
		}
		if !leadingKeys(keys, donCols) {
			return nil, pgerror.New(pgerror.InvalidColumnReference, "SELECT DISTINCT ON expressions must match initial ORDER BY expressions")
		}
	}
	// FOR UPDATE / FOR SHARE: the locked table's primary key rides along
	// in hidden columns to the LockRows node.
	var locks []*LockRows // one per locked table, Input unset
	if sel.Lock != sqlparser.NoLock {
		targets, err := b.lockTargets(sel, from, grouped)
		if err != nil {
			return nil, err
		}
		for _, tg := range targets {
			l := &LockRows{Table: tg.rel.table, Lock: rowLock(sel.Lock)}
			for _, o := range tg.rel.table.PrimaryKey {
				c := tg.rel.cols[o]
				proj.Exprs = append(proj.Exprs, &ColRef{Index: tg.offset + o, T: c.T, Name: qualifiedName(c)})
				c.Hidden = true
				proj.Cols = append(proj.Cols, c)
				l.Key = append(l.Key, len(proj.Exprs)-1)
			}
			locks = append(locks, l)
		}
	}
	var cursorKey []int
	if kt := b.cursorKeyTable(sel, from, grouped, s); kt != nil {
		r := from.rels[0]
		for _, o := range kt.PrimaryKey {
			c := r.cols[o]
			proj.Exprs = append(proj.Exprs, &ColRef{Index: r.offset + o, T: c.T, Name: qualifiedName(c)})
			c.Hidden = true
			proj.Cols = append(proj.Cols, c)
			cursorKey = append(cursorKey, len(proj.Exprs)-1)
		}
		b.p.CursorTarget.Table = kt
	}
	var sortedItems []int // the select items the sort keys read
	for _, o := range order {
		sortedItems = append(sortedItems, o.output)
	}
	late := postponeVolatile(proj, items, sortedItems, len(keys) > 0 && !sel.Distinct && len(donCols) == 0 && locks == nil && cursorKey == nil)
	proj = mergeProjects(proj)
	var n Node = proj
	if isIdentity(proj) {
		n = proj.Input
	}
	if sel.Distinct {
		n = &Distinct{Input: n}
	}
	if len(keys) > 0 {
		if !(b.enabled("index_order") && providesOrder(n, keys)) {
			n = &Sort{Input: n, Keys: keys}
		}
	}
	if len(donCols) > 0 {
		n = &DistinctOn{Input: n, Cols: donCols}
	}
	for _, l := range locks {
		l.Input = n
		n = l
	}
	if n, err = b.limit(n, sel.Limit, s, keys); err != nil {
		return nil, err
	}
	if len(proj.Exprs) > len(items) || late != nil {
		final := &Project{Input: n, Cols: proj.Cols[:len(items):len(items)]}
		for i := range items {
			if e := late[i]; e != nil {
				final.Exprs = append(final.Exprs, e)
				continue
			}
			final.Exprs = append(final.Exprs, &ColRef{Index: i, T: proj.Cols[i].T, Name: proj.Cols[i].Name})
		}
		// A cursor's key columns stay, hidden, after the select list.
		for _, i := range cursorKey {
			b.p.CursorTarget.Key = append(b.p.CursorTarget.Key, len(final.Exprs))
			final.Exprs = append(final.Exprs, &ColRef{Index: i, T: proj.Cols[i].T, Name: proj.Cols[i].Name})
			final.Cols = append(final.Cols, proj.Cols[i])
		}
		n = final
	}
	return n, nil
}

// isIdentity reports whether p passes its input's columns through
// unchanged (same count, same order, same names).
func isIdentity(p *Project) bool {
	in := p.Input.Columns()
	if len(in) != len(p.Exprs) {
		return false
	}
	for i, e := range p.Exprs {
		ref, ok := e.(*ColRef)
		if !ok || ref.Outer != 0 || ref.Index != i || in[i].Name != p.Cols[i].Name || in[i].Hidden || in[i].T != p.Cols[i].T {
			return false
		}
	}
	return true
}

func outputIndex(items []selectItem, name string) int {
	found := -1
	for i, it := range items {
		if it.name == name {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}

// aliasRef lets GROUP BY name a select-list alias when no input column has
// that name (PostgreSQL's rule).
func (s *scope) aliasRef(c *sqlparser.ColName) (Expr, bool) {
	if s.aliases == nil || !c.Qualifier.IsEmpty() {
		return nil, false
	}
	name := c.Name.String()
	for _, col := range s.cols {
		if col.Name == name {
			return nil, false
		}
	}
	x, ok := s.aliases[name]
	return x, ok && x != nil
}

func splitAnd(e Expr) []Expr {
	if a, ok := e.(*And); ok {
		var out []Expr
		for _, x := range a.Args {
			out = append(out, splitAnd(x)...)
		}
		return out
	}
	return []Expr{e}
}

func containsAggRef(e Expr) bool {
	found := false
	walkExpr(e, func(x Expr) bool {
		if _, ok := x.(*aggRef); ok {
			found = true
		}
		return !found
	})
	return found
}

// seriesFunc is the name the dialect layer gives generate_series in FROM:
// the derived table (SELECT kvsql_generate_series(a, b) AS column FROM
// dual), column being generate_series or the table's alias.
const seriesFunc = "kvsql_generate_series"

func seriesCall(sel *sqlparser.Select) (call *sqlparser.FuncExpr, column string, ordinality, ok bool) {
	if sel.SelectExprs == nil || len(sel.SelectExprs.Exprs) < 1 || len(sel.SelectExprs.Exprs) > 2 ||
		sel.Where != nil || sel.GroupBy != nil || len(sel.OrderBy) > 0 {
		return nil, "", false, false
	}
	ae, ok := sel.SelectExprs.Exprs[0].(*sqlparser.AliasedExpr)
	if !ok {
		return nil, "", false, false
	}
	if len(sel.SelectExprs.Exprs) == 2 {
		o, ok := sel.SelectExprs.Exprs[1].(*sqlparser.AliasedExpr)
		if !ok {
			return nil, "", false, false // a star such as x.* in "SELECT f(..), x.*"
		}
		if c, isCol := o.Expr.(*sqlparser.ColName); !isCol || c.Name.Lowered() != parse.MarkerOrdinality {
			return nil, "", false, false
		}
		ordinality = true
	}
	f, ok := ae.Expr.(*sqlparser.FuncExpr)
	return f, ae.As.String(), ordinality, ok && (f.Name.Lowered() == seriesFunc || strings.HasPrefix(f.Name.Lowered(), parse.MarkerPrefix) && tableFuncs[f.Name.Lowered()[len(parse.MarkerPrefix):]] != 0)
}

// series plans generate_series(start, stop [, step]) over integers,
// numerics or timestamps; its one column is called column.
func (b *binder) series(call *sqlparser.FuncExpr, column string, s *scope) (Node, error) {
	if len(call.Exprs) < 2 || len(call.Exprs) > 3 {
		return nil, pgerror.New(pgerror.UndefinedFunction, "function generate_series needs 2 or 3 arguments")
	}
	args := make([]Expr, 3)
	t := tInt4
	for i, e := range call.Exprs {
		x, err := b.expr(e, &scope{parent: s.parent, owner: s, aggContext: "FROM"})
		if err != nil {
			return nil, err
		}
		args[i] = x
	}
	if st, ok, err := timestampSeries(args); ok {
		if err != nil {
			return nil, err
		}
		return &Series{Start: args[0], Stop: args[1], Step: args[2], Cols: []Column{{Name: column, T: st}}}, nil
	}
	for _, x := range args[:len(call.Exprs)] {
		if x.Type().Family == types.Numeric {
			t = types.T{Family: types.Numeric} // generate_series(numeric, numeric [, numeric])
		}
	}
	for i, x := range args[:len(call.Exprs)] {
		if t.Family == types.Numeric {
			break
		}
		if x.Type().Family != types.Unknown && !isInteger(x.Type().Family) {
			return nil, pgerror.Newf(pgerror.FeatureNotSupported, "generate_series(%s) is not supported: only integers", x.Type())
		}
		if x.Type().Family == tInt8.Family {
			t = tInt8
		}
		args[i] = x
	}
	if args[2] == nil {
		args[2] = intConst(1)
	}
	for i := range args {
		x, err := coerce(args[i], t)
		if err != nil {
			return nil, err
		}
		args[i] = x
	}
	return &Series{Start: args[0], Stop: args[1], Step: args[2], Cols: []Column{{Name: column, T: t}}}, nil
}

// splitDistinctOn takes the marker item the dialect layer puts last for
// SELECT DISTINCT ON (exprs) off a select list, returning the list and
// the expressions (nil without DISTINCT ON).
func splitDistinctOn(exprs []sqlparser.SelectExpr) ([]sqlparser.SelectExpr, []sqlparser.Expr) {
	if len(exprs) == 0 {
		return exprs, nil
	}
	ae, ok := exprs[len(exprs)-1].(*sqlparser.AliasedExpr)
	if !ok {
		return exprs, nil
	}
	f, ok := ae.Expr.(*sqlparser.FuncExpr)
	if !ok || f.Name.String() != parse.MarkerDistinctOn {
		return exprs, nil
	}
	return exprs[:len(exprs)-1], f.Exprs
}

// leadingKeys reports whether the first len(cols) sort keys are the
// columns cols, in any order.
func leadingKeys(keys []SortKey, cols []int) bool {
	if len(keys) < len(cols) {
		return false
	}
	want := map[int]bool{}
	for _, c := range cols {
		want[c] = true
	}
	for _, k := range keys[:len(cols)] {
		ref, ok := k.Expr.(*ColRef)
		if !ok || !want[ref.Index] {
			return false
		}
	}
	return true
}
