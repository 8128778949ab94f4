package kv

import (
	"path/filepath"
	"strings"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// walPrealloc is the store's file system with the write-ahead log's
// preallocation limited to disks with room for it. Pebble reserves each
// log's blocks ahead of its writes in steps of 110% of the memtable size
// (fallocate, ignoring failure), and a recycled log keeps its blocks.
// That makes a commit's sync cheaper (no block allocation to sync), but
// on a nearly full disk two or three reservations of 8.8 MiB sat beside
// a memtable flush that needed room too: the flush took the
// spaceGuard's reserve, a later reservation failed unseen, the next log
// append met the disk full, which Pebble treats as fatal, and writes
// stayed refused after space was freed, until a restart
// (internal/crashtest, TestDiskFull). So a log reserves a step only while
// the disk has preallocRoom times its size free; otherwise it grows as
// it is written, and the guard sees all it holds.
type walPrealloc struct{ vfs.FS }

// preallocRoom is how many times a reservation's size must be free for
// the log to make it.
const preallocRoom = 4

func (fs walPrealloc) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.Create(name, category)
	return fs.walFile(name, f), err
}

func (fs walPrealloc) ReuseForWrite(oldname, newname string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.ReuseForWrite(oldname, newname, category)
	return fs.walFile(newname, f), err
}

// walFile wraps f, when it is a write-ahead log, so that it preallocates
// only with room to spare.
func (fs walPrealloc) walFile(name string, f vfs.File) vfs.File {
	if f == nil || !strings.HasSuffix(name, ".log") {
		return f
	}
	return &walPreallocFile{File: f, fs: fs.FS, dir: filepath.Dir(name)}
}

type walPreallocFile struct {
	vfs.File
	fs  vfs.FS
	dir string
}

// Preallocate reserves the blocks when the disk has preallocRoom times
// length free, and otherwise does nothing (as Pebble's own call does
// when the reservation fails).
func (f *walPreallocFile) Preallocate(offset, length int64) error {
	u, err := f.fs.GetDiskUsage(f.dir)
	if err != nil || length < 0 || u.AvailBytes < uint64(length)*preallocRoom {
		return nil
	}
	return f.File.Preallocate(offset, length)
}
