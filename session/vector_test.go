package session_test

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/session"
)

// TestVectorDifferential runs random queries of the shapes the batch
// engine takes (filters, GROUP BY with count/sum/avg/min/max, numeric
// sums of mixed scales past int64 and NaN, inner hash
// joins) over random tables with NULLs, NaN, -0 and bigints near the
// int64 bounds, on three stores: batches wherever the vectorize rule
// applies, batches under a 64kB work_mem (hash aggregation spills, hash
// joins fall back to the row join), and the row operators (the rule
// disabled). Rows (as multisets), result types and SQLSTATEs must agree.
// At least a third of the queries must have run in batches, or the test
// proves nothing. Reproduce a failure with the printed -seed.
func TestVectorDifferential(t *testing.T) {
	rng := seededRand(t)
	ctx := context.Background()

	setup := vecSchema(rng)
	stores := vecStores(t, setup)

	deadline := time.Now().Add(*diffTime)
	n, vectorized, failed := 0, 0, 0
	for n < 400 && time.Now().Before(deadline) {
		q := vecQuery(rng)
		n++
		plan, err := stores[0].s.Exec(ctx, "EXPLAIN "+q)
		if err == nil && strings.Contains(fmt.Sprint(plan[0].Rows), "(vectorized)") {
			vectorized++
		}
		var ref string
		var refCode pgerror.Code
		for i, st := range stores {
			res, err := st.s.Exec(ctx, q)
			code := pgerror.CodeOf(err)
			if err != nil && code == pgerror.Internal {
				t.Errorf("%s: %s: internal error: %v", st.name, q, err)
			}
			var rows []string
			for _, r := range res {
				var types []string
				for _, c := range r.Columns {
					types = append(types, c.Type.String())
				}
				rows = append(rows, "types: "+strings.Join(types, ","))
				for _, row := range r.Rows {
					rows = append(rows, formatRow(row))
				}
			}
			sort.Strings(rows)
			got := strings.Join(rows, "\n  ")
			if i == 0 {
				ref, refCode = got, code
				if err != nil {
					failed++
				}
				continue
			}
			if code != refCode || got != ref {
				t.Fatalf("%s differs from %s on\n  %s\ngot (%s, %v):\n  %s\nwant (%s):\n  %s", st.name, stores[0].name, q, code, err, got, refCode, ref)
			}
		}
	}
	t.Logf("%d queries, %d ran in batches, %d failed alike", n, vectorized, failed)
	if vectorized*3 < n {
		t.Errorf("only %d of %d queries ran in batches", vectorized, n)
	}
}

// vecStore is one of the three stores the batch differential tests
// compare.
type vecStore struct {
	name string
	s    *session.Session
}

// vecStores opens the stores the batch differential tests compare, each
// loaded by setup: batches wherever the vectorize rule applies, the same
// under a 64kB work_mem (hash aggregation and sorts spill, hash joins
// fall back to the row join), and the row operators (the rule disabled).
// The first is the reference.
func vecStores(t *testing.T, setup []string) []vecStore {
	t.Helper()
	var stores []vecStore
	open := func(name string, opts session.Options, extra ...string) {
		stores = append(stores, openVecStore(t, name, opts, append(append([]string{}, setup...), extra...)))
	}
	open("batches", session.Options{Memory: true, VectorMinRows: -1})
	open("batches-small-work-mem", session.Options{Memory: true, VectorMinRows: -1}, "SET work_mem = '64kB'")
	open("rows", session.Options{Memory: true, DisabledRules: map[string]bool{"vectorize": true}})
	return stores
}

// openVecStore opens a store with opts, closed when the test ends, and
// runs setup in a session of it.
func openVecStore(t *testing.T, name string, opts session.Options, setup []string) vecStore {
	t.Helper()
	db, err := session.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	s, err := db.Session("")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range setup {
		if _, err := s.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: setup %.200q: %v", name, q, err)
		}
	}
	return vecStore{name, s}
}

