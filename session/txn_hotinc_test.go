package session_test

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strconv"
	"sync"
	"testing"

	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/session"
	"github.com/kvsql/kvsql/types"
	"github.com/kvsql/kvsql/wire/backend"
)

// TestHotIncrementsExact: 8 sessions increment Zipf-chosen rows of a
// 20-row table on Pebble with synced commits, each statement an
// autocommit UPDATE or one of two UPDATEs in an explicit transaction at
// READ COMMITTED or SERIALIZABLE, every one `SET n = n + 1 ... RETURNING
// n`. Hot rows make statements wait for row locks and restart on the
// state of commits still being synced. No increment may be lost or
// doubled: every row ends at the number of committed increments it got,
// and the values the committed statements returned for a row are exactly
// 1..n, each once (each increment saw the one before it, PostgreSQL's
// READ COMMITTED re-check). SERIALIZABLE transactions may fail with
// 40001 (not counted); nothing else may fail. The statements are sent as
// literal text, and prepared, whose UPDATE keeps its operator tree
// between executions and reruns it when a statement restarts.
func TestHotIncrementsExact(t *testing.T) {
	for _, prepared := range []bool{false, true} {
		t.Run(map[bool]string{false: "literal", true: "prepared"}[prepared], func(t *testing.T) {
			testHotIncrements(t, prepared)
		})
	}
}

func testHotIncrements(t *testing.T, prepared bool) {
	const rows, clients = 20, 8
	ops := 400
	if testing.Short() {
		ops = 100
	}
	seed := testkit.Seed(t, *txSeed, "txn.seed")
	db := testkit.OpenPebble(t)
	setup := testkit.NewSession(t, db)
	testkit.Must(t, setup, "CREATE TABLE hot (id INT PRIMARY KEY, n INT NOT NULL)")
	testkit.Must(t, setup, fmt.Sprintf("INSERT INTO hot SELECT g, 0 FROM generate_series(1, %d) g", rows))
	before := db.TxnStats()

	var mu sync.Mutex
	seen := map[int][]int{} // row → the values committed increments returned
	var wg sync.WaitGroup
	errc := make(chan error, clients)
	var incs []backend.Statement
	for c := 0; c < clients; c++ {
		s := testkit.NewSession(t, db)
		var inc backend.Statement
		if prepared {
			sts, err := s.Prepare(context.Background(), "UPDATE hot SET n = n + 1 WHERE id = $1 RETURNING n", nil)
			if err != nil {
				t.Fatal(err)
			}
			inc = sts[0]
			incs = append(incs, inc)
		}
		r := rand.New(rand.NewSource(seed + int64(c)))
		zipf := rand.NewZipf(r, 1.2, 1, rows-1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < ops; i++ {
				got, err := hotIncrement(s, inc, r.Intn(3), 1+int(zipf.Uint64()), 1+int(zipf.Uint64()))
				if pgerror.HasCode(err, pgerror.SerializationFailure) {
					continue
				}
				if err != nil {
					errc <- err
					return
				}
				mu.Lock()
				for id, v := range got {
					seen[id] = append(seen[id], v...)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	for id := 1; id <= rows; id++ {
		vals := seen[id]
		sort.Ints(vals)
		for i, v := range vals {
			if v != i+1 {
				t.Fatalf("row %d: committed increments returned %v, want 1..%d each once", id, vals, len(vals))
			}
		}
		testkit.Want(t, setup, "SELECT n FROM hot WHERE id = "+strconv.Itoa(id), strconv.Itoa(len(vals)))
	}
	after := db.TxnStats()
	t.Logf("seed %d: %d commits, %d statement restarts, %d conflicts", seed,
		after.Commits-before.Commits, after.Restarts-before.Restarts, after.Conflicts-before.Conflicts)
	if after.Restarts == before.Restarts {
		t.Error("no statement restarted: the test did not meet hot rows")
	}
	for _, st := range incs {
		if !session.HoldsTree(st) {
			t.Error("the prepared UPDATE keeps no operator tree")
		}
	}
}

// hotIncrement increments row x (mode 0: autocommit) or rows x then y in
// one transaction (1: READ COMMITTED, 2: SERIALIZABLE) and returns, once
// committed, the values each row's UPDATE returned. The UPDATE is st
// (prepared, taking the row's id) when not nil, else literal text.
func hotIncrement(s *session.Session, st backend.Statement, mode, x, y int) (map[int][]int, error) {
	ctx := context.Background()
	inc := func(id int) (int, error) {
		if st != nil {
			res, err := st.Execute(ctx, []types.Datum{types.NewInt(int64(id))})
			if err != nil {
				return 0, err
			}
			defer res.Close()
			var vals []string
			for res.Next() {
				vals = append(vals, res.Row()[0].String())
			}
			if err := res.Err(); err != nil {
				return 0, err
			}
			if len(vals) != 1 || res.Tag() != "UPDATE 1" {
				return 0, fmt.Errorf("UPDATE of row %d: %v (%s), want one row", id, vals, res.Tag())
			}
			return strconv.Atoi(vals[0])
		}
		res, err := s.Exec(ctx, "UPDATE hot SET n = n + 1 WHERE id = "+strconv.Itoa(id)+" RETURNING n")
		if err != nil {
			return 0, err
		}
		if len(res) != 1 || len(res[0].Rows) != 1 {
			return 0, fmt.Errorf("UPDATE of row %d: %v, want one row", id, res)
		}
		return strconv.Atoi(res[0].Rows[0][0].String())
	}
	if mode == 0 {
		v, err := inc(x)
		return map[int][]int{x: {v}}, err
	}
	level := "READ COMMITTED"
	if mode == 2 {
		level = "SERIALIZABLE"
	}
	if _, err := s.Exec(ctx, "BEGIN ISOLATION LEVEL "+level); err != nil {
		return nil, err
	}
	if x > y {
		x, y = y, x // one lock order: no deadlocks
	}
	got := map[int][]int{}
	for _, id := range []int{x, y} {
		v, err := inc(id)
		if err != nil {
			_, _ = s.Exec(ctx, "ROLLBACK")
			return nil, err
		}
		got[id] = append(got[id], v)
	}
	if _, err := s.Exec(ctx, "COMMIT"); err != nil {
		return nil, err
	}
	return got, nil
}
