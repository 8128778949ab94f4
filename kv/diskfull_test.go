package kv

import (
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestPebbleDiskFull drives the engine's full-disk handling with a file
// system whose free space the test sets: a write that would leave less
// than the reserve is refused with a *DiskFullError (ENOSPC) and nothing
// is written (small writes may use half of the reserve), reads go on, and writes work again once space is back; a
// store reopened on a disk too full to flush its write-ahead log opens
// read-only (reads work, writes are refused, AtOpen), and writable again
// once there is room.
func TestPebbleDiskFull(t *testing.T) {
	defer func(d time.Duration) { spaceCheckInterval = d }(spaceCheckInterval)
	spaceCheckInterval = 0
	const total = 1 << 30 // the reserve is 1%: about 10.7 MB
	fs := vfs.NewMem()
	plenty := vfs.DiskUsage{AvailBytes: total / 2, TotalBytes: total}
	full := vfs.DiskUsage{AvailBytes: 1 << 20, TotalBytes: total}
	fs.TestingSetDiskUsage(plenty)
	e, err := OpenPebble("db", PebbleOptions{FS: fs, CacheSize: 1 << 20})
	must(t, err)
	must(t, e.Set([]byte("a"), []byte("1")))

	fs.TestingSetDiskUsage(full)
	wantDiskFull(t, e.Set([]byte("b"), []byte("2")), false)
	b := e.NewBatch()
	must(t, b.Set([]byte("b"), []byte("2")))
	wantDiskFull(t, b.Commit(true), false)
	must(t, b.Close())
	wantGet(t, e, "a", sp("1"))
	wantGet(t, e, "b", nil)

	// In the lower half of the reserve only small writes (a DROP TABLE,
	// a DELETE) go through.
	fs.TestingSetDiskUsage(vfs.DiskUsage{AvailBytes: 8 << 20, TotalBytes: total})
	must(t, e.Delete([]byte("x")))
	wantDiskFull(t, e.Set([]byte("big"), make([]byte, 128<<10)), false)

	fs.TestingSetDiskUsage(plenty)
	must(t, e.Set([]byte("b"), []byte("2")))
	must(t, e.Flush())
	// A copy of the store as a crash leaves it: the WAL holds a and b.
	if _, err := vfs.Clone(fs, fs, "db", "crashed"); err != nil {
		t.Fatal(err)
	}
	must(t, e.Close())

	fs.TestingSetDiskUsage(full)
	e, err = OpenPebble("crashed", PebbleOptions{FS: fs, CacheSize: 1 << 20})
	must(t, err)
	if d := DiskFullOf(e); d == nil || !d.AtOpen {
		t.Fatalf("opened on a full disk: DiskFull() = %v, want AtOpen", d)
	}
	wantGet(t, e, "a", sp("1"))
	wantGet(t, e, "b", sp("2"))
	wantDiskFull(t, e.Set([]byte("c"), []byte("3")), true)
	must(t, e.Close())
	if _, err := OpenPebble("crashed", PebbleOptions{FS: fs, Repair: true}); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("repair on a full disk: %v, want ENOSPC", err)
	}

	fs.TestingSetDiskUsage(plenty)
	e, err = OpenPebble("crashed", PebbleOptions{FS: fs, CacheSize: 1 << 20})
	must(t, err)
	if d := DiskFullOf(e); d != nil {
		t.Fatalf("opened with room: DiskFull() = %v", d)
	}
	must(t, e.Set([]byte("c"), []byte("3")))
	wantGet(t, e, "b", sp("2"))
	must(t, e.Close())
}

func wantDiskFull(t *testing.T, err error, atOpen bool) {
	t.Helper()
	var df *DiskFullError
	if !errors.Is(err, syscall.ENOSPC) || !errors.As(err, &df) || df.AtOpen != atOpen {
		t.Fatalf("got %v, want a *DiskFullError (AtOpen %v)", err, atOpen)
	}
}

// sizedFS is a MemFS whose free space is capacity less the bytes of the
// files in the directory asked about, so deleting a file frees space.
type sizedFS struct {
	*vfs.MemFS
	capacity uint64
}

func (fs *sizedFS) GetDiskUsage(dir string) (vfs.DiskUsage, error) {
	names, err := fs.List(dir)
	if err != nil {
		return vfs.DiskUsage{}, err
	}
	var used uint64
	for _, n := range names {
		if st, err := fs.Stat(fs.PathJoin(dir, n)); err == nil && !st.IsDir() {
			used += uint64(st.Size())
		}
	}
	return vfs.DiskUsage{AvailBytes: fs.capacity - min(used, fs.capacity), TotalBytes: fs.capacity, UsedBytes: used}, nil
}

func (fs *sizedFS) used(t *testing.T, dir string) uint64 {
	u, err := fs.GetDiskUsage(dir)
	must(t, err)
	return u.UsedBytes
}

// TestPebbleBallast: a store opened with a ballast makes it; reopened
// after a crash on a disk too full to flush its WAL, it deletes the
// ballast and opens writable with every row; a ballast too small to make
// room is left alone and the store opens read-only.
func TestPebbleBallast(t *testing.T) {
	const ballast = 16 << 20
	fs := &sizedFS{MemFS: vfs.NewMem(), capacity: 1 << 30}
	opts := PebbleOptions{FS: fs, CacheSize: 1 << 20, Ballast: ballast}
	e, err := OpenPebble("db", opts)
	must(t, err)
	if st, err := fs.Stat("db/" + BallastFile); err != nil || st.Size() != ballast {
		t.Fatalf("ballast of a new store: %v %v", st, err)
	}
	must(t, e.Set([]byte("a"), make([]byte, 1<<20)))
	must(t, e.Flush())
	for _, d := range []string{"crashed", "small"} {
		if _, err := vfs.Clone(fs, fs, "db", d); err != nil {
			t.Fatal(err)
		}
	}
	must(t, e.Close())

	fs.capacity = fs.used(t, "crashed") // not a byte free
	e, err = OpenPebble("crashed", opts)
	must(t, err)
	if d := DiskFullOf(e); d != nil {
		t.Fatalf("with a ballast to delete: opened read-only: %v", d)
	}
	if _, err := fs.Stat("crashed/" + BallastFile); err == nil {
		t.Error("the ballast is still there")
	}
	if v, err := e.Get([]byte("a")); err != nil || len(v) != 1<<20 {
		t.Fatalf("row from the WAL: %d bytes, %v", len(v), err)
	}
	must(t, e.Set([]byte("b"), []byte("2")))
	must(t, e.Close())

	must(t, fs.Remove("small/"+BallastFile))
	f, err := fs.Create("small/"+BallastFile, vfs.WriteCategoryUnspecified)
	must(t, err)
	_, err = f.Write(make([]byte, 1<<20))
	must(t, err)
	must(t, f.Close())
	fs.capacity = fs.used(t, "small")
	e, err = OpenPebble("small", opts)
	must(t, err)
	if d := DiskFullOf(e); d == nil || !d.AtOpen {
		t.Fatalf("with a 1 MiB ballast: DiskFull() = %v, want read-only", d)
	}
	if _, err := fs.Stat("small/" + BallastFile); err != nil {
		t.Errorf("the too small ballast was removed: %v", err)
	}
	wantGet(t, e, "b", nil)
	if v, err := e.Get([]byte("a")); err != nil || len(v) != 1<<20 {
		t.Fatalf("row from the WAL: %d bytes, %v", len(v), err)
	}
	must(t, e.Close())
}
