package planner

import (
	"slices"
	"strconv"
	"strings"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"vitess.io/vitess/go/vt/sqlparser"
)

// relation is one item of a FROM clause after flattening inner joins: a
// base table (planned later, when its filters are known), or an already
// planned subtree (a derived table, a view, an outer join).
type relation struct {
	table *catalog.Table // base table, or nil
	// tree, for a table with partitions or inheritance children read
	// without ONLY, is what the read covers (inherit.go); table is nil
	// and node the unfiltered Append.
	tree   *inheritRead
	alias  string
	node   Node       // planned subtree (derived table, view)
	outer  *outerSpec // an outer join, planned with its filters
	cols   []Column
	offset int // position of the first column in the FROM-order layout
	// star and using, for an outer join, are its columns' order under *
	// and its USING columns (see fromResult); star nil means the visible
	// columns in order.
	star  []starItem
	using []*usingCol
	// lateral marks a LATERAL subquery that reads the FROM items before
	// it: its plan's references one level out (ColRef.Outer 1) are
	// positions in the FROM-order layout, and it runs once per row of
	// the relations joined before it (an Apply join).
	lateral bool
}

// usingCol is a column a USING join merged: its unqualified name stands
// for expr (over the FROM layout), the left column, or COALESCE of both
// for a FULL JOIN. (A RIGHT JOIN is bound with its sides swapped.)
type usingCol struct {
	name string
	expr Expr
	// alias is the join's USING alias (USING (a) AS x): x.a names the
	// merged column too.
	alias string
}

// starItem is one column of an unqualified *: a FROM column, or a merged
// USING column when u is set.
type starItem struct {
	col int
	u   *usingCol
}

// fromResult is a flattened FROM clause: its relations, their columns in
// FROM order, and the ON/USING conditions of its inner joins (bound over
// that layout).
type fromResult struct {
	rels  []*relation
	cols  []Column
	conds []Expr
	// star is the order of an unqualified * (PostgreSQL's: a USING
	// join's merged columns first, then the rest of its left and right
	// sides); using are the merged columns unqualified names resolve to.
	star  []starItem
	using []*usingCol
}

func (f *fromResult) add(r *relation) {
	r.offset = len(f.cols)
	f.rels = append(f.rels, r)
	f.cols = append(f.cols, r.cols...)
	if r.star == nil {
		for i, c := range r.cols {
			if !c.Hidden && !c.Merged {
				f.star = append(f.star, starItem{col: r.offset + i})
			}
		}
		return
	}
	f.appendShifted(r.star, r.using, r.offset)
}

// appendShifted appends star items and USING columns of a relation whose
// columns start at offset in f.
func (f *fromResult) appendShifted(star []starItem, using []*usingCol, offset int) {
	moved := map[*usingCol]*usingCol{}
	for _, u := range using {
		m := &usingCol{name: u.name, expr: shiftCols(u.expr, offset), alias: u.alias}
		moved[u] = m
		f.using = append(f.using, m)
	}
	for _, it := range star {
		if it.u != nil {
			f.star = append(f.star, starItem{u: moved[it.u]})
		} else {
			f.star = append(f.star, starItem{col: it.col + offset})
		}
	}
}

// shiftCols moves e's column references (Outer == 0) by offset.
func shiftCols(e Expr, offset int) Expr {
	out, _ := mapExpr(e, func(x Expr) (Expr, error) {
		if c, ok := x.(*ColRef); ok && c.Outer == 0 {
			return &ColRef{Index: c.Index + offset, T: c.T, Name: c.Name}, nil
		}
		return x, nil
	})
	return out
}

// fromClause flattens and binds a FROM clause.
func (b *binder) fromClause(items []sqlparser.TableExpr, s *scope) (*fromResult, error) {
	f := &fromResult{}
	for _, it := range items {
		if err := b.fromItem(it, s, f); err != nil {
			return nil, err
		}
	}
	return f, nil
}

