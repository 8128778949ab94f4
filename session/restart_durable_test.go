package session

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/kvsql/kvsql/kv"
)

// slowSyncEngine is an engine whose WAL syncs take delay, so a test can
// act while a commit is applied but not yet durable.
type slowSyncEngine struct {
	kv.Engine
	delay time.Duration
}

func (e slowSyncEngine) Flush() error {
	time.Sleep(e.delay)
	return e.Engine.Flush()
}

// TestRestartShowsOnlyDurable: a statement that waited for a row lock
// runs again at once on the state the holder's commit left, before that
// commit is durable (txn.moveSnapshot), but its outcome reaches the
// client only once that commit is durable (txn.awaitDurable): in an
// explicit transaction (the UPDATE's RETURNING row), in autocommit when
// the re-evaluated WHERE no longer matches (UPDATE 0, so no commit of its
// own waits for a sync), and in autocommit when it writes. Each statement
// also sees the holder's value, as PostgreSQL's READ COMMITTED re-check
// does.
func TestRestartShowsOnlyDurable(t *testing.T) {
	db, err := Open(Options{Dir: filepath.Join(t.TempDir(), "db")})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.sync.eng = slowSyncEngine{Engine: db.sync.eng, delay: 50 * time.Millisecond}
	// Every sync must be the slow one: a lone commit's own sync (waitOwn)
	// would bypass Flush.
	db.sync.noOwnSync = true
	ctx := context.Background()
	// open's session closes (rolling back its transaction) when the
	// (sub)test ends, so a failed case leaves no lock behind.
	open := func(t *testing.T) *Session {
		s, err := db.Session("")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	run := func(t *testing.T, s *Session, sql string) []Result {
		t.Helper()
		res, err := s.Exec(ctx, sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return res
	}
	setup := open(t)
	run(t, setup, "CREATE TABLE hot (id INT PRIMARY KEY, n INT NOT NULL)")
	run(t, setup, "INSERT INTO hot VALUES (1, 0)")

	for _, c := range []struct {
		name, begin, stmt, want string
	}{
		{"explicit", "BEGIN", "UPDATE hot SET n = n + 1 WHERE id = 1 RETURNING n", "UPDATE 1 [n+1]"},
		{"autocommit no match", "", "UPDATE hot SET n = n + 1 WHERE id = 1 AND n = 0 RETURNING n", "UPDATE 0 []"},
		{"autocommit", "", "UPDATE hot SET n = n + 1 WHERE id = 1 RETURNING n", "UPDATE 1 [n+1]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			holder, waiter := open(t), open(t)
			run(t, setup, "UPDATE hot SET n = 0 WHERE id = 1")
			run(t, holder, "BEGIN")
			run(t, holder, "UPDATE hot SET n = n + 1 WHERE id = 1")
			if c.begin != "" {
				run(t, waiter, c.begin)
			}
			restarts := db.TxnStats().Restarts
			type outcome struct {
				res     []Result
				err     error
				durable uint64
			}
			done := make(chan outcome, 1)
			go func() {
				res, err := waiter.Exec(ctx, c.stmt)
				done <- outcome{res, err, db.sync.durableSeq.Load()}
			}()
			for db.LockStats().Waiting == 0 {
				time.Sleep(time.Millisecond)
			}
			db.mu.Lock()
			holderSeq := db.mu.seq + 1 // nothing else commits meanwhile
			db.mu.Unlock()
			run(t, holder, "COMMIT")
			o := <-done
			if o.err != nil {
				t.Fatalf("%s: %v", c.stmt, o.err)
			}
			if o.durable < holderSeq {
				t.Fatalf("the restarted statement answered at durable seq %d, before the holder's commit %d was durable", o.durable, holderSeq)
			}
			if db.TxnStats().Restarts == restarts {
				t.Fatal("the waiting statement did not restart")
			}
			got := o.res[0].Tag + " ["
			if len(o.res[0].Rows) > 0 {
				if n := o.res[0].Rows[0][0].String(); n == "2" {
					got += "n+1"
				} else {
					got += "n=" + n
				}
			}
			got += "]"
			if got != c.want {
				t.Fatalf("%s: %s, want %s", c.stmt, got, c.want)
			}
			if c.begin != "" {
				run(t, waiter, "COMMIT")
			}
		})
	}
}