// vecSchema creates two tables of a few thousand rows (more than one
// batch) with NULLs in every nullable column.
func vecSchema(rng *rand.Rand) []string {
	stmts := []string{
		"CREATE TABLE v1 (id INT PRIMARY KEY, a INT, b BIGINT, c SMALLINT, f FLOAT8, s TEXT, flag BOOL, n NUMERIC, d DATE)",
		"CREATE TABLE v2 (id BIGINT PRIMARY KEY, a INT, s TEXT, f FLOAT8, b BIGINT)",
	}
	null := func(p int, v string) string {
		if rng.Intn(100) < p {
			return "NULL"
		}
		return v
	}
	big := func() string {
		switch rng.Intn(8) {
		case 0:
			return fmt.Sprint(int64(9_223_372_036_854_775_000) + rng.Int63n(800))
		case 1:
			return fmt.Sprint(int64(-9_223_372_036_854_775_000) - rng.Int63n(800))
		}
		return fmt.Sprint(rng.Int63n(2000) - 1000)
	}
	float := func() string {
		switch rng.Intn(12) {
		case 0:
			return "'NaN'"
		case 1:
			return "'-0'"
		case 2:
			return "'Infinity'"
		}
		return fmt.Sprintf("%d.%d", rng.Intn(50)-25, rng.Intn(4))
	}
	// numeric: mostly NUMERIC(12,2)-like values (sums stay in int64),
	// some of other scales, some past 18 digits and NaN (sums continue
	// in the exact decimal).
	numeric := func() string {
		switch rng.Intn(20) {
		case 0:
			return fmt.Sprintf("%d%018d.%d", rng.Intn(9)+1, rng.Int63n(1e18), rng.Intn(10))
		case 1:
			return "'NaN'"
		case 2, 3:
			return fmt.Sprintf("%d", rng.Intn(200)-100)
		case 4, 5:
			return fmt.Sprintf("-%d.%03d", rng.Intn(100), rng.Intn(1000))
		}
		return fmt.Sprintf("%d.%02d", rng.Intn(100), rng.Intn(100))
	}
	for _, tb := range []struct {
		name string
		rows int
	}{{"v1", 2500 + rng.Intn(1500)}, {"v2", 300 + rng.Intn(2500)}} {
		var vals []string
		flush := func() {
			if len(vals) > 0 {
				stmts = append(stmts, "INSERT INTO "+tb.name+" VALUES "+strings.Join(vals, ", "))
				vals = vals[:0]
			}
		}
		for i := 0; i < tb.rows; i++ {
			a := null(10, fmt.Sprint(rng.Intn(60)-10))
			s := null(10, fmt.Sprintf("'s%d'", rng.Intn(40)))
			if tb.name == "v1" {
				vals = append(vals, fmt.Sprintf("(%d, %s, %s, %s, %s, %s, %s, %s, %s)", i, a, null(10, big()),
					null(15, fmt.Sprint(rng.Intn(200)-100)), null(10, float()), s,
					null(20, fmt.Sprint(rng.Intn(2) == 0)), null(20, numeric()),
					null(20, fmt.Sprintf("'2024-01-%02d'", 1+rng.Intn(28)))))
			} else {
				vals = append(vals, fmt.Sprintf("(%d, %s, %s, %s, %s)", int64(i)*3-1000, a, s, null(10, float()), null(10, big())))
			}
			if len(vals) == 400 {
				flush()
			}
		}
		flush()
	}
	return stmts
}

// vecCols are the columns of v1 by type class, for generated predicates.
var vecCols = map[string][]string{
	"int":   {"id", "a", "b", "c"},
	"float": {"f"},
	"text":  {"s"},
	"date":  {"d"},
	"num":   {"n"},
}

