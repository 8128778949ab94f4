package session_test

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/session"
)

var bulkRows = flag.Int("bulk.rows", 100_000, "rows loaded by BenchmarkBulkLoad")

// bulkSchema is the bulk-load benchmark's table: an integer primary key,
// a secondary (key+id) index and a text column.
const bulkSchema = `CREATE TABLE %s (id INT PRIMARY KEY, a INT, b TEXT);
CREATE INDEX %[1]s_a ON %[1]s (a)`

// startPebbleServer serves a fresh Pebble store (WAL syncs on, as a
// server runs by default) on a loopback port and returns a pgx connection
// to it; both end with the benchmark.
func startPebbleServer(b *testing.B) *pgx.Conn {
	db, err := session.Open(session.Options{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	return testkit.StartServer(b, db, nil).Connect(b, pgx.QueryExecModeCacheStatement)
}

// BenchmarkBulkLoad loads -bulk.rows rows into a fresh table on Pebble
// through the wire protocol: "insert" with multi-row INSERTs of 1,000
// rows (each its own commit), "copy" with one COPY FROM STDIN (pgx
// CopyFrom, one transaction; "copy-batch" the same with ingestion
// off). Rows arrive in primary-key order; a = the
// id reversed modulo 1,000 so the secondary index is written out of
// order.
func BenchmarkBulkLoad(b *testing.B) {
	n := *bulkRows
	row := func(id int) (int, string) { return (id * 7919) % 1000, fmt.Sprintf("row number %d", id) }
	b.Run("insert", func(b *testing.B) {
		conn := startPebbleServer(b)
		ctx := context.Background()
		var sb strings.Builder
		for i := 0; i < b.N; i++ {
			name := fmt.Sprintf("ins%d", i)
			b.StopTimer()
			if _, err := conn.Exec(ctx, fmt.Sprintf(bulkSchema, name)); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			for lo := 0; lo < n; lo += 1000 {
				sb.Reset()
				fmt.Fprintf(&sb, "INSERT INTO %s VALUES ", name)
				for id := lo; id < lo+1000 && id < n; id++ {
					if id > lo {
						sb.WriteString(", ")
					}
					a, s := row(id)
					fmt.Fprintf(&sb, "(%d, %d, '%s')", id, a, s)
				}
				if _, err := conn.Exec(ctx, sb.String()); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	// copy-batch is copy with ingestion off (kv.IngestThreshold out of
	// reach): every commit goes through Pebble's WAL and memtable.
	for _, mode := range []string{"copy", "copy-batch"} {
		b.Run(mode, func(b *testing.B) { benchCopy(b, n, row, mode == "copy-batch") })
	}
}

// benchCopy is BenchmarkBulkLoad's COPY: n rows into a fresh table per
// iteration, in one transaction; noIngest commits it by batch.
func benchCopy(b *testing.B, n int, row func(int) (int, string), noIngest bool) {
	if noIngest {
		old := kv.IngestThreshold
		kv.IngestThreshold = 1 << 62
		defer func() { kv.IngestThreshold = old }()
	}
	{
		conn := startPebbleServer(b)
		ctx := context.Background()
		rows := make([][]any, n)
		for id := range rows {
			a, s := row(id)
			rows[id] = []any{int32(id), int32(a), s}
		}
		for i := 0; i < b.N; i++ {
			name := fmt.Sprintf("cp%d", i)
			b.StopTimer()
			if _, err := conn.Exec(ctx, fmt.Sprintf(bulkSchema, name)); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			got, err := conn.CopyFrom(ctx, pgx.Identifier{name}, []string{"id", "a", "b"}, pgx.CopyFromRows(rows))
			if err != nil || got != int64(n) {
				b.Fatalf("CopyFrom: %d rows, %v", got, err)
			}
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	}
}
