package session

import (
	"context"
	"testing"
	"time"

	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
)

// heldSyncEngine is an engine whose WAL syncs (Flush) wait while its gate
// is closed: commits are applied but not durable until it opens.
type heldSyncEngine struct {
	kv.Engine
	gate chan chan struct{} // holds the open-signal while closed
}

func (e *heldSyncEngine) Flush() error {
	select {
	case open := <-e.gate:
		<-open
		e.gate <- open
	default:
	}
	return e.Engine.Flush()
}

// TestRetryBeginsAfterLostConflict: a transaction that failed with 40001
// because of a commit not yet durable retries at a snapshot holding that
// commit, as PostgreSQL's serializable retries are safe: the retry does
// not read the same stale row and fail again. Begun at the durable
// snapshot, it would, for as long as the commit's sync lasts (the bank
// test saw one transfer lose more than 1,000 retries in a row so).
func TestRetryBeginsAfterLostConflict(t *testing.T) {
	ctx := context.Background()
	eng := &heldSyncEngine{Engine: kv.NewMemory(), gate: make(chan chan struct{}, 1)}
	db, err := Open(Options{Engine: eng})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	session := func() *Session {
		s, err := db.Session("")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	exec := func(s *Session, sql string) string {
		t.Helper()
		res, err := s.Exec(ctx, sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		if len(res) == 0 || len(res[len(res)-1].Rows) == 0 {
			return ""
		}
		return res[len(res)-1].Rows[0][0].String()
	}
	a, b := session(), session()
	exec(a, "CREATE TABLE acct (id INT PRIMARY KEY, balance INT NOT NULL)")
	exec(a, "INSERT INTO acct VALUES (1, 100)")

	exec(b, "BEGIN ISOLATION LEVEL SERIALIZABLE")
	exec(b, "SELECT balance FROM acct WHERE id = 1")

	// a's commit is applied, its sync held back.
	open := make(chan struct{})
	eng.gate <- open
	applied := db.sync.applied.Load()
	done := make(chan error, 1)
	go func() {
		_, err := a.Exec(ctx, "UPDATE acct SET balance = balance - 10 WHERE id = 1")
		done <- err
	}()
	for deadline := time.Now().Add(10 * time.Second); db.sync.applied.Load() == applied; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("a's UPDATE was not applied within 10s")
		}
	}

	if _, err := b.Exec(ctx, "UPDATE acct SET balance = balance - 1 WHERE id = 1"); !pgerror.HasCode(err, pgerror.SerializationFailure) {
		t.Fatalf("UPDATE over a stale read: %v, want 40001", err)
	}
	exec(b, "ROLLBACK")

	// The retry: its snapshot must hold a's commit, whose sync is still
	// held back; the gate opens after a while, whether or not the retry
	// waits for it.
	retry := make(chan error, 1)
	go func() {
		retry <- func() error {
			if _, err := b.Exec(ctx, "BEGIN ISOLATION LEVEL SERIALIZABLE"); err != nil {
				return err
			}
			res, err := b.Exec(ctx, "SELECT balance FROM acct WHERE id = 1")
			if err != nil {
				return err
			}
			if got := res[0].Rows[0][0].String(); got != "90" {
				t.Errorf("the retry read balance %s, want 90 (a's commit)", got)
			}
			if _, err := b.Exec(ctx, "UPDATE acct SET balance = balance - 1 WHERE id = 1"); err != nil {
				return err
			}
			_, err = b.Exec(ctx, "COMMIT")
			return err
		}()
	}()
	select {
	case err := <-retry:
		t.Fatalf("the retry ended before a's commit was durable: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(open)
	if err := <-retry; err != nil {
		t.Fatalf("the retry: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := exec(a, "SELECT balance FROM acct WHERE id = 1"); got != "89" {
		t.Fatalf("balance %s, want 89", got)
	}
}
