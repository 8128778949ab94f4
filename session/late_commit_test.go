package session_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/session"
)

// lateEngine is the memory engine behind a store that can lose a commit's
// answer as a distributed engine does: armed, the next batch is applied
// but reported with an unknown outcome (40003, kv.ErrNotCommitted); the
// batch after it is not applied and reports kv.ErrLateCommit, as the etcd
// engine does when it settles the first one and finds it applied.
type lateEngine struct {
	kv.Engine
	mu    sync.Mutex
	lose  bool // the next batch is applied and its answer lost
	owing bool // a lost batch is still to be reported late
}

func (e *lateEngine) NewBatch() kv.Batch { return &lateBatch{Batch: e.Engine.NewBatch(), e: e} }

type lateBatch struct {
	kv.Batch
	e *lateEngine
}

func (b *lateBatch) Commit(sync bool) error {
	b.e.mu.Lock()
	defer b.e.mu.Unlock()
	switch {
	case b.e.owing:
		b.e.owing = false
		return fmt.Errorf("test: %w", kv.ErrLateCommit)
	case b.e.lose:
		b.e.lose = false
		if err := b.Batch.Commit(sync); err != nil {
			return err
		}
		b.e.owing = true
		return fmt.Errorf("%w%w", pgerror.New(pgerror.StatementCompletionUnknown, "test: answer lost"), kv.ErrNotCommitted)
	}
	return b.Batch.Commit(sync)
}

// TestLateCommit: a commit whose answer was lost (the client gets 40003)
// and that turns out applied is recorded by the session when the engine
// reports it: a transaction whose snapshot precedes it and read what it
// wrote fails with 40001 instead of overwriting it (a lost update), the
// autocommit statement whose commit learned of it is retried and
// succeeds, and a late DDL commit's objects appear in the catalog. The
// store goes on serving without a restart.
func TestLateCommit(t *testing.T) {
	eng := &lateEngine{Engine: kv.NewMemory()}
	db, err := session.Open(session.Options{Engine: eng})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	a, b, c := testkit.NewSession(t, db), testkit.NewSession(t, db), testkit.NewSession(t, db)
	testkit.Must(t, c, "CREATE TABLE t (id INT PRIMARY KEY, v INT)")
	testkit.Must(t, c, "INSERT INTO t VALUES (1, 0)")

	// a reads row 1 before the lost commit.
	testkit.Must(t, a, "BEGIN ISOLATION LEVEL SERIALIZABLE")
	testkit.Must(t, a, "SELECT v FROM t WHERE id = 1")

	eng.mu.Lock()
	eng.lose = true
	eng.mu.Unlock()
	if err := testkit.Run(b, "UPDATE t SET v = 100 WHERE id = 1"); !pgerror.HasCode(err, pgerror.StatementCompletionUnknown) {
		t.Fatalf("the commit whose answer was lost: %v; want 40003", err)
	}
	// The next commit learns it was applied; as an autocommit statement it
	// is retried and succeeds.
	testkit.Must(t, c, "INSERT INTO t VALUES (2, 0)")
	err = testkit.Run(a, "UPDATE t SET v = v + 1 WHERE id = 1")
	if err == nil {
		err = testkit.Run(a, "COMMIT")
	} else {
		_ = testkit.Run(a, "ROLLBACK")
	}
	if !pgerror.HasCode(err, pgerror.SerializationFailure) {
		t.Fatalf("a transaction that read what the late commit wrote: %v; want 40001", err)
	}
	res, err := c.Exec(context.Background(), "SELECT id, v FROM t ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(res[0].Rows); got != "[[1 100] [2 0]]" {
		t.Fatalf("rows after the late commit: %s; want [[1 100] [2 0]]", got)
	}

	// A late DDL commit: its table is in the catalog once it is settled.
	eng.mu.Lock()
	eng.lose = true
	eng.mu.Unlock()
	if err := testkit.Run(b, "CREATE TABLE u (x INT)"); !pgerror.HasCode(err, pgerror.StatementCompletionUnknown) {
		t.Fatalf("the DDL whose answer was lost: %v; want 40003", err)
	}
	testkit.Must(t, c, "INSERT INTO t VALUES (3, 0)")
	testkit.Must(t, c, "INSERT INTO u VALUES (7)")
	if res, err := c.Exec(context.Background(), "SELECT x FROM u"); err != nil || fmt.Sprint(res[0].Rows) != "[[7]]" {
		t.Fatalf("the late table: %v", err)
	}
}