func (b *binder) fromItem(it sqlparser.TableExpr, s *scope, f *fromResult) error {
	switch it := it.(type) {
	case *sqlparser.AliasedTableExpr:
		if dt, ok := it.Expr.(*sqlparser.DerivedTable); ok && dt.Lateral && len(f.cols) > 0 {
			r, err := b.lateral(f, s, func(ls *scope) (*relation, error) { return b.aliasedTable(it, ls) })
			if err != nil {
				return err
			}
			f.add(r)
			return nil
		}
		r, err := b.aliasedTable(it, s)
		if err != nil || r == nil {
			return err
		}
		for _, other := range f.rels {
			if other.alias == r.alias && r.alias != "" {
				return pgerror.Newf(pgerror.DuplicateObject, "table name %q specified more than once", r.alias)
			}
		}
		f.add(r)
		return nil
	case *sqlparser.ParenTableExpr:
		for _, e := range it.Exprs {
			if err := b.fromItem(e, s, f); err != nil {
				return err
			}
		}
		return nil
	case *sqlparser.JoinTableExpr:
		switch it.Join {
		case sqlparser.NormalJoinType, sqlparser.StraightJoinType, sqlparser.NaturalJoinType:
			js := joinSides{col: len(f.cols), star: len(f.star), using: len(f.using), natural: it.Join == sqlparser.NaturalJoinType}
			if err := b.fromItem(it.LeftExpr, s, f); err != nil {
				return err
			}
			js.colMid, js.starMid, js.usingMid = len(f.cols), len(f.star), len(f.using)
			if err := b.fromItem(it.RightExpr, s, f); err != nil {
				return err
			}
			return b.joinCondition(it.Condition, f, js, s, &f.conds)
		case sqlparser.LeftJoinType, sqlparser.RightJoinType, parse.FullJoin,
			sqlparser.NaturalLeftJoinType, sqlparser.NaturalRightJoinType, parse.NaturalFullJoin:
			var r *relation
			var err error
			if len(f.cols) > 0 && holdsLateral(it) {
				// a, LATERAL (...) b RIGHT JOIN c: the whole join reads a.
				r, err = b.lateral(f, s, func(ls *scope) (*relation, error) { return b.outerJoin(it, ls) })
			} else {
				r, err = b.outerJoin(it, s)
			}
			if err != nil {
				return err
			}
			f.add(r)
			return nil
		}
		return pgerror.New(pgerror.FeatureNotSupported, "this join type is not supported")
	}
	return pgerror.New(pgerror.FeatureNotSupported, "unsupported FROM item")
}

// joinSides says where a join's sides lie in a fromResult: the left
// side's columns, star items and USING columns start at col, star and
// using, the right side's at colMid, starMid and usingMid, and run to the
// end. full, rightFirst and natural describe the join (rightFirst: a
// RIGHT JOIN, bound with its sides swapped, whose right side was written
// first; natural: a NATURAL join, USING the names both sides have).
type joinSides struct {
	col, star, using          int
	colMid, starMid, usingMid int
	full, rightFirst, natural bool
}

// joinCondition binds ON or USING for a join whose sides lie in f as js
// says.
func (b *binder) joinCondition(c *sqlparser.JoinCondition, f *fromResult, js joinSides, s *scope, into *[]Expr) error {
	if js.natural {
		return b.usingJoin(commonNames(f, js), "", f, js, into)
	}
	if c == nil {
		return nil
	}
	if c.On != nil {
		sc := &scope{cols: f.cols, using: f.using, parent: s.joinParent(), owner: s, aggContext: "JOIN conditions"}
		on, err := b.boolExpr(c.On, sc)
		if err != nil {
			return err
		}
		*into = append(*into, splitAnd(on)...)
	}
	if len(c.Using) == 0 {
		return nil
	}
	names, alias := c.Using, ""
	if a, ok := strings.CutPrefix(names[0].String(), parse.MarkerUsingAlias); ok {
		names, alias = names[1:], a
		for _, r := range f.rels {
			if r.alias == alias {
				return pgerror.Newf(pgerror.DuplicateObject, "table name %q specified more than once", alias)
			}
		}
	}
	return b.usingJoin(names, alias, f, js, into)
}

// commonNames lists, for a NATURAL join, the visible column names of its
// written left side that its right side also has, in the left side's
// order (PostgreSQL's). A name twice on one side is usingJoin's error.
func commonNames(f *fromResult, js joinSides) sqlparser.Columns {
	names := func(items []starItem) []string {
		var out []string
		for _, it := range items {
			if it.u != nil {
				out = append(out, it.u.name)
			} else {
				out = append(out, f.cols[it.col].Name)
			}
		}
		return out
	}
	left, right := names(f.star[js.star:js.starMid]), names(f.star[js.starMid:])
	if js.rightFirst {
		left, right = right, left
	}
	inRight := map[string]bool{}
	for _, n := range right {
		inRight[n] = true
	}
	var common sqlparser.Columns
	seen := map[string]bool{}
	for _, n := range left {
		if inRight[n] && !seen[n] {
			seen[n] = true
			common = append(common, sqlparser.NewIdentifierCI(n))
		}
	}
	return common
}

