package session_test

import (
	"context"
	"fmt"
	"math/rand"
	"runtime"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/session"
)

// wireBenchRows is the size of the table the wire round-trip benchmarks
// read: pgbench's accounts table at a tenth of scale 1.
const wireBenchRows = 100_000

// startWireBench serves a fresh Pebble store (the server's default engine)
// holding
// pgbench_accounts(aid, bid, abalance, filler) with wireBenchRows rows.
func startWireBench(b *testing.B) *testkit.Server {
	db, err := session.Open(session.Options{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	ts := testkit.StartServer(b, db, nil)
	s, err := db.Session("")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := s.Exec(ctx, `CREATE TABLE pgbench_accounts (aid INT PRIMARY KEY, bid INT NOT NULL, abalance INT NOT NULL, filler TEXT)`); err != nil {
		b.Fatal(err)
	}
	if _, err := s.Exec(ctx, fmt.Sprintf(`INSERT INTO pgbench_accounts SELECT g, 1, g %% 1000, repeat(' ', 84) FROM generate_series(1, %d) g`, wireBenchRows)); err != nil {
		b.Fatal(err)
	}
	if _, err := s.Exec(ctx, "ANALYZE pgbench_accounts"); err != nil {
		b.Fatal(err)
	}
	return ts
}

// pointSelectOnce sends pgbench's select-only statement for aid over the
// simple or the extended protocol and checks the one row it returns.
func pointSelectOnce(ctx context.Context, c *pgconn.PgConn, prepared bool, aid int, buf []byte) error {
	var rows [][][]byte
	if prepared {
		buf = strconv.AppendInt(buf[:0], int64(aid), 10)
		res := c.ExecPrepared(ctx, "ps", [][]byte{buf}, nil, nil).Read()
		if res.Err != nil {
			return res.Err
		}
		rows = res.Rows
	} else {
		sql := "SELECT abalance FROM pgbench_accounts WHERE aid = " + strconv.Itoa(aid) + ";"
		rs, err := c.Exec(ctx, sql).ReadAll()
		if err != nil {
			return err
		}
		rows = rs[0].Rows
	}
	if len(rows) != 1 || string(rows[0][0]) != strconv.Itoa(aid%1000) {
		return fmt.Errorf("aid %d: rows %q", aid, rows)
	}
	return nil
}

// cpuTime is the CPU time (user and system) this process has used: on a
// shared machine, wall time per operation swings with the load while the
// CPU time the server and its client spend per operation does not.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the process's CPU time per operation since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkWireRoundTrip is pgbench's select-only transaction over a
// loopback connection to the wire server: the simple protocol (a new
// literal every time, as pgbench -M simple sends it) and a prepared
// statement (-M prepared), by one client and by eight at once (c8: the
// time per statement of eight clients sharing GOMAXPROCS). cpu-ns/op is the CPU
// time of server and client together per statement.
func BenchmarkWireRoundTrip(b *testing.B) {
	ts := startWireBench(b)
	ctx := context.Background()
	connect := func(b *testing.B, prepared bool) *pgconn.PgConn {
		c := ts.Connect(b, pgx.QueryExecModeSimpleProtocol).PgConn()
		if prepared {
			if _, err := c.Prepare(ctx, "ps", "SELECT abalance FROM pgbench_accounts WHERE aid = $1", nil); err != nil {
				b.Fatal(err)
			}
		}
		return c
	}
	for _, prepared := range []bool{false, true} {
		name := "simple"
		if prepared {
			name = "prepared"
		}
		b.Run(name+"/c1", func(b *testing.B) {
			c := connect(b, prepared)
			rng := rand.New(rand.NewSource(1))
			var buf []byte
			b.ResetTimer()
			defer reportCPU(b, cpuTime())
			for i := 0; i < b.N; i++ {
				if err := pointSelectOnce(ctx, c, prepared, 1+rng.Intn(wireBenchRows), buf); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/c8", func(b *testing.B) {
			conns := make(chan *pgconn.PgConn, 8)
			for range 8 {
				conns <- connect(b, prepared)
			}
			var seed atomic.Int64
			procs := runtime.GOMAXPROCS(0)
			b.SetParallelism((8 + procs - 1) / procs) // at least 8 goroutines whatever GOMAXPROCS is
			b.ResetTimer()
			defer reportCPU(b, cpuTime())
			b.RunParallel(func(pb *testing.PB) {
				c := <-conns
				defer func() { conns <- c }()
				rng := rand.New(rand.NewSource(seed.Add(1)))
				var buf []byte
				for pb.Next() {
					if err := pointSelectOnce(ctx, c, prepared, 1+rng.Intn(wireBenchRows), buf); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
