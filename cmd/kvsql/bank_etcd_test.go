package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/kv/etcd/etcdtest"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/session"
)

// TestBankEtcd runs the bank (concurrent transfers and audits, the total
// constant) on one kvsql server whose store is a real 3-member etcd
// cluster, in phases of a few seconds:
//
//  1. all members up;
//  2. the leader SIGKILLed in the middle of a phase: the run goes on (a
//     transfer that fails with 08006 while the cluster elects a leader
//     is retried);
//  3. two of three members;
//  4. a second member SIGKILLed in the middle of a phase, with commits
//     in flight: writes fail with 08006 (not committed) or 40003 (the
//     cluster stopped answering during COMMIT: not known), never with
//     anything else;
//  5. both members restarted: the SAME server serves writes again,
//     without a restart: it settles every commit whose outcome it did
//     not know by itself;
//  6. all members up again.
//
// Every transfer also inserts a unique row into a log table: every
// transfer acknowledged to its client is in the store at the end, and
// those answered 40003 are counted as found or not. The total never
// changes, and `kvsql check --store etcd://...` is clean (run while the
// server still holds the store: check only reads).
//
// A second server on the same store is refused with 55006 while the
// first holds it, and serves it (the same total) once the first closes.
func TestBankEtcd(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not starting an etcd cluster")
	}
	const accounts, clients, auditors, initial = 50, 8, 2, 1000
	const total = accounts * initial
	phase := 3 * time.Second
	c := etcdtest.Start(t, 3)
	spec := c.Spec("bank")
	db := openStoreDB(t, spec)
	setup := testkit.NewSession(t, db)
	testkit.Must(t, setup, "CREATE TABLE acct (id INT PRIMARY KEY, balance INT NOT NULL)")
	testkit.Must(t, setup, "CREATE INDEX acct_balance ON acct (balance)")
	testkit.Must(t, setup, "CREATE TABLE transfers (id INT PRIMARY KEY, amount INT NOT NULL)")
	testkit.Must(t, setup, fmt.Sprintf("INSERT INTO acct SELECT g, %d FROM generate_series(0, %d) g", initial, accounts-1))

	// A second server on the same store is refused while this one runs.
	if eng, err := kv.OpenStore(spec); err != nil {
		t.Fatal(err)
	} else if _, err := session.Open(session.Options{Engine: eng}); !pgerror.HasCode(err, pgerror.ObjectInUse) || !strings.Contains(err.Error(), "one kvsql server per store") {
		t.Fatalf("a second server on the store: %v; want 55006", err)
	}

	var nextID atomic.Int64
	var mu sync.Mutex
	var acked, unknown []int64 // transfer ids answered by COMMIT: ok, 40003
	var refused, ambiguous atomic.Int64

	// run moves money for d with clients and auditors; an error other
	// than a retryable or an unavailable one fails the test.
	run := func(name string, d time.Duration) {
		deadline := time.Now().Add(d)
		var wg sync.WaitGroup
		var transfers, audits atomic.Int64
		for cl := range clients {
			s := testkit.NewSession(t, db)
			testkit.Must(t, s, "SET default_transaction_isolation = 'serializable'")
			r := rand.New(rand.NewSource(int64(cl)))
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Now().Before(deadline) {
					id := nextID.Add(1)
					err := logTransfer(s, id, r.Intn(accounts), r.Intn(accounts), 1+r.Intn(100))
					if err == nil {
						mu.Lock()
						acked = append(acked, id)
						mu.Unlock()
						transfers.Add(1)
						continue
					}
					_ = testkit.Run(s, "ROLLBACK")
					switch {
					case pgerror.HasCode(err, pgerror.StatementCompletionUnknown):
						mu.Lock()
						unknown = append(unknown, id)
						mu.Unlock()
						ambiguous.Add(1)
						time.Sleep(50 * time.Millisecond)
					case pgerror.HasCode(err, pgerror.ConnectionFailure):
						refused.Add(1)
						time.Sleep(50 * time.Millisecond)
					case pgerror.HasCode(err, pgerror.SerializationFailure), pgerror.HasCode(err, pgerror.DeadlockDetected):
					default:
						t.Errorf("%s: transfer: %v", name, err)
						return
					}
				}
			}()
		}
		for range auditors {
			s := testkit.NewSession(t, db)
			testkit.Must(t, s, "SET default_transaction_isolation = 'serializable'")
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Now().Before(deadline) {
					sum, err := testkit.BankTotal(s)
					switch {
					case pgerror.HasCode(err, pgerror.ConnectionFailure):
						_ = testkit.Run(s, "ROLLBACK")
						time.Sleep(50 * time.Millisecond)
					case err != nil:
						t.Errorf("%s: audit: %v", name, err)
						return
					case sum != total:
						t.Errorf("%s: audit saw total %d, want %d", name, sum, total)
						return
					default:
						audits.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		t.Logf("%s: %d transfers, %d audits in %v (so far %d refused with 08006, %d answered 40003)",
			name, transfers.Load(), audits.Load(), d, refused.Load(), ambiguous.Load())
		if transfers.Load() == 0 || audits.Load() == 0 {
			t.Fatalf("%s: no transfer or no audit completed", name)
		}
	}

	run("3 of 3 members", phase)
	first := c.Leader()
	if first < 0 {
		t.Fatal("the cluster has no leader")
	}
	time.AfterFunc(phase/2, func() { c.Kill(first) })
	run(fmt.Sprintf("leader (member %d) killed mid-run", first), phase)
	run("2 of 3 members", phase)
	second := (first + 1) % 3
	time.AfterFunc(phase/3, func() { c.Kill(second) })
	run(fmt.Sprintf("member %d killed mid-run: no majority", second), phase)

	// Without a majority, a write fails with a clear error.
	s := testkit.NewSession(t, db)
	werr := testkit.Run(s, "UPDATE acct SET balance = balance WHERE id = 0")
	if !pgerror.HasCode(werr, pgerror.ConnectionFailure) && !pgerror.HasCode(werr, pgerror.StatementCompletionUnknown) ||
		!strings.Contains(werr.Error(), "the cluster") {
		t.Fatalf("write with 1 of 3 members: %v; want 08006 or 40003 saying the cluster is unavailable", werr)
	}
	t.Logf("a write with 1 of 3 members: %v", werr)

	// Restart both: the same server resumes.
	for _, i := range []int{first, second} {
		if err := c.Restart(i); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.WaitReady(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	for try := 0; ; try++ {
		err := testkit.Run(s, "UPDATE acct SET balance = balance WHERE id = 0")
		if err == nil {
			t.Logf("writes resumed after %d failed tries", try)
			break
		}
		if try > 100 {
			t.Fatalf("writes did not resume after restarting the members: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	run("3 of 3 members again", phase)

	if sum, err := testkit.BankTotal(setup); err != nil || sum != total {
		t.Fatalf("final total %d (%v), want %d", sum, err, total)
	}
	res, err := setup.Exec(context.Background(), "SELECT id FROM transfers")
	if err != nil {
		t.Fatal(err)
	}
	logged := map[int64]bool{}
	for _, row := range res[0].Rows {
		logged[row[0].I] = true
	}
	mu.Lock()
	for _, id := range acked {
		if !logged[id] {
			t.Errorf("transfer %d was acknowledged but is not in the store", id)
		}
	}
	applied := 0
	for _, id := range unknown {
		if logged[id] {
			applied++
		}
	}
	t.Logf("%d acknowledged transfers, all in the store; %d answered 40003, of which %d turned out applied; %d logged in all",
		len(acked), len(unknown), applied, len(logged))
	mu.Unlock()

	var out bytes.Buffer
	if err := checkCmd([]string{"--store", spec}, &out); err != nil || out.String() != "ok\n" {
		t.Fatalf("kvsql check --store %s: %v\n%s", spec, err, out.String())
	}

	// The first server stops: a second one takes the store over at once.
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	next := openStoreDB(t, spec)
	if sum, err := testkit.BankTotal(testkit.NewSession(t, next)); err != nil || sum != total {
		t.Fatalf("total on the next server %d (%v), want %d", sum, err, total)
	}
}

// openStoreDB opens a kvsql server's store from a spec and closes it when
// the test ends.
func openStoreDB(t *testing.T, spec string) *session.DB {
	t.Helper()
	eng, err := kv.OpenStore(spec)
	if err != nil {
		t.Fatal(err)
	}
	db, err := session.Open(session.Options{Engine: eng})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// logTransfer moves amount from one account to another if the first
// holds enough, and records the transfer under id, in one explicit
// transaction.
func logTransfer(s *session.Session, id int64, from, to, amount int) error {
	if err := testkit.Run(s, "BEGIN"); err != nil {
		return err
	}
	res, err := s.Exec(context.Background(), fmt.Sprintf("SELECT balance FROM acct WHERE id = %d", from))
	if err != nil {
		return err
	}
	if res[0].Rows[0][0].I >= int64(amount) {
		for _, q := range []string{
			fmt.Sprintf("UPDATE acct SET balance = balance - %d WHERE id = %d", amount, from),
			fmt.Sprintf("UPDATE acct SET balance = balance + %d WHERE id = %d", amount, to),
		} {
			if err := testkit.Run(s, q); err != nil {
				return err
			}
		}
	}
	if err := testkit.Run(s, fmt.Sprintf("INSERT INTO transfers VALUES (%d, %d)", id, amount)); err != nil {
		return err
	}
	return testkit.Run(s, "COMMIT")
}