// usingJoin binds USING (names): each name's column on the left equals
// the one on the right, and both give way, for unqualified names and *,
// to one merged column, which * lists first.
func (b *binder) usingJoin(names sqlparser.Columns, alias string, f *fromResult, js joinSides, into *[]Expr) error {
	dropped := map[*usingCol]bool{}
	// side finds name among a side's visible columns and merged ones.
	side := func(name string, cols [2]int, using [2]int, which string) (Expr, error) {
		var found Expr
		var u *usingCol
		n := 0
		for _, m := range f.using[using[0]:using[1]] {
			if m.name == name && !dropped[m] {
				found, u, n = m.expr, m, n+1
			}
		}
		col := -1
		for i := cols[0]; i < cols[1]; i++ {
			if c := f.cols[i]; c.Name == name && !c.Hidden && !c.Merged {
				col, n = i, n+1
				found = &ColRef{Index: i, T: c.T, Name: qualifiedName(c)}
			}
		}
		switch {
		case n == 0:
			return nil, pgerror.Newf(pgerror.UndefinedColumn, "column %q specified in USING clause does not exist in %s table", name, which)
		case n > 1:
			return nil, pgerror.Newf(pgerror.AmbiguousColumn, "common column name %q appears more than once in %s table", name, which)
		}
		if col >= 0 {
			f.cols[col].Merged = true
		} else {
			dropped[u] = true
		}
		return found, nil
	}
	left, right := "left", "right"
	if js.rightFirst {
		left, right = right, left
	}
	var merged []*usingCol
	for _, id := range names {
		name := id.String()
		l, err := side(name, [2]int{js.col, js.colMid}, [2]int{js.using, js.usingMid}, left)
		if err != nil {
			return err
		}
		r, err := side(name, [2]int{js.colMid, len(f.cols)}, [2]int{js.usingMid, len(f.using)}, right)
		if err != nil {
			return err
		}
		eq, err := compareExprs("=", l, r)
		if err != nil {
			return err
		}
		*into = append(*into, eq)
		m := l
		if js.full {
			t := CommonType([]types.T{l.Type(), r.Type()})
			if l, err = coerceResult(l, t); err != nil {
				return err
			}
			if r, err = coerceResult(r, t); err != nil {
				return err
			}
			m = &Func{Name: "coalesce", Args: []Expr{l, r}, T: t}
		}
		merged = append(merged, &usingCol{name: name, expr: m, alias: alias})
	}
	// * lists the merged columns, then the left side's and the right
	// side's others, in written order.
	keep := func(items []starItem) []starItem {
		var out []starItem
		for _, it := range items {
			if it.u != nil && !dropped[it.u] || it.u == nil && !f.cols[it.col].Merged {
				out = append(out, it)
			}
		}
		return out
	}
	lstar, rstar := keep(f.star[js.star:js.starMid]), keep(f.star[js.starMid:])
	if js.rightFirst {
		lstar, rstar = rstar, lstar
	}
	star := f.star[:js.star:js.star]
	for _, m := range merged {
		star = append(star, starItem{u: m})
	}
	f.star = append(append(star, lstar...), rstar...)
	using := f.using[:js.using:js.using]
	for _, m := range f.using[js.using:] {
		if !dropped[m] {
			using = append(using, m)
		}
	}
	f.using = append(using, merged...)
	return nil
}

// outerSpec is a LEFT, RIGHT or FULL JOIN not yet planned: planOuter
// plans it once the WHERE conjuncts that concern it are known, so those
// on the preserved side can run below the join.
type outerSpec struct {
	lf, rf *fromResult // the preserved side and the nullable side
	on     []Expr      // bound over lf's columns then rf's
	right  bool        // written as RIGHT JOIN: rf's columns come first
	full   bool        // FULL JOIN: both sides are preserved
	parent *scope
	// rightLateral marks LEFT JOIN LATERAL: rf is the one subquery, which
	// reads lf's columns (a LATERAL item inside rf reads rf's own).
	rightLateral bool
}

