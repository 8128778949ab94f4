package session_test

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/pgerror"
)

// Issue 13, item 3: contended writers wait for the row lock instead of
// failing with 40001.

// TestLockCounter: ten clients each increment one row in its own
// transaction at once; all commit and the counter ends at ten, in
// explicit transactions and in autocommit, in both protocols.
func TestLockCounter(t *testing.T) {
	type variant struct {
		name  string
		begin string // "" for autocommit
	}
	variants := []variant{{"autocommit", ""}}
	for _, level := range []string{"READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"} {
		variants = append(variants, variant{strings.ReplaceAll(strings.ToLower(level), " ", "_"), "BEGIN ISOLATION LEVEL " + level})
	}
	for _, p := range protocols {
		for _, v := range variants {
			explicit := v.begin != ""
			name := p.name + "/" + v.name
			t.Run(name, func(t *testing.T) {
				ts := testkit.StartServer(t, testkit.OpenPebble(t), nil)
				setup := ts.Connect(t, p.mode)
				mustExec(t, setup, "CREATE TABLE counter (id INT PRIMARY KEY, n INT)", "INSERT INTO counter VALUES (1, 0)")
				const clients = 10
				conns := make([]*pgx.Conn, clients)
				for i := range conns {
					conns[i] = ts.Connect(t, p.mode)
				}
				var wg sync.WaitGroup
				errs := make(chan error, clients)
				start := make(chan struct{})
				for _, c := range conns {
					wg.Add(1)
					go func(c *pgx.Conn) {
						defer wg.Done()
						<-start
						ctx := context.Background()
						if !explicit {
							_, err := c.Exec(ctx, "UPDATE counter SET n = n + 1 WHERE id = 1")
							errs <- err
							return
						}
						_, err := c.Exec(ctx, v.begin)
						if err == nil {
							if _, err = c.Exec(ctx, "UPDATE counter SET n = n + 1 WHERE id = 1"); err == nil {
								time.Sleep(5 * time.Millisecond) // hold the lock while others queue
								_, err = c.Exec(ctx, "COMMIT")
							} else {
								_, _ = c.Exec(ctx, "ROLLBACK")
							}
						}
						errs <- err
					}(c)
				}
				close(start)
				wg.Wait()
				close(errs)
				for err := range errs {
					if err != nil {
						t.Errorf("a client failed: %v (SQLSTATE %s)", err, sqlstate(err))
					}
				}
				var n int
				if err := setup.QueryRow(context.Background(), "SELECT n FROM counter WHERE id = 1").Scan(&n); err != nil || n != clients {
					t.Fatalf("counter = %d, %v; want %d", n, err, clients)
				}
			})
		}
	}
}

