package session_test

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"testing"
	"time"

	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/kv/etcd"
	"github.com/kvsql/kvsql/kv/etcd/etcdtest"
	"github.com/kvsql/kvsql/session"
)

// BenchmarkStore compares kvsql on Pebble with kvsql on a 3-member etcd
// cluster on loopback, in process (no wire), one client: a point select
// by primary key, a TPC-B-like transaction (pgbench's: three updates, a
// select, an insert) and a scan of 100,000 rows (sum over the table).
// docs/distributed.md gives the figures and the command:
//
//	go test ./session/ -run '^$' -bench BenchmarkStore -benchtime 2s
func BenchmarkStore(b *testing.B) {
	const accounts = 100_000
	stores := []struct {
		name string
		open func(b *testing.B) *session.DB
	}{
		{"pebble", func(b *testing.B) *session.DB {
			db, err := session.Open(session.Options{Dir: filepath.Join(b.TempDir(), "db")})
			if err != nil {
				b.Fatal(err)
			}
			return db
		}},
		{"etcd", func(b *testing.B) *session.DB {
			c := etcdtest.Start(b, 3)
			e, err := etcd.Open(etcd.Options{Endpoints: c.Endpoints(), Timeout: 30 * time.Second})
			if err != nil {
				b.Fatal(err)
			}
			db, err := session.Open(session.Options{Engine: e})
			if err != nil {
				b.Fatal(err)
			}
			return db
		}},
	}
	for _, st := range stores {
		b.Run(st.name, func(b *testing.B) {
			db := st.open(b)
			defer db.Close()
			s := testkit.NewSession(b, db)
			testkit.Must(b, s, "CREATE TABLE accounts (aid INT PRIMARY KEY, bid INT, abalance INT, filler TEXT)")
			testkit.Must(b, s, "CREATE TABLE tellers (tid INT PRIMARY KEY, bid INT, tbalance INT)")
			testkit.Must(b, s, "CREATE TABLE branches (bid INT PRIMARY KEY, bbalance INT)")
			testkit.Must(b, s, "CREATE TABLE history (tid INT, bid INT, aid INT, delta INT, mtime TIMESTAMP)")
			for lo := 1; lo <= accounts; lo += 10_000 {
				testkit.Must(b, s, fmt.Sprintf("INSERT INTO accounts SELECT g, 1, 0, repeat('x', 84) FROM generate_series(%d, %d) g", lo, lo+9_999))
			}
			testkit.Must(b, s, "INSERT INTO tellers SELECT g, 1, 0 FROM generate_series(1, 10) g")
			testkit.Must(b, s, "INSERT INTO branches VALUES (1, 0)")
			r := rand.New(rand.NewSource(1))
			b.Run("point-select", func(b *testing.B) {
				for range b.N {
					testkit.Must(b, s, fmt.Sprintf("SELECT abalance FROM accounts WHERE aid = %d", 1+r.Intn(accounts)))
				}
			})
			b.Run("tpcb", func(b *testing.B) {
				for range b.N {
					aid, tid, delta := 1+r.Intn(accounts), 1+r.Intn(10), r.Intn(10001)-5000
					for _, q := range []string{
						"BEGIN",
						fmt.Sprintf("UPDATE accounts SET abalance = abalance + %d WHERE aid = %d", delta, aid),
						fmt.Sprintf("SELECT abalance FROM accounts WHERE aid = %d", aid),
						fmt.Sprintf("UPDATE tellers SET tbalance = tbalance + %d WHERE tid = %d", delta, tid),
						fmt.Sprintf("UPDATE branches SET bbalance = bbalance + %d WHERE bid = 1", delta),
						fmt.Sprintf("INSERT INTO history VALUES (%d, 1, %d, %d, now())", tid, aid, delta),
						"COMMIT",
					} {
						testkit.Must(b, s, q)
					}
				}
			})
			b.Run("scan-100k", func(b *testing.B) {
				for range b.N {
					testkit.Want(b, s, "SELECT count(*) FROM accounts", fmt.Sprint(accounts))
				}
			})
		})
	}
}
