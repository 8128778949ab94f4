package session_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/session"

	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/pgerror"
)

var (
	seedFlag  = flag.Int64("seed", 0, "seed of the randomized differential test (0: from the clock)")
	diffIters = flag.Int("diff.iters", 40, "schemas the differential test generates")
	diffTime  = flag.Duration("diff.time", 15*time.Second, "time bound of the differential test")
)

// seededRand is the random source of a randomized test: from -seed, or
// from the clock, logged so that a failure can be reproduced.
func seededRand(t testing.TB) *rand.Rand {
	seed := *seedFlag
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("seed %d (rerun with -seed %d)", seed, seed)
	return rand.New(rand.NewSource(seed))
}

// TestDifferential generates random tables, rows, indexes and queries and
// checks that every query gives the same rows (the same multiset; the same
// sequence when the query orders by every output column) on:
//
//   - the memory engine with every index (the reference);
//   - the memory engine with no secondary index;
//   - the memory engine with each planner rule disabled in turn (without
//     "vectorize", the row-at-a-time operators; every other store runs
//     batches wherever the rule applies, whatever the table's size);
//   - Pebble with every index;
//   - the memory engine without the simple-protocol query cache.
//
// Random DML runs on all stores between queries and must agree too. At
// the end every store must pass index.Check. Reproduce a failure with the
// printed -seed.
func TestDifferential(t *testing.T) {
	seed := *seedFlag
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("seed %d (rerun with -seed %d)", seed, seed)
	rng := rand.New(rand.NewSource(seed))
	deadline := time.Now().Add(*diffTime)
	queries := 0
	for it := 0; it < *diffIters && time.Now().Before(deadline); it++ {
		queries += runDifferential(t, rng, it)
		if t.Failed() {
			t.Fatalf("failed in schema %d; rerun with -seed %d", it, seed)
		}
	}
	t.Logf("%d queries compared", queries)
}

// diffStore is one configuration under comparison.
type diffStore struct {
	name string
	db   *session.DB
	s    *session.Session
}

