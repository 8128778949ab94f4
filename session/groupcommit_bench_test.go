package session_test

import (
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/session"
	"github.com/kvsql/kvsql/types"
	"github.com/kvsql/kvsql/wire/backend"
)

// BenchmarkTPCB runs pgbench's TPC-B-like transaction in process (no
// wire) on a Pebble store with synced commits, by 1 and by 8 clients,
// each a session with prepared statements: BEGIN; UPDATE accounts;
// SELECT; UPDATE tellers; UPDATE branches; INSERT history; COMMIT. 10
// branches, as pgbench -s 10, so 8 clients meet on the branch rows'
// locks and share WAL syncs. It reports transactions per second and the
// commits per WAL sync; one op is one transaction.
//
//	go test ./session -run '^$' -bench TPCB -count 5 -cpu 2
func BenchmarkTPCB(b *testing.B) {
	const branches, accounts = 10, 100_000
	db, err := session.Open(session.Options{Dir: filepath.Join(b.TempDir(), "db")})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	s := testkit.NewSession(b, db)
	testkit.Must(b, s, "CREATE TABLE branches (bid INT PRIMARY KEY, bbalance INT NOT NULL, filler TEXT)")
	testkit.Must(b, s, "CREATE TABLE tellers (tid INT PRIMARY KEY, bid INT NOT NULL, tbalance INT NOT NULL, filler TEXT)")
	testkit.Must(b, s, "CREATE TABLE accounts (aid INT PRIMARY KEY, bid INT NOT NULL, abalance INT NOT NULL, filler TEXT)")
	testkit.Must(b, s, "CREATE TABLE history (tid INT, bid INT, aid INT, delta INT, mtime TIMESTAMP, filler TEXT)")
	testkit.Must(b, s, fmt.Sprintf("INSERT INTO branches SELECT g, 0, NULL FROM generate_series(1, %d) g", branches))
	testkit.Must(b, s, fmt.Sprintf("INSERT INTO tellers SELECT g, (g-1)/10+1, 0, NULL FROM generate_series(1, %d) g", branches*10))
	for lo := 1; lo <= accounts; lo += 10_000 {
		testkit.Must(b, s, fmt.Sprintf("INSERT INTO accounts SELECT g, (g-1)/10000+1, 0, repeat(' ', 84) FROM generate_series(%d, %d) g", lo, lo+9_999))
	}
	for _, clients := range []int{1, 8} {
		b.Run(fmt.Sprintf("c=%d", clients), func(b *testing.B) {
			runTPCB(b, db, clients, branches, accounts)
		})
	}
}

// tpcbClient is one client of BenchmarkTPCB: a session and its prepared
// statements.
type tpcbClient struct {
	s     *session.Session
	steps []backend.Statement
	rng   *rand.Rand
}

func newTPCBClient(b *testing.B, db *session.DB, seed int64) *tpcbClient {
	s := testkit.NewSession(b, db)
	c := &tpcbClient{s: s, rng: rand.New(rand.NewSource(seed))}
	for _, q := range []string{
		"BEGIN",
		"UPDATE accounts SET abalance = abalance + $1 WHERE aid = $2",
		"SELECT abalance FROM accounts WHERE aid = $1",
		"UPDATE tellers SET tbalance = tbalance + $1 WHERE tid = $2",
		"UPDATE branches SET bbalance = bbalance + $1 WHERE bid = $2",
		"INSERT INTO history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP)",
		"COMMIT",
	} {
		sts, err := s.Prepare(context.Background(), q, nil)
		if err != nil {
			b.Fatalf("%s: %v", q, err)
		}
		c.steps = append(c.steps, sts[0])
	}
	return c
}

