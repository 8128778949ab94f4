package session_test

import (
	"context"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/session"
)

func nextval(t *testing.T, conn *pgx.Conn, seq string) int64 {
	t.Helper()
	var v int64
	if err := conn.QueryRow(context.Background(), "SELECT nextval($1)", seq).Scan(&v); err != nil {
		t.Fatalf("nextval(%s): %v", seq, err)
	}
	return v
}

// TestSequenceConcurrentNextval: four connections calling nextval at
// once never get the same value, and each sees its values increase.
func TestSequenceConcurrentNextval(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	mustExec(t, ts.Connect(t, pgx.QueryExecModeSimpleProtocol), "CREATE SEQUENCE c")
	const conns, calls = 4, 200
	var mu sync.Mutex
	seen := map[int64]bool{}
	var wg sync.WaitGroup
	for i := 0; i < conns; i++ {
		conn := ts.Connect(t, pgx.QueryExecModeExec)
		wg.Add(1)
		go func() {
			defer wg.Done()
			prev := int64(0)
			for j := 0; j < calls; j++ {
				var v int64
				if err := conn.QueryRow(context.Background(), "SELECT nextval('c')").Scan(&v); err != nil {
					t.Error(err)
					return
				}
				if v <= prev {
					t.Errorf("nextval went from %d to %d in one session", prev, v)
				}
				prev = v
				mu.Lock()
				if seen[v] {
					t.Errorf("value %d handed out twice", v)
				}
				seen[v] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seen) != conns*calls {
		t.Fatalf("%d distinct values, want %d", len(seen), conns*calls)
	}
}

// TestSequenceSessionState: nextval survives ROLLBACK; currval is per
// session.
func TestSequenceSessionState(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	ctx := context.Background()
	a := ts.Connect(t, pgx.QueryExecModeExec)
	b := ts.Connect(t, pgx.QueryExecModeExec)
	mustExec(t, a, "CREATE SEQUENCE r")
	mustExec(t, a, "BEGIN")
	if v := nextval(t, a, "r"); v != 1 {
		t.Fatalf("first nextval = %d", v)
	}
	mustExec(t, a, "ROLLBACK")
	if v := nextval(t, a, "r"); v != 2 {
		t.Fatalf("nextval after ROLLBACK = %d, want 2 (not rolled back)", v)
	}
	var cur int64
	if err := a.QueryRow(ctx, "SELECT currval('r')").Scan(&cur); err != nil || cur != 2 {
		t.Fatalf("currval in a = %d, %v", cur, err)
	}
	err := b.QueryRow(ctx, "SELECT currval('r')").Scan(&cur)
	if pgErrCode(err) != "55000" {
		t.Fatalf("currval in a fresh session: %v, want 55000", err)
	}
	if v := nextval(t, b, "r"); v != 3 {
		t.Fatalf("nextval in b = %d, want 3", v)
	}
	if err := a.QueryRow(ctx, "SELECT currval('r')").Scan(&cur); err != nil || cur != 2 {
		t.Fatalf("currval in a after b's nextval = %d, %v; want 2", cur, err)
	}
}

// TestSequenceSurvivesRestart: a Pebble-backed store keeps the
// sequence's definition and counter across a close and reopen.
func TestSequenceSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	open := func(t *testing.T) *pgx.Conn {
		db, err := session.Open(session.Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		return testkit.StartServer(t, db, nil).Connect(t, pgx.QueryExecModeExec)
	}
	t.Run("before", func(t *testing.T) {
		conn := open(t)
		mustExec(t, conn, "CREATE SEQUENCE p START 5 INCREMENT 3")
		for _, want := range []int64{5, 8, 11} {
			if v := nextval(t, conn, "p"); v != want {
				t.Fatalf("nextval = %d, want %d", v, want)
			}
		}
	})
	t.Run("after", func(t *testing.T) {
		conn := open(t)
		if v := nextval(t, conn, "p"); v != 14 {
			t.Fatalf("nextval after restart = %d, want 14", v)
		}
		var inc int64
		if err := conn.QueryRow(context.Background(), "SELECT increment_by FROM pg_sequences WHERE sequencename = 'p'").Scan(&inc); err != nil || inc != 3 {
			t.Fatalf("increment_by = %d, %v", inc, err)
		}
	})
}

// TestCounterOfRolledBackCreate: a sequence or serial column created in a
// transaction that rolls back leaves its counter behind (nextval is never
// rolled back), and no later object starts from it: not one created
// after the rollback, not one created while the first still ran, not one
// created after a restart. Each starts at 1, as on PostgreSQL, whose
// OIDs are not reused either.
func TestCounterOfRolledBackCreate(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	open := func(t *testing.T) *testkit.Server {
		db, err := session.Open(session.Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		return testkit.StartServer(t, db, nil)
	}
	firstSerial := func(t *testing.T, conn *pgx.Conn, table string) int64 {
		t.Helper()
		var v int64
		if err := conn.QueryRow(ctx, "INSERT INTO "+table+" (v) VALUES ('x') RETURNING id").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	t.Run("before", func(t *testing.T) {
		ts := open(t)
		conn := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
		mustExec(t, conn, "BEGIN", "CREATE SEQUENCE s1", "CREATE TABLE t1 (id serial, v text)",
			"INSERT INTO t1 (v) VALUES ('a'), ('b')")
		nextval(t, conn, "s1")
		nextval(t, conn, "s1")
		// A second session creates while the first has its objects.
		other := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
		mustExec(t, other, "CREATE SEQUENCE s2", "CREATE TABLE t2 (id serial, v text)")
		if v := nextval(t, other, "s2"); v != 1 {
			t.Errorf("nextval of a sequence created beside an uncommitted one = %d, want 1", v)
		}
		if v := firstSerial(t, other, "t2"); v != 1 {
			t.Errorf("first serial of a table created beside an uncommitted one = %d, want 1", v)
		}
		mustExec(t, conn, "ROLLBACK")
		mustExec(t, conn, "CREATE SEQUENCE s1", "CREATE TABLE t1 (id serial, v text)")
		if v := nextval(t, conn, "s1"); v != 1 {
			t.Errorf("nextval of a sequence created again after a rollback = %d, want 1", v)
		}
		if v := firstSerial(t, conn, "t1"); v != 1 {
			t.Errorf("first serial of a table created again after a rollback = %d, want 1", v)
		}
		mustExec(t, conn, "BEGIN", "CREATE SEQUENCE s3", "CREATE TABLE t3 (id serial, v text)")
		nextval(t, conn, "s3")
		firstSerial(t, conn, "t3")
		mustExec(t, conn, "ROLLBACK")
	})
	t.Run("after restart", func(t *testing.T) {
		conn := open(t).Connect(t, pgx.QueryExecModeSimpleProtocol)
		mustExec(t, conn, "CREATE SEQUENCE s3", "CREATE TABLE t3 (id serial, v text)")
		if v := nextval(t, conn, "s3"); v != 1 {
			t.Errorf("nextval of a sequence created after a restart = %d, want 1", v)
		}
		if v := firstSerial(t, conn, "t3"); v != 1 {
			t.Errorf("first serial of a table created after a restart = %d, want 1", v)
		}
	})
}