// outerJoin binds a LEFT, RIGHT or FULL JOIN as one relation.
func (b *binder) outerJoin(it *sqlparser.JoinTableExpr, s *scope) (*relation, error) {
	leftExpr, rightExpr := it.LeftExpr, it.RightExpr
	right := it.Join == sqlparser.RightJoinType || it.Join == sqlparser.NaturalRightJoinType
	full := it.Join == parse.FullJoin || it.Join == parse.NaturalFullJoin
	natural := it.Join == sqlparser.NaturalLeftJoinType || it.Join == sqlparser.NaturalRightJoinType || it.Join == parse.NaturalFullJoin
	if right {
		leftExpr, rightExpr = rightExpr, leftExpr
	}
	lf, err := b.fromClause([]sqlparser.TableExpr{leftExpr}, s)
	if err != nil {
		return nil, err
	}
	var rf *fromResult
	rightLateral := false
	if at, ok := rightExpr.(*sqlparser.AliasedTableExpr); ok && !right && !full {
		if dt, ok := at.Expr.(*sqlparser.DerivedTable); ok && dt.Lateral {
			// LEFT JOIN LATERAL (...): the subquery reads the left side.
			r, err := b.lateral(lf, s, func(ls *scope) (*relation, error) { return b.aliasedTable(at, ls) })
			if err != nil {
				return nil, err
			}
			rf = &fromResult{}
			rf.add(r)
			rightLateral = true
		}
	}
	if rf == nil {
		if rf, err = b.fromClause([]sqlparser.TableExpr{rightExpr}, s); err != nil {
			return nil, err
		}
	}
	both := &fromResult{}
	both.cols = append(append([]Column{}, lf.cols...), rf.cols...)
	for i := range both.cols {
		if full || i >= len(lf.cols) {
			both.cols[i].NullExtended = true
		}
	}
	both.appendShifted(lf.star, lf.using, 0)
	js := joinSides{colMid: len(lf.cols), starMid: len(both.star), usingMid: len(both.using), full: full, rightFirst: right, natural: natural}
	both.appendShifted(rf.star, rf.using, len(lf.cols))
	var on []Expr
	if err := b.joinCondition(it.Condition, both, js, s, &on); err != nil {
		return nil, err
	}
	if right && !natural && (it.Condition == nil || len(it.Condition.Using) == 0) {
		// * lists the written left side (rf) first; a USING join has
		// ordered its columns already.
		both.star = append(append([]starItem{}, both.star[js.starMid:]...), both.star[:js.starMid]...)
	}
	spec := &outerSpec{lf: lf, rf: rf, on: on, right: right, full: full, parent: s.parent, rightLateral: rightLateral}
	r := &relation{outer: spec, cols: both.cols, star: both.star, using: both.using}
	if right {
		// Written order: the right side (rf) first.
		nl, nr := len(lf.cols), len(rf.cols)
		r.cols = append(append([]Column{}, both.cols[nl:]...), both.cols[:nl]...)
		pos := map[int]int{}
		for i := 0; i < nl; i++ {
			pos[i] = nr + i
		}
		for j := 0; j < nr; j++ {
			pos[nl+j] = j
		}
		moved := map[*usingCol]*usingCol{}
		r.using = nil
		for _, u := range both.using {
			moved[u] = &usingCol{name: u.name, expr: remap(u.expr, pos), alias: u.alias}
			r.using = append(r.using, moved[u])
		}
		r.star = nil
		for _, it := range both.star {
			if it.u != nil {
				r.star = append(r.star, starItem{u: moved[it.u]})
			} else {
				r.star = append(r.star, starItem{col: pos[it.col]})
			}
		}
	}
	return r, nil
}