func runDifferential(t *testing.T, rng *rand.Rand, it int) int {
	ctx := context.Background()
	g := newSchemaGen(rng, it)
	ddl, indexDDL, inserts := g.generate()

	var stores []*diffStore
	open := func(name string, opts session.Options, withIndexes bool) {
		opts.VectorMinRows = -1 // batches wherever the vectorize rule applies, however small the table
		db, err := session.Open(opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		s, err := db.Session("")
		if err != nil {
			t.Fatal(err)
		}
		stmts := append([]string{}, ddl...)
		if withIndexes {
			stmts = append(stmts, indexDDL...)
		}
		stmts = append(stmts, inserts...)
		for _, q := range stmts {
			if _, err := s.Exec(ctx, q); err != nil {
				t.Fatalf("%s: setup %q: %v", name, q, err)
			}
		}
		stores = append(stores, &diffStore{name: name, db: db, s: s})
	}
	open("memory", session.Options{Memory: true}, true)
	open("memory-no-indexes", session.Options{Memory: true}, false)
	for _, r := range planner.Rules {
		open("memory-without-"+r, session.Options{Memory: true, DisabledRules: map[string]bool{r: true}}, true)
	}
	open("pebble", session.Options{Dir: t.TempDir(), NoSync: true}, true)
	open("memory-without-query-cache", session.Options{Memory: true, NoQueryCache: true}, true)

	n, failed, empty := 0, 0, 0
	var history []string // the DML run so far, for reproducing a failure
	for round := 0; round < 3; round++ {
		for q := 0; q < 25; q++ {
			code, rows := compareQuery(t, ctx, stores, g.query())
			n++
			if code != pgerror.Internal {
				failed++
			} else if rows <= 1 {
				empty++ // only the tag
			}
		}
		for d := 0; d < 3; d++ {
			q := g.dml()
			history = append(history, q.sql)
			compareQuery(t, ctx, stores, q)
		}
	}
	if testing.Verbose() {
		t.Logf("schema %d: %d tables, %d queries: %d failed alike, %d returned no rows", it, len(g.tables), n, failed, empty)
	}
	for _, st := range stores {
		probs, err := index.Check(st.db.Engine(), st.db.Catalog())
		if err != nil {
			t.Fatalf("%s: index.Check: %v", st.name, err)
		}
		for _, p := range probs {
			t.Errorf("%s: index.Check: %s", st.name, p)
		}
	}
	if t.Failed() {
		t.Logf("schema:\n%s;\n%s;\n%s;\nDML:\n%s", strings.Join(ddl, ";\n"), strings.Join(indexDDL, ";\n"),
			strings.Join(inserts, ";\n"), strings.Join(history, ";\n"))
	}
	return n
}

// genQuery is a generated statement and whether its order is total.
type genQuery struct {
	sql     string
	ordered bool // ORDER BY every output column: compare sequences
}

// compareQuery runs q on every store and reports differences from the
// first store.
func compareQuery(t *testing.T, ctx context.Context, stores []*diffStore, q genQuery) (code pgerror.Code, rows int) {
	t.Helper()
	var ref []string
	var refCode pgerror.Code
	for i, st := range stores {
		res, err := st.s.Exec(ctx, q.sql)
		code := pgerror.CodeOf(err) // Internal when err is nil
		var rows []string
		for _, r := range res {
			for _, row := range r.Rows {
				rows = append(rows, formatRow(row))
			}
			rows = append(rows, "tag: "+r.Tag)
		}
		if !q.ordered {
			sort.Strings(rows)
		}
		if err != nil && code == pgerror.Internal {
			t.Errorf("%s: %s: internal error: %v", st.name, q.sql, err)
		}
		if i == 0 {
			ref, refCode = rows, code
			continue
		}
		if code != refCode || strings.Join(rows, "\n") != strings.Join(ref, "\n") {
			t.Errorf("%s differs from %s on\n  %s\ngot (%s, %v):\n  %s\nwant (%s):\n  %s", st.name, stores[0].name, q.sql,
				code, err, strings.Join(rows, "\n  "), refCode, strings.Join(ref, "\n  "))
		}
	}
	return refCode, len(ref)
}

// colGen is a generated column.
type colGen struct {
	name string
	typ  string // INT, TEXT or FLOAT8
	pk   bool
	uniq bool // values distinct (or NULL): fit for a unique index
}

type tableGen struct {
	name string
	cols []colGen
	pk   []int
}

// schemaGen generates one schema and statements over it.
type schemaGen struct {
	rng    *rand.Rand
	tables []*tableGen
	nextID int
}

func newSchemaGen(rng *rand.Rand, it int) *schemaGen {
	return &schemaGen{rng: rng, nextID: it * 100000}
}

var (
	textDomain  = []string{"a", "b", "c", "d", "e", "f"}
	floatDomain = []string{"-1.5", "0.0", "0.25", "1.0", "2.5", "100.75"}
)

// value returns a random literal of typ from a small domain (so values
// repeat), NULL with probability nullP.
func (g *schemaGen) value(typ string, nullP float64) string {
	if g.rng.Float64() < nullP {
		return "NULL"
	}
	switch typ {
	case "INT":
		return fmt.Sprint(g.rng.Intn(10) - 2)
	case "TEXT":
		return "'" + textDomain[g.rng.Intn(len(textDomain))] + "'"
	}
	return floatDomain[g.rng.Intn(len(floatDomain))]
}

func (g *schemaGen) generate() (ddl, indexDDL, inserts []string) {
	types := []string{"INT", "TEXT", "FLOAT8"}
	ntab := 1 + g.rng.Intn(2)
	for ti := 0; ti < ntab; ti++ {
		tb := &tableGen{name: fmt.Sprintf("t%d", ti)}
		ncols := 2 + g.rng.Intn(4)
		for ci := 0; ci < ncols; ci++ {
			typ := types[g.rng.Intn(len(types))]
			if ci == 0 {
				typ = "INT" // every table has an int column to join on
			}
			tb.cols = append(tb.cols, colGen{name: fmt.Sprintf("c%d", ci), typ: typ})
		}
		tb.cols = append(tb.cols, colGen{name: "u", typ: "INT", uniq: true})
		switch g.rng.Intn(3) {
		case 0: // no primary key: a hidden row id
		case 1:
			tb.pk = []int{g.rng.Intn(ncols)}
		default:
			a := g.rng.Intn(ncols)
			b := (a + 1 + g.rng.Intn(ncols-1)) % ncols
			tb.pk = []int{a, b}
		}
		var defs []string
		for i := range tb.cols {
			for _, p := range tb.pk {
				if p == i {
					tb.cols[i].pk = true
				}
			}
			defs = append(defs, tb.cols[i].name+" "+tb.cols[i].typ)
		}
		if len(tb.pk) > 0 {
			var names []string
			for j, p := range tb.pk {
				n := tb.cols[p].name
				if j > 0 && g.rng.Intn(3) == 0 {
					n += " DESC"
				}
				names = append(names, n)
			}
			defs = append(defs, "PRIMARY KEY ("+strings.Join(names, ", ")+")")
		}
		ddl = append(ddl, fmt.Sprintf("CREATE TABLE %s (%s)", tb.name, strings.Join(defs, ", ")))
		g.tables = append(g.tables, tb)
		indexDDL = append(indexDDL, g.indexes(tb)...)
		inserts = append(inserts, g.rows(tb))
	}
	return ddl, indexDDL, inserts
}

// indexes returns CREATE INDEX statements of every form on tb.
func (g *schemaGen) indexes(tb *tableGen) []string {
	var out []string
	n := 1 + g.rng.Intn(4)
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("%s_i%d", tb.name, i)
		c1 := tb.cols[g.rng.Intn(len(tb.cols)-1)].name
		c2 := tb.cols[g.rng.Intn(len(tb.cols)-1)].name
		cols := c1
		if c2 != c1 && g.rng.Intn(2) == 0 {
			cols += ", " + c2
		}
		// Included columns: one or two of the others (the primary key's
		// too), so index-only scans cover more queries, and the DML's
		// updates of only an included column must rewrite the entry.
		inc := tb.cols[g.rng.Intn(len(tb.cols))].name
		if c := tb.cols[g.rng.Intn(len(tb.cols))].name; c != inc && g.rng.Intn(2) == 0 {
			inc += ", " + c
		}
		switch g.rng.Intn(7) {
		case 5:
			out = append(out, fmt.Sprintf("CREATE INDEX %s ON %s (%s) INCLUDE (%s)", name, tb.name, cols, inc))
		case 6:
			out = append(out, fmt.Sprintf("CREATE UNIQUE INDEX %s ON %s (u) INCLUDE (%s)", name, tb.name, inc))
		case 0:
			out = append(out, fmt.Sprintf("CREATE UNIQUE INDEX %s ON %s (u)", name, tb.name))
		case 1:
			out = append(out, fmt.Sprintf("CREATE INDEX %s ON %s USING inverted (%s)", name, tb.name, cols))
		case 2:
			out = append(out, fmt.Sprintf("CREATE INDEX %s ON %s USING keyid (%s)", name, tb.name, cols))
		case 3:
			out = append(out, fmt.Sprintf("CREATE INDEX %s ON %s (%s DESC)", name, tb.name, c1))
		default:
			out = append(out, fmt.Sprintf("CREATE UNIQUE INDEX %s ON %s (u, %s)", name, tb.name, c1))
		}
	}
	return out
}

