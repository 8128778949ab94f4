package session_test

import (
	"context"
	"fmt"
	"math/rand"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kvsql/kvsql/pgerror"
)

// TestSharedCTEDifferential runs random WITH queries that name their WITH
// query more than once, so it is evaluated once and read through CTE
// scans (planner/with.go, exec/ctescan.go), against the same query with
// every reference written out as a subquery, which is planned and run
// each time. The WITH queries are deterministic, so the rows (as
// multisets) and SQLSTATEs must agree, on each of the batch differential
// stores: batches, batches under a 64kB work_mem (the stored rows spill),
// and row operators. At least half of the WITH queries must have planned
// a CTE scan, or the test proves nothing. Reproduce with the printed -seed.
func TestSharedCTEDifferential(t *testing.T) {
	rng := seededRand(t)
	ctx := context.Background()
	stores := vecStores(t, vecSchema(rng))

	deadline := time.Now().Add(*diffTime)
	n, shared := 0, 0
	for n < 200 && time.Now().Before(deadline) {
		body, outer := cteBody(rng), cteOuter(rng)
		with := "WITH x AS (" + body + ") " + cteRefs.ReplaceAllString(outer, "x $1")
		inline := cteRefs.ReplaceAllString(outer, "("+body+") $1")
		n++
		plan, err := stores[0].s.Exec(ctx, "EXPLAIN "+with)
		if err == nil && strings.Contains(fmt.Sprint(plan[0].Rows), "CTE Scan on x") {
			shared++
		}
		for _, st := range stores {
			got, gotCode := cteResult(ctx, t, st, with)
			want, wantCode := cteResult(ctx, t, st, inline)
			if got != want || gotCode != wantCode {
				t.Fatalf("%s: the WITH query and its inlined form differ\n  %s\ngot (%s):\n  %s\n  %s\nwant (%s):\n  %s", st.name, with, gotCode, got, inline, wantCode, want)
			}
		}
	}
	t.Logf("%d queries, %d planned a CTE scan", n, shared)
	if shared*2 < n {
		t.Errorf("only %d of %d WITH queries planned a CTE scan", shared, n)
	}
}

// cteRefs matches a reference to the WITH query in a cteOuter template:
// @alias.
var cteRefs = regexp.MustCompile(`@(\w+)`)

// cteBody is a random deterministic WITH query over v1/v2 with the
// columns id, a, s.
func cteBody(rng *rand.Rand) string {
	pred := vecPred(rng, "", 2)
	switch rng.Intn(4) {
	case 0:
		return "SELECT a AS id, count(*) AS a, min(s) AS s FROM v1 WHERE " + pred + " GROUP BY a"
	case 1:
		return fmt.Sprintf("SELECT id, a, s FROM v1 WHERE %s ORDER BY a NULLS FIRST, id LIMIT %d", pred, 1+rng.Intn(300))
	case 2:
		return fmt.Sprintf("SELECT id, a, s FROM v2 WHERE a > %d UNION ALL SELECT id, a, s FROM v1 WHERE %s", rng.Intn(60)-10, pred)
	}
	return "SELECT id, a, s FROM v1 WHERE " + pred
}

// cteOuter is a random query naming the WITH query (@alias) more than
// once: self-joins, IN and scalar subqueries, correlated EXISTS, UNION.
func cteOuter(rng *rand.Rand) string {
	switch rng.Intn(6) {
	case 0:
		return "SELECT p.id, p.a, q.s FROM @p JOIN @q ON p.id = q.id"
	case 1:
		return fmt.Sprintf("SELECT * FROM @p WHERE p.a IN (SELECT b.a FROM @b WHERE b.id %% %d = 0)", 2+rng.Intn(5))
	case 2:
		return "SELECT (SELECT count(*) FROM @c) AS n, (SELECT max(m.s) FROM @m) AS ms, p.* FROM @p"
	case 3:
		return "SELECT * FROM @a1 UNION ALL SELECT * FROM @a2 WHERE a2.a IS NOT NULL"
	case 4:
		return "SELECT * FROM @p WHERE EXISTS (SELECT 1 FROM @q WHERE q.a = p.a + 1)"
	}
	return "SELECT p.a, count(q.id), sum(q.id) FROM @p LEFT JOIN @q ON q.a = p.a + 1 GROUP BY p.a"
}

// cteResult runs q on one store: its rows sorted (a multiset) and its
// SQLSTATE. An internal error fails the test.
func cteResult(ctx context.Context, t *testing.T, st vecStore, q string) (string, pgerror.Code) {
	t.Helper()
	res, err := st.s.Exec(ctx, q)
	code := pgerror.CodeOf(err)
	if err != nil && code == pgerror.Internal {
		t.Fatalf("%s: %s: internal error: %v", st.name, q, err)
	}
	var rows []string
	for _, r := range res {
		for _, row := range r.Rows {
			rows = append(rows, formatRow(row))
		}
	}
	sort.Strings(rows)
	return strings.Join(rows, "\n  "), code
}
