package session_test

import (
	"context"
	"fmt"
	"math/rand"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/session"
)

// ycsbBenchRows is the size of BenchmarkYCSBRead's usertable, the bench's
// YCSB scale.
const ycsbBenchRows = 100_000

// BenchmarkYCSBRead is the bench's YCSB read (bench/ycsb.go): SELECT *
// of one 1 KB usertable row (a text key and ten 100-byte text fields) by
// its key, through pgx's default mode (a cached prepared statement: Bind,
// Execute, Sync; text parameter and results), over a loopback connection
// to an in-process server on Pebble. It is BenchmarkWireRoundTrip's
// prepared point select with a wide row instead of one int column: the
// difference is what a row's columns and bytes cost (decoding ten text
// values, their Datums, text output, the DataRow). c1 is one client, c8
// eight at once; cpu-ns/op is the CPU time of server and client together
// per read.
func BenchmarkYCSBRead(b *testing.B) {
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
	var defs, vals []string
	for f := range 10 {
		defs = append(defs, fmt.Sprintf("field%d TEXT", f))
		// 100 bytes that differ from row to row, as YCSB's random fields do.
		vals = append(vals, fmt.Sprintf("md5(g::text || '%d') || md5(g::text) || md5('%d' || g::text) || substr(md5(g::text || 'x'), 1, 4)", f, f))
	}
	for _, q := range []string{
		"CREATE TABLE usertable (ycsb_key TEXT PRIMARY KEY, " + strings.Join(defs, ", ") + ")",
		fmt.Sprintf("INSERT INTO usertable SELECT 'user' || lpad(g::text, 10, '0'), %s FROM generate_series(0, %d) g", strings.Join(vals, ", "), ycsbBenchRows-1),
		"VACUUM ANALYZE usertable",
	} {
		if _, err := s.Exec(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	read := func(c *pgx.Conn, k int) error {
		key := fmt.Sprintf("user%010d", k)
		rows, err := c.Query(ctx, "SELECT * FROM usertable WHERE ycsb_key = $1", key)
		if err != nil {
			return err
		}
		got := 0
		for rows.Next() {
			if v := rows.RawValues(); len(v) != 11 || string(v[0]) != key || len(v[10]) != 100 {
				return fmt.Errorf("read %s: row %q", key, v)
			}
			got++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if got != 1 {
			return fmt.Errorf("read %s: %d rows, want 1", key, got)
		}
		return nil
	}
	b.Run("c1", func(b *testing.B) {
		c := ts.Connect(b, pgx.QueryExecModeCacheStatement)
		rng := rand.New(rand.NewSource(1))
		b.ReportAllocs()
		b.ResetTimer()
		defer reportCPU(b, cpuTime())
		for i := 0; i < b.N; i++ {
			if err := read(c, rng.Intn(ycsbBenchRows)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("c8", func(b *testing.B) {
		conns := make(chan *pgx.Conn, 8)
		for range 8 {
			conns <- ts.Connect(b, pgx.QueryExecModeCacheStatement)
		}
		var seed atomic.Int64
		procs := runtime.GOMAXPROCS(0)
		b.SetParallelism((8 + procs - 1) / procs)
		b.ReportAllocs()
		b.ResetTimer()
		defer reportCPU(b, cpuTime())
		b.RunParallel(func(pb *testing.PB) {
			c := <-conns
			defer func() { conns <- c }()
			rng := rand.New(rand.NewSource(seed.Add(1)))
			for pb.Next() {
				if err := read(c, rng.Intn(ycsbBenchRows)); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}
