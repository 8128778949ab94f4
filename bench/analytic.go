package bench

import (
	"context"
	"fmt"
	"strings"
)

// analyticWorkloads: a hash join of sc.Rows x sc.Rows/10 rows on columns
// without indexes, GROUP BY sc.Rows rows into 1,000 groups, ORDER BY of
// the whole table with and without LIMIT, a window function, a CTE read
// twice and a recursive CTE. Each reports the median time
// of one query, rows drained by the client.
func analyticWorkloads(sc Scales) []Workload {
	n := sc.Rows
	dims := max(1, n/10)
	ds := newDataset(func(ctx context.Context, s *Server) error {
		if err := execAll(ctx, s,
			"CREATE TABLE fact (id INT PRIMARY KEY, dkey INT NOT NULL, grp INT NOT NULL, val INT NOT NULL, pad TEXT)",
			"CREATE TABLE dim (id INT PRIMARY KEY, dkey INT NOT NULL, name TEXT NOT NULL)"); err != nil {
			return err
		}
		if err := copyRows(ctx, s, "fact", []string{"id", "dkey", "grp", "val", "pad"}, n, func(i int, d []any) {
			// A multiplicative hash scatters val so ORDER BY has work to do.
			d[0], d[1], d[2], d[3], d[4] = i, (i*7919)%dims, i%1000, int((uint64(i)*2654435761)%1_000_003), "fact row padding"
		}); err != nil {
			return err
		}
		if err := copyRows(ctx, s, "dim", []string{"id", "dkey", "name"}, dims, func(i int, d []any) {
			d[0], d[1], d[2] = i, i, fmt.Sprintf("dim %d", i)
		}); err != nil {
			return err
		}
		return analyze(ctx, s, "fact", "dim")
	})
	book := newAnswerBook()
	queries := []struct {
		name, sql string
		rows      int64
	}{
		{fmt.Sprintf("hash join %d x %d", n, dims), "SELECT count(*), sum(f.val) FROM fact f JOIN dim d ON f.dkey = d.dkey", 1},
		{"GROUP BY into 1000 groups", "SELECT grp, count(*), sum(val) FROM fact GROUP BY grp", int64(min(n, 1000))},
		{"ORDER BY, all rows", "SELECT id, val FROM fact ORDER BY val, id", int64(n)},
		{"ORDER BY with LIMIT 10", "SELECT id, val FROM fact ORDER BY val, id LIMIT 10", int64(min(n, 10))},
		// A running sum per group: the window sorts by (grp, id) and keeps
		// one frame per partition.
		{"window: running sum per group", "SELECT grp, id, sum(val) OVER (PARTITION BY grp ORDER BY id) FROM fact", int64(n)},
		// A CTE read twice (PostgreSQL materialises it) joined to itself.
		{"CTE: per-group totals above the average", "WITH g AS (SELECT grp, sum(val) AS s FROM fact GROUP BY grp) SELECT count(*) FROM g WHERE s > (SELECT avg(s) FROM g)", 1},
		// A recursive CTE generating as many rows as the table has.
		{fmt.Sprintf("recursive CTE, %d steps", n), fmt.Sprintf("WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < %d) SELECT count(*), sum(i) FROM r", n), 1},
	}
	var out []Workload
	for _, q := range queries {
		out = append(out, Workload{
			Name: q.name, Group: "analytic", Scale: fmt.Sprintf("%d rows", n),
			Setup: ds.setup,
			Run: func(ctx context.Context, t Target) ([]Measure, error) {
				s, err := server(t)
				if err != nil {
					return nil, err
				}
				d, rows, err := timeQuery(ctx, s, q.sql, 3, sc.Duration, nil)
				if err != nil {
					return nil, err
				}
				if rows != q.rows {
					return nil, fmt.Errorf("%s: %d rows, want %d", q.sql, rows, q.rows)
				}
				// ORDER BY val, id is total; the other answers are sets.
				ordered := strings.Contains(q.sql, "ORDER BY val, id")
				if err := book.check(ctx, s, q.sql, ordered, q.sql); err != nil {
					return nil, err
				}
				return []Measure{{Metric: "ms", Value: ms(d)}}, nil
			},
		})
	}
	return out
}