// innerFromOuter plans a LEFT or RIGHT JOIN as an inner join, when a
// filter above it is never true for a row the join would null-extend
// (PostgreSQL's outer-join reduction): the two sides' relations join as one
// FROM list, in any order, with the ON condition and the filters among
// their conjuncts. filters are over the written layout; no filter is left.
func (b *binder) innerFromOuter(o *outerSpec, filters []Expr) (Node, []Expr, error) {
	nl, nr := len(o.lf.cols), len(o.rf.cols)
	both := &fromResult{}
	for _, r := range o.lf.rels {
		both.add(r)
	}
	for _, r := range o.rf.rels {
		both.add(r)
	}
	conds := append([]Expr{}, o.lf.conds...)
	toBoth := map[int]int{} // rf position → both position
	for j := 0; j < nr; j++ {
		toBoth[j] = nl + j
	}
	for _, r := range o.rf.rels {
		if !r.lateral || o.rightLateral {
			continue
		}
		// A LATERAL subquery of the right side reads the items before
		// it at rf positions, which move behind lf's columns.
		if err := mapOuterRefs(r.node, 1, func(c *ColRef) (Expr, error) {
			return &ColRef{Index: toBoth[c.Index], Outer: c.Outer, T: c.T, Name: c.Name}, nil
		}); err != nil {
			return nil, nil, err
		}
	}
	for _, c := range o.rf.conds {
		moved, err := remapDeep(c, toBoth)
		if err != nil {
			return nil, nil, err
		}
		conds = append(conds, moved)
	}
	conds = append(conds, o.on...)
	written := map[int]int{} // written position → both position
	for i := 0; i < nl+nr; i++ {
		switch {
		case !o.right:
			written[i] = i
		case i < nr:
			written[i] = nl + i
		default:
			written[i] = i - nr
		}
	}
	for _, f := range filters {
		moved, err := remapDeep(f, written)
		if err != nil {
			return nil, nil, err
		}
		conds = append(conds, moved)
	}
	n, err := b.joinTree(both, conds, nil, &scope{cols: both.cols, parent: o.parent})
	if err != nil {
		return nil, nil, err
	}
	if o.right {
		n = writtenOrder(n, nl, nr)
	}
	return n, nil, nil
}

// planOuter plans an outer join. filters are conjuncts over the relation's
// columns (in written order); those that read only the preserved side are
// pushed into it, the rest are returned to run above the join.
func (b *binder) planOuter(o *outerSpec, filters []Expr) (Node, []Expr, error) {
	nl, nr := len(o.lf.cols), len(o.rf.cols)
	preserved := func(i int) (int, bool) { // written position → lf position
		if o.right {
			return i - nr, i >= nr
		}
		return i, i < nl
	}
	if !o.full && b.enabled("outer_join_reduction") {
		nullable := map[int]bool{}
		for i := 0; i < nl+nr; i++ {
			if _, in := preserved(i); !in {
				nullable[i] = true
			}
		}
		for _, f := range filters {
			if rejectsNulls(f, nullable) {
				return b.innerFromOuter(o, filters)
			}
		}
	}
	leftConds := append([]Expr{}, o.lf.conds...)
	var rest []Expr
	for _, f := range filters {
		cols := map[int]bool{}
		colRefs(f, cols)
		pos := map[int]int{}
		ok := len(cols) > 0 && !hasCorrelatedSubquery(f) && !o.full
		for c := range cols {
			p, in := preserved(c)
			if !in {
				ok = false
				break
			}
			pos[c] = p
		}
		if ok && b.enabled("filter_pushdown") {
			leftConds = append(leftConds, remap(f, pos))
		} else {
			rest = append(rest, f)
		}
	}
	ln, err := b.joinTree(o.lf, leftConds, nil, &scope{cols: o.lf.cols, parent: o.parent})
	if err != nil {
		return nil, nil, err
	}
	if len(o.rf.rels) == 1 && o.rf.rels[0].lateral {
		// LEFT JOIN LATERAL: the subquery runs per left row (ln keeps
		// FROM order, which its references use), ON over both.
		cols := append(append([]Column{}, o.lf.cols...), o.rf.cols...)
		j := &Join{Type: LeftJoin, Algo: Apply, Left: ln, Right: o.rf.rels[0].node, Cols: cols, Rows: estimateRows(ln)}
		if len(o.on) > 0 {
			j.On = andOf(o.on)
		}
		return j, rest, nil
	}
	on, rightConds, err := b.pushOnToNullable(o)
	if err != nil {
		return nil, nil, err
	}
	rn, err := b.joinTree(o.rf, rightConds, nil, &scope{cols: o.rf.cols, parent: o.parent})
	if err != nil {
		return nil, nil, err
	}
	cols := append(append([]Column{}, o.lf.cols...), o.rf.cols...)
	var rightRel *relation
	if len(o.rf.rels) == 1 && o.rf.rels[0].table != nil {
		rightRel = o.rf.rels[0]
	}
	if o.full {
		j, err := fullJoinNode(ln, rn, on, nl, cols)
		return j, rest, err
	}
	var n Node = b.outerJoinNode(ln, rn, rightRel, on, nl, cols)
	if o.right {
		n = writtenOrder(n, nl, nr)
	}
	return n, rest, nil
}

