package session_test

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/kv"
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

// result runs sql on s in a goroutine; the channel gets its error.
func result(s *session.Session, sql string) <-chan error {
	c := make(chan error, 1)
	go func() { c <- testkit.Run(s, sql) }()
	return c
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
	insert := result(a, "INSERT INTO t VALUES (3, 30)")
	update := result(c, "UPDATE t SET v = v + 1 WHERE id = 1")
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
	if err := within(t, result(b, "BEGIN"), 5*time.Second, "BEGIN during a sync"); err != nil {
		t.Fatal(err)
	}
	testkit.Want(t, b, "SELECT id, v FROM t ORDER BY id", "1 10\n2 20")
	if err := within(t, result(b, "UPDATE t SET v = v + 1 WHERE id = 2"), 5*time.Second, "UPDATE of another row during a sync"); err != nil {
		t.Fatal(err)
	}
	// Row 1 was written by a commit still being synced: this statement
	// waits for the sync, then adds to the committed value.
	bump := result(b, "UPDATE t SET v = v + 100 WHERE id = 1")
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
