package bench

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// insertBatch is the number of rows per multi-row INSERT statement.
const insertBatch = 1000

// bulkWorkloads load sc.Bulk rows into a fresh table by COPY (pgx
// CopyFrom, binary, committed every 100,000 rows) and by multi-row INSERT
// statements of 1,000 rows each (autocommit), and report rows per second.
func bulkWorkloads(sc Scales) []Workload {
	n := sc.Bulk
	var seq atomic.Int64 // fresh table names per run
	cols := []string{"id", "k", "v", "pad"}
	row := func(i int, d []any) {
		d[0], d[1], d[2], d[3] = i, i%1000, float64(i)/3, "some padding text for the row"
	}
	fresh := func(ctx context.Context, s *Server) (string, error) {
		name := fmt.Sprintf("bulk_%d", seq.Add(1))
		return name, execAll(ctx, s, "CREATE TABLE "+name+" (id INT PRIMARY KEY, k INT NOT NULL, v DOUBLE PRECISION, pad TEXT)")
	}
	run := func(load func(ctx context.Context, c *pgx.Conn, table string) error) func(ctx context.Context, t Target) ([]Measure, error) {
		return func(ctx context.Context, t Target) ([]Measure, error) {
			s, err := server(t)
			if err != nil {
				return nil, err
			}
			table, err := fresh(ctx, s)
			if err != nil {
				return nil, err
			}
			c, err := pgx.Connect(ctx, s.ConnString())
			if err != nil {
				return nil, err
			}
			defer c.Close(context.Background())
			t0 := time.Now()
			if err := load(ctx, c, table); err != nil {
				return nil, err
			}
			el := time.Since(t0)
			var got int64
			if err := c.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&got); err != nil {
				return nil, err
			}
			if got != int64(n) {
				return nil, fmt.Errorf("%s: %d rows after load, want %d", table, got, n)
			}
			// Drop it so rounds do not pile up data.
			if _, err := c.Exec(ctx, "DROP TABLE "+table); err != nil {
				return nil, err
			}
			return []Measure{{Metric: "rows/s", Value: float64(n) / el.Seconds(), Higher: true}}, nil
		}
	}
	scale := fmt.Sprintf("%d rows", n)
	return []Workload{
		{Name: "bulk load by COPY", Group: "bulk load", Scale: scale,
			Setup: func(context.Context, Target) error { return nil },
			Run: run(func(ctx context.Context, c *pgx.Conn, table string) error {
				return copyRowsConn(ctx, c, table, cols, n, row)
			})},
		{Name: "bulk load by multi-row INSERT", Group: "bulk load", Scale: scale + ", 1000 per INSERT",
			Setup: func(context.Context, Target) error { return nil },
			Run: run(func(ctx context.Context, c *pgx.Conn, table string) error {
				return insertRows(ctx, c, table, cols, n, row)
			})},
	}
}

// insertRows loads n rows with multi-row INSERT statements of insertBatch
// rows, the values as literals in the statement text.
func insertRows(ctx context.Context, c *pgx.Conn, table string, cols []string, n int, row func(i int, dst []any)) error {
	vals := make([]any, len(cols))
	var b strings.Builder
	for lo := 0; lo < n; lo += insertBatch {
		b.Reset()
		fmt.Fprintf(&b, "INSERT INTO %s (%s) VALUES ", table, strings.Join(cols, ", "))
		for i := lo; i < min(n, lo+insertBatch); i++ {
			row(i, vals)
			if i > lo {
				b.WriteString(", ")
			}
			b.WriteByte('(')
			for j, v := range vals {
				if j > 0 {
					b.WriteString(", ")
				}
				switch v := v.(type) {
				case string:
					b.WriteString("'" + strings.ReplaceAll(v, "'", "''") + "'")
				default:
					fmt.Fprint(&b, v)
				}
			}
			b.WriteByte(')')
		}
		if _, err := c.Exec(ctx, b.String(), pgx.QueryExecModeSimpleProtocol); err != nil {
			return fmt.Errorf("INSERT INTO %s: %w", table, err)
		}
	}
	return nil
}