// pushOnToNullable moves the ON conjuncts of a LEFT (or swapped RIGHT)
// JOIN that read only the nullable side's columns (besides constants and
// enclosing rows) into that side, as filters of its own: a row they reject
// could match nothing anyway, so the preserved rows meet the same matches.
// It returns the ON conjuncts left and the nullable side's conditions.
func (b *binder) pushOnToNullable(o *outerSpec) (on, rightConds []Expr, err error) {
	rightConds = append([]Expr{}, o.rf.conds...)
	if o.full || !b.enabled("filter_pushdown") {
		return o.on, rightConds, nil
	}
	nl, nr := len(o.lf.cols), len(o.rf.cols)
	for _, c := range joinSharedSubqueries(o.on) {
		cols := map[int]bool{}
		colRefsDeep(c, cols)
		nullableOnly := !readsVolatile(c)
		for col := range cols {
			nullableOnly = nullableOnly && col >= nl
		}
		if !nullableOnly {
			on = append(on, c)
			continue
		}
		moved, err := remapDeep(c, shiftDown(nl, nl+nr))
		if err != nil {
			return nil, nil, err
		}
		rightConds = append(rightConds, moved)
	}
	return on, rightConds, nil
}

// writtenOrder puts the columns of a RIGHT JOIN b, which ran as b LEFT
// JOIN a (b's nl columns first), back in the order written: a's first.
func writtenOrder(n Node, nl, nr int) Node {
	cols := n.Columns()
	p := &Project{Input: n}
	for i := 0; i < nr; i++ {
		c := cols[nl+i]
		p.Exprs = append(p.Exprs, &ColRef{Index: nl + i, T: c.T, Name: qualifiedName(c)})
		p.Cols = append(p.Cols, c)
	}
	for i := 0; i < nl; i++ {
		c := cols[i]
		p.Exprs = append(p.Exprs, &ColRef{Index: i, T: c.T, Name: qualifiedName(c)})
		p.Cols = append(p.Cols, c)
	}
	return p
}

// rejectsNulls reports whether filter f is never true (NULL or false) for
// a row whose nullable columns are all NULL: a conservative reading of
// PostgreSQL's strictness, enough to see that WHERE b.x > 0 discards
// every row a LEFT JOIN b null-extended.
func rejectsNulls(f Expr, nullable map[int]bool) bool {
	switch x := f.(type) {
	case *And:
		for _, a := range x.Args {
			if rejectsNulls(a, nullable) {
				return true
			}
		}
		return false
	case *Or:
		for _, a := range x.Args {
			if !rejectsNulls(a, nullable) {
				return false
			}
		}
		return len(x.Args) > 0
	case *IsNull:
		return x.Not && nullOnNull(x.X, nullable)
	case *IsBool:
		// IS TRUE and IS FALSE are false for NULL; IS NOT ... is true.
		return !x.Not && nullOnNull(x.X, nullable)
	case *Subquery:
		// x IN / op ANY (subquery) is NULL or false for a NULL x; NOT
		// IN and ALL are true over no rows.
		return (x.Kind == SubIn && !x.Not || x.Kind == SubAny) && nullOnNull(x.X, nullable)
	}
	return nullOnNull(f, nullable)
}

// nullOnNull reports whether e is NULL whenever the nullable columns are:
// a column itself, or a strict operator over such an expression.
func nullOnNull(e Expr, nullable map[int]bool) bool {
	switch x := e.(type) {
	case *ColRef:
		return x.Outer == 0 && nullable[x.Index]
	case *BinOp:
		if x.Op == "IS DISTINCT FROM" || x.Op == "IS NOT DISTINCT FROM" {
			return false
		}
		return nullOnNull(x.L, nullable) || nullOnNull(x.R, nullable)
	case *UnaryOp:
		return nullOnNull(x.X, nullable)
	case *Cast:
		return nullOnNull(x.X, nullable)
	case *Like:
		return nullOnNull(x.X, nullable) || nullOnNull(x.Pattern, nullable)
	case *In:
		return nullOnNull(x.X, nullable)
	}
	return false
}

