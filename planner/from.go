package planner

import (
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
	table  *catalog.Table // base table, or nil
	alias  string
	node   Node       // planned subtree (derived table, view)
	outer  *outerSpec // an outer join, planned with its filters
	cols   []Column
	offset int // position of the first column in the FROM-order layout
}

// fromResult is a flattened FROM clause: its relations, their columns in
// FROM order, and the ON/USING conditions of its inner joins (bound over
// that layout).
type fromResult struct {
	rels  []*relation
	cols  []Column
	conds []Expr
}

func (f *fromResult) add(r *relation) {
	r.offset = len(f.cols)
	f.rels = append(f.rels, r)
	f.cols = append(f.cols, r.cols...)
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
		case sqlparser.NormalJoinType, sqlparser.StraightJoinType:
			if err := b.fromItem(it.LeftExpr, s, f); err != nil {
				return err
			}
			leftCols := len(f.cols)
			if err := b.fromItem(it.RightExpr, s, f); err != nil {
				return err
			}
			return b.joinCondition(it.Condition, f, leftCols, s, &f.conds)
		case sqlparser.LeftJoinType, sqlparser.RightJoinType, parse.FullJoin:
			r, err := b.outerJoin(it, s)
			if err != nil {
				return err
			}
			f.add(r)
			return nil
		}
		return pgerror.New(pgerror.FeatureNotSupported, "NATURAL joins are not supported")
	}
	return pgerror.New(pgerror.FeatureNotSupported, "unsupported FROM item")
}

// joinCondition binds ON or USING for a join whose left side ends at
// column leftCols of f.
func (b *binder) joinCondition(c *sqlparser.JoinCondition, f *fromResult, leftCols int, s *scope, into *[]Expr) error {
	if c == nil {
		return nil
	}
	js := &scope{cols: f.cols, parent: s.parent, aggContext: "JOIN conditions"}
	if c.On != nil {
		on, err := b.boolExpr(c.On, js)
		if err != nil {
			return err
		}
		*into = append(*into, splitAnd(on)...)
	}
	for _, u := range c.Using {
		name := u.String()
		l := &scope{cols: f.cols[:leftCols]}
		lr, err := l.resolve("", name)
		if err != nil {
			return err
		}
		r := &scope{cols: f.cols[leftCols:]}
		rr, err := r.resolve("", name)
		if err != nil {
			return err
		}
		rr.Index += leftCols
		eq, err := compareExprs("=", lr, rr)
		if err != nil {
			return err
		}
		*into = append(*into, eq)
		// The right column is merged into the left one: hide it from
		// unqualified references and from *.
		f.cols[rr.Index].Hidden = true
	}
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
}

// outerJoin binds a LEFT (or RIGHT) JOIN as one relation.
func (b *binder) outerJoin(it *sqlparser.JoinTableExpr, s *scope) (*relation, error) {
	leftExpr, rightExpr := it.LeftExpr, it.RightExpr
	right, full := it.Join == sqlparser.RightJoinType, it.Join == parse.FullJoin
	if full && it.Condition != nil && len(it.Condition.Using) > 0 {
		return nil, pgerror.New(pgerror.FeatureNotSupported, "FULL JOIN ... USING is not supported; write the condition with ON")
	}
	if right {
		leftExpr, rightExpr = rightExpr, leftExpr
	}
	lf, err := b.fromClause([]sqlparser.TableExpr{leftExpr}, s)
	if err != nil {
		return nil, err
	}
	rf, err := b.fromClause([]sqlparser.TableExpr{rightExpr}, s)
	if err != nil {
		return nil, err
	}
	both := &fromResult{}
	both.cols = append(append([]Column{}, lf.cols...), rf.cols...)
	var on []Expr
	if err := b.joinCondition(it.Condition, both, len(lf.cols), s, &on); err != nil {
		return nil, err
	}
	spec := &outerSpec{lf: lf, rf: rf, on: on, right: right, full: full, parent: s.parent}
	cols := both.cols // USING may have hidden some of the right side's
	if right {
		nl := len(lf.cols)
		cols = append(append([]Column{}, both.cols[nl:]...), both.cols[:nl]...)
	}
	return &relation{outer: spec, cols: cols}, nil
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
	rn, err := b.joinTree(o.rf, o.rf.conds, nil, &scope{cols: o.rf.cols, parent: o.parent})
	if err != nil {
		return nil, nil, err
	}
	cols := append(append([]Column{}, o.lf.cols...), o.rf.cols...)
	var rightRel *relation
	if len(o.rf.rels) == 1 && o.rf.rels[0].table != nil {
		rightRel = o.rf.rels[0]
	}
	if o.full {
		j, err := fullJoinNode(ln, rn, o.on, nl, cols)
		return j, rest, err
	}
	var n Node = b.outerJoinNode(ln, rn, rightRel, o.on, nl, cols)
	if o.right {
		// a RIGHT JOIN b ran as b LEFT JOIN a: put a's columns first
		// again, as written.
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
		n = p
	}
	return n, rest, nil
}

// aliasedTable resolves a table, view or derived table in FROM.
func (b *binder) aliasedTable(it *sqlparser.AliasedTableExpr, s *scope) (*relation, error) {
	alias := it.As.String()
	switch e := it.Expr.(type) {
	case sqlparser.TableName:
		name := e.Name.String()
		if !e.Qualifier.IsEmpty() {
			q := e.Qualifier.String()
			if q != "public" && q != b.p.DB && q != "pg_catalog" && q != "information_schema" {
				return nil, pgerror.Newf(pgerror.InvalidSchemaName, "schema %q does not exist", q)
			}
		}
		if alias == "" {
			alias = name
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
		t, terr := b.p.Catalog.Table(b.p.DB, name)
		if terr == nil {
			r := &relation{table: t, alias: alias}
			for i, c := range t.Columns {
				r.cols = append(r.cols, Column{Name: c.Name, Table: alias, T: c.Type, Hidden: c.Hidden, TableID: uint32(t.ID), Attr: int16(i + 1)})
			}
			return renameColumns(r, it.Columns)
		}
		if v, verr := b.p.Catalog.View(b.p.DB, name); verr == nil {
			n, err := b.view(v)
			if err != nil {
				return nil, err
			}
			return derived(n, alias, it.Columns)
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
		n, err := b.selectStatement(e.Select, &scope{parent: s.parent})
		if err != nil {
			return nil, err
		}
		return derived(n, alias, it.Columns)
	}
	return nil, pgerror.New(pgerror.FeatureNotSupported, "unsupported table expression")
}

// view plans a view's stored query.
func (b *binder) view(v *catalog.View) (Node, error) {
	st, err := parse.ParseOne(v.SQL)
	if err != nil {
		return nil, pgerror.Newf(pgerror.DataCorrupted, "view %q: %v", v.Name, err)
	}
	vb := &binder{p: b.p}
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

// derived wraps a planned subquery as a relation named alias.
func derived(n Node, alias string, names sqlparser.Columns) (*relation, error) {
	r := &relation{node: n, alias: alias}
	for _, c := range n.Columns() {
		c.Table = alias
		if c.T.Family == types.Unknown {
			c.T = tText
		}
		r.cols = append(r.cols, c)
	}
	return renameColumns(r, names)
}

func renameColumns(r *relation, names sqlparser.Columns) (*relation, error) {
	if len(names) > len(r.cols) {
		return nil, pgerror.Newf(pgerror.InvalidColumnReference, "table %q has %d columns available but %d columns specified", r.alias, len(r.cols), len(names))
	}
	for i, n := range names {
		r.cols[i].Name = n.String()
	}
	return r, nil
}
