package session_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/kv/tikv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/session"
)

var txBankDuration = flag.Duration("txn.bank", 20*time.Second,
	"how long TestTxnBank moves money (-short: 2s)")

// TestTxnBank: 16 clients move random amounts between 100 accounts in
// explicit transactions, retrying on 40001, while auditors sum every
// balance in read-only transactions. Every audit must see the initial
// total, no balance may go negative (transfers check the balance first:
// a write-skew would overdraw), and the total at the end is the initial
// one. The store is Pebble with synced commits, so group commit is on the
// path. The sessions run SERIALIZABLE: at READ COMMITTED (the default,
// as in PostgreSQL) a check-then-debit may overdraw.
func TestTxnBank(t *testing.T) {
	db, err := session.Open(session.Options{Dir: filepath.Join(t.TempDir(), "bank")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	runBank(t, db, *txBankDuration)
}

// TestTxnBankTiKV runs the bank on client-go's mock TiKV cluster of 16
// regions that splits further as data arrives: every commit is a
// Percolator transaction, and audits scan across region boundaries.
func TestTxnBankTiKV(t *testing.T) {
	m, err := tikv.OpenMock(tikv.MockOptions{Regions: 16, SplitEvery: 16})
	if err != nil {
		t.Fatal(err)
	}
	db, err := session.Open(session.Options{Engine: m.Engine})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	runBank(t, db, *txBankDuration/2)
	if n := m.RegionCount(); n <= 16 {
		t.Fatalf("the mock cluster has %d regions; the bank should have split it further", n)
	}
}

// runBank is the bank on db for dur (-short: 2s).
func runBank(t *testing.T, db *session.DB, dur time.Duration) {
	const accounts, clients, auditors, initial = 100, 16, 2, 1000
	if testing.Short() {
		dur = 2 * time.Second
	}
	seed := testkit.Seed(t, *txSeed, "txn.seed")
	setup := testkit.NewSession(t, db)
	testkit.Must(t, setup, "CREATE TABLE acct (id INT PRIMARY KEY, balance INT NOT NULL)")
	testkit.Must(t, setup, "BEGIN")
	for i := 0; i < accounts; i++ {
		testkit.Must(t, setup, fmt.Sprintf("INSERT INTO acct VALUES (%d, %d)", i, initial))
	}
	testkit.Must(t, setup, "COMMIT")
	const total = accounts * initial

	deadline := time.Now().Add(dur)
	var transfers, retries, audits atomic.Int64
	var wg sync.WaitGroup
	errc := make(chan error, clients+auditors)
	for c := 0; c < clients; c++ {
		s := serializableSession(t, db)
		r := rand.New(rand.NewSource(seed + int64(c)))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				from, to := r.Intn(accounts), r.Intn(accounts)
				amount := 1 + r.Intn(100)
				for attempt := 0; ; attempt++ {
					err := txTransfer(s, from, to, amount)
					if err == nil {
						transfers.Add(1)
						break
					}
					_ = testkit.Run(s, "ROLLBACK")
					// Transfers lock two accounts in random order, so two
					// can deadlock (40P01), as in PostgreSQL: retried too.
					retryable := pgerror.HasCode(err, pgerror.SerializationFailure) || pgerror.HasCode(err, pgerror.DeadlockDetected)
					if !retryable || attempt > 1000 {
						errc <- fmt.Errorf("transfer %d→%d: %w", from, to, err)
						return
					}
					retries.Add(1)
				}
			}
		}()
	}
	for a := 0; a < auditors; a++ {
		s := serializableSession(t, db)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				sum, err := testkit.BankTotal(s)
				if err != nil {
					errc <- fmt.Errorf("audit: %w", err)
					return
				}
				if sum != total {
					errc <- fmt.Errorf("audit saw total %d, want %d", sum, total)
					return
				}
				audits.Add(1)
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
	if sum, err := testkit.BankTotal(setup); err != nil || sum != total {
		t.Fatalf("final total %d (%v), want %d", sum, err, total)
	}
	testkit.Want(t, setup, "SELECT count(*) FROM acct WHERE balance < 0", "0")
	st := db.TxnStats()
	t.Logf("%v: %d transfers (%.0f/s), %d retries, %d audits; %d commits in %d WAL syncs (%.1f per sync)",
		dur, transfers.Load(), float64(transfers.Load())/dur.Seconds(), retries.Load(), audits.Load(),
		st.Commits, st.Syncs, float64(st.Commits)/float64(max(st.Syncs, 1)))
	if transfers.Load() == 0 || audits.Load() == 0 {
		t.Fatal("no transfer or no audit completed")
	}
	// Every statement ended (commits, 40001 and 40P01 rollbacks, lock
	// waits, restarts): a leaked count would make every group-commit
	// leader wait.
	if n := db.ExecutingWriters(); n != 0 {
		t.Fatalf("%d statements still counted as executing after every client ended", n)
	}
}

// txTransfer moves amount from one account to another if the first holds
// enough, in one explicit transaction.
func txTransfer(s *session.Session, from, to, amount int) error {
	if err := testkit.Run(s, "BEGIN"); err != nil {
		return err
	}
	res, err := s.Exec(context.Background(), fmt.Sprintf("SELECT balance FROM acct WHERE id = %d", from))
	if err != nil {
		return err
	}
	if res[0].Rows[0][0].I >= int64(amount) {
		if err := testkit.Run(s, fmt.Sprintf("UPDATE acct SET balance = balance - %d WHERE id = %d", amount, from)); err != nil {
			return err
		}
		if err := testkit.Run(s, fmt.Sprintf("UPDATE acct SET balance = balance + %d WHERE id = %d", amount, to)); err != nil {
			return err
		}
	}
	return testkit.Run(s, "COMMIT")
}
