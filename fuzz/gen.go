package fuzz

import (
	"fmt"
	"math/rand"
	"strings"
)

// column is a table's or view's column as the generator knows it.
type column struct {
	name  string
	t     typ
	fixed bool // part of the primary key or a UNIQUE constraint: UPDATE leaves it alone
}

// table is a generated table or view.
type table struct {
	name string
	cols []column
	view bool
	next int // next primary key value to insert
}

// gen generates one case: a schema, its data, and statements over it. All
// of its choices come from r, so a case is replayed from its seed.
type gen struct {
	r      *rand.Rand
	tables []*table
	alias  int  // numbers the aliases of one statement
	avoid  bool // leave out what knownIssues names
}

func newGen(seed int64, avoid bool) *gen {
	return &gen{r: rand.New(rand.NewSource(seed)), avoid: avoid}
}

func (g *gen) pick(n int) int        { return g.r.Intn(n) }
func (g *gen) chance(p float64) bool { return g.r.Float64() < p }
func pickOf[T any](g *gen, xs []T) T { return xs[g.r.Intn(len(xs))] }

// Literal pools: duplicates and boundary values on purpose.
var (
	intLits    = []string{"0", "1", "-1", "2", "3", "5", "7", "10", "42", "100", "-100", "2147483647", "-2147483648"}
	bigintLits = []string{"0", "1", "-1", "3", "10", "3000000000", "-3000000000", "9223372036854775807", "-9223372036854775807"}
	floatLits  = []string{"0", "1.5", "-2.25", "0.1", "3.14159", "1000000", "-0.001", "100", "'NaN'", "'Infinity'", "'-Infinity'", "-0"}
	textLits   = []string{"''", "'a'", "'b'", "'A'", "'ab'", "'abc'", "'a%b'", "'a_c'", "' a'", "'z'", "'hello world'", "'O''Brien'", "'10'"}
	likePats   = []string{"'a%'", "'%b%'", "'_'", "'a_'", "'%'", "''", "'A%'", "'a\\%%'", "'%c'", "'_b%'"}
)

// value returns a literal of type t as it appears in VALUES or SET.
func (g *gen) value(t typ, nulls bool) string {
	if nulls && g.chance(0.12) {
		return "NULL"
	}
	switch t {
	case tInt:
		return pickOf(g, intLits)
	case tBigint:
		return pickOf(g, bigintLits)
	case tFloat:
		return pickOf(g, floatLits)
	case tText:
		return pickOf(g, textLits)
	}
	return pickOf(g, []string{"TRUE", "FALSE"})
}

// literal returns a literal of type t usable anywhere in an expression.
func (g *gen) literal(t typ) *node {
	if g.chance(0.08) {
		return leaf(t, "CAST(NULL AS "+t.String()+")")
	}
	v := g.value(t, false)
	switch t {
	case tFloat:
		return leaf(t, "CAST("+v+" AS DOUBLE PRECISION)")
	case tBigint:
		return leaf(t, "CAST("+v+" AS BIGINT)")
	}
	return leaf(t, v)
}

// schema generates the case's tables, indexes and views.
func (g *gen) schema() []stmt {
	var out []stmt
	ntab := 2 + g.pick(2)
	allTypes := []typ{tInt, tBigint, tFloat, tText, tBool}
	for i := 0; i < ntab; i++ {
		t := &table{name: fmt.Sprintf("t%d", i)}
		ncol := 2 + g.pick(4)
		var defs []string
		pk := g.chance(0.75)
		for j := 0; j < ncol; j++ {
			c := column{name: fmt.Sprintf("c%d", j), t: pickOf(g, allTypes)}
			if j == 0 && pk {
				c.t = pickOf(g, []typ{tInt, tInt, tBigint, tText})
				c.fixed = true
			}
			def := c.name + " " + c.t.String()
			switch {
			case j == 0 && pk:
				def += " PRIMARY KEY"
			case j > 0 && c.t != tBool && g.chance(0.12):
				def += " UNIQUE"
				c.fixed = true
			case j > 0 && g.chance(0.1):
				def += " NOT NULL"
			}
			t.cols = append(t.cols, c)
			defs = append(defs, def)
		}
		g.tables = append(g.tables, t)
		out = append(out, raw(fmt.Sprintf("CREATE TABLE %s (%s)", t.name, strings.Join(defs, ", "))))
		for k := g.pick(3); k > 0; k-- {
			out = append(out, g.createIndex(t, len(out)))
		}
	}
	for i := 0; i < 3; i++ {
		out = append(out, g.insert(pickOf(g, g.tables), 3+g.pick(10)))
	}
	if g.chance(0.5) {
		out = append(out, g.view())
	}
	return out
}