// aliasedTable resolves a table, view or derived table in FROM.
func (b *binder) aliasedTable(it *sqlparser.AliasedTableExpr, s *scope) (*relation, error) {
	alias := it.As.String()
	switch e := it.Expr.(type) {
	case sqlparser.TableName:
		name, only := parse.OnlyTable(e.Name.String())
		if alias == "" {
			alias = name
		}
		if i, ok := setOpIndex(name, b.setOps); ok && e.Qualifier.IsEmpty() {
			n, err := b.compound(b.setOps[i].Compound, &scope{parent: s.parent, owner: s})
			if err != nil {
				return nil, err
			}
			return derived(n, alias, it.Columns)
		}
		if e.Qualifier.IsEmpty() {
			if r, err := b.cteRelation(name, alias, it.Columns, s); r != nil || err != nil {
				return r, err
			}
		}
		// pg_catalog / information_schema (pgcatalog.go): a qualified name
		// is always virtual; an unqualified one is when no user table or
		// view has the name (checked below, before "dual").
		if q := e.Qualifier.String(); isVirtualSchema(q) {
			n, ok, err := b.virtualRelation(q, name)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, pgerror.Newf(pgerror.UndefinedTable, "relation \"%s.%s\" does not exist", q, name)
			}
			return derived(n, alias, it.Columns)
		}
		key, err := b.p.LookupKey(e.Qualifier.String(), name)
		if err != nil {
			return nil, err
		}
		t, terr := b.p.Catalog.Table(b.p.DB, key)
		if terr == nil && t.MatViewEmpty {
			e := pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "materialized view %q has not been populated", name)
			e.Hint = "Use the REFRESH MATERIALIZED VIEW command."
			return nil, e
		}
		if terr == nil {
			if err := b.checkTable(t, 'r'); err != nil { // privilege.go
				return nil, err
			}
			r := &relation{table: t, alias: alias}
			for i, c := range t.Columns {
				r.cols = append(r.cols, Column{Name: c.Name, Table: alias, T: c.Type, Hidden: c.Hidden, Key: slices.Contains(t.PrimaryKey, i), TableID: uint32(t.ID), Attr: int16(i + 1), Base: true})
			}
			if members := b.inheritMembers(t); members != nil && !only {
				r.cols = append(r.cols, tableoidColumn(alias))
				r.tree = &inheritRead{root: t, members: members}
				r.table, r.node = nil, b.appendScans(r, nil, nil)
			}
			return renameColumns(r, it.Columns)
		}
		if v, verr := b.p.Catalog.View(b.p.DB, key); verr == nil {
			if err := b.checkRelation("view", key, v.Owner, v.ACL, 'r'); err != nil {
				return nil, err
			}
			n, err := b.view(v)
			if err != nil {
				return nil, err
			}
			return derived(n, alias, it.Columns)
		}
		if seq, serr := b.p.Catalog.Sequence(b.p.DB, key); serr == nil {
			if err := b.checkRelation("sequence", key, seq.Owner, seq.ACL, 'r'); err != nil {
				return nil, err
			}
			return derived(sequenceRelation(seq), alias, it.Columns)
		}
		if seq := b.p.Catalog.SerialSequence(b.p.DB, key); seq != nil {
			return derived(sequenceRelation(seq), alias, it.Columns)
		}
		if e.Qualifier.IsEmpty() {
			if n, ok, err := b.virtualRelation("", name); ok || err != nil {
				if err != nil {
					return nil, err
				}
				return derived(n, alias, it.Columns)
			}
		}
		if name == "dual" && e.Qualifier.IsEmpty() && it.As.IsEmpty() {
			return nil, nil // SELECT without FROM (vitess writes FROM dual)
		}
		return nil, terr
	case *sqlparser.DerivedTable:
		n, err := b.selectStatement(e.Select, &scope{parent: s.parent, owner: s})
		if err != nil {
			return nil, err
		}
		return derived(n, alias, it.Columns)
	}
	return nil, pgerror.New(pgerror.FeatureNotSupported, "unsupported table expression")
}

// setOpIndex reads the i of a hoisted set operation's name
// parse.MarkerSetOp+i.
func setOpIndex(name string, setOps []*parse.Statement) (int, bool) {
	digits, ok := strings.CutPrefix(name, parse.MarkerSetOp)
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(digits)
	return i, err == nil && i >= 0 && i < len(setOps) && setOps[i].Compound != nil
}