// TestLockDeadlock: two sessions lock two rows in opposite orders. The
// one whose wait would close the cycle gets 40P01 at once; once it rolls
// back, the other's statement goes on and commits: exactly one 40P01,
// resolved well within two seconds.
func TestLockDeadlock(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	ctx := context.Background()
	a, b := ts.Connect(t, pgx.QueryExecModeCacheStatement), ts.Connect(t, pgx.QueryExecModeCacheStatement)
	mustExec(t, a, "CREATE TABLE d (id INT PRIMARY KEY, v INT)", "INSERT INTO d VALUES (1, 0), (2, 0)")
	mustExec(t, a, "BEGIN", "UPDATE d SET v = v + 1 WHERE id = 1")
	mustExec(t, b, "BEGIN", "UPDATE d SET v = v + 10 WHERE id = 2")
	began := time.Now()
	aDone := make(chan error, 1)
	go func() { _, err := a.Exec(ctx, "UPDATE d SET v = v + 1 WHERE id = 2"); aDone <- err }()
	waitLockWaiters(t, ts.DB, 1) // a waits for b
	_, err := b.Exec(ctx, "UPDATE d SET v = v + 10 WHERE id = 1")
	if sqlstate(err) != "40P01" {
		t.Fatalf("closing the cycle: got %v, want 40P01", err)
	}
	mustExec(t, b, "ROLLBACK")
	select {
	case err := <-aDone:
		if err != nil {
			t.Fatalf("the survivor failed: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the survivor still waits 2 s after the victim rolled back")
	}
	mustExec(t, a, "COMMIT")
	if d := time.Since(began); d > 2*time.Second {
		t.Fatalf("the deadlock took %v to resolve", d)
	}
	var v1, v2 int
	if err := a.QueryRow(ctx, "SELECT (SELECT v FROM d WHERE id = 1), (SELECT v FROM d WHERE id = 2)").Scan(&v1, &v2); err != nil || v1 != 1 || v2 != 1 {
		t.Fatalf("rows after the deadlock: %d, %d, %v; want 1, 1", v1, v2, err)
	}
}

// TestLockTimeoutAndCancel: a statement waiting for a row lock fails with
// 55P03 after lock_timeout, and with 57014 when cancelled; the holder's
// transaction is unaffected and both connections stay usable.
func TestLockTimeoutAndCancel(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	ctx := context.Background()
	a, b := ts.Connect(t, pgx.QueryExecModeCacheStatement), ts.Connect(t, pgx.QueryExecModeCacheStatement)
	mustExec(t, a, "CREATE TABLE d (id INT PRIMARY KEY, v INT)", "INSERT INTO d VALUES (1, 0)")
	mustExec(t, a, "BEGIN", "UPDATE d SET v = 5 WHERE id = 1")

	mustExec(t, b, "SET lock_timeout = '100ms'")
	began := time.Now()
	if _, err := b.Exec(ctx, "UPDATE d SET v = 6 WHERE id = 1"); sqlstate(err) != "55P03" {
		t.Fatalf("lock_timeout: got %v, want 55P03", err)
	}
	if d := time.Since(began); d < 100*time.Millisecond || d > 2*time.Second {
		t.Fatalf("lock_timeout of 100ms fired after %v", d)
	}
	mustExec(t, b, "SET lock_timeout = 0")

	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { _, err := b.Exec(cctx, "DELETE FROM d WHERE id = 1"); done <- err }()
	waitLockWaiters(t, ts.DB, 1)
	cancel()
	select {
	case err := <-done:
		if sqlstate(err) != "57014" {
			t.Fatalf("cancelled wait: got %v, want 57014", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a cancelled wait did not end")
	}
	mustExec(t, a, "COMMIT")
	var v int
	if err := b.QueryRow(ctx, "SELECT v FROM d WHERE id = 1").Scan(&v); err != nil || v != 5 {
		t.Fatalf("v = %d, %v; want 5 (the holder's commit)", v, err)
	}
}

// TestLockHotRows: 50 clients for 20 s (2 s with -short) at READ
// COMMITTED and at SERIALIZABLE, each
// transaction incrementing two of 10 hot rows in ascending order (so no
// deadlock is possible): no transaction fails, and the rows' sum is twice
// the number of commits.
func TestLockHotRows(t *testing.T) {
	for _, level := range []struct {
		name string
		dur  time.Duration
	}{{"read committed", 20 * time.Second}, {"serializable", 20 * time.Second}} {
		t.Run(strings.ReplaceAll(level.name, " ", "_"), func(t *testing.T) {
			dur := level.dur
			if testing.Short() {
				dur = 2 * time.Second
			}
			hotRows(t, level.name, dur)
		})
	}
}

func hotRows(t *testing.T, level string, dur time.Duration) {
	ts := testkit.StartServer(t, testkit.OpenPebble(t), nil)
	ctx := context.Background()
	setup := ts.Connect(t, pgx.QueryExecModeCacheStatement)
	mustExec(t, setup, "CREATE TABLE hot (id INT PRIMARY KEY, n INT)",
		"INSERT INTO hot SELECT g, 0 FROM generate_series(1, 10) g")
	seed := testkit.Seed(t, *txSeed, "txn.seed")
	const clients = 50
	var commits, failures atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	deadline := time.Now().Add(dur)
	for i := 0; i < clients; i++ {
		c := ts.Connect(t, pgx.QueryExecModeCacheStatement)
		r := rand.New(rand.NewSource(seed + int64(i)))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				x, y := 1+r.Intn(10), 1+r.Intn(10)
				if x == y {
					continue
				}
				if x > y {
					x, y = y, x
				}
				err := pgx.BeginTxFunc(ctx, c, pgx.TxOptions{IsoLevel: pgx.TxIsoLevel(level)}, func(tx pgx.Tx) error {
					if _, err := tx.Exec(ctx, "UPDATE hot SET n = n + 1 WHERE id = $1", x); err != nil {
						return err
					}
					_, err := tx.Exec(ctx, "UPDATE hot SET n = n + 1 WHERE id = $1", y)
					return err
				})
				if err != nil {
					failures.Add(1)
					firstErr.CompareAndSwap(nil, fmt.Sprintf("%v (SQLSTATE %s)", err, sqlstate(err)))
					continue
				}
				commits.Add(1)
			}
		}()
	}
	wg.Wait()
	var sum int64
	if err := setup.QueryRow(ctx, "SELECT sum(n) FROM hot").Scan(&sum); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d commits, %d failures in %v with %d clients on 10 rows", level, commits.Load(), failures.Load(), dur, clients)
	if f := failures.Load(); f != 0 {
		t.Errorf("%d transactions failed; first: %v", f, firstErr.Load())
	}
	if sum != 2*commits.Load() {
		t.Errorf("sum of the hot rows %d, want 2 × %d commits", sum, commits.Load())
	}
	if commits.Load() == 0 {
		t.Error("no transaction committed")
	}
}

// TestLockSelectFor: SELECT ... FOR UPDATE / FOR SHARE take row locks as
// PostgreSQL's do: FOR UPDATE conflicts with writers and other FOR UPDATE,
// FOR SHARE only with exclusive locks; NOWAIT fails with 55P03; SKIP
// LOCKED leaves held rows out (a job queue's two workers take different
// jobs); FOR NO KEY UPDATE and FOR KEY SHARE are accepted.
func TestLockSelectFor(t *testing.T) {
	db := testkit.OpenMem(t)
	a, b := testkit.NewSession(t, db), testkit.NewSession(t, db)
	testkit.Must(t, a, `CREATE TABLE jobs (id INT PRIMARY KEY, state TEXT NOT NULL);
		INSERT INTO jobs VALUES (1, 'new'), (2, 'new'), (3, 'new')`)

	// Two workers pick the first new job each, skipping the locked one.
	const pick = "SELECT id FROM jobs WHERE state = 'new' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED"
	testkit.Must(t, a, "BEGIN")
	testkit.Want(t, a, pick, "1")
	testkit.Must(t, b, "BEGIN")
	testkit.Want(t, b, pick, "2")
	testkit.WantCode(t, b, "SELECT id FROM jobs WHERE id = 1 FOR UPDATE NOWAIT", pgerror.LockNotAvailable)
	testkit.Must(t, b, "ROLLBACK")

	// A writer waits for FOR UPDATE, then sees the holder's change.
	testkit.Must(t, a, "UPDATE jobs SET state = 'running' WHERE id = 1")
	w := goRun(b, "UPDATE jobs SET state = state || '+b' WHERE id = 1")
	waitLockWaiters(t, db, 1)
	testkit.Must(t, a, "COMMIT")
	if err := <-w; err != nil {
		t.Fatalf("the waiting writer: %v", err)
	}
	testkit.Want(t, a, "SELECT state FROM jobs WHERE id = 1", `"running+b"`)

	// Shared locks do not conflict with each other, but block a writer.
	testkit.Must(t, a, "BEGIN")
	testkit.Want(t, a, "SELECT id FROM jobs WHERE id = 2 FOR SHARE", "2")
	testkit.Must(t, b, "BEGIN")
	testkit.Want(t, b, "SELECT id FROM jobs WHERE id = 2 FOR KEY SHARE", "2")
	testkit.WantCode(t, b, "SELECT id FROM jobs WHERE id = 2 FOR NO KEY UPDATE NOWAIT", pgerror.LockNotAvailable)
	testkit.Must(t, b, "ROLLBACK")
	w = goRun(b, "DELETE FROM jobs WHERE id = 2")
	waitLockWaiters(t, db, 1)
	testkit.Must(t, a, "COMMIT")
	if err := <-w; err != nil {
		t.Fatalf("the writer waiting for a shared lock: %v", err)
	}
	testkit.Want(t, a, "SELECT count(*) FROM jobs", "2")

	// Where PostgreSQL refuses the clause, and in a read-only transaction.
	testkit.WantCode(t, a, "SELECT count(*) FROM jobs FOR UPDATE", pgerror.FeatureNotSupported)
	testkit.WantCode(t, a, "SELECT DISTINCT state FROM jobs FOR UPDATE", pgerror.FeatureNotSupported)
	testkit.Must(t, a, "BEGIN READ ONLY")
	testkit.WantCode(t, a, "SELECT id FROM jobs FOR UPDATE", pgerror.ReadOnlySQLTransaction)
	testkit.Must(t, a, "ROLLBACK")
	if plan := testkit.Query(t, a, "EXPLAIN SELECT id FROM jobs ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED"); !strings.Contains(plan, "LockRows jobs for update skip locked") {
		t.Fatalf("EXPLAIN does not show the lock:\n%s", plan)
	}
}

// TestLockSelectForJoin: FOR UPDATE over a join locks the rows of every
// table that make up the result, as PostgreSQL's does; FOR UPDATE OF
// locks those of the tables named (by alias when there is one) and no
// others; the nullable side of an outer join cannot be locked.
func TestLockSelectForJoin(t *testing.T) {
	db := testkit.OpenMem(t)
	a, b := testkit.NewSession(t, db), testkit.NewSession(t, db)
	testkit.Must(t, a, `CREATE TABLE orders (id INT PRIMARY KEY, customer INT);
		CREATE TABLE customers (id INT PRIMARY KEY, name TEXT);
		INSERT INTO customers VALUES (1, 'ann'), (2, 'bob');
		INSERT INTO orders VALUES (10, 1), (11, 1), (12, 2)`)

	testkit.Must(t, a, "BEGIN")
	testkit.Want(t, a, "SELECT o.id FROM orders o JOIN customers c ON c.id = o.customer WHERE c.name = 'ann' ORDER BY o.id FOR UPDATE", "10\n11")
	testkit.WantCode(t, b, "SELECT id FROM customers WHERE id = 1 FOR UPDATE NOWAIT", pgerror.LockNotAvailable)
	testkit.WantCode(t, b, "SELECT id FROM orders WHERE id = 11 FOR UPDATE NOWAIT", pgerror.LockNotAvailable)
	testkit.Want(t, b, "SELECT id FROM customers WHERE id = 2 FOR UPDATE NOWAIT", "2") // not in the result
	testkit.Must(t, a, "ROLLBACK")

	testkit.Must(t, a, "BEGIN")
	testkit.Want(t, a, "SELECT o.id FROM orders o, customers c WHERE c.id = o.customer AND o.id = 12 FOR UPDATE OF o", "12")
	testkit.WantCode(t, b, "SELECT id FROM orders WHERE id = 12 FOR UPDATE NOWAIT", pgerror.LockNotAvailable)
	testkit.Want(t, b, "SELECT id FROM customers WHERE id = 2 FOR UPDATE NOWAIT", "2") // OF o only
	testkit.Must(t, a, "ROLLBACK")

	testkit.WantCode(t, a, "SELECT 1 FROM orders o JOIN customers c ON c.id = o.customer FOR UPDATE OF orders", pgerror.UndefinedTable)
	testkit.WantCode(t, a, "SELECT 1 FROM orders o LEFT JOIN customers c ON c.id = o.customer FOR UPDATE", pgerror.FeatureNotSupported)
	testkit.Want(t, a, "SELECT count(*) FROM (SELECT o.id FROM orders o LEFT JOIN customers c ON c.id = o.customer FOR UPDATE OF o) s", "3")
}