// createIndex makes an index on one or two columns of t. kvsql gets a
// method (btree, keyid, inverted) or UNIQUE; PostgreSQL, lacking kvsql's
// methods, gets the plain index.
func (g *gen) createIndex(t *table, n int) stmt {
	c := pickOf(g, t.cols)
	cols := c.name
	if len(t.cols) > 1 && g.chance(0.3) {
		if d := pickOf(g, t.cols); d.name != c.name {
			cols += ", " + d.name
		}
	}
	name := fmt.Sprintf("i%d_%s", n, t.name)
	plain := fmt.Sprintf("CREATE INDEX %s ON %s (%s)", name, t.name, cols)
	switch g.pick(4) {
	case 0:
		return rawStmt{fmt.Sprintf("CREATE INDEX %s ON %s USING keyid (%s)", name, t.name, cols), plain}
	case 1:
		return rawStmt{fmt.Sprintf("CREATE INDEX %s ON %s USING inverted (%s)", name, t.name, c.name),
			fmt.Sprintf("CREATE INDEX %s ON %s (%s)", name, t.name, c.name)}
	}
	return raw(plain)
}

// insert makes one multi-row INSERT into t.
func (g *gen) insert(t *table, rows int) stmt {
	s := insertStmt{table: t.name}
	for _, c := range t.cols {
		s.cols = append(s.cols, c.name)
	}
	for i := 0; i < rows; i++ {
		var r []string
		for j, c := range t.cols {
			v := g.value(c.t, !c.fixed || j > 0)
			if j == 0 && c.fixed && !g.chance(0.05) { // mostly fresh keys, sometimes a duplicate
				t.next++
				switch c.t {
				case tText:
					v = fmt.Sprintf("'k%d'", t.next)
				default:
					v = fmt.Sprint(t.next)
				}
			}
			r = append(r, v)
		}
		s.rows = append(s.rows, r)
	}
	return s
}

// view makes a view over one table.
func (g *gen) view() stmt {
	t := pickOf(g, g.tables)
	v := &table{name: "v0", view: true}
	g.alias = 0
	sc := g.scopeOf(t, "b")
	var items []string
	for i, c := range sc {
		if i == 0 || g.chance(0.6) {
			v.cols = append(v.cols, column{name: fmt.Sprintf("c%d", len(v.cols)), t: c.t})
			items = append(items, c.ref+" AS "+v.cols[len(v.cols)-1].name)
		}
	}
	q := fmt.Sprintf("CREATE VIEW v0 AS SELECT %s FROM %s AS b", strings.Join(items, ", "), t.name)
	if g.chance(0.7) {
		q += " WHERE " + g.pred(sc, 2).String()
	}
	g.tables = append(g.tables, v)
	return raw(q)
}

// scol is a column in scope: its qualified reference and type.
type scol struct {
	ref  string
	t    typ
	view bool // a view's column
}

func (g *gen) scopeOf(t *table, alias string) []scol {
	var sc []scol
	for _, c := range t.cols {
		sc = append(sc, scol{alias + "." + c.name, c.t, t.view})
	}
	return sc
}

func (g *gen) newAlias() string { g.alias++; return fmt.Sprintf("a%d", g.alias) }