// view plans a view's stored query.
func (b *binder) view(v *catalog.View) (Node, error) {
	st, err := parse.ParseOne(v.SQL)
	if err != nil {
		return nil, pgerror.Newf(pgerror.DataCorrupted, "view %q: %v", v.Name, err)
	}
	vp := *b.p
	vp.AsRole = catalog.OwnerID(v.Owner) // privilege.go
	if v.SearchPath != nil {
		vp.SearchPath = v.SearchPath
	}
	vb := &binder{p: &vp, frames: st.Frames, setOps: st.SetOps, cteMat: st.CTEMaterialized}
	defer func() { b.p.Volatile = b.p.Volatile || vp.Volatile }()
	var n Node
	if st.Compound != nil {
		n, err = vb.compound(st.Compound, &scope{})
	} else if ts, ok := st.AST.(sqlparser.TableStatement); ok {
		n, err = vb.selectStatement(ts, &scope{})
	} else {
		return nil, pgerror.Newf(pgerror.DataCorrupted, "view %q is not a query", v.Name)
	}
	if err != nil {
		return nil, err
	}
	if len(v.Columns) > 0 {
		cols := n.Columns()
		if len(v.Columns) > len(cols) {
			return nil, pgerror.Newf(pgerror.SyntaxError, "view %q has more column names than columns", v.Name)
		}
		p := &Project{Input: n}
		for i, c := range cols {
			p.Exprs = append(p.Exprs, &ColRef{Index: i, T: c.T, Name: c.Name})
			if i < len(v.Columns) {
				c.Name = v.Columns[i]
			}
			p.Cols = append(p.Cols, c)
		}
		n = p
	}
	return n, nil
}

// lateral binds a FROM item that holds a LATERAL subquery: the FROM
// items before it (f) are in scope, one level out, as an enclosing
// query's columns would be. bind binds the item in a scope whose parent
// is theirs, and may be called twice: an item that reads none of them is
// bound again as an ordinary relation.
func (b *binder) lateral(f *fromResult, s *scope, bind func(*scope) (*relation, error)) (*relation, error) {
	left := &scope{cols: f.cols, star: f.star, using: f.using, parent: s.parent, owner: s, lateralOnly: true}
	r, err := bind(&scope{parent: left, owner: s})
	if err != nil {
		return nil, err
	}
	if r.outer != nil {
		// An outer join is planned now: WHERE's filters stay above the
		// Apply join that runs it.
		if r.node, _, err = b.planOuter(r.outer, nil); err != nil {
			return nil, err
		}
		r.outer = nil
	}
	reads := false
	_ = mapOuterRefs(r.node, 1, func(c *ColRef) (Expr, error) {
		reads = true
		return c, nil
	})
	if !reads {
		// Bound one level deeper than it needs: its references to
		// enclosing queries are one level too far out. Bind it again as
		// the ordinary relation it is, unless it names an item before it
		// that folding took away (WHERE x.a <> NULL): then it stays an
		// Apply join's right side, where its levels are right.
		if plain, err := bind(s); err == nil {
			return plain, nil
		}
	}
	r.lateral = true
	return r, nil
}

// holdsLateral reports whether a join tree has a LATERAL subquery among
// its items.
func holdsLateral(it sqlparser.TableExpr) bool {
	switch it := it.(type) {
	case *sqlparser.AliasedTableExpr:
		dt, ok := it.Expr.(*sqlparser.DerivedTable)
		return ok && dt.Lateral
	case *sqlparser.ParenTableExpr:
		for _, e := range it.Exprs {
			if holdsLateral(e) {
				return true
			}
		}
	case *sqlparser.JoinTableExpr:
		return holdsLateral(it.LeftExpr) || holdsLateral(it.RightExpr)
	}
	return false
}

// derived wraps a planned subquery as a relation named alias.
func derived(n Node, alias string, names sqlparser.Columns) (*relation, error) {
	r := &relation{node: n, alias: alias}
	for _, c := range n.Columns() {
		c.Table, c.Merged, c.Base = alias, false, false
		// Not a base table: its columns may be NULL in any row (wholeRow).
		c.Key, c.NullExtended = false, false
		if c.T.Family == types.Unknown {
			c.T = tText
		}
		r.cols = append(r.cols, c)
	}
	return renameColumns(r, names)
}

// renameColumns gives r's first visible columns the names of an alias's
// column list.
func renameColumns(r *relation, names sqlparser.Columns) (*relation, error) {
	var visible []int
	for i, c := range r.cols {
		if !c.Hidden {
			visible = append(visible, i)
		}
	}
	if len(names) > len(visible) {
		return nil, pgerror.Newf(pgerror.InvalidColumnReference, "table %q has %d columns available but %d columns specified", r.alias, len(visible), len(names))
	}
	for i, n := range names {
		r.cols[visible[i]].Name = n.String()
	}
	return r, nil
}
