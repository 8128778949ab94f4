package session_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/session"
	"github.com/kvsql/kvsql/types"
)

// TestAnyArrayParamLookup: k = ANY ($1) with an array parameter (how
// drivers send an IN list) reads the primary key or an index with one
// point lookup per distinct element, in key order, on both engines; a
// NULL or empty array reads nothing, and ORDER BY over a later key column
// is still sorted (the lookups are not one equality).
func TestAnyArrayParamLookup(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, db *session.DB) {
		s := testkit.NewSession(t, db)
		testkit.Must(t, s, `CREATE TABLE p (id INT PRIMARY KEY, a INT, b INT)`)
		testkit.Must(t, s, `CREATE INDEX p_ab ON p (a, b)`)
		testkit.Must(t, s, `INSERT INTO p SELECT g, g % 10, 1000 - g FROM generate_series(1, 1000) g`)
		ctx := context.Background()
		ints := func(xs ...int64) types.Datum {
			ds := make([]types.Datum, len(xs))
			for i, x := range xs {
				ds[i] = types.NewInt(x)
			}
			return types.NewArray(ds)
		}
		query := func(sql string, param types.Datum) (plan, rows string) {
			t.Helper()
			res, err := s.Exec(ctx, "EXPLAIN "+sql, param)
			if err != nil {
				t.Fatalf("EXPLAIN %s: %v", sql, err)
			}
			for _, r := range res[0].Rows {
				plan += r[0].S + "\n"
			}
			res, err = s.Exec(ctx, sql, param)
			if err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
			var out []string
			for _, r := range res[0].Rows {
				var cols []string
				for _, d := range r {
					cols = append(cols, d.String())
				}
				out = append(out, strings.Join(cols, " "))
			}
			return plan, strings.Join(out, ",")
		}
		plan, rows := query(`SELECT id FROM p WHERE id = ANY ($1)`, ints(7, 3, 999, 3, 5000))
		if !strings.Contains(plan, "master get") || rows != "3,7,999" {
			t.Errorf("pk = ANY($1): plan\n%srows %s", plan, rows)
		}
		for _, empty := range []types.Datum{types.Null, ints()} {
			if _, rows := query(`SELECT id FROM p WHERE id = ANY ($1)`, empty); rows != "" {
				t.Errorf("= ANY(%v): rows %s", empty, rows)
			}
		}
		plan, rows = query(`SELECT a, b FROM p WHERE a = ANY ($1) AND b < 30 ORDER BY b`, ints(2, 1))
		if !strings.Contains(plan, "index") || !strings.Contains(plan, "Sort") {
			t.Errorf("index = ANY($1) ORDER BY b: plan\n%s", plan)
		}
		var want []string
		for g := 999; g >= 1; g-- {
			if b := 1000 - g; b < 30 && (g%10 == 1 || g%10 == 2) {
				want = append(want, fmt.Sprintf("%d %d", g%10, b))
			}
		}
		if rows != strings.Join(want, ",") {
			t.Errorf("index = ANY($1) ORDER BY b: %s, want %s", rows, strings.Join(want, ","))
		}
		probs, err := index.Check(db.Engine(), db.Catalog())
		if err != nil || len(probs) > 0 {
			t.Errorf("index.Check: %v %v", probs, err)
		}
	})
}