// rows returns one multi-row INSERT: primary keys distinct, u distinct or
// NULL, other columns from small domains with NULLs and duplicates.
func (g *schemaGen) rows(tb *tableGen) string {
	n := 10 + g.rng.Intn(50)
	seen := map[string]bool{}
	var rows []string
	// Bounded: a small key domain (a FLOAT8 key has 6 values) runs out.
	for attempt := 0; len(rows) < n && attempt < 20*n; attempt++ {
		vals := make([]string, len(tb.cols))
		var key []string
		for i, c := range tb.cols {
			switch {
			case c.uniq:
				g.nextID++
				vals[i] = fmt.Sprint(g.nextID)
				if g.rng.Intn(8) == 0 {
					vals[i] = "NULL"
				}
			case c.pk:
				vals[i] = g.value(c.typ, 0)
				key = append(key, vals[i])
			default:
				vals[i] = g.value(c.typ, 0.2)
			}
		}
		if len(key) > 0 {
			k := strings.Join(key, ",")
			if seen[k] {
				continue
			}
			seen[k] = true
		}
		rows = append(rows, "("+strings.Join(vals, ", ")+")")
	}
	return fmt.Sprintf("INSERT INTO %s VALUES %s", tb.name, strings.Join(rows, ", "))
}

// atom returns a random predicate on a column of tb (qualified by q).
func (g *schemaGen) atom(tb *tableGen, q string) string {
	c := tb.cols[g.rng.Intn(len(tb.cols))]
	col := c.name
	if q != "" {
		col = q + "." + col
	}
	switch g.rng.Intn(8) {
	case 0, 1:
		return fmt.Sprintf("%s = %s", col, g.value(c.typ, 0))
	case 2:
		return fmt.Sprintf("%s < %s", col, g.value(c.typ, 0))
	case 3:
		return fmt.Sprintf("%s >= %s", col, g.value(c.typ, 0))
	case 4:
		a, b := g.value(c.typ, 0), g.value(c.typ, 0)
		return fmt.Sprintf("%s BETWEEN %s AND %s", col, a, b)
	case 5:
		return fmt.Sprintf("%s IN (%s, %s, %s)", col, g.value(c.typ, 0), g.value(c.typ, 0), g.value(c.typ, 0))
	case 6:
		return col + " IS NULL"
	}
	return col + " IS NOT NULL"
}

// pred returns a random WHERE clause body: atoms joined by AND and OR.
func (g *schemaGen) pred(tb *tableGen, q string) string {
	p := g.atom(tb, q)
	for i := g.rng.Intn(3); i > 0; i-- {
		op := " AND "
		if g.rng.Intn(3) == 0 {
			op = " OR "
		}
		p = "(" + p + op + g.atom(tb, q) + ")"
	}
	return p
}