// colOf returns a column of sc compatible with t, or nil.
func (g *gen) colOf(sc []scol, t typ, exact bool) *node {
	var cands []scol
	for _, c := range sc {
		if c.t == t || !exact && compatible(c.t, t) {
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	c := pickOf(g, cands)
	return leaf(c.t, c.ref)
}

// expr returns an expression of type t (numeric types may be widened by
// arithmetic: the result's t says which) over the columns of sc.
func (g *gen) expr(sc []scol, t typ, depth int) *node {
	if t == tBool {
		return g.pred(sc, depth)
	}
	if depth <= 0 || g.chance(0.45) {
		if c := g.colOf(sc, t, true); c != nil && g.chance(0.8) {
			return c
		}
		return g.literal(t)
	}
	switch g.pick(7) {
	case 0:
		return mk(t, "COALESCE(", g.expr(sc, t, depth-1), ", ", g.expr(sc, t, depth-1), ")")
	case 1:
		return mk(t, "CASE WHEN ", g.pred(sc, depth-1), " THEN ", g.expr(sc, t, depth-1), " ELSE ", g.expr(sc, t, depth-1), " END")
	case 2:
		if sub := g.scalarSubquery(sc, t, depth-1); sub != nil {
			return sub
		}
	}
	switch t {
	case tInt, tBigint:
		switch g.pick(4) {
		case 0:
			return mk(t, "(", g.expr(sc, t, depth-1), " + ", g.expr(sc, t, depth-1), ")")
		case 1:
			return mk(t, "(", g.expr(sc, t, depth-1), " - ", pickOf(g, []string{"1", "3", "100"}), ")")
		case 2:
			return mk(t, "(", g.expr(sc, t, depth-1), pickOf(g, []string{" / ", " % "}), pickOf(g, []string{"2", "3", "-7"}), ")")
		}
		return mk(t, "abs(", g.expr(sc, t, depth-1), ")")
	case tFloat:
		switch g.pick(3) {
		case 0:
			return mk(t, "(", g.expr(sc, t, depth-1), " * ", g.expr(sc, tFloat, depth-1), ")")
		case 1:
			return mk(t, "(", g.expr(sc, t, depth-1), " + ", g.expr(sc, pickOf(g, []typ{tInt, tFloat}), depth-1), ")")
		}
		return mk(t, "(", g.expr(sc, t, depth-1), " / ", pickOf(g, []string{"2", "4.0", "-8"}), ")")
	case tText:
		switch g.pick(3) {
		case 0:
			return mk(t, "(", g.expr(sc, t, depth-1), " || ", g.expr(sc, t, depth-1), ")")
		case 1:
			return mk(t, pickOf(g, []string{"upper(", "lower("}), g.expr(sc, t, depth-1), ")")
		}
		return mk(t, "substr(", g.expr(sc, t, depth-1), ", 1, 2)")
	}
	return g.literal(t)
}

// pred returns a boolean expression over sc.
func (g *gen) pred(sc []scol, depth int) *node {
	if depth <= 0 {
		return g.compare(sc, 0)
	}
	switch g.pick(12) {
	case 0, 1:
		return mk(tBool, "(", g.pred(sc, depth-1), pickOf(g, []string{" AND ", " OR "}), g.pred(sc, depth-1), ")")
	case 2:
		return mk(tBool, "NOT (", g.pred(sc, depth-1), ")")
	case 3:
		t := g.anyType(sc)
		return mk(tBool, "(", g.expr(sc, t, depth-1), pickOf(g, []string{" IS NULL", " IS NOT NULL"}), ")")
	case 4:
		t := g.anyType(sc)
		parts := []any{"(", g.expr(sc, t, depth-1), pickOf(g, []string{" IN (", " NOT IN ("})}
		for i, n := 0, 1+g.pick(4); i < n; i++ {
			if i > 0 {
				parts = append(parts, ", ")
			}
			parts = append(parts, g.literal(t))
		}
		return mk(tBool, append(parts, "))")...)
	case 5:
		t := pickOf(g, []typ{tInt, tBigint, tFloat, tText})
		return mk(tBool, "(", g.expr(sc, t, depth-1), pickOf(g, []string{" BETWEEN ", " NOT BETWEEN "}), g.literal(t), " AND ", g.literal(t), ")")
	case 6:
		return mk(tBool, "(", g.expr(sc, tText, depth-1), pickOf(g, []string{" LIKE ", " NOT LIKE "}), leaf(tText, pickOf(g, likePats)), ")")
	case 7:
		if s := g.subqueryPred(sc, depth-1); s != nil {
			return s
		}
	case 8:
		t := g.anyType(sc)
		return mk(tBool, "(", g.expr(sc, t, depth-1), pickOf(g, []string{" IS DISTINCT FROM ", " IS NOT DISTINCT FROM "}), g.expr(sc, t, depth-1), ")")
	}
	return g.compare(sc, depth-1)
}

// anyType returns the type of a column in scope (or any type).
func (g *gen) anyType(sc []scol) typ {
	if len(sc) > 0 && g.chance(0.9) {
		return pickOf(g, sc).t
	}
	return typ(g.pick(5))
}

// compare returns a comparison of two expressions of compatible types.
func (g *gen) compare(sc []scol, depth int) *node {
	t := g.anyType(sc)
	if t == tBool && g.chance(0.5) {
		if c := g.colOf(sc, tBool, true); c != nil {
			return c
		}
	}
	op := pickOf(g, []string{" = ", " <> ", " < ", " <= ", " > ", " >= "})
	r := t
	if t.numeric() {
		r = pickOf(g, []typ{tInt, tBigint, tFloat})
	}
	return mk(tBool, "(", g.expr(sc, t, depth), op, g.expr(sc, r, depth), ")")
}

// subqueryPred returns EXISTS or IN over another table, often correlated
// with sc.
func (g *gen) subqueryPred(sc []scol, depth int) *node {
	t := pickOf(g, g.tables)
	a := g.newAlias()
	from, inner := g.subFrom(t, a, sc)
	all := append(append([]scol(nil), inner...), sc...)
	var where *node
	if g.chance(0.8) {
		where = g.pred(all, depth)
	} else {
		where = leaf(tBool, "TRUE")
	}
	if g.chance(0.5) {
		return mk(tBool, pickOf(g, []string{"EXISTS (", "NOT EXISTS ("}), "SELECT 1 FROM ", from, " WHERE ", where, ")")
	}
	c := pickOf(g, inner)
	lhs := g.expr(sc, c.t, depth)
	return mk(tBool, "(", lhs, pickOf(g, []string{" IN (", " NOT IN ("}), "SELECT "+c.ref+" FROM ", from, " WHERE ", where, "))")
}

// subFrom returns a subquery's FROM over table t as alias a, and its
// scope: the table, or often something that also reads the enclosing
// scope sc: a derived table filtered by it, or a join whose ON reads it.
func (g *gen) subFrom(t *table, a string, sc []scol) (*node, []scol) {
	inner := g.scopeOf(t, a)
	switch {
	case len(sc) > 0 && g.chance(0.15):
		a2 := g.newAlias()
		both := append(g.scopeOf(t, a2), sc...)
		return mk(tFrom, "(SELECT * FROM "+t.name+" AS "+a2+" WHERE ", g.pred(both, 1), ") AS "+a), inner
	case len(sc) > 0 && g.chance(0.15):
		t2 := pickOf(g, g.tables)
		b := g.newAlias()
		second := g.scopeOf(t2, b)
		on := append(append(append([]scol(nil), inner...), second...), sc...)
		join := pickOf(g, []string{" JOIN ", " LEFT JOIN "})
		return mk(tFrom, t.name+" AS "+a+join+t2.name+" AS "+b+" ON ", g.pred(on, 1)), append(inner, second...)
	}
	return leaf(tFrom, t.name+" AS "+a), inner
}

// scalarSubquery returns a subquery yielding one value of type t: an
// aggregate over another table, often correlated with sc.
func (g *gen) scalarSubquery(sc []scol, t typ, depth int) *node {
	tb := pickOf(g, g.tables)
	a := g.newAlias()
	from, inner := g.subFrom(tb, a, sc)
	all := append(append([]scol(nil), inner...), sc...)
	where := g.pred(all, depth)
	switch {
	case t == tBigint && g.chance(0.4):
		return mk(t, "(SELECT count(*) FROM ", from, " WHERE ", where, ")")
	default:
		c := g.colOf(inner, t, true)
		if c == nil {
			return nil
		}
		return mk(t, "(SELECT "+pickOf(g, []string{"max", "min"})+"(", c, ") FROM ", from, " WHERE ", where, ")")
	}
}

// from returns a FROM clause of one to three tables and its scope.
func (g *gen) from() ([]fromItem, []scol) {
	var items []fromItem
	var sc, visible []scol // visible: what an ON may see, the tables since the last comma
	n := 1 + g.pick(3)
	if g.chance(0.4) {
		n = 1
	}
	for i := 0; i < n; i++ {
		t := pickOf(g, g.tables)
		a := g.newAlias()
		tsc := g.scopeOf(t, a)
		f := fromItem{table: t.name, alias: a}
		if i > 0 {
			f.join = pickOf(g, []string{"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "CROSS JOIN", ",", "JOIN", "LEFT JOIN"})
			if f.join == "," {
				visible = nil
			}
			if f.join != "RIGHT JOIN" && f.join != "FULL JOIN" && g.chance(0.1) {
				// A LATERAL subquery reading the items before it.
				a2 := g.newAlias()
				inner := append(g.scopeOf(t, a2), sc...)
				f.table = "LATERAL (SELECT * FROM " + t.name + " AS " + a2 + " WHERE " + g.pred(inner, 1).String() + ")"
			}
			if f.join != "CROSS JOIN" && f.join != "," {
				both := append(append([]scol(nil), visible...), tsc...)
				var on *node
				l := pickOf(g, tsc)
				if r := g.colOf(visible, l.t, false); r != nil && (g.chance(0.8) || f.join == "FULL JOIN") {
					on = mk(tBool, "(", leaf(l.t, l.ref), " = ", r, ")")
					// Columns of one name may join by USING instead.
					if name := colName(l.ref); name == colName(r.String()) && g.chance(0.4) {
						f.using = name
					}
					// PostgreSQL runs FULL JOIN only on equalities.
					if f.join != "FULL JOIN" && g.chance(0.3) {
						on = mk(tBool, "(", on, " AND ", g.pred(both, 1), ")")
					}
				} else if f.join == "FULL JOIN" {
					f.join = "JOIN"
					on = g.pred(both, 1)
				} else {
					on = g.pred(both, 1)
				}
				if f.using == "" {
					f.on = on
				}
			}
		}
		items = append(items, f)
		sc = append(sc, tsc...)
		visible = append(visible, tsc...)
	}
	return items, sc
}

// selectQ returns a SELECT: plain, aggregate or grouped. With types
// non-nil, its items have those types (for a set operation's right side)
// and it is plain.
func (g *gen) selectQ(types []typ) *selectQ {
	given := types
	from, sc := g.from()
	q := &selectQ{from: from, limit: -1}
	if g.chance(0.7) {
		q.where = g.pred(sc, 3)
	}
	mode := g.pick(4)
	if types != nil {
		mode = 0
	}
	switch mode {
	case 0, 1: // plain
		if types == nil {
			for i, n := 0, 1+g.pick(4); i < n; i++ {
				types = append(types, g.anyType(sc))
			}
		}
		for _, t := range types {
			if g.chance(0.7) {
				if c := g.colOf(sc, t, true); c != nil {
					q.items = append(q.items, c)
					continue
				}
			}
			q.items = append(q.items, g.expr(sc, t, 2))
		}
		if given == nil && g.chance(0.15) {
			q.items = append(q.items, g.window(sc))
		}
		q.distinct = g.chance(0.2)
	case 2: // grouped
		var keys []scol
		for i, n := 0, 1+g.pick(2); i < n; i++ {
			c := pickOf(g, sc)
			keys = append(keys, c)
			q.groupBy = append(q.groupBy, leaf(c.t, c.ref))
			q.items = append(q.items, leaf(c.t, c.ref))
		}
		q.items = append(q.items, g.aggregates(sc)...)
		if g.chance(0.1) {
			q.sets = pickOf(g, []string{"ROLLUP", "CUBE"})
		}
		// Subqueries above the grouping may read the group keys.
		if g.chance(0.25) {
			if sq := g.scalarSubquery(keys, pickOf(g, []typ{tInt, tBigint, tText}), 1); sq != nil {
				q.items = append(q.items, sq)
			}
		}
		if g.chance(0.4) {
			q.having = g.havingPred(q.items[len(q.groupBy):], sc)
			if g.chance(0.3) {
				q.having = mk(tBool, "(", q.having, pickOf(g, []string{" AND ", " OR "}), g.subqueryPred(keys, 1), ")")
			}
		}
	default: // aggregates over everything
		q.items = g.aggregates(sc)
	}
	if g.chance(0.4) {
		q.order = true
		if g.chance(0.6) && q.sets == "" { // see query.ordered
			q.limit = g.pick(6)
		}
	}
	return q
}

// aggregates returns one to three aggregate calls over sc.
func (g *gen) aggregates(sc []scol) []*node {
	var out []*node
	for i, n := 0, 1+g.pick(3); i < n; i++ {
		c := pickOf(g, sc)
		ref := leaf(c.t, c.ref)
		switch g.pick(6) {
		case 0:
			out = append(out, leaf(tBigint, "count(*)"))
		case 1:
			out = append(out, mk(tBigint, "count(", ref, ")"))
		case 2:
			if c.t.numeric() {
				out = append(out, mk(tFloat, "sum(", ref, ")"))
				continue
			}
			out = append(out, mk(tBigint, "count(DISTINCT ", ref, ")"))
		case 3:
			if c.t.numeric() {
				out = append(out, mk(tFloat, "avg(", ref, ")"))
				continue
			}
			if c.t == tBool { // PostgreSQL has no min(boolean)
				out = append(out, mk(tBigint, "count(", ref, ")"))
				continue
			}
			out = append(out, mk(c.t, "min(", ref, ")"))
		case 4:
			if c.t == tBool {
				out = append(out, mk(tBool, pickOf(g, []string{"bool_and(", "bool_or("}), ref, ")"))
				continue
			}
			out = append(out, mk(c.t, "min(", ref, ")"))
		default:
			if c.t == tBool {
				out = append(out, mk(tBigint, "count(", ref, ")"))
				continue
			}
			out = append(out, mk(c.t, "max(", ref, ")"))
		}
	}
	return out
}

// havingPred compares aggregates with literals.
func (g *gen) havingPred(aggs []*node, sc []scol) *node {
	a := pickOf(g, aggs)
	t := a.t
	if t == tBool {
		return a
	}
	p := mk(tBool, "(", a, pickOf(g, []string{" = ", " <> ", " < ", " > ", " >= "}), g.literal(t), ")")
	if g.chance(0.3) {
		p = mk(tBool, "(", p, pickOf(g, []string{" AND ", " OR "}), "(count(*) > ", pickOf(g, []string{"0", "1", "2"}), "))")
	}
	return p
}

// query returns a SELECT, or a set operation of two.
func (g *gen) query() *query {
	g.alias = 0
	l := g.selectQ(nil)
	if g.chance(0.75) {
		g.withQueries(l)
		return &query{left: l, limit: -1}
	}
	l.order, l.limit = false, -1
	var types []typ
	for _, it := range l.items {
		types = append(types, it.t)
	}
	r := g.selectQ(types)
	r.order, r.limit = false, -1
	q := &query{left: l, right: r, limit: -1,
		op: pickOf(g, []string{"UNION", "UNION ALL", "INTERSECT", "INTERSECT ALL", "EXCEPT", "EXCEPT ALL"})}
	if g.chance(0.3) {
		q.order = true
		if g.chance(0.5) {
			q.limit = g.pick(5)
		}
	}
	return q
}

// withQueries turns some of q's tables into WITH queries over them (the
// same columns, some rows filtered out), named after their alias.
func (g *gen) withQueries(q *selectQ) {
	for i := range q.from {
		f := &q.from[i]
		if !g.chance(0.15) {
			continue
		}
		var t *table
		for _, c := range g.tables {
			if c.name == f.table {
				t = c
			}
		}
		if t == nil {
			continue
		}
		name := "w" + f.alias
		def := "SELECT * FROM " + t.name + " AS x"
		if g.chance(0.6) {
			def += " WHERE " + g.pred(g.scopeOf(t, "x"), 1).String()
		}
		q.with = append(q.with, name+" AS ("+def+")")
		f.table = name
	}
}

// window returns a window function call over sc whose value does not
// depend on the order of rows the window leaves undecided (ties).
func (g *gen) window(sc []scol) *node {
	p, o := pickOf(g, sc), pickOf(g, sc)
	part := "PARTITION BY " + p.ref
	switch g.pick(6) {
	case 0:
		return leaf(tBigint, "count(*) OVER ("+part+")")
	case 1:
		return leaf(tBigint, "rank() OVER ("+part+" ORDER BY "+o.ref+")")
	case 2:
		return leaf(tBigint, "dense_rank() OVER (ORDER BY "+o.ref+" DESC)")
	case 3:
		if o.t == tBool {
			return leaf(tBigint, "count("+o.ref+") OVER (ORDER BY "+p.ref+")")
		}
		return leaf(o.t, pickOf(g, []string{"max", "min"})+"("+o.ref+") OVER ("+part+")")
	case 4:
		if o.t == tInt {
			return leaf(tBigint, "sum("+o.ref+") OVER ("+part+")")
		}
		return leaf(tBigint, "count("+o.ref+") OVER ("+part+")")
	}
	if o.t == tBool {
		return leaf(tBigint, "count(*) OVER ()")
	}
	return leaf(o.t, pickOf(g, []string{"max", "min"})+"("+o.ref+") OVER (ORDER BY "+p.ref+")")
}

// tlp returns a TLP check over a fresh SELECT without WHERE, GROUP BY or
// LIMIT.
func (g *gen) tlp() tlpStmt {
	g.alias = 0
	from, sc := g.from()
	q := &selectQ{from: from, limit: -1, distinct: g.chance(0.3)}
	for i, n := 0, 1+g.pick(3); i < n; i++ {
		c := pickOf(g, sc)
		q.items = append(q.items, leaf(c.t, c.ref))
	}
	return tlpStmt{base: q, p: g.pred(sc, 3)}
}

// norec returns a NoREC check.
func (g *gen) norec() norecStmt {
	g.alias = 0
	from, sc := g.from()
	return norecStmt{from: &selectQ{from: from, limit: -1}, p: g.pred(sc, 3)}
}

// write returns a DML statement on a base table.
func (g *gen) write() stmt {
	var bases []*table
	for _, t := range g.tables {
		if !t.view {
			bases = append(bases, t)
		}
	}
	t := pickOf(g, bases)
	g.alias = 0
	sc := g.scopeOf(t, t.name)
	switch g.pick(4) {
	case 0:
		return g.insert(t, 1+g.pick(5))
	case 1:
		return deleteStmt{t.name, g.pred(sc, 2)}
	}
	var free []column
	for _, c := range t.cols {
		if !c.fixed {
			free = append(free, c)
		}
	}
	if len(free) == 0 {
		return deleteStmt{t.name, g.pred(sc, 2)}
	}
	c := pickOf(g, free)
	var where *node
	if g.chance(0.85) {
		where = g.pred(sc, 2)
	}
	return updateStmt{t.name, c.name, g.expr(sc, c.t, 2), where}
}

// contents returns, for each base table, the query that reads all of it
// in a total order, to compare after a write round.
func (g *gen) contents() []stmt {
	var out []stmt
	for _, t := range g.tables {
		if t.view {
			continue
		}
		q := &selectQ{from: []fromItem{{table: t.name, alias: "x"}}, order: true, limit: -1}
		for _, c := range t.cols {
			q.items = append(q.items, leaf(c.t, "x."+c.name))
		}
		out = append(out, queryStmt{&query{left: q, limit: -1}})
	}
	return out
}

// colName is the column name of a qualified reference alias.column.
func colName(ref string) string {
	if i := strings.LastIndexByte(ref, '.'); i >= 0 {
		return ref[i+1:]
	}
	return ref
}
