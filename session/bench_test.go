package session_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/session"
	"github.com/kvsql/kvsql/types"
	"github.com/kvsql/kvsql/wire/backend"
)

var benchRows = flag.Int("bench.rows", 1_000_000, "rows in the benchmark table")
var benchCache = flag.Int64("bench.cache", 0, "block cache of the benchmark store in bytes (0: the default)")
var benchStats = flag.Bool("bench.stats", false, "print the store's statistics (LSM shape, cache hit rates) after the benchmarks")

// TestMain removes the shared benchmark stores when the process ends.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchStore.dir != "" && *benchStats {
		if st, ok := benchStore.db.Engine().(interface{ Stats() string }); ok {
			fmt.Fprintln(os.Stderr, st.Stats())
		}
	}
	if benchStore.dir != "" {
		_ = benchStore.db.Close()
		_ = os.RemoveAll(benchStore.dir)
	}
	if chatStore.dir != "" {
		_ = chatStore.db.Close()
		_ = os.RemoveAll(chatStore.dir)
	}
	os.Exit(code)
}

// benchStore is a Pebble store holding table bench with -bench.rows rows,
// built once per process:
//
//	bench(id INT8 PRIMARY KEY, grp INT8, grp2 INT8, payload TEXT)
//	bench_grp  USING keyid    (grp)   grp  = id / 10: 10 rows per value
//	bench_grp2 USING inverted (grp2)  grp2 = id % (rows/10): 10 rows per value
var benchStore struct {
	once sync.Once
	err  error
	dir  string
	db   *session.DB
}

const benchSchema = `CREATE TABLE %s (id INT8 PRIMARY KEY, grp INT8, grp2 INT8, payload TEXT);
CREATE INDEX %[1]s_grp ON %[1]s USING keyid (grp);
CREATE INDEX %[1]s_grp2 ON %[1]s USING inverted (grp2)`

// insertBatches inserts rows [0, n) into table name with multi-row
// INSERTs of 1,000 rows.
func insertBatches(ctx context.Context, s *session.Session, name string, n int) error {
	groups := n / 10
	if groups == 0 {
		groups = 1
	}
	var b strings.Builder
	for lo := 0; lo < n; lo += 1000 {
		b.Reset()
		fmt.Fprintf(&b, "INSERT INTO %s VALUES ", name)
		for id := lo; id < lo+1000 && id < n; id++ {
			if id > lo {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "(%d, %d, %d, 'payload-%08d')", id, id/10, id%groups, id)
		}
		if _, err := s.Exec(ctx, b.String()); err != nil {
			return err
		}
	}
	return nil
}

func openBenchStore(b *testing.B) *session.DB {
	benchStore.once.Do(func() {
		dir, err := os.MkdirTemp("", "kvsql-bench-")
		if err != nil {
			benchStore.err = err
			return
		}
		benchStore.dir = dir
		db, err := session.Open(session.Options{Dir: dir, NoSync: true, CacheSize: *benchCache})
		if err != nil {
			benchStore.err = err
			return
		}
		benchStore.db = db
		ctx := context.Background()
		s, err := db.Session("")
		if err != nil {
			benchStore.err = err
			return
		}
		start := time.Now()
		if _, err := s.Exec(ctx, fmt.Sprintf(benchSchema, "bench")); err != nil {
			benchStore.err = err
			return
		}
		if err := insertBatches(ctx, s, "bench", *benchRows); err != nil {
			benchStore.err = err
			return
		}
		if _, err := s.Exec(ctx, "VACUUM ANALYZE bench; SELECT count(payload) FROM bench; SELECT count(*) FROM bench WHERE grp >= 0"); err != nil {
			benchStore.err = err
			return
		}
		fmt.Fprintf(os.Stderr, "bench store: %d rows loaded in %v\n", *benchRows, time.Since(start).Round(time.Millisecond))
	})
	if benchStore.err != nil {
		b.Fatal(benchStore.err)
	}
	return benchStore.db
}

// prepare prepares one statement and checks its plan mentions want.
func prepare(b *testing.B, s *session.Session, sql, want string) backend.Statement {
	ctx := context.Background()
	res, err := s.Exec(ctx, "EXPLAIN "+sql, types.NewInt(1))
	if err != nil {
		b.Fatal(err)
	}
	var plan []string
	for _, row := range res[0].Rows {
		plan = append(plan, row[0].S)
	}
	if !strings.Contains(strings.Join(plan, "\n"), want) {
		b.Fatalf("plan of %s does not use %q:\n%s", sql, want, strings.Join(plan, "\n"))
	}
	sts, err := s.Prepare(ctx, sql, nil)
	if err != nil {
		b.Fatal(err)
	}
	return sts[0]
}

// execCount runs a prepared statement and returns its row count.
func execCount(b *testing.B, st backend.Statement, params []types.Datum) int {
	res, err := st.Execute(context.Background(), params)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for res.Next() {
		n++
	}
	if err := res.Err(); err != nil {
		b.Fatal(err)
	}
	if err := res.Close(); err != nil {
		b.Fatal(err)
	}
	return n
}