func (g *schemaGen) query() genQuery {
	if len(g.tables) > 1 && g.rng.Intn(3) == 0 {
		return g.joinQuery()
	}
	tb := g.tables[g.rng.Intn(len(g.tables))]
	where := ""
	if g.rng.Intn(6) != 0 {
		where = " WHERE " + g.pred(tb, "")
	}
	if g.rng.Intn(4) == 0 { // aggregates
		c := tb.cols[g.rng.Intn(len(tb.cols))]
		aggs := []string{"count(*)", "count(" + c.name + ")", "min(" + c.name + ")", "max(" + c.name + ")"}
		if c.typ == "INT" {
			aggs = append(aggs, "sum("+c.name+")")
		}
		agg := aggs[g.rng.Intn(len(aggs))]
		if g.rng.Intn(2) == 0 {
			gcol := tb.cols[g.rng.Intn(len(tb.cols))].name
			return genQuery{sql: fmt.Sprintf("SELECT %s, %s FROM %s%s GROUP BY %s ORDER BY 1", gcol, agg, tb.name, where, gcol), ordered: true}
		}
		return genQuery{sql: fmt.Sprintf("SELECT %s FROM %s%s", agg, tb.name, where), ordered: true}
	}
	// Projection: a random non-empty subset of columns.
	var cols []string
	for _, c := range tb.cols {
		if g.rng.Intn(2) == 0 {
			cols = append(cols, c.name)
		}
	}
	if len(cols) == 0 {
		cols = []string{tb.cols[0].name}
	}
	distinct := ""
	if g.rng.Intn(5) == 0 {
		distinct = "DISTINCT "
	}
	sql := fmt.Sprintf("SELECT %s%s FROM %s%s", distinct, strings.Join(cols, ", "), tb.name, where)
	if g.rng.Intn(2) == 0 {
		return genQuery{sql: sql}
	}
	// A total order: every output column, each in a random direction.
	var keys []string
	for _, i := range g.rng.Perm(len(cols)) {
		k := cols[i]
		if g.rng.Intn(2) == 0 {
			k += " DESC"
		}
		keys = append(keys, k)
	}
	sql += " ORDER BY " + strings.Join(keys, ", ")
	if g.rng.Intn(2) == 0 {
		sql += fmt.Sprintf(" LIMIT %d", 1+g.rng.Intn(10))
		if g.rng.Intn(3) == 0 {
			sql += fmt.Sprintf(" OFFSET %d", g.rng.Intn(5))
		}
	}
	return genQuery{sql: sql, ordered: true}
}

// joinQuery joins the first two tables on their int columns c0 (and
// sometimes on u).
func (g *schemaGen) joinQuery() genQuery {
	a, b := g.tables[0], g.tables[1]
	on := "a.c0 = b.c0"
	if g.rng.Intn(3) == 0 {
		on = "a.u = b.c0"
	}
	join := "JOIN"
	if g.rng.Intn(4) == 0 {
		join = "LEFT JOIN"
	}
	ca := a.cols[g.rng.Intn(len(a.cols))].name
	cb := b.cols[g.rng.Intn(len(b.cols))].name
	sql := fmt.Sprintf("SELECT a.%s, b.%s FROM %s a %s %s b ON %s", ca, cb, a.name, join, b.name, on)
	switch g.rng.Intn(3) {
	case 0:
		sql += " WHERE " + g.pred(a, "a")
	case 1:
		sql += " WHERE " + g.pred(b, "b")
	}
	if g.rng.Intn(2) == 0 {
		return genQuery{sql: sql + " ORDER BY 1, 2", ordered: true}
	}
	return genQuery{sql: sql}
}

// dml returns a random UPDATE or DELETE (its tag must agree everywhere).
func (g *schemaGen) dml() genQuery {
	tb := g.tables[g.rng.Intn(len(g.tables))]
	if g.rng.Intn(3) == 0 {
		return genQuery{sql: fmt.Sprintf("DELETE FROM %s WHERE %s", tb.name, g.pred(tb, ""))}
	}
	c := tb.cols[g.rng.Intn(len(tb.cols))]
	val := g.value(c.typ, 0.2)
	if c.uniq {
		// Negation keeps u distinct whatever the row order (the stores
		// without indexes have no unique index to enforce it).
		val = "-" + c.name
	}
	if c.pk {
		val = g.value(c.typ, 0) // may collide: a 23505 everywhere
	}
	return genQuery{sql: fmt.Sprintf("UPDATE %s SET %s = %s WHERE %s", tb.name, c.name, val, g.pred(tb, ""))}
}
