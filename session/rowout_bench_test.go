package session_test

import (
	"context"
	"flag"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/session"
)

var rowoutRows = flag.Int("rowout.rows", 1_000_000, "rows in BenchmarkWireRowOut's table")

// BenchmarkWireRowOut measures what each returned row costs end to end:
// the bench's "index lookup" query (SELECT id, pad FROM lookup WHERE col
// = $1, pgx's extended protocol, every row read) over a loopback
// connection to an in-process server on Pebble, by a full scan and by a
// keyid index, returning 10% of -rowout.rows rows and 0.01%. The
// difference between the two per extra row is the row-output cost the
// bench's "index lookup 10% full scan" pays; ns/row reports the time per
// returned row and cpu-ns/op the CPU time of server and client together.
func BenchmarkWireRowOut(b *testing.B) {
	n := *rowoutRows
	db, err := session.Open(session.Options{Dir: b.TempDir(), NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	ts := testkit.StartServer(b, db, nil)
	s, err := db.Session("")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, q := range []string{
		`CREATE TABLE lookup (id INT PRIMARY KEY, s10_k INT NOT NULL, s10_n INT NOT NULL, s0001_k INT NOT NULL, s0001_n INT NOT NULL, pad TEXT)`,
		`CREATE INDEX lookup_s10_k ON lookup USING keyid (s10_k)`,
		`CREATE INDEX lookup_s0001_k ON lookup USING keyid (s0001_k)`,
		fmt.Sprintf(`INSERT INTO lookup SELECT g, g %% 10, g %% 10, g %% 10000, g %% 10000, 'padding twenty bytes' FROM generate_series(0, %d) g`, n-1),
		`VACUUM ANALYZE lookup`,
	} {
		if _, err := s.Exec(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	c := ts.Connect(b, pgx.QueryExecModeCacheStatement)
	for _, bc := range []struct {
		name, col string
		rows      int
	}{
		{"full/10pct", "s10_n", n / 10},
		{"full/0.01pct", "s0001_n", n / 10000},
		{"keyid/10pct", "s10_k", n / 10},
		{"keyid/0.01pct", "s0001_k", n / 10000},
	} {
		b.Run(bc.name, func(b *testing.B) {
			q := "SELECT id, pad FROM lookup WHERE " + bc.col + " = $1"
			b.ResetTimer()
			defer reportCPU(b, cpuTime())
			for i := 0; i < b.N; i++ {
				rows, err := c.Query(ctx, q, 3)
				if err != nil {
					b.Fatal(err)
				}
				got := 0
				for rows.Next() {
					got++
				}
				rows.Close()
				if err := rows.Err(); err != nil {
					b.Fatal(err)
				}
				if got != bc.rows {
					b.Fatalf("%s returned %d rows, want %d", q, got, bc.rows)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(bc.rows), "ns/row")
		})
	}
}
