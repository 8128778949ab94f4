package session_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/session"
	"github.com/kvsql/kvsql/types"
	"github.com/kvsql/kvsql/wire/backend"
)

// TestReusedTreeMatchesFresh runs prepared statements whose operator
// trees are kept between executions (exec.Reusable: scans of every
// access path, projections, filters, one-time gates, limits, sorts,
// top-N sorts, lookup joins of every kind) with random
// parameters, and compares every outcome — rows and tag, or the error's
// SQLSTATE and message — with the same statement prepared afresh. The
// executions vary the way a tree is left between runs: read to the end,
// failed mid-stream (division by zero at some row, a negative LIMIT),
// abandoned after a few rows (a portal suspended by Execute's row limit,
// then closed), run while another result of the same statement is still
// open (which must build its own tree), and run inside a transaction block
// after a write of its own. Between rounds indexes are created and
// dropped, so plans change under the kept statements. A sort key that is
// NULL (encodable) for some rows and an array (no sort-key encoding) for
// others turns a kept sort from encoded records to Datums mid-run. Reproduce a failure
// with the printed -seed.
func TestReusedTreeMatchesFresh(t *testing.T) {
	rng := seededRand(t)
	db, err := session.Open(session.Options{Memory: true, NoQueryCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.Session("")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	mustExec := func(sql string) {
		t.Helper()
		if _, err := s.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	mustExec("CREATE TABLE q (id INT PRIMARY KEY, a INT, b TEXT, c INT UNIQUE); CREATE INDEX q_a ON q (a)")
	for id := 0; id < 80; id++ {
		a := fmt.Sprint(rng.Intn(10))
		if rng.Intn(8) == 0 {
			a = "NULL"
		}
		mustExec(fmt.Sprintf("INSERT INTO q VALUES (%d, %s, 'b%d', %d)", id, a, rng.Intn(6), id*2))
	}
	// r points at q's rows (qid, sometimes at none or NULL): lookup joins.
	mustExec("CREATE TABLE r (k INT PRIMARY KEY, qid INT, v TEXT, w INT); CREATE INDEX r_qid ON r (qid)")
	for k := 0; k < 120; k++ {
		qid := fmt.Sprint(rng.Intn(100))
		if rng.Intn(10) == 0 {
			qid = "NULL"
		}
		mustExec(fmt.Sprintf("INSERT INTO r VALUES (%d, %s, 'v%d', %d)", k, qid, rng.Intn(5), rng.Intn(4)))
	}
	mustExec("ANALYZE q, r")
	// Each query takes three int parameters; $3 is small. plan, when
	// set, is a node the plan must have (EXPLAIN with parameters 1, 1, 1).
	queries := []struct {
		sql  string
		tree bool // the plan's tree must be kept
		plan string
	}{
		{"SELECT b FROM q WHERE id = $1 AND $2 >= -100 AND $3 >= -100", true, ""},
		{"SELECT id, b FROM q WHERE id >= $1 AND id < $2 + 20 ORDER BY id LIMIT $3", true, ""},
		{"SELECT id, 100 / (a - $3) FROM q WHERE id >= $1 AND id <= $2 + 30 ORDER BY id", true, ""},
		{"SELECT id, b FROM q WHERE c = $1 * 2 AND $2 = $2 AND $3 = $3", true, ""},
		{"SELECT id, a FROM q WHERE a = $3 AND id >= $1 AND $2 = $2", true, ""},
		{"SELECT a FROM q WHERE a >= $3 AND a < $3 + 2 AND $1 = $1 AND $2 = $2", true, ""},
		{"SELECT id FROM q WHERE id IN ($1, $2, $3) ORDER BY id", true, "Sort"},
		{"SELECT id, b FROM q WHERE b LIKE concat('b', $3, '%') AND id < $1 + $2 ORDER BY id", true, ""},
		{"SELECT id FROM q WHERE id > $1 ORDER BY id LIMIT 5 OFFSET $3 - 2", true, ""},
		{"SELECT id FROM q WHERE $3 > 2 AND id < $1 ORDER BY id", true, ""},
		{"SELECT count(*) FROM q WHERE id < $1 + $2 + $3", false, ""},
		{"SELECT id, b FROM q WHERE a = $3 ORDER BY b, id LIMIT $1", true, "TopN"},
		// Sorts: text and int keys, a key failing at some row, a key
		// without an encoding for some rows (demoted), a bound that may be NULL (no bound:
		// the top-N sort becomes a full sort that owns its input).
		{"SELECT id, b FROM q WHERE id >= $1 AND id < $1 + $2 ORDER BY b DESC, a NULLS FIRST", true, "Sort"},
		{"SELECT id FROM q WHERE id < $1 + 10 ORDER BY 100 / (id - $2), id", true, "Sort"},
		{"SELECT id FROM q WHERE id BETWEEN $1 AND $1 + $2 ORDER BY CASE WHEN id % 3 = $3 THEN ARRAY[id % 4] END NULLS FIRST, id DESC", true, "Sort"},
		{"SELECT id, b FROM q WHERE id < $1 ORDER BY b, id DESC LIMIT CASE WHEN $3 > 6 THEN NULL ELSE $2::bigint END OFFSET $3 % 3", true, "TopN"},
		// Lookup joins: master gets by primary key, an index scan then
		// master gets, a unique-index get; inner and left; EXISTS and NOT
		// EXISTS as subplans run per row of a kept tree.
		{"SELECT r.k, q.id, q.b FROM r JOIN q ON q.id = r.qid WHERE r.k >= $1 AND r.k < $1 + $2 ORDER BY q.b, r.k DESC", true, "LookupJoin"},
		{"SELECT q.id, r.k, r.v FROM q JOIN r ON r.qid = q.id WHERE q.id BETWEEN $1 AND $1 + $3 ORDER BY r.v, r.k", true, "LookupJoin"},
		{"SELECT r.k, q.id FROM r JOIN q ON q.c = r.qid * 2 WHERE r.k BETWEEN $1 AND $1 + $2 AND q.a <> $3", true, "LookupJoin"},
		{"SELECT r.k, q.b FROM r LEFT JOIN q ON q.id = r.qid AND q.a > $3 WHERE r.k BETWEEN $1 AND $1 + $2 ORDER BY r.k", true, "LookupJoin"},
		{"SELECT r.k FROM r WHERE r.k < $1 + $2 AND EXISTS (SELECT 1 FROM q WHERE q.id = r.qid AND q.a = $3)", true, "SubPlan"},
		{"SELECT r.k FROM r WHERE r.k < $1 + $2 AND NOT EXISTS (SELECT 1 FROM q WHERE q.id = r.qid AND q.a = $3) ORDER BY r.k", true, "SubPlan"},
		{"SELECT r.k, 10 / (q.a - $3) FROM r JOIN q ON q.id = r.qid WHERE r.k BETWEEN $1 AND $1 + $2", true, "LookupJoin"},
	}
	prepared := make([]backend.Statement, len(queries))
	for i, q := range queries {
		if q.plan != "" {
			res, err := s.Exec(ctx, "EXPLAIN "+q.sql, types.NewInt(1), types.NewInt(1), types.NewInt(1))
			if err != nil {
				t.Fatalf("EXPLAIN %s: %v", q.sql, err)
			}
			var plan []string
			for _, row := range res[0].Rows {
				plan = append(plan, row[0].S)
			}
			if !strings.Contains(strings.Join(plan, "\n"), q.plan) {
				t.Fatalf("plan of %s has no %s:\n%s", q.sql, q.plan, strings.Join(plan, "\n"))
			}
		}
		sts, err := s.Prepare(ctx, q.sql, nil)
		if err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
		prepared[i] = sts[0]
	}
	outcome := func(rows [][]types.Datum, tag string, err error) string {
		if err != nil {
			return fmt.Sprintf("error %s: %v", pgerror.CodeOf(err), err)
		}
		var b strings.Builder
		for _, r := range rows {
			b.WriteString(formatRow(r) + "\n")
		}
		return b.String() + tag
	}
	// read runs st and reads at most limit rows (-1: all); a result read
	// to its end reports its tag.
	read := func(st backend.Statement, params []types.Datum, limit int) string {
		res, err := st.Execute(ctx, params)
		if err != nil {
			return outcome(nil, "", err)
		}
		defer res.Close()
		var rows [][]types.Datum
		for limit < 0 || len(rows) < limit {
			if !res.Next() {
				if err := res.Err(); err != nil {
					return outcome(nil, "", err)
				}
				return outcome(rows, res.Tag(), nil)
			}
			rows = append(rows, append([]types.Datum(nil), res.Row()...))
		}
		return outcome(rows, "", nil)
	}
	fresh := func(sql string, params []types.Datum, limit int) string {
		sts, err := s.Prepare(ctx, sql, nil)
		if err != nil {
			return outcome(nil, "", err)
		}
		return read(sts[0], params, limit)
	}
	checked, reused := 0, 0
	for round := 0; round < 5; round++ {
		switch round {
		case 2:
			mustExec("DROP INDEX q_a")
		case 3:
			mustExec("CREATE INDEX q_ab ON q (a, b)")
		}
		for n := 0; n < 400; n++ {
			i := rng.Intn(len(queries))
			q, st := queries[i], prepared[i]
			params := []types.Datum{types.NewInt(int64(rng.Intn(90) - 5)), types.NewInt(int64(rng.Intn(40))), types.NewInt(int64(rng.Intn(12) - 2))}
			limit := -1
			inTxn := false
			switch rng.Intn(6) {
			case 0:
				limit = rng.Intn(3) // abandoned after a few rows
			case 1:
				// Another result of the statement stays open meanwhile.
				other, err := st.Execute(ctx, params)
				if err == nil {
					other.Next()
					defer other.Close()
				}
			case 2:
				inTxn = true
				mustExec("BEGIN")
				mustExec(fmt.Sprintf("UPDATE q SET b = 'w%d' WHERE id = %d", n, rng.Intn(80)))
			}
			got := read(st, params, limit)
			want := fresh(q.sql, params, limit)
			if inTxn {
				mustExec("ROLLBACK")
			}
			if got != want {
				t.Fatalf("round %d: %s with %v (limit %d, in a transaction %v):\nkept statement:\n%s\nfresh statement:\n%s", round, q.sql, params, limit, inTxn, got, want)
			}
			if q.tree && !session.HoldsTree(st) {
				t.Fatalf("%s keeps no operator tree", q.sql)
			}
			if !q.tree && session.HoldsTree(st) {
				t.Fatalf("%s keeps an operator tree its plan cannot rerun", q.sql)
			}
			checked++
			if q.tree {
				reused++
			}
		}
	}
	t.Logf("%d executions compared, %d of statements keeping their tree", checked, reused)
}
