package session_test

import (
	"context"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/kvsql/kvsql/session"
)

// TestSubqueryPushdownDifferential runs random queries that filter a
// derived table or a view (projections, GROUP BY, DISTINCT, joins, ORDER
// BY with and without LIMIT, volatile columns) with the subquery_pushdown
// rule (planner/pushdown.go) and without it, over tables with secondary
// indexes, so a moved conjunct often changes the scan's access path. Rows
// (as multisets) and SQLSTATEs must agree, and at least a quarter of the
// queries must have planned differently, or the test proves nothing.
// Reproduce a failure with the printed -seed.
func TestSubqueryPushdownDifferential(t *testing.T) {
	rng := seededRand(t)
	ctx := context.Background()
	setup := append(vecSchema(rng),
		"CREATE INDEX v1_a ON v1 (a)",
		"CREATE INDEX v1_s ON v1 (s)",
		"CREATE INDEX v1_d ON v1 (d, id)",
		"CREATE VIEW pv AS SELECT * FROM v1 WHERE a > 5",
		"ANALYZE v1",
		"ANALYZE v2")
	on := openVecStore(t, "pushdown", session.Options{Memory: true}, setup)
	off := openVecStore(t, "no pushdown", session.Options{Memory: true, DisabledRules: map[string]bool{"subquery_pushdown": true}}, setup)

	deadline := time.Now().Add(*diffTime)
	n, changed := 0, 0
	for n < 300 && time.Now().Before(deadline) {
		q := fmt.Sprintf("SELECT x.id, x.a, x.s, x.n FROM %s x WHERE %s", pushdownBody(rng), vecPred(rng, "x.", 2))
		n++
		p1, err1 := on.s.Exec(ctx, "EXPLAIN "+q)
		p2, err2 := off.s.Exec(ctx, "EXPLAIN "+q)
		if err1 == nil && err2 == nil && fmt.Sprint(p1[0].Rows) != fmt.Sprint(p2[0].Rows) {
			changed++
		}
		got, gotCode := cteResult(ctx, t, on, q)
		want, wantCode := cteResult(ctx, t, off, q)
		if got != want || gotCode != wantCode {
			t.Fatalf("with and without subquery_pushdown differ on\n  %s\ngot (%s):\n  %s\nwant (%s):\n  %s", q, gotCode, got, wantCode, want)
		}
	}
	t.Logf("%d queries, %d planned differently", n, changed)
	if changed*4 < n {
		t.Errorf("only %d of %d queries planned differently", changed, n)
	}
}

// pushdownBody is a random derived table or view with v1's columns (id,
// a, b, c, f, s, flag, n, d), as vecPred expects.
func pushdownBody(rng *rand.Rand) string {
	inner := vecPred(rng, "", 1)
	all := "id, a, b, c, f, s, flag, n, d"
	switch rng.Intn(9) {
	case 0:
		return "pv"
	case 1:
		return "(SELECT " + all + " FROM v1 WHERE " + inner + ")"
	case 2:
		return "(SELECT id, a + 1 AS a, b, c, f, upper(s) AS s, NOT flag AS flag, n * 2 AS n, d FROM v1)"
	case 3:
		return "(SELECT a AS id, a, max(b) AS b, min(c) AS c, max(f) AS f, min(s) AS s, bool_and(flag) AS flag, sum(n) AS n, max(d) AS d FROM v1 GROUP BY a)"
	case 4:
		return "(SELECT DISTINCT " + all + " FROM v1)"
	case 5:
		return "(SELECT v1.id, v1.a, v2.b, v1.c, v2.f, v1.s, v1.flag, v1.n, v1.d FROM v1 JOIN v2 ON v2.id = v1.id)"
	case 6:
		return "(SELECT v1.id, v1.a, v2.b, v1.c, v2.f, v2.s, v1.flag, v1.n, v1.d FROM v1 LEFT JOIN v2 ON v2.a = v1.id)"
	case 7:
		return fmt.Sprintf("(SELECT %s FROM v1 ORDER BY %s LIMIT %d)", all, []string{"id", "d, id", "s NULLS FIRST, id"}[rng.Intn(3)], 1+rng.Intn(800))
	}
	return "(SELECT id, a, b, c, f, s, flag, n, d, random() AS r FROM v1 ORDER BY id)"
}
