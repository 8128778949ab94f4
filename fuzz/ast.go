package fuzz

import (
	"fmt"
	"strings"
)

// typ is a generated column's or expression's type. The numeric ones
// compare with each other; the others only with themselves.
type typ int

const (
	tInt typ = iota
	tBigint
	tFloat // DOUBLE PRECISION; also stands for numeric results (sum of BIGINT, avg)
	tText
	tBool
	tFrom // not a value: a subquery's FROM item, which the reducer never puts in an expression's place
)

var typeNames = [...]string{"INTEGER", "BIGINT", "DOUBLE PRECISION", "TEXT", "BOOLEAN", "FROM"}

func (t typ) String() string { return typeNames[t] }
func (t typ) numeric() bool  { return t <= tFloat }

// compatible reports whether values of a and b may be compared or meet in
// one column of a set operation.
func compatible(a, b typ) bool { return a == b || a.numeric() && b.numeric() }

// node is an expression: text interleaved with sub-expressions, so that
// the reducer can replace any sub-expression by a simpler one and render
// the result again. Subqueries are nodes too: their tables are text, their
// predicates and columns sub-expressions.
type node struct {
	t     typ
	parts []any // string or *node
	leaf  bool  // a column or literal: nothing simpler to put in its place
}

func mk(t typ, parts ...any) *node { return &node{t: t, parts: parts} }
func leaf(t typ, s string) *node   { return &node{t: t, parts: []any{s}, leaf: true} }

func (n *node) String() string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range n.parts {
		switch p := p.(type) {
		case string:
			b.WriteString(p)
		case *node:
			b.WriteString(p.String())
		}
	}
	return b.String()
}

func (n *node) kids() []*node {
	var k []*node
	for _, p := range n.parts {
		if c, ok := p.(*node); ok {
			k = append(k, c)
		}
	}
	return k
}

// simpler returns the expressions one step simpler than n: n with one
// sub-expression replaced by one of its own sub-expressions of the same
// type, or by a literal.
func (n *node) simpler() []*node {
	if n == nil || n.leaf {
		return nil
	}
	var out []*node
	var walk func(m *node)
	walk = func(m *node) {
		for _, k := range m.kids() {
			if k.t == n.t || n.t != tBool && compatible(k.t, n.t) {
				out = append(out, k)
			}
			walk(k)
		}
	}
	walk(n)
	if n.t != tFrom {
		out = append(out, plainLiteral(n.t))
	}
	for i, p := range n.parts {
		c, ok := p.(*node)
		if !ok {
			continue
		}
		for _, v := range c.simpler() {
			cp := *n
			cp.parts = append([]any(nil), n.parts...)
			cp.parts[i] = v
			out = append(out, &cp)
		}
	}
	return out
}

// plainLiteral is the simplest value of type t, for the reducer.
func plainLiteral(t typ) *node {
	switch t {
	case tBool:
		return leaf(t, "TRUE")
	case tText:
		return leaf(t, "'a'")
	case tFloat:
		return leaf(t, "CAST(0 AS DOUBLE PRECISION)")
	case tBigint:
		return leaf(t, "CAST(0 AS BIGINT)")
	}
	return leaf(t, "0")
}

// dialect selects the statement text for one of the two databases: they
// differ only where kvsql has syntax PostgreSQL lacks (index methods).
type dialect int

const (
	kvsqlDialect dialect = iota
	pgDialect
)

// stmt is one generated statement. shrink returns simpler variants of it
// for the reducer; a variant may be invalid SQL, which the reducer finds
// out by running it.
type stmt interface {
	sql(d dialect) string
	shrink() []stmt
}

// rawStmt is a statement with nothing to shrink (DDL).
type rawStmt struct{ kv, pg string }

func raw(s string) rawStmt { return rawStmt{s, s} }

func (r rawStmt) sql(d dialect) string {
	if d == pgDialect {
		return r.pg
	}
	return r.kv
}
func (r rawStmt) shrink() []stmt { return nil }

// insertStmt is INSERT INTO table (cols) VALUES rows.
type insertStmt struct {
	table string
	cols  []string
	rows  [][]string
}

func (s insertStmt) sql(dialect) string {
	var b strings.Builder
	fmt.Fprintf(&b, "INSERT INTO %s (%s) VALUES ", s.table, strings.Join(s.cols, ", "))
	for i, r := range s.rows {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "(%s)", strings.Join(r, ", "))
	}
	return b.String()
}

func (s insertStmt) shrink() []stmt {
	if len(s.rows) <= 1 {
		return nil
	}
	var out []stmt
	if h := len(s.rows) / 2; h > 1 {
		out = append(out, insertStmt{s.table, s.cols, s.rows[:h]}, insertStmt{s.table, s.cols, s.rows[h:]})
	}
	for i := range s.rows {
		rows := append(append([][]string(nil), s.rows[:i]...), s.rows[i+1:]...)
		out = append(out, insertStmt{s.table, s.cols, rows})
	}
	return out
}

// updateStmt is UPDATE table SET col = val WHERE where.
type updateStmt struct {
	table, col string
	val, where *node
}