// run runs one transaction.
func (c *tpcbClient) run(branches, accounts int) error {
	aid := types.NewInt(1 + c.rng.Int63n(int64(accounts)))
	bid := types.NewInt(1 + c.rng.Int63n(int64(branches)))
	tid := types.NewInt(1 + c.rng.Int63n(int64(branches*10)))
	delta := types.NewInt(c.rng.Int63n(10001) - 5000)
	for i, params := range [][]types.Datum{nil, {delta, aid}, {aid}, {delta, tid}, {delta, bid}, {tid, bid, aid, delta}, nil} {
		res, err := c.steps[i].Execute(context.Background(), params)
		if err != nil {
			return err
		}
		for res.Next() {
		}
		err = res.Err()
		if cerr := res.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func runTPCB(b *testing.B, db *session.DB, clients, branches, accounts int) {
	cs := make([]*tpcbClient, clients)
	for i := range cs {
		cs[i] = newTPCBClient(b, db, int64(i+1))
	}
	before := db.TxnStats()
	var next atomic.Int64
	var wg sync.WaitGroup
	errc := make(chan error, clients)
	b.ResetTimer()
	for _, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(b.N) {
				if err := c.run(branches, accounts); err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	endClients(b, db, &wg, errc, before, "tps")
}

// endClients waits for a benchmark's clients, fails with the first error
// one sent, and reports b.N operations per second as unit and the
// commits per sync since before; it returns the stats at the end.
func endClients(b *testing.B, db *session.DB, wg *sync.WaitGroup, errc chan error, before session.TxnStats, unit string) session.TxnStats {
	wg.Wait()
	b.StopTimer()
	close(errc)
	for err := range errc {
		b.Fatal(err)
	}
	after := db.TxnStats()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), unit)
	if syncs := after.Syncs - before.Syncs; syncs > 0 {
		b.ReportMetric(float64(after.Commits-before.Commits)/float64(syncs), "commits/sync")
		// The mean sync, and the mean time between the end of one sync
		// and the start of the next (the leader hand-over and its
		// gathering wait): the two add up to the cycle of group commit.
		synced := after.SyncTime - before.SyncTime
		b.ReportMetric(float64(synced.Microseconds())/float64(syncs), "sync-µs")
		b.ReportMetric(float64((b.Elapsed()-synced).Microseconds())/float64(syncs), "between-µs")
	}
	return after
}

// BenchmarkHotUpdate runs autocommit single-row UPDATEs by primary key
// (YCSB's update) on a Pebble store with synced commits, by 8 clients
// choosing rows from a Zipf distribution, so they meet on hot rows'
// locks: one op is one UPDATE. It reports updates per second, commits
// per WAL sync, row-lock waits and statement restarts per update, and checks that no
// increment was lost.
//
//	go test ./session -run '^$' -bench HotUpdate -count 5 -cpu 2
func BenchmarkHotUpdate(b *testing.B) {
	const rows, clients = 10_000, 8
	db, err := session.Open(session.Options{Dir: filepath.Join(b.TempDir(), "db")})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	s := testkit.NewSession(b, db)
	testkit.Must(b, s, "CREATE TABLE usertable (k INT PRIMARY KEY, n INT NOT NULL, field TEXT)")
	testkit.Must(b, s, fmt.Sprintf("INSERT INTO usertable SELECT g, 0, repeat('x', 100) FROM generate_series(1, %d) g", rows))
	sts := make([]backend.Statement, clients)
	rngs := make([]*rand.Zipf, clients)
	for i := range sts {
		c := testkit.NewSession(b, db)
		st, err := c.Prepare(context.Background(), "UPDATE usertable SET n = n + 1, field = $1 WHERE k = $2", nil)
		if err != nil {
			b.Fatal(err)
		}
		sts[i] = st[0]
		rngs[i] = rand.NewZipf(rand.New(rand.NewSource(int64(i+1))), 1.01, 1, rows-1)
	}
	before, locks := db.TxnStats(), db.LockStats()
	var next atomic.Int64
	var wg sync.WaitGroup
	errc := make(chan error, clients)
	b.ResetTimer()
	for i := range sts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			field := types.NewText(strings.Repeat("y", 100))
			for next.Add(1) <= int64(b.N) {
				k := types.NewInt(1 + int64(rngs[i].Uint64()))
				res, err := sts[i].Execute(context.Background(), []types.Datum{field, k})
				if err == nil {
					for res.Next() {
					}
					err = res.Err()
					if cerr := res.Close(); err == nil {
						err = cerr
					}
				}
				if err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	after := endClients(b, db, &wg, errc, before, "updates/s")
	b.ReportMetric(float64(db.LockStats().Waits-locks.Waits)/float64(b.N), "waits/op")
	b.ReportMetric(float64(after.Restarts-before.Restarts)/float64(b.N), "restarts/op")
	if got := testkit.Query(b, s, "SELECT sum(n) FROM usertable"); got != fmt.Sprint(b.N) {
		b.Fatalf("sum(n) = %s after %d increments", got, b.N)
	}
}
