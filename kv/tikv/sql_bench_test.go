package tikv

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/session"
)

// benchRows is the size of the table the benchmarks read and update.
const benchRows = 100_000

// BenchmarkSQL runs the same SQL workloads on kvsql over Pebble (a
// directory, commits synced) and over the mock TiKV cluster (16 regions,
// split further as data arrives):
//
//	go test ./kv/tikv/ -run NONE -bench SQL -benchtime 2s
//
// point-select: SELECT by primary key from a 100,000-row table.
// tpcb: pgbench's TPC-B-like transaction (three UPDATEs, a SELECT and an
// INSERT in one explicit transaction), one client.
// scan-100k: SELECT sum(bal) over all 100,000 rows.
// inverted-insert: INSERT into a table whose inverted-list index merges
// every row into one of ten hot lists (kv Merge: read-modify-write on TiKV).
func BenchmarkSQL(b *testing.B) {
	engines := []struct {
		name string
		open func(b *testing.B) kv.Engine
	}{
		{"pebble", func(b *testing.B) kv.Engine {
			e, err := kv.OpenPebble(b.TempDir(), kv.PebbleOptions{})
			if err != nil {
				b.Fatal(err)
			}
			return e
		}},
		{"tikv-mock", func(b *testing.B) kv.Engine {
			m, err := OpenMock(MockOptions{Regions: 16, SplitEvery: 64})
			if err != nil {
				b.Fatal(err)
			}
			return m.Engine
		}},
	}
	for _, eng := range engines {
		b.Run(eng.name, func(b *testing.B) {
			db, err := session.Open(session.Options{Engine: eng.open(b)})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			s, err := db.Session("")
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			exec := func(b *testing.B, sql string) {
				if _, err := s.Exec(context.Background(), sql); err != nil {
					b.Fatalf("%s: %v", sql, err)
				}
			}
			exec(b, "CREATE TABLE acct (id INT PRIMARY KEY, bal INT NOT NULL, filler TEXT)")
			exec(b, fmt.Sprintf("INSERT INTO acct SELECT g, 0, repeat('x', 80) FROM generate_series(1, %d) g", benchRows))
			exec(b, "CREATE TABLE teller (id INT PRIMARY KEY, bal INT NOT NULL)")
			exec(b, "INSERT INTO teller SELECT g, 0 FROM generate_series(1, 10) g")
			exec(b, "CREATE TABLE branch (id INT PRIMARY KEY, bal INT NOT NULL)")
			exec(b, "INSERT INTO branch VALUES (1, 0)")
			exec(b, "CREATE TABLE history (tid INT, bid INT, aid INT, delta INT, mtime TIMESTAMP)")
			exec(b, "CREATE TABLE doc (id INT PRIMARY KEY, tag INT)")
			exec(b, "CREATE INDEX doc_tag ON doc USING inverted (tag)")
			// A bulk load's secondary keys are committed in the background
			// after its primary (Percolator); a reader that meets one of
			// their locks first resolves it. Two full scans settle them, so
			// the timings below are of steady state.
			exec(b, "SELECT count(*), sum(bal) FROM acct")
			exec(b, "SELECT count(*), sum(bal) FROM acct")
			rng := rand.New(rand.NewSource(1))

			b.Run("point-select", func(b *testing.B) {
				for range b.N {
					exec(b, fmt.Sprintf("SELECT bal FROM acct WHERE id = %d", 1+rng.Intn(benchRows)))
				}
			})
			b.Run("tpcb", func(b *testing.B) {
				for range b.N {
					aid, tid, delta := 1+rng.Intn(benchRows), 1+rng.Intn(10), rng.Intn(10001)-5000
					exec(b, fmt.Sprintf(`BEGIN;
UPDATE acct SET bal = bal + %[3]d WHERE id = %[1]d;
SELECT bal FROM acct WHERE id = %[1]d;
UPDATE teller SET bal = bal + %[3]d WHERE id = %[2]d;
UPDATE branch SET bal = bal + %[3]d WHERE id = 1;
INSERT INTO history VALUES (%[2]d, 1, %[1]d, %[3]d, now());
COMMIT`, aid, tid, delta))
				}
			})
			b.Run("scan-100k", func(b *testing.B) {
				for range b.N {
					exec(b, "SELECT sum(bal) FROM acct")
				}
			})
			next := 0
			b.Run("inverted-insert", func(b *testing.B) {
				for range b.N {
					next++
					exec(b, fmt.Sprintf("INSERT INTO doc VALUES (%d, %d)", next, next%10))
				}
			})
		})
	}
}