func (s updateStmt) sql(dialect) string {
	q := fmt.Sprintf("UPDATE %s SET %s = %s", s.table, s.col, s.val)
	if s.where != nil {
		q += " WHERE " + s.where.String()
	}
	return q
}

func (s updateStmt) shrink() []stmt {
	var out []stmt
	if s.where != nil {
		out = append(out, updateStmt{s.table, s.col, s.val, nil})
		for _, w := range s.where.simpler() {
			out = append(out, updateStmt{s.table, s.col, s.val, w})
		}
	}
	for _, v := range s.val.simpler() {
		out = append(out, updateStmt{s.table, s.col, v, s.where})
	}
	return out
}

// deleteStmt is DELETE FROM table WHERE where.
type deleteStmt struct {
	table string
	where *node
}

func (s deleteStmt) sql(dialect) string {
	if s.where == nil {
		return "DELETE FROM " + s.table
	}
	return "DELETE FROM " + s.table + " WHERE " + s.where.String()
}

func (s deleteStmt) shrink() []stmt {
	if s.where == nil {
		return nil
	}
	out := []stmt{deleteStmt{s.table, nil}}
	for _, w := range s.where.simpler() {
		out = append(out, deleteStmt{s.table, w})
	}
	return out
}

// fromItem is one table of a FROM clause; join is "" for the first.
type fromItem struct {
	join         string // "", ",", "CROSS JOIN", "JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"
	table, alias string
	on           *node
	using        string // USING (using) instead of ON
}

// selectQ is a SELECT; with order, its rows are ORDER BY every output
// column, a total order of the output, so LIMIT is deterministic.
type selectQ struct {
	with     []string // WITH queries: "name AS (query)"
	distinct bool
	items    []*node
	from     []fromItem
	where    *node
	groupBy  []*node
	sets     string // "ROLLUP" or "CUBE" around groupBy, or ""
	having   *node
	order    bool
	limit    int // < 0: none
}

func (q *selectQ) String() string {
	var b strings.Builder
	if len(q.with) > 0 {
		b.WriteString("WITH " + strings.Join(q.with, ", ") + " ")
	}
	b.WriteString("SELECT ")
	if q.distinct {
		b.WriteString("DISTINCT ")
	}
	for i, it := range q.items {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(it.String())
	}
	b.WriteString(q.fromWhere())
	if len(q.groupBy) > 0 {
		b.WriteString(" GROUP BY ")
		if q.sets != "" {
			b.WriteString(q.sets + " (")
		}
		for i, g := range q.groupBy {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(g.String())
		}
		if q.sets != "" {
			b.WriteString(")")
		}
	}
	if q.having != nil {
		b.WriteString(" HAVING " + q.having.String())
	}
	b.WriteString(orderLimit(q.order, q.limit, len(q.items)))
	return b.String()
}

// fromWhere renders " FROM ... [WHERE ...]".
func (q *selectQ) fromWhere() string {
	var b strings.Builder
	b.WriteString(q.fromOnly())
	if q.where != nil {
		b.WriteString(" WHERE " + q.where.String())
	}
	return b.String()
}

func (q *selectQ) fromOnly() string {
	var b strings.Builder
	for i, f := range q.from {
		switch {
		case i == 0:
			b.WriteString(" FROM ")
		case f.join == ",":
			b.WriteString(", ")
		default:
			b.WriteString(" " + f.join + " ")
		}
		b.WriteString(f.table + " AS " + f.alias)
		if f.on != nil {
			b.WriteString(" ON " + f.on.String())
		}
		if f.using != "" {
			b.WriteString(" USING (" + f.using + ")")
		}
	}
	return b.String()
}

func orderLimit(order bool, limit, n int) string {
	var b strings.Builder
	if order {
		b.WriteString(" ORDER BY ")
		for i := 1; i <= n; i++ {
			if i > 1 {
				b.WriteString(", ")
			}
			fmt.Fprint(&b, i)
		}
	}
	if limit >= 0 {
		fmt.Fprintf(&b, " LIMIT %d", limit)
	}
	return b.String()
}

