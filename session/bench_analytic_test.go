package session_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kvsql/kvsql/session"
)

// openFactStore opens a Pebble store in a temporary directory holding the
// analytic table of docs/benchmarks.md with -bench.rows rows:
//
//	fact(id INT PRIMARY KEY, dkey INT NOT NULL, grp INT NOT NULL,
//	     val INT NOT NULL, pad TEXT)
//
// grp = id % 1000, val = a multiplicative hash of id modulo 1,000,003 (so
// ORDER BY val has work to do), pad a 16-byte text that no query reads.
// The store is closed and removed when b ends.
func openFactStore(b *testing.B) *session.DB {
	dir, err := os.MkdirTemp("", "kvsql-fact-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = os.RemoveAll(dir) })
	db, err := session.Open(session.Options{Dir: dir, NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	if err := loadFact(db, *benchRows); err != nil {
		b.Fatal(err)
	}
	return db
}

// loadFact creates and fills table fact with n rows in multi-row INSERTs
// of 1,000 rows, then analyzes it.
func loadFact(db *session.DB, n int) error {
	ctx := context.Background()
	s, err := db.Session("")
	if err != nil {
		return err
	}
	defer s.Close()
	start := time.Now()
	if _, err := s.Exec(ctx, "CREATE TABLE fact (id INT PRIMARY KEY, dkey INT NOT NULL, grp INT NOT NULL, val INT NOT NULL, pad TEXT)"); err != nil {
		return err
	}
	dims := max(1, n/10)
	var sb strings.Builder
	for lo := 0; lo < n; lo += 1000 {
		sb.Reset()
		sb.WriteString("INSERT INTO fact VALUES ")
		for id := lo; id < lo+1000 && id < n; id++ {
			if id > lo {
				sb.WriteString(", ")
			}
			val := (uint64(id) * 2654435761) % 1_000_003
			fmt.Fprintf(&sb, "(%d, %d, %d, %d, 'fact row padding')", id, (id*7919)%dims, id%1000, val)
		}
		if _, err := s.Exec(ctx, sb.String()); err != nil {
			return err
		}
	}
	if _, err := s.Exec(ctx, "ANALYZE fact"); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "fact store: %d rows loaded in %v\n", n, time.Since(start).Round(time.Millisecond))
	return nil
}

// BenchmarkAnalytic runs full-scan queries over fact that read two or
// three of its five columns: a GROUP BY, a filtered count and an ORDER BY
// with LIMIT. Each iteration is one query, rows drained.
func BenchmarkAnalytic(b *testing.B) {
	db := openFactStore(b)
	n := *benchRows
	for _, c := range []struct {
		name, sql, plan string
		rows            int
	}{
		{"groupby", "SELECT grp, count(*), sum(val) FROM fact GROUP BY grp", "master full scan", min(n, 1000)},
		{"count-where", "SELECT count(*) FROM fact WHERE val = 3", "master full scan", 1},
		{"orderby-limit", "SELECT id, val FROM fact ORDER BY val LIMIT 10", "master full scan", min(n, 10)},
		{"orderby", "SELECT id, val FROM fact ORDER BY val", "master full scan", n},
	} {
		b.Run(c.name, func(b *testing.B) {
			s, err := db.Session("")
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			st := prepare(b, s, c.sql, c.plan)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if got := execCount(b, st, nil); got != c.rows {
					b.Fatalf("%s: %d rows, want %d", c.sql, got, c.rows)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
