package session_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/session"
)

// errTxInjected is the error the fault file system injects.
var errTxInjected = errors.New("injected I/O error")

// txFaultFS wraps a vfs.FS so that, on demand, writes or syncs of every
// file opened for writing fail.
type txFaultFS struct {
	vfs.FS
	failWrites, failSyncs atomic.Bool
	injected              atomic.Int64
}

var _ vfs.FS = (*txFaultFS)(nil)

func (fs *txFaultFS) wrap(f vfs.File, err error) (vfs.File, error) {
	if err != nil {
		return nil, err
	}
	return &txFaultFile{File: f, fs: fs}, nil
}

func (fs *txFaultFS) Create(name string, c vfs.DiskWriteCategory) (vfs.File, error) {
	return fs.wrap(fs.FS.Create(name, c))
}

func (fs *txFaultFS) OpenReadWrite(name string, c vfs.DiskWriteCategory, opts ...vfs.OpenOption) (vfs.File, error) {
	return fs.wrap(fs.FS.OpenReadWrite(name, c, opts...))
}

func (fs *txFaultFS) ReuseForWrite(oldname, newname string, c vfs.DiskWriteCategory) (vfs.File, error) {
	return fs.wrap(fs.FS.ReuseForWrite(oldname, newname, c))
}

// txFaultFile fails Write/WriteAt when failWrites is set and the sync
// methods when failSyncs is.
type txFaultFile struct {
	vfs.File
	fs *txFaultFS
}

func (f *txFaultFile) fail(b *atomic.Bool) error {
	if b.Load() {
		f.fs.injected.Add(1)
		return errTxInjected
	}
	return nil
}

func (f *txFaultFile) Write(p []byte) (int, error) {
	if err := f.fail(&f.fs.failWrites); err != nil {
		return 0, err
	}
	return f.File.Write(p)
}

func (f *txFaultFile) WriteAt(p []byte, off int64) (int, error) {
	if err := f.fail(&f.fs.failWrites); err != nil {
		return 0, err
	}
	return f.File.WriteAt(p, off)
}

func (f *txFaultFile) Sync() error {
	if err := f.fail(&f.fs.failSyncs); err != nil {
		return err
	}
	return f.File.Sync()
}

func (f *txFaultFile) SyncData() error {
	if err := f.fail(&f.fs.failSyncs); err != nil {
		return err
	}
	return f.File.SyncData()
}

func (f *txFaultFile) SyncTo(n int64) (bool, error) {
	if err := f.fail(&f.fs.failSyncs); err != nil {
		return false, err
	}
	return f.File.SyncTo(n)
}

// TestTxnIOFaults: when the WAL's writes or syncs fail, the committing
// client gets a 58030 error, later commits are refused (the store's
// durable state is unknown until it is reopened), and after reopening
// the store on a healthy file system every acknowledged commit is there,
// the failed transaction is wholly there or wholly absent, and every
// index agrees with its master file.
func TestTxnIOFaults(t *testing.T) {
	for _, mode := range []string{"sync", "write"} {
		t.Run(mode, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			ffs := &txFaultFS{FS: vfs.Default}
			eng, err := kv.OpenPebble(dir, kv.PebbleOptions{FS: ffs})
			if err != nil {
				t.Fatal(err)
			}
			db, err := session.Open(session.Options{Engine: eng})
			if err != nil {
				t.Fatal(err)
			}
			s, err := db.Session("")
			if err != nil {
				t.Fatal(err)
			}
			testkit.Must(t, s, "CREATE TABLE f (id INT PRIMARY KEY, v INT NOT NULL, w TEXT); CREATE INDEX f_v ON f (v); CREATE UNIQUE INDEX f_w ON f (w)")
			for i := 0; i < 10; i++ {
				testkit.Must(t, s, fmt.Sprintf("INSERT INTO f VALUES (%d, %d, 'w%d')", i, i%3, i))
			}
			testkit.Must(t, s, "BEGIN")
			testkit.Must(t, s, "UPDATE f SET v = v + 100, w = w || 'x' WHERE id < 5")
			testkit.Must(t, s, "DELETE FROM f WHERE id = 9")
			testkit.Must(t, s, "INSERT INTO f VALUES (20, 1, 'w20')")
			if mode == "sync" {
				ffs.failSyncs.Store(true)
			} else {
				ffs.failWrites.Store(true)
			}
			err = testkit.Run(s, "COMMIT")
			if !pgerror.HasCode(err, pgerror.IOError) {
				t.Fatalf("COMMIT under injected %s errors: %v (code %q), want 58030", mode, err, pgerror.CodeOf(err))
			}
			t.Logf("commit error: %v (%d faults injected)", err, ffs.injected.Load())
			// Sticky: later commits are refused too, even with a healthy disk.
			ffs.failSyncs.Store(false)
			ffs.failWrites.Store(false)
			testkit.WantCode(t, s, "INSERT INTO f VALUES (30, 1, 'w30')", pgerror.IOError)
			_ = s.Close()
			_ = db.Close() // may report the injected error

			db2, err := session.Open(session.Options{Dir: dir})
			if err != nil {
				t.Fatalf("reopen: %v", err)
			}
			defer db2.Close()
			s2 := testkit.NewSession(t, db2)
			testkit.Want(t, s2, "SELECT count(*) FROM f WHERE id = 30", "0")
			got := testkit.Query(t, s2, "SELECT count(*) FROM f WHERE v >= 100")
			switch got {
			case "0": // the failed transaction is absent: check all of it is
				testkit.Want(t, s2, "SELECT count(*) FROM f", "10")
				testkit.Want(t, s2, "SELECT count(*) FROM f WHERE id = 20", "0")
			case "5": // it survived: wholly
				testkit.Want(t, s2, "SELECT count(*) FROM f", "10")
				testkit.Want(t, s2, "SELECT count(*) FROM f WHERE id = 9", "0")
				testkit.Want(t, s2, "SELECT count(*) FROM f WHERE id = 20", "1")
			default:
				t.Fatalf("%s rows of the failed transaction's update survive: a partial transaction", got)
			}
			t.Logf("failed transaction after reopening: %s of 5 updated rows", got)
			snap := db2.Engine().NewSnapshot()
			defer snap.Close()
			probs, err := index.Check(snap, db2.Catalog())
			if err != nil || len(probs) > 0 {
				t.Fatalf("index check: %v %v", probs, err)
			}
		})
	}
}
