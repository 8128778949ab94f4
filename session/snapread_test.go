package session_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/session"
	"github.com/kvsql/kvsql/types"
)

// snapReadQueries are the autocommit queries TestSnapshotReads compares,
// with the answer each should give on a model of the table (id → grp,
// bal), as text rows. They cover the snapshot's point reads (a primary
// key), ranges of the master file and of an index, a LIMIT that stops
// an iterator early, and an aggregate over the whole table.
var snapReadQueries = []struct {
	sql    string
	params func(r *rand.Rand) []types.Datum
	want   func(m map[int64][2]int64, p []types.Datum) []string
}{
	{"SELECT bal FROM acct WHERE id = $1",
		func(r *rand.Rand) []types.Datum { return []types.Datum{types.NewInt(r.Int63n(snapReadIDs))} },
		func(m map[int64][2]int64, p []types.Datum) []string {
			if row, ok := m[p[0].I]; ok {
				return []string{fmt.Sprint(row[1])}
			}
			return nil
		}},
	{"SELECT id, bal FROM acct WHERE id >= $1 AND id < $2 ORDER BY id",
		func(r *rand.Rand) []types.Datum {
			lo := r.Int63n(snapReadIDs)
			return []types.Datum{types.NewInt(lo), types.NewInt(lo + r.Int63n(20))}
		},
		func(m map[int64][2]int64, p []types.Datum) []string {
			var out []string
			for _, id := range modelIDs(m) {
				if id >= p[0].I && id < p[1].I {
					out = append(out, fmt.Sprint(id, " ", m[id][1]))
				}
			}
			return out
		}},
	{"SELECT id FROM acct WHERE grp = $1 ORDER BY id DESC LIMIT 3",
		func(r *rand.Rand) []types.Datum { return []types.Datum{types.NewInt(r.Int63n(snapReadGroups))} },
		func(m map[int64][2]int64, p []types.Datum) []string {
			var out []string
			ids := modelIDs(m)
			for i := len(ids) - 1; i >= 0 && len(out) < 3; i-- {
				if m[ids[i]][0] == p[0].I {
					out = append(out, fmt.Sprint(ids[i]))
				}
			}
			return out
		}},
	{"SELECT count(*), coalesce(sum(bal), 0) FROM acct",
		func(*rand.Rand) []types.Datum { return nil },
		func(m map[int64][2]int64, _ []types.Datum) []string {
			var sum int64
			for _, row := range m {
				sum += row[1]
			}
			return []string{fmt.Sprint(len(m), " ", sum)}
		}},
}

const (
	snapReadIDs    = 60
	snapReadGroups = 6
)

