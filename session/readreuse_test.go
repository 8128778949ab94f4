package session_test

import (
	"context"
	"fmt"
	"math/rand"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kvsql/kvsql/session"
	"github.com/kvsql/kvsql/types"
	"github.com/kvsql/kvsql/wire/backend"
)

// firstInt runs a prepared one-row query and returns its first column
// as an integer, keeping the result open for the caller to close.
func openFirstInt(t *testing.T, st backend.Statement, params ...types.Datum) (int64, backend.Result) {
	t.Helper()
	res, err := st.Execute(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Next() {
		t.Fatalf("no row: %v", res.Err())
	}
	return res.Row()[0].I, res
}

// TestReadTxnReuseOpenQueries: two autocommit queries of one session open
// at once (two portals) each keep their own snapshot, whatever order they
// close in, and the queries after them see every commit made meanwhile:
// the spare read transaction (Session.endRead) is never shared.
func TestReadTxnReuseOpenQueries(t *testing.T) {
	ctx := context.Background()
	db, err := session.Open(session.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r, w := mustSession(t, db), mustSession(t, db)
	if _, err := w.Exec(ctx, "CREATE TABLE c (id INT8 PRIMARY KEY, v INT8); INSERT INTO c VALUES (1, 0)"); err != nil {
		t.Fatal(err)
	}
	sts, err := r.Prepare(ctx, "SELECT v FROM c WHERE id = 1", nil)
	if err != nil {
		t.Fatal(err)
	}
	st := sts[0]
	for round := int64(0); round < 20; round++ {
		// v is 2*round when the round starts.
		a, resA := openFirstInt(t, st)
		if _, err := w.Exec(ctx, "UPDATE c SET v = v + 1 WHERE id = 1"); err != nil {
			t.Fatal(err)
		}
		b, resB := openFirstInt(t, st)
		if _, err := w.Exec(ctx, "UPDATE c SET v = v + 1 WHERE id = 1"); err != nil {
			t.Fatal(err)
		}
		if a != 2*round || b != 2*round+1 {
			t.Fatalf("round %d: open queries read %d and %d, want %d and %d", round, a, b, 2*round, 2*round+1)
		}
		first, second := resA, resB
		if round%2 == 1 {
			first, second = resB, resA
		}
		if err := first.Close(); err != nil {
			t.Fatal(err)
		}
		c, resC := openFirstInt(t, st) // may reuse first's transaction
		if err := resC.Close(); err != nil {
			t.Fatal(err)
		}
		if err := second.Close(); err != nil {
			t.Fatal(err)
		}
		if c != 2*round+2 {
			t.Fatalf("round %d: a query after two commits read %d, want %d", round, c, 2*round+2)
		}
	}
}

func mustSession(t *testing.T, db *session.DB) *session.Session {
	t.Helper()
	s, err := db.Session("")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestReadTxnReuseConcurrent runs autocommit reads on the reused read
// transactions (fast) and on new ones reading through their kv.Txn (the
// reference path, SetSnapshotReads(false)) while writers commit
// concurrently: transfers that keep the total of the balances, and a
// counter each writer raises. Every read must see a consistent snapshot
// (the total never changes; the same query on both paths answers within
// what the commits between them allow) holding every commit acknowledged
// before it began (a counter value a writer reported done is never read
// lower).
func TestReadTxnReuseConcurrent(t *testing.T) {
	for _, noSync := range []bool{false, true} {
		t.Run(fmt.Sprintf("nosync=%v", noSync), func(t *testing.T) { runReadTxnReuseConcurrent(t, noSync) })
	}
}

func runReadTxnReuseConcurrent(t *testing.T, noSync bool) {
	const accounts, total, writers = 20, 20 * 100, 3
	ctx := context.Background()
	db, err := session.Open(session.Options{Dir: t.TempDir(), NoSync: noSync})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	setup := mustSession(t, db)
	if _, err := setup.Exec(ctx, fmt.Sprintf("CREATE TABLE acct (id INT8 PRIMARY KEY, bal INT8); INSERT INTO acct SELECT g, 100 FROM generate_series(0, %d) g; CREATE TABLE ctr (w INT8 PRIMARY KEY, n INT8); INSERT INTO ctr SELECT g, 0 FROM generate_series(0, %d) g", accounts-1, writers-1)); err != nil {
		t.Fatal(err)
	}
	var acked [writers]atomic.Int64 // the counter value each writer's last acknowledged commit wrote
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, writers+2)
	for w := range writers {
		s := mustSession(t, db)
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(w)))
			for n := int64(1); ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				from, to, amt := rng.Int63n(accounts), rng.Int63n(accounts), rng.Int63n(50)
				if _, err := s.Exec(ctx, "UPDATE acct SET bal = bal + CASE WHEN id = $1 THEN -$3 ELSE $3 END WHERE id IN ($1, $2) AND $1 <> $2", types.NewInt(from), types.NewInt(to), types.NewInt(amt)); err != nil {
					errs <- fmt.Errorf("writer %d: transfer: %w", w, err)
					return
				}
				if _, err := s.Exec(ctx, "UPDATE ctr SET n = $2 WHERE w = $1", types.NewInt(int64(w)), types.NewInt(n)); err != nil {
					errs <- fmt.Errorf("writer %d: counter: %w", w, err)
					return
				}
				acked[w].Store(n)
			}
		}()
	}
	var readers sync.WaitGroup
	read := func(name string, s *session.Session) {
		defer readers.Done()
		sum, err := s.Prepare(ctx, "SELECT sum(bal)::int8, count(*) FROM acct", nil)
		if err == nil {
			var ctrSts []backend.Statement
			ctrSts, err = s.Prepare(ctx, "SELECT n FROM ctr WHERE w = $1", nil)
			if err == nil {
				err = readLoop(ctx, sum[0], ctrSts[0], &acked, total, accounts)
			}
		}
		if err != nil {
			errs <- fmt.Errorf("%s reader: %w", name, err)
		}
	}
	fast, slow := mustSession(t, db), mustSession(t, db)
	slow.SetSnapshotReads(false)
	readers.Add(2)
	go read("fast", fast)
	go read("slow", slow)
	readers.Wait()
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// readLoop reads 300 times the balances' total (must be total over
// accounts rows) and a writer's counter (must be at least what the
// writer had acknowledged before the read began).
func readLoop(ctx context.Context, sum, ctr backend.Statement, acked *[3]atomic.Int64, total, accounts int64) error {
	for i := 0; i < 300; i++ {
		rows, err := collect(ctx, sum, nil)
		if err != nil {
			return err
		}
		if len(rows) != 1 || rows[0][0].I != total || rows[0][1].I != accounts {
			return fmt.Errorf("read %d: total and count %v, want %d %d", i, rows, total, accounts)
		}
		w := int64(i % len(acked))
		floor := acked[w].Load()
		rows, err = collect(ctx, ctr, []types.Datum{types.NewInt(w)})
		if err != nil {
			return err
		}
		if len(rows) != 1 || rows[0][0].I < floor {
			return fmt.Errorf("read %d: writer %d's counter %v, acknowledged %d before the read", i, w, rows, floor)
		}
	}
	return nil
}

// collect runs st and returns its rows (copied).
func collect(ctx context.Context, st backend.Statement, params []types.Datum) ([][]types.Datum, error) {
	res, err := st.Execute(ctx, params)
	if err != nil {
		return nil, err
	}
	var out [][]types.Datum
	for res.Next() {
		out = append(out, append([]types.Datum(nil), res.Row()...))
	}
	if err := res.Err(); err != nil {
		_ = res.Close()
		return nil, err
	}
	return out, res.Close()
}