// vecPred is a random predicate over v1 (alias p) from the batch set, and
// now and then one outside it (the plan then keeps row operators).
func vecPred(rng *rand.Rand, p string, depth int) string {
	if depth > 0 && rng.Intn(3) == 0 {
		l, r := vecPred(rng, p, depth-1), vecPred(rng, p, depth-1)
		switch rng.Intn(3) {
		case 0:
			return "(" + l + " AND " + r + ")"
		case 1:
			return "(" + l + " OR " + r + ")"
		}
		return "NOT (" + l + ")"
	}
	ops := []string{"=", "<>", "<", "<=", ">", ">="}
	op := ops[rng.Intn(len(ops))]
	switch rng.Intn(10) {
	case 0:
		cls := []string{"int", "float", "text", "date", "num"}[rng.Intn(5)]
		cs := vecCols[cls]
		not := ""
		if rng.Intn(2) == 0 {
			not = " NOT"
		}
		return p + cs[rng.Intn(len(cs))] + " IS" + not + " NULL"
	case 1:
		return p + "flag"
	case 2:
		return fmt.Sprintf("%sa %s %sc", p, op, p) // int vs smallint: a cast, not in the batch set
	case 3:
		return fmt.Sprintf("%sf %s 'NaN'", p, op)
	case 4:
		return fmt.Sprintf("%ss %s 's%d'", p, op, rng.Intn(40))
	case 5:
		return fmt.Sprintf("%sd %s '2024-01-%02d'", p, op, 1+rng.Intn(28))
	case 6:
		return fmt.Sprintf("%sn %s %d.5", p, op, rng.Intn(100))
	case 7:
		return fmt.Sprintf("%sa %s %sid", p, op, p)
	case 8:
		return fmt.Sprintf("%sf %s %d.5", p, op, rng.Intn(50)-25)
	}
	c := vecCols["int"][rng.Intn(4)]
	return fmt.Sprintf("%s%s %s %d", p, c, op, rng.Intn(80)-20)
}

// vecQuery is a random query over v1 and v2.
func vecQuery(rng *rand.Rand) string {
	where := ""
	if rng.Intn(4) != 0 {
		where = " WHERE " + vecPred(rng, "v1.", 2)
	}
	aggs := func(p string) string {
		all := []string{"count(*)", "count(" + p + "s)", "sum(" + p + "a)", "sum(" + p + "b)", "sum(" + p + "c)", "avg(" + p + "a)",
			"avg(" + p + "b)", "min(" + p + "f)", "max(" + p + "f)", "min(" + p + "s)", "max(" + p + "s)", "min(" + p + "d)",
			"max(" + p + "b)", "sum(" + p + "f)", "count(" + p + "n)", "min(" + p + "n)", "sum(" + p + "n)", "avg(" + p + "n)"}
		k := 1 + rng.Intn(4)
		var out []string
		for range k {
			out = append(out, all[rng.Intn(len(all))])
		}
		return strings.Join(out, ", ")
	}
	switch rng.Intn(6) {
	case 5: // an aggregation over an aggregation: only the inner one runs in batches
		return "SELECT count(*), sum(x), max(k) FROM (SELECT a AS k, " + aggs("v1.") + ", sum(v1.c) AS x FROM v1" + where + " GROUP BY a) AS t"
	case 0:
		return "SELECT id, a, s, f FROM v1" + where
	case 1:
		return "SELECT " + aggs("v1.") + " FROM v1" + where
	case 2:
		g := []string{"a", "s", "flag", "d", "c", "a, s", "b"}[rng.Intn(7)]
		return "SELECT " + g + ", " + aggs("v1.") + " FROM v1" + where + " GROUP BY " + g
	case 3:
		on := []string{"v1.a = v2.a", "v1.s = v2.s", "v1.b = v2.b", "v1.id = v2.id", "v1.a = v2.a AND v1.s = v2.s"}[rng.Intn(5)]
		return "SELECT count(*), sum(v2.a), min(v2.s), max(v1.f) FROM v1 JOIN v2 ON " + on + where
	}
	on := []string{"v1.a = v2.a", "v1.s = v2.s", "v1.id = v2.id"}[rng.Intn(3)]
	return "SELECT v1.id, v2.id, v2.s, v1.f FROM v1 JOIN v2 ON " + on + where
}
