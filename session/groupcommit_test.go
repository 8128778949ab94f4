package session_test

import (
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/session"
)

// holdFS wraps a vfs.FS so that, while held, every sync of a file opened
// for writing blocks until release: a WAL sync that takes as long as the
// test wants.
type holdFS struct {
	vfs.FS
	mu      sync.Mutex
	gate    chan struct{} // nil: syncs pass; else closed by release
	blocked chan struct{} // receives once per sync that blocks
}

func newHoldFS() *holdFS { return &holdFS{FS: vfs.Default, blocked: make(chan struct{}, 64)} }

// hold makes the next syncs block.
func (fs *holdFS) hold() {
	fs.mu.Lock()
	fs.gate = make(chan struct{})
	fs.mu.Unlock()
}

// release lets the blocked syncs, and the later ones, through.
func (fs *holdFS) release() {
	fs.mu.Lock()
	if fs.gate != nil {
		close(fs.gate)
		fs.gate = nil
	}
	fs.mu.Unlock()
}

func (fs *holdFS) wait() {
	fs.mu.Lock()
	g := fs.gate
	fs.mu.Unlock()
	if g != nil {
		select {
		case fs.blocked <- struct{}{}:
		default:
		}
		<-g
	}
}

func (fs *holdFS) wrap(f vfs.File, err error) (vfs.File, error) {
	if err != nil {
		return nil, err
	}
	return &holdFile{File: f, fs: fs}, nil
}

func (fs *holdFS) Create(name string, c vfs.DiskWriteCategory) (vfs.File, error) {
	return fs.wrap(fs.FS.Create(name, c))
}

func (fs *holdFS) OpenReadWrite(name string, c vfs.DiskWriteCategory, opts ...vfs.OpenOption) (vfs.File, error) {
	return fs.wrap(fs.FS.OpenReadWrite(name, c, opts...))
}

func (fs *holdFS) ReuseForWrite(oldname, newname string, c vfs.DiskWriteCategory) (vfs.File, error) {
	return fs.wrap(fs.FS.ReuseForWrite(oldname, newname, c))
}

type holdFile struct {
	vfs.File
	fs *holdFS
}

func (f *holdFile) Sync() error {
	f.fs.wait()
	return f.File.Sync()
}

func (f *holdFile) SyncData() error {
	f.fs.wait()
	return f.File.SyncData()
}

func (f *holdFile) SyncTo(n int64) (bool, error) {
	f.fs.wait()
	return f.File.SyncTo(n)
}

// within fails the test unless c delivers within d; it returns what c
// delivered.
func within(t *testing.T, c <-chan error, d time.Duration, what string) error {
	t.Helper()
	select {
	case err := <-c:
		return err
	case <-time.After(d):
		t.Fatalf("%s: still waiting after %v", what, d)
		return nil
	}
}