// BenchmarkPointSelect compares a prepared primary-key SELECT with a bare
// engine get of the same master key, on the same store and keys.
func BenchmarkPointSelect(b *testing.B) {
	db := openBenchStore(b)
	tbl, err := db.Catalog().Table(session.DefaultDatabase, "bench")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("sql", func(b *testing.B) {
		s, err := db.Session("")
		if err != nil {
			b.Fatal(err)
		}
		st := prepare(b, s, "SELECT payload FROM bench WHERE id = $1", "master get")
		rng := rand.New(rand.NewSource(1))
		params := []types.Datum{{}}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			params[0] = types.NewInt(rng.Int63n(int64(*benchRows)))
			if n := execCount(b, st, params); n != 1 {
				b.Fatalf("%d rows", n)
			}
		}
	})
	// extended: what the wire server calls per Bind, Describe (portal),
	// Execute and Sync of pgbench -M prepared, with the rows encoded
	// nowhere: the session's share of a prepared round trip.
	b.Run("extended", func(b *testing.B) {
		s, err := db.Session("")
		if err != nil {
			b.Fatal(err)
		}
		st := prepare(b, s, "SELECT payload FROM bench WHERE id = $1", "master get")
		ctx := context.Background()
		rng := rand.New(rand.NewSource(1))
		params := []types.Datum{{}}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			id := rng.Int63n(int64(*benchRows))
			params[0] = types.NewInt(id)
			if len(st.ParamOIDs()) != 1 || len(st.Columns()) != 1 || st.Copy() != nil || len(st.Columns()) != 1 { // Bind, Describe
				b.Fatal("statement changed")
			}
			res, err := st.Execute(ctx, params)
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for res.Next() {
				if got := res.Row()[0].S; got != fmt.Sprintf("payload-%08d", id) {
					b.Fatalf("id %d: %q", id, got)
				}
				n++
			}
			if err := res.Err(); err != nil || n != 1 || res.Tag() != "SELECT 1" {
				b.Fatalf("id %d: %d rows, %v", id, n, err)
			}
			if err := res.Close(); err != nil {
				b.Fatal(err)
			}
			if s.TxnStatus() != 'I' {
				b.Fatal("transaction left open")
			}
		}
	})
	b.Run("bare-get", func(b *testing.B) {
		rng := rand.New(rand.NewSource(1))
		eng := db.Engine()
		pk := []types.Datum{{}}
		var key []byte
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			pk[0] = types.NewInt(rng.Int63n(int64(*benchRows)))
			key = index.MasterKey(key[:0], tbl, pk)
			if _, err := eng.Get(key); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkIndexLookup10 is a non-unique equality lookup returning 10
// rows, through each non-unique index form.
func BenchmarkIndexLookup10(b *testing.B) {
	db := openBenchStore(b)
	groups := int64(*benchRows / 10)
	for _, c := range []struct{ name, sql, plan string }{
		{"keyid", "SELECT id, payload FROM bench WHERE grp = $1", "key+id index range scan bench_grp"},
		{"inverted", "SELECT id, payload FROM bench WHERE grp2 = $1", "inverted-list get bench_grp2"},
	} {
		// seek: the master reads seek every key (index.SetMasterSteps(0));
		// step: they step to a key a few entries ahead.
		steps := index.SetMasterSteps(0)
		index.SetMasterSteps(steps)
		for _, m := range []struct {
			name  string
			steps int
		}{{"seek", 0}, {"step", steps}} {
			b.Run(c.name+"/"+m.name, func(b *testing.B) {
				defer index.SetMasterSteps(index.SetMasterSteps(m.steps))
				s, err := db.Session("")
				if err != nil {
					b.Fatal(err)
				}
				st := prepare(b, s, c.sql, c.plan)
				rng := rand.New(rand.NewSource(2))
				params := []types.Datum{{}}
				b.ResetTimer()
				start := cpuTime()
				for i := 0; i < b.N; i++ {
					params[0] = types.NewInt(rng.Int63n(groups))
					if n := execCount(b, st, params); n != 10 {
						b.Fatalf("%d rows", n)
					}
				}
				reportCPU(b, start)
			})
		}
	}
}

// BenchmarkInsert inserts -bench.rows rows into a fresh table (same
// schema: primary key, a key+id and an inverted index) with multi-row
// INSERTs of 1,000 rows, each its own synced commit.
func BenchmarkInsert(b *testing.B) {
	db, err := session.Open(session.Options{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	s, err := db.Session("")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		name := fmt.Sprintf("ins%d", i)
		b.StopTimer()
		if _, err := s.Exec(ctx, fmt.Sprintf(benchSchema, name)); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := insertBatches(ctx, s, name, *benchRows); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(*benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