// variants returns the simpler forms of q for the reducer.
func (q *selectQ) variants() []*selectQ {
	var out []*selectQ
	add := func(f func(c *selectQ)) {
		c := *q
		c.items = append([]*node(nil), q.items...)
		c.from = append([]fromItem(nil), q.from...)
		c.groupBy = append([]*node(nil), q.groupBy...)
		f(&c)
		out = append(out, &c)
	}
	if q.where != nil {
		add(func(c *selectQ) { c.where = nil })
		for _, w := range q.where.simpler() {
			add(func(c *selectQ) { c.where = w })
		}
	}
	if q.having != nil {
		add(func(c *selectQ) { c.having = nil })
		for _, h := range q.having.simpler() {
			add(func(c *selectQ) { c.having = h })
		}
	}
	if q.distinct {
		add(func(c *selectQ) { c.distinct = false })
	}
	if q.limit >= 0 {
		add(func(c *selectQ) { c.limit = -1 })
	}
	if q.sets != "" {
		add(func(c *selectQ) { c.sets = "" })
	}
	if len(q.groupBy) > 0 {
		add(func(c *selectQ) { c.groupBy = nil; c.sets = ""; c.having = nil })
	}
	for i := range q.from {
		if i > 0 {
			add(func(c *selectQ) { c.from = append(c.from[:i:i], c.from[i+1:]...) })
			if q.from[i].on != nil || q.from[i].using != "" {
				add(func(c *selectQ) { c.from[i].join = "CROSS JOIN"; c.from[i].on, c.from[i].using = nil, "" })
				for _, o := range q.from[i].on.simpler() {
					add(func(c *selectQ) { c.from[i].on = o })
				}
			}
		}
	}
	if len(q.items) > 1 {
		for i := range q.items {
			add(func(c *selectQ) { c.items = append(c.items[:i:i], c.items[i+1:]...) })
		}
	}
	for i, it := range q.items {
		for _, v := range it.simpler() {
			add(func(c *selectQ) { c.items[i] = v })
		}
	}
	return out
}

// query is a SELECT or a set operation of two SELECTs.
type query struct {
	left  *selectQ
	op    string // "" for a plain SELECT; "UNION", "INTERSECT ALL", ...
	right *selectQ
	order bool
	limit int
}

func (q *query) String() string {
	if q.op == "" {
		return q.left.String()
	}
	return "(" + q.left.String() + ") " + q.op + " (" + q.right.String() + ")" + orderLimit(q.order, q.limit, len(q.left.items))
}

// ordered reports whether the answer's row order is defined. Under
// ROLLUP or CUBE it is not compared: PostgreSQL 15 drops an ORDER BY key
// it deems equal to an earlier one through a join condition (a2.c0 =
// a1.c0), which the grouping sets' NULLs make untrue (fixed in
// PostgreSQL 16), so its order there can be wrong.
func (q *query) ordered() bool {
	if q.op == "" {
		return q.left.order && q.left.sets == ""
	}
	return q.order
}

// queryStmt is a read-only statement compared across databases.
type queryStmt struct{ q *query }

func (s queryStmt) sql(dialect) string { return s.q.String() }

func (s queryStmt) shrink() []stmt {
	var out []stmt
	q := s.q
	if q.op != "" {
		out = append(out, queryStmt{&query{left: q.left, limit: -1}}, queryStmt{&query{left: q.right, limit: -1}})
		if q.limit >= 0 {
			out = append(out, queryStmt{&query{q.left, q.op, q.right, q.order, -1}})
		}
		for _, r := range q.right.variants() {
			if len(r.items) == len(q.left.items) {
				out = append(out, queryStmt{&query{q.left, q.op, r, q.order, q.limit}})
			}
		}
	}
	for _, l := range q.left.variants() {
		if q.op != "" && len(l.items) != len(q.right.items) {
			continue
		}
		out = append(out, queryStmt{&query{l, q.op, q.right, q.order, q.limit}})
	}
	return out
}

// tlpStmt is a TLP check: base's rows must equal, as a multiset, the rows
// of base WHERE p, WHERE NOT p and WHERE p IS NULL together (with
// DISTINCT, their UNION). base has no WHERE of its own.
type tlpStmt struct {
	base *selectQ
	p    *node
}

func (s tlpStmt) sql(dialect) string { q, _ := s.queries(); return q }

func (s tlpStmt) queries() (whole, parts string) {
	b := *s.base
	b.where = nil
	whole = b.String()
	op := " UNION ALL "
	if b.distinct {
		op = " UNION "
	}
	var ps []string
	for _, w := range []*node{s.p, mk(tBool, "NOT (", s.p, ")"), mk(tBool, "(", s.p, ") IS NULL")} {
		c := b
		c.where = w
		ps = append(ps, c.String())
	}
	return whole, strings.Join(ps, op)
}

func (s tlpStmt) shrink() []stmt {
	var out []stmt
	for _, p := range s.p.simpler() {
		out = append(out, tlpStmt{s.base, p})
	}
	for _, b := range s.base.variants() {
		if b.where == nil {
			out = append(out, tlpStmt{b, s.p})
		}
	}
	return out
}

// norecStmt is a NoREC check: the count of rows of from where p holds,
// as the optimizer computes it in WHERE, must equal the count evaluated
// row by row in the select list, where no optimization applies.
type norecStmt struct {
	from *selectQ // only from is used
	p    *node
}

func (s norecStmt) sql(dialect) string { q, _ := s.queries(); return q }

func (s norecStmt) queries() (opt, unopt string) {
	f := s.from.fromOnly()
	return "SELECT count(*)" + f + " WHERE " + s.p.String(),
		"SELECT sum(CASE WHEN " + s.p.String() + " THEN 1 ELSE 0 END)" + f
}

func (s norecStmt) shrink() []stmt {
	var out []stmt
	for _, p := range s.p.simpler() {
		out = append(out, norecStmt{s.from, p})
	}
	for _, f := range s.from.variants() {
		out = append(out, norecStmt{f, s.p})
	}
	return out
}