// TestGroupCommitDurableSnapshot: while a commit is applied but its WAL
// sync has not finished, other transactions neither see it nor wait for
// it, as in PostgreSQL, where a commit becomes visible once its WAL
// record is flushed; a statement that must write a row that commit wrote
// waits for the sync and then writes on top of it (no lost update); and
// the committing client hears COMMIT only after the sync.
func TestGroupCommitDurableSnapshot(t *testing.T) {
	fs := newHoldFS()
	eng, err := kv.OpenPebble(filepath.Join(t.TempDir(), "db"), kv.PebbleOptions{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	db, err := session.Open(session.Options{Engine: eng})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fs.release(); _ = db.Close() })
	a, b, c := testkit.NewSession(t, db), testkit.NewSession(t, db), testkit.NewSession(t, db)
	testkit.Must(t, a, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)")
	testkit.Must(t, a, "INSERT INTO t VALUES (1, 10), (2, 20)")

	fs.hold()
	commits := db.TxnStats().Commits
	insert := goRun(a, "INSERT INTO t VALUES (3, 30)")
	update := goRun(c, "UPDATE t SET v = v + 1 WHERE id = 1")
	<-fs.blocked // a sync is under way, and held
	deadline := time.Now().Add(10 * time.Second)
	for db.TxnStats().Commits < commits+2 {
		if time.Now().After(deadline) {
			t.Fatal("the two commits were not applied")
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case err := <-insert:
		t.Fatalf("INSERT acknowledged (%v) before its WAL sync", err)
	case err := <-update:
		t.Fatalf("UPDATE acknowledged (%v) before its WAL sync", err)
	case <-time.After(50 * time.Millisecond):
	}

	// b neither sees the applied commits nor waits for their sync.
	if err := within(t, goRun(b, "BEGIN"), 5*time.Second, "BEGIN during a sync"); err != nil {
		t.Fatal(err)
	}
	testkit.Want(t, b, "SELECT id, v FROM t ORDER BY id", "1 10\n2 20")
	if err := within(t, goRun(b, "UPDATE t SET v = v + 1 WHERE id = 2"), 5*time.Second, "UPDATE of another row during a sync"); err != nil {
		t.Fatal(err)
	}
	// Row 1 was written by a commit still being synced: this statement
	// waits for the sync, then adds to the committed value.
	bump := goRun(b, "UPDATE t SET v = v + 100 WHERE id = 1")
	select {
	case err := <-bump:
		t.Fatalf("UPDATE of a row whose commit is not durable returned (%v) before the sync", err)
	case <-time.After(100 * time.Millisecond):
	}
	fs.release()
	for _, r := range []struct {
		c    <-chan error
		what string
	}{{insert, "INSERT"}, {update, "UPDATE"}, {bump, "UPDATE after the sync"}} {
		if err := within(t, r.c, 10*time.Second, r.what); err != nil {
			t.Fatalf("%s: %v", r.what, err)
		}
	}
	testkit.Want(t, b, "SELECT id, v FROM t ORDER BY id", "1 111\n2 21\n3 30")
	testkit.Must(t, b, "COMMIT")
	testkit.Want(t, a, "SELECT id, v FROM t ORDER BY id", "1 111\n2 21\n3 30")
}

// TestGroupCommitSeesAcknowledged: transactions begin and refresh at the
// snapshot the last WAL sync published, so what must hold is that it
// always holds every acknowledged commit. Writers increment random rows
// (explicit transactions and autocommit, READ COMMITTED and
// SERIALIZABLE) and publish each acknowledged value; readers note the
// published values, then read in a new transaction (autocommit, a
// writing transaction's first statement, and a later statement of an
// open transaction, after a refresh) and must see at least them. At the
// end each row holds exactly its acknowledged increments (no lost
// update). Randomized: -txn.seed replays a run.
func TestGroupCommitSeesAcknowledged(t *testing.T) {
	const rows, writers, readers = 4, 6, 3
	dur := 3 * time.Second
	if testing.Short() {
		dur = time.Second
	}
	seed := testkit.Seed(t, *txSeed, "txn.seed")
	db, err := session.Open(session.Options{Dir: filepath.Join(t.TempDir(), "db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	setup := testkit.NewSession(t, db)
	testkit.Must(t, setup, "CREATE TABLE c (id INT PRIMARY KEY, v INT NOT NULL)")
	testkit.Must(t, setup, "CREATE TABLE seen (id INT PRIMARY KEY, v INT NOT NULL)")
	testkit.Must(t, setup, "INSERT INTO c SELECT g, 0 FROM generate_series(0, 3) g")

	var acked [rows]atomic.Int64 // the highest acknowledged value of each row
	var increments [rows]atomic.Int64
	publish := func(r int, v int64) {
		for {
			old := acked[r].Load()
			if v <= old || acked[r].CompareAndSwap(old, v) {
				return
			}
		}
	}
	deadline := time.Now().Add(dur)
	var wg sync.WaitGroup
	errc := make(chan error, writers+readers)
	for w := range writers {
		s := testkit.NewSession(t, db)
		if w%2 == 1 {
			testkit.Must(t, s, "SET default_transaction_isolation = 'serializable'")
		}
		rng := rand.New(rand.NewSource(seed + int64(w)))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				r := rng.Intn(rows)
				upd := fmt.Sprintf("UPDATE c SET v = v + 1 WHERE id = %d RETURNING v", r)
				explicit := rng.Intn(2) == 0
				if explicit {
					if err := testkit.Run(s, "BEGIN"); err != nil {
						errc <- err
						return
					}
				}
				res, err := s.Exec(context.Background(), upd)
				if err == nil && explicit {
					err = testkit.Run(s, "COMMIT")
				}
				if pgerror.HasCode(err, pgerror.SerializationFailure) {
					_ = testkit.Run(s, "ROLLBACK")
					continue // not acknowledged: nothing to publish
				}
				if err != nil {
					errc <- fmt.Errorf("%s: %w", upd, err)
					return
				}
				increments[r].Add(1)
				publish(r, res[0].Rows[0][0].I)
			}
		}()
	}
	for rd := range readers {
		s := testkit.NewSession(t, db)
		rng := rand.New(rand.NewSource(seed + 100 + int64(rd)))
		wg.Add(1)
		go func() {
			defer wg.Done()
			check := func(how string) error {
				var want [rows]int64
				for r := range want {
					want[r] = acked[r].Load()
				}
				res, err := s.Exec(context.Background(), "SELECT id, v FROM c ORDER BY id")
				if err != nil {
					return err
				}
				for _, row := range res[0].Rows {
					if r := row[0].I; row[1].I < want[r] {
						return fmt.Errorf("%s: row %d reads %d after %d was acknowledged", how, r, row[1].I, want[r])
					}
				}
				return nil
			}
			for i := 0; time.Now().Before(deadline); i++ {
				var err error
				switch rng.Intn(3) {
				case 0: // autocommit read (beginRead)
					err = check("autocommit SELECT")
				case 1: // a writing transaction's first statement (begin)
					err = testkit.Run(s, "BEGIN")
					if err == nil {
						err = check("first statement")
					}
					if err == nil {
						err = testkit.Run(s, fmt.Sprintf("INSERT INTO seen VALUES (%d, 1) ON CONFLICT (id) DO UPDATE SET v = seen.v + 1", rd))
					}
					if err == nil {
						err = testkit.Run(s, "COMMIT")
					}
				case 2: // a later statement (refresh)
					err = testkit.Run(s, "BEGIN")
					if err == nil {
						err = testkit.Run(s, "SELECT 1")
					}
					if err == nil {
						time.Sleep(time.Duration(rng.Intn(500)) * time.Microsecond)
						err = check("statement after a refresh")
					}
					if err == nil {
						err = testkit.Run(s, "COMMIT")
					}
				}
				if pgerror.HasCode(err, pgerror.SerializationFailure) {
					_ = testkit.Run(s, "ROLLBACK")
					continue
				}
				if err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	var total int64
	for r := range rows {
		total += increments[r].Load()
		testkit.Want(t, setup, fmt.Sprintf("SELECT v FROM c WHERE id = %d", r), fmt.Sprint(increments[r].Load()))
	}
	st := db.TxnStats()
	t.Logf("%d acknowledged increments, %d commits, %d WAL syncs", total, st.Commits, st.Syncs)
	if total == 0 {
		t.Fatal("no increment was acknowledged")
	}
}
