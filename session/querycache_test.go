package session_test

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/session"
)

// queryCacheTypes are the column types the query-cache test compares
// integer constants with: an int4 parameter must behave as the int4
// constant it stands for against each of them, errors included.
var queryCacheTypes = []string{"INT2", "INT4", "INT8", "NUMERIC(10,2)", "FLOAT8", "TEXT", "BOOL", "VARCHAR(10)", "DATE"}

// queryCacheInts are the constants the test writes: small ones, and each
// side of int2's and int4's ranges.
var queryCacheInts = []string{"0", "1", "2", "3", "7", "00042", "32767", "32768", "65536", "2147483647", "2147483648", "99999999999"}

// TestQueryCache runs random single-table SELECTs whose WHERE compares
// columns of every type with integer constants (so the query cache
// lifts them: parse.LiftLiterals) on two stores holding the same random
// rows, one with the cache and one without (Options.NoQueryCache), and
// requires the same rows or the same error (SQLSTATE and message) from
// both. Between rounds it changes what a cached plan depends on — a
// column added, the table dropped and made again with other types, the
// search path, TimeZone — and the answers must still agree. Reproduce a
// failure with the printed -seed.
func TestQueryCache(t *testing.T) {
	seed := *seedFlag
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("seed %d (rerun with -seed %d)", seed, seed)
	rng := rand.New(rand.NewSource(seed))
	ctx := context.Background()
	var stores [2]*diffStore
	for i, opts := range []session.Options{{Memory: true}, {Memory: true, NoQueryCache: true}} {
		db, err := session.Open(opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		s, err := db.Session("")
		if err != nil {
			t.Fatal(err)
		}
		stores[i] = &diffStore{name: []string{"cached", "uncached"}[i], db: db, s: s}
	}
	both := func(sql string) {
		t.Helper()
		for _, st := range stores {
			if _, err := st.s.Exec(ctx, sql); err != nil {
				t.Fatalf("%s: %s: %v", st.name, sql, err)
			}
		}
	}
	var cols []string // name and type of t's columns
	makeTable := func(schema string) {
		cols = cols[:0]
		var defs []string
		for i := 0; i < 4; i++ {
			typ := queryCacheTypes[rng.Intn(len(queryCacheTypes))]
			cols = append(cols, fmt.Sprintf("c%d", i))
			defs = append(defs, fmt.Sprintf("c%d %s", i, typ))
		}
		both(fmt.Sprintf("CREATE TABLE %s.t (id INT PRIMARY KEY, %s)", schema, strings.Join(defs, ", ")))
		for id := 0; id < 30; id++ {
			vals := []string{fmt.Sprint(id)}
			for range cols {
				switch rng.Intn(5) {
				case 0:
					vals = append(vals, "NULL")
				default:
					vals = append(vals, fmt.Sprintf("'%d'", rng.Intn(10)))
				}
			}
			// A value the column's type refuses fails on both stores alike.
			sql := fmt.Sprintf("INSERT INTO %s.t VALUES (%s)", schema, strings.Join(vals, ", "))
			for _, st := range stores {
				_, _ = st.s.Exec(ctx, sql)
			}
		}
	}
	query := func() string {
		var conds []string
		for i := 1 + rng.Intn(2); i > 0; i-- {
			col := append([]string{"id"}, cols...)[rng.Intn(len(cols)+1)]
			op := []string{"=", "<", ">=", "<>", "!=", "<=", ">"}[rng.Intn(7)]
			conds = append(conds, fmt.Sprintf("%s %s %s", col, op, queryCacheInts[rng.Intn(len(queryCacheInts))]))
		}
		join := " AND "
		if rng.Intn(3) == 0 {
			join = " OR "
		}
		return fmt.Sprintf("SELECT id, %s FROM t WHERE %s ORDER BY id", strings.Join(cols, ", "), strings.Join(conds, join))
	}
	run := func(sql string) {
		t.Helper()
		var ref string
		for i, st := range stores {
			res, err := st.s.Exec(ctx, sql)
			got := ""
			if err != nil {
				got = fmt.Sprintf("error %s: %v", pgerror.CodeOf(err), err)
			}
			for _, r := range res {
				for _, row := range r.Rows {
					got += formatRow(row) + "\n"
				}
				got += r.Tag
			}
			if i == 0 {
				ref = got
			} else if got != ref {
				t.Errorf("%s\ncached:\n%s\nuncached:\n%s", sql, ref, got)
			}
		}
	}
	both("CREATE SCHEMA other")
	makeTable("public")
	for round := 0; round < 6; round++ {
		for q := 0; q < 60; q++ {
			run(query())
		}
		switch round {
		case 0:
			both("ALTER TABLE t ADD COLUMN extra INT DEFAULT 5")
			cols = append(cols, "extra")
		case 1:
			both("DROP TABLE t")
			makeTable("public")
		case 2:
			makeTable("other")
			both("SET search_path = other, public")
		case 3:
			both("SET TimeZone = 'Asia/Tokyo'")
		case 4:
			both("RESET search_path")
			both("DROP TABLE public.t")
			makeTable("public")
		}
		if t.Failed() {
			t.Fatalf("round %d; rerun with -seed %d", round, seed)
		}
	}
}

// TestQueryCacheHits checks that queries differing only in their integer
// constants share one cached plan, and that a setting change empties
// the cache.
func TestQueryCacheHits(t *testing.T) {
	db, err := session.Open(session.Options{Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.Session("")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := s.Exec(ctx, "CREATE TABLE a (aid INT PRIMARY KEY, abalance INT); INSERT INTO a VALUES (1, 10), (2, 20), (3, 30)"); err != nil {
		t.Fatal(err)
	}
	for aid, want := range map[int]string{1: "10", 2: "20", 3: "30", 4: ""} {
		res, err := s.Exec(ctx, fmt.Sprintf("SELECT abalance FROM a WHERE aid = %d;", aid))
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if len(res[0].Rows) == 1 {
			got = res[0].Rows[0][0].String()
		}
		if got != want || res[0].Tag != fmt.Sprintf("SELECT %d", len(res[0].Rows)) {
			t.Errorf("aid %d: %q (%s), want %q", aid, got, res[0].Tag, want)
		}
	}
	if n := s.CachedQueries(); n != 1 {
		t.Errorf("%d cached queries after four of one shape, want 1", n)
	}
	if _, err := s.Exec(ctx, "SET work_mem = '8MB'"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Exec(ctx, "SELECT abalance FROM a WHERE aid = 1"); err != nil {
		t.Fatal(err)
	}
	if n := s.CachedQueries(); n != 1 {
		t.Errorf("%d cached queries after SET and one query, want 1 (the cache is remade)", n)
	}
	// Queries the cache does not take stay out of it: a numeric constant,
	// and a table with a partial index (whose use depends on the
	// constants: the plan must still use it).
	if _, err := s.Exec(ctx, "SELECT abalance FROM a WHERE aid = 1.0; CREATE TABLE p (id INT PRIMARY KEY, b INT, c INT); CREATE INDEX p_part ON p (b) WHERE c = 0"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Exec(ctx, "SELECT id FROM p WHERE b = 5 AND c = 0"); err != nil {
		t.Fatal(err)
	}
	if n := s.CachedQueries(); n != 1 {
		t.Errorf("%d cached queries, want 1", n)
	}
}