func modelIDs(m map[int64][2]int64) []int64 {
	ids := make([]int64, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// textRows runs a query and returns its rows as text, one string a row.
func textRows(ctx context.Context, s *session.Session, sql string, params []types.Datum) ([]string, error) {
	res, err := s.Exec(ctx, sql, params...)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, row := range res[len(res)-1].Rows {
		f := make([]string, len(row))
		for i, d := range row {
			f[i] = d.String()
		}
		out = append(out, strings.Join(f, " "))
	}
	return out, nil
}

// snapWrite is one write of a writer, kept until its transaction commits
// to be applied to the model then.
type snapWrite struct {
	op           byte // 'i'nsert, 'u'pdate, 'd'elete
	id, grp, bal int64
	sql          string
	params       []types.Datum
}

// TestSnapshotReads is the differential test of the direct snapshot reads
// of autocommit queries (snapread.go): random interleavings of writes by
// three sessions (autocommit, and explicit transactions left open across
// reads, committed or rolled back) with reads by a session on the fast
// path and one whose autocommit queries read through their kv.Txn (the
// path it bypasses). After every step both must give the same rows, and
// those of a model holding exactly the acknowledged commits: a commit
// acknowledged to any session is seen by the next read of every other
// (read-your-writes across sessions), an open transaction's writes by
// none. Both with group commit's syncs and without (NoSync), whose
// snapshots are published differently (DB.beginRead). Reproduce a failure
// with the printed -seed.
func TestSnapshotReads(t *testing.T) {
	rng := seededRand(t)
	for _, noSync := range []bool{false, true} {
		t.Run(fmt.Sprintf("nosync=%v", noSync), func(t *testing.T) {
			runSnapshotReads(t, rand.New(rand.NewSource(rng.Int63())), noSync)
		})
	}
}

func runSnapshotReads(t *testing.T, rng *rand.Rand, noSync bool) {
	ctx := context.Background()
	db, err := session.Open(session.Options{Dir: t.TempDir(), NoSync: noSync})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	open := func() *session.Session {
		s, err := db.Session("")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	setup := open()
	if _, err := setup.Exec(ctx, "CREATE TABLE acct (id INT8 PRIMARY KEY, grp INT8, bal INT8); CREATE INDEX acct_grp ON acct (grp)"); err != nil {
		t.Fatal(err)
	}
	model := map[int64][2]int64{}
	fast, slow := open(), open()
	slow.SetSnapshotReads(false)
	writers := []*session.Session{open(), open(), open()}
	for _, s := range writers {
		// One goroutine drives every writer: a write that waits for a
		// row another writer's open transaction locked gives up soon.
		if _, err := s.Exec(ctx, "SET lock_timeout = '20ms'"); err != nil {
			t.Fatal(err)
		}
	}
	pending := make([][]snapWrite, len(writers)) // nil: no transaction open
	inTxn := make([]bool, len(writers))
	apply := func(ws []snapWrite) {
		for _, w := range ws {
			switch w.op {
			case 'i':
				model[w.id] = [2]int64{w.grp, w.bal}
			case 'u':
				if row, ok := model[w.id]; ok {
					model[w.id] = [2]int64{row[0], w.bal}
				}
			case 'd':
				delete(model, w.id)
			}
		}
	}
	randomWrite := func() snapWrite {
		id := rng.Int63n(snapReadIDs)
		switch rng.Intn(3) {
		case 0:
			w := snapWrite{op: 'i', id: id, grp: rng.Int63n(snapReadGroups), bal: rng.Int63n(1000)}
			w.sql = "INSERT INTO acct VALUES ($1, $2, $3)"
			w.params = []types.Datum{types.NewInt(w.id), types.NewInt(w.grp), types.NewInt(w.bal)}
			return w
		case 1:
			w := snapWrite{op: 'u', id: id, bal: rng.Int63n(1000)}
			w.sql = "UPDATE acct SET bal = $2 WHERE id = $1"
			w.params = []types.Datum{types.NewInt(w.id), types.NewInt(w.bal)}
			return w
		default:
			return snapWrite{op: 'd', id: id, sql: "DELETE FROM acct WHERE id = $1", params: []types.Datum{types.NewInt(id)}}
		}
	}
	// A failed write or commit (a duplicate key, a serialization
	// failure, a lock wait given up) is part of the game; anything else
	// is not.
	expected := func(err error) bool {
		return pgerror.HasCode(err, pgerror.UniqueViolation) || pgerror.HasCode(err, pgerror.SerializationFailure) || pgerror.HasCode(err, pgerror.LockNotAvailable)
	}
	reads := 0
	for step := 0; step < 800; step++ {
		w := rng.Intn(len(writers))
		s := writers[w]
		switch r := rng.Intn(10); {
		case r < 3: // an autocommit write, or one in the open transaction
			wr := randomWrite()
			res, err := s.Exec(ctx, wr.sql, wr.params...)
			if err == nil && strings.HasSuffix(res[0].Tag, " 0") {
				// Nothing matched in the writer's view: no write to
				// replay (the row may exist by the commit, inserted by
				// a transaction serialized after this one).
				continue
			}
			switch {
			case err != nil && !expected(err):
				t.Fatalf("step %d: %s: %v", step, wr.sql, err)
			case err != nil && inTxn[w]:
				if _, err := s.Exec(ctx, "ROLLBACK"); err != nil {
					t.Fatal(err)
				}
				inTxn[w], pending[w] = false, nil
			case err != nil:
			case inTxn[w]:
				pending[w] = append(pending[w], wr)
			default:
				apply([]snapWrite{wr})
			}
		case r < 5: // begin, commit or roll back
			switch {
			case !inTxn[w]:
				if _, err := s.Exec(ctx, "BEGIN"); err != nil {
					t.Fatal(err)
				}
				inTxn[w] = true
			case rng.Intn(4) == 0:
				if _, err := s.Exec(ctx, "ROLLBACK"); err != nil {
					t.Fatal(err)
				}
				inTxn[w], pending[w] = false, nil
			default:
				_, err := s.Exec(ctx, "COMMIT")
				if err != nil && !expected(err) {
					t.Fatalf("step %d: COMMIT: %v", step, err)
				}
				if err == nil {
					apply(pending[w])
				}
				inTxn[w], pending[w] = false, nil
			}
		default: // a read on both paths, checked against the model
			q := snapReadQueries[rng.Intn(len(snapReadQueries))]
			p := q.params(rng)
			want := q.want(model, p)
			got, err := textRows(ctx, fast, q.sql, p)
			if err != nil {
				t.Fatalf("step %d: %s %v: %v", step, q.sql, p, err)
			}
			ref, err := textRows(ctx, slow, q.sql, p)
			if err != nil {
				t.Fatalf("step %d: %s %v (through the kv.Txn): %v", step, q.sql, p, err)
			}
			if strings.Join(got, "|") != strings.Join(ref, "|") {
				t.Fatalf("step %d: %s %v: snapshot read %q, through the kv.Txn %q", step, q.sql, p, got, ref)
			}
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("step %d: %s %v: %q, the acknowledged commits give %q", step, q.sql, p, got, want)
			}
			reads++
		}
	}
	for w, s := range writers {
		if inTxn[w] {
			if _, err := s.Exec(ctx, "ROLLBACK"); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("%d reads compared", reads)
	concurrentSnapshotReads(t, db, noSync)
}

// concurrentSnapshotReads runs transfers between accounts (explicit
// transactions that keep the total balance) beside fast-path readers,
// each of which must always see the same total and row count: every
// query reads one consistent snapshot, however commits interleave with
// its reads. Run it with -race.
func concurrentSnapshotReads(t *testing.T, db *session.DB, noSync bool) {
	ctx := context.Background()
	s, err := db.Session("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Exec(ctx, "DELETE FROM acct; INSERT INTO acct SELECT g, g % 6, 100 FROM generate_series(0, 59) AS g"); err != nil {
		t.Fatal(err)
	}
	const total = "60 6000"
	deadline := time.Now().Add(time.Second)
	var wg sync.WaitGroup
	var transfers, checks atomic.Int64
	errs := make(chan error, 8)
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			s, err := db.Session("")
			if err != nil {
				errs <- err
				return
			}
			r := rand.New(rand.NewSource(int64(w)))
			for time.Now().Before(deadline) {
				a, b := r.Int63n(snapReadIDs), r.Int63n(snapReadIDs)
				_, err := s.Exec(ctx, "BEGIN; UPDATE acct SET bal = bal - 7 WHERE id = $1; UPDATE acct SET bal = bal + 7 WHERE id = $2; COMMIT", types.NewInt(a), types.NewInt(b))
				if err != nil {
					_, _ = s.Exec(ctx, "ROLLBACK")
					if !pgerror.HasCode(err, pgerror.SerializationFailure) && !pgerror.HasCode(err, pgerror.LockNotAvailable) && !pgerror.HasCode(err, pgerror.DeadlockDetected) {
						errs <- fmt.Errorf("transfer: %w", err)
						return
					}
					continue
				}
				transfers.Add(1)
			}
		}(w)
	}
	for rd := 0; rd < 3; rd++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := db.Session("")
			if err != nil {
				errs <- err
				return
			}
			for time.Now().Before(deadline) {
				got, err := textRows(ctx, s, "SELECT count(*), sum(bal) FROM acct", nil)
				if err != nil {
					errs <- err
					return
				}
				if len(got) != 1 || got[0] != total {
					errs <- fmt.Errorf("total %q, want %q", got, total)
					return
				}
				rows, err := textRows(ctx, s, "SELECT id, bal FROM acct WHERE grp = 3 ORDER BY id", nil)
				if err != nil {
					errs <- err
					return
				}
				if len(rows) != snapReadIDs/snapReadGroups {
					errs <- fmt.Errorf("group 3: %d rows, want %d", len(rows), snapReadIDs/snapReadGroups)
					return
				}
				checks.Add(1)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if errors.Is(err, context.Canceled) {
			continue
		}
		t.Fatal(err)
	}
	if transfers.Load() == 0 || checks.Load() == 0 {
		t.Fatalf("nosync=%v: %d transfers, %d checks: nothing interleaved", noSync, transfers.Load(), checks.Load())
	}
	t.Logf("%d transfers beside %d consistent reads", transfers.Load(), checks.Load())
}
