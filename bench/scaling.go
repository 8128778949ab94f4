package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"
)

// scalingGroup is the per-key row count of the series' index: a lookup
// returns the same 10 rows whatever the table's size.
const scalingGroup = 10

// scalingWorkloads measure, for each size in sc.Series, the latency of a
// point select by primary key and of a non-unique (keyid) index lookup
// returning 10 rows, one client, prepared statements.
func scalingWorkloads(sc Scales, seed uint64) []Workload {
	var out []Workload
	for _, n := range sc.Series {
		table := fmt.Sprintf("series_%d", n)
		ds := newDataset(func(ctx context.Context, s *Server) error {
			using := " USING keyid"
			if s.Name() == "postgres" {
				using = ""
			}
			if err := execAll(ctx, s,
				"CREATE TABLE "+table+" (id INT PRIMARY KEY, grp INT NOT NULL, pad TEXT)",
				"CREATE INDEX "+table+"_grp ON "+table+using+" (grp)"); err != nil {
				return err
			}
			if err := copyRows(ctx, s, table, []string{"id", "grp", "pad"}, n, func(i int, d []any) {
				d[0], d[1], d[2] = i, i/scalingGroup, "series row padding"
			}); err != nil {
				return err
			}
			if err := analyze(ctx, s, table); err != nil {
				return err
			}
			// Read the table and its index once on both systems, so the
			// series measures lookups in a warm cache at every size rather
			// than the first touch of each page after the load.
			return execAll(ctx, s,
				"SELECT count(pad) FROM "+table,
				"SELECT count(*) FROM "+table+" WHERE grp >= 0")
		})
		for _, q := range []struct {
			what, sql string
			keys      int
			rows      int64
		}{
			{"point select", "SELECT pad FROM " + table + " WHERE id = $1", n, 1},
			{"index lookup", "SELECT id, pad FROM " + table + " WHERE grp = $1", n / scalingGroup, scalingGroup},
		} {
			out = append(out, Workload{
				Name: fmt.Sprintf("series %s %d rows", q.what, n), Group: "scaling: " + q.what, Series: n,
				Scale: fmt.Sprintf("%d rows", n),
				Setup: ds.setup,
				Run: func(ctx context.Context, t Target) ([]Measure, error) {
					s, err := server(t)
					if err != nil {
						return nil, err
					}
					rng := rand.New(rand.NewPCG(seed, uint64(n)))
					d, rows, err := timeQuery(ctx, s, q.sql, 1_000_000, min(sc.Duration, 2*time.Second),
						func(int) []any { return []any{rng.IntN(q.keys)} })
					if err != nil {
						return nil, err
					}
					if rows != q.rows {
						return nil, fmt.Errorf("%s: %d rows, want %d", q.sql, rows, q.rows)
					}
					return []Measure{{Metric: "p50 ms", Value: ms(d)}}, nil
				},
			})
		}
	}
	return out
}
