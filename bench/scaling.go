package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// scalingGroup is the per-key row count of the series' index: a lookup
// returns the same 10 rows whatever the table's size.
const scalingGroup = 10

// scalingWorkloads measure the latency of a point select by primary key
// and of a non-unique (keyid) index lookup returning 10 rows, one client,
// prepared statements, at each table size in sc.Series. One workload per
// query measures every size in the same round, query by query in turn,
// so the growth from the smallest table to the largest is a comparison
// under the same conditions (a shared machine drifts by tens of percent
// between rounds; measured one size after another, the drift would read
// as growth).
func scalingWorkloads(sc Scales, seed uint64) []Workload {
	var loads []*dataset
	for _, n := range sc.Series {
		table := seriesTable(n)
		loads = append(loads, newDataset(func(ctx context.Context, s *Server) error {
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
		}))
	}
	setup := func(ctx context.Context, t Target) error {
		for _, d := range loads {
			if err := d.setup(ctx, t); err != nil {
				return err
			}
		}
		return nil
	}
	var out []Workload
	for _, q := range []struct {
		what, sql string // sql has %s for the table
		group     int    // rows per key
	}{
		{"point select", "SELECT pad FROM %s WHERE id = $1", 1},
		{"index lookup", "SELECT id, pad FROM %s WHERE grp = $1", scalingGroup},
	} {
		var sizes []string
		for _, n := range sc.Series {
			sizes = append(sizes, fmt.Sprint(n))
		}
		out = append(out, Workload{
			Name: "series " + q.what, Group: "scaling: " + q.what,
			Scale: strings.Join(sizes, ", ") + " rows",
			Setup: setup,
			Run: func(ctx context.Context, t Target) ([]Measure, error) {
				s, err := server(t)
				if err != nil {
					return nil, err
				}
				p50s, err := timeSeries(ctx, s, q.sql, sc.Series, q.group, min(sc.Duration, 2*time.Second), seed)
				if err != nil {
					return nil, err
				}
				var res []Measure
				for i, n := range sc.Series {
					res = append(res, Measure{Metric: fmt.Sprintf("p50 ms at %d rows", n), Value: ms(p50s[i]), Series: n})
				}
				return res, nil
			},
		})
	}
	return out
}

func seriesTable(n int) string { return fmt.Sprintf("series_%d", n) }

// timeSeries runs sqlFmt on the table of every size in turn (a random
// key each time, in a shuffled order of sizes each turn) for budget and
// returns each size's median latency. Each query must return group rows.
func timeSeries(ctx context.Context, s *Server, sqlFmt string, sizes []int, group int, budget time.Duration, seed uint64) ([]time.Duration, error) {
	c, err := pgx.Connect(ctx, s.ConnString())
	if err != nil {
		return nil, err
	}
	defer c.Close(context.Background())
	rng := rand.New(rand.NewPCG(seed, uint64(len(sizes))))
	times := make([][]float64, len(sizes))
	order := make([]int, len(sizes))
	for i := range order {
		order[i] = i
	}
	start := time.Now()
	for turn := 0; turn == 0 || time.Since(start) < budget; turn++ {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, k := range order {
			n := sizes[k]
			sql := fmt.Sprintf(sqlFmt, seriesTable(n))
			key := rng.IntN(max(n/group, 1))
			t0 := time.Now()
			rows, err := c.Query(ctx, sql, key)
			if err != nil {
				return nil, err
			}
			got := 0
			for rows.Next() {
				got++
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return nil, fmt.Errorf("%s: %w", sql, err)
			}
			times[k] = append(times[k], float64(time.Since(t0)))
			if got != group {
				return nil, fmt.Errorf("%s with key %d: %d rows, want %d", sql, key, got, group)
			}
		}
	}
	out := make([]time.Duration, len(sizes))
	for k := range sizes {
		out[k] = time.Duration(Median(times[k]))
	}
	return out, nil
}
