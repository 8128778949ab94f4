package kv

import (
	"errors"
	"fmt"
	"log"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// A full disk (issue 22).
//
// On a running server, a write-ahead log write that fails with ENOSPC is
// fatal to Pebble's commit pipeline (it calls Logger.Fatalf; the engine
// turns that into a panic carrying the error, a *FatalError, so the
// caller can tell a full disk from other I/O errors), and no commit can
// succeed again before the store is reopened. The engine therefore
// refuses a write before Pebble sees it when the disk's free space, less
// the write, would fall below a reserve (spaceGuard: 1% of the disk,
// between diskHeadroom and 1 GiB; writes of up to smallWrite bytes may
// use half of it): the write fails with a
// *DiskFullError (wrapping syscall.ENOSPC; SQLSTATE 53100 in package
// session), nothing is written, and writes succeed again as soon as
// space is freed, without a restart. The reserve also leaves room for
// the flushes and compactions already under way.
//
// At open, Pebble's read-write Open flushes the memtables it replayed
// from the write-ahead logs before it returns, and retries a failed
// flush forever: on a disk too full for that flush the server never
// listened. OpenPebble therefore looks at the free space first; if it is
// less than the live logs' size plus diskHeadroom, the store opens
// read-only (Pebble then replays the logs into memory and writes
// nothing), reads work, and every write is refused with a
// *DiskFullError (AtOpen). Freeing space and restarting the server makes
// it writable again.

// diskHeadroom is the free space a read-write open needs beyond the size
// of the logs it replays: a new log, the MANIFEST and OPTIONS files.
const diskHeadroom = 4 << 20

// DiskFullError is what a write refused for lack of space returns
// (wrapped): on a store opened read-only on a full disk (AtOpen), or
// while the free space is below the reserve.
type DiskFullError struct {
	// Dir is the data directory; Avail the free bytes found; Need what a
	// read-write open needs (the live logs to flush plus some headroom)
	// or, for a refused write, the reserve plus the write's size.
	Dir         string
	Avail, Need uint64
	// AtOpen says the store opened read-only: only a restart with more
	// free space makes it writable.
	AtOpen bool
}

func (e *DiskFullError) Error() string {
	if !e.AtOpen {
		return fmt.Sprintf("kv: no space left on device for the store in %s: %d bytes free, the write needs %d with the reserve kept for flushes and compactions", e.Dir, e.Avail, e.Need)
	}
	return fmt.Sprintf("kv: no space left on device for the store in %s: %d bytes free, a read-write open needs %d (to flush %d bytes of write-ahead log); the store is read-only until space is freed and it is reopened",
		e.Dir, e.Avail, e.Need, e.Need-min(e.Need, diskHeadroom))
}

// Unwrap makes errors.Is(err, syscall.ENOSPC) true.
func (e *DiskFullError) Unwrap() error { return syscall.ENOSPC }

// DiskFullReporter is implemented by engines that open read-only on a
// full disk.
type DiskFullReporter interface {
	// DiskFull returns why the store opened read-only for lack of space,
	// or nil.
	DiskFull() *DiskFullError
}

// DiskFullOf returns e's *DiskFullError, or nil.
func DiskFullOf(e Engine) *DiskFullError {
	if d, ok := e.(DiskFullReporter); ok {
		return d.DiskFull()
	}
	return nil
}

// IsDiskFull reports whether err is (or wraps) a full-disk error.
func IsDiskFull(err error) bool { return errors.Is(err, syscall.ENOSPC) }

// checkDiskSpace returns a *DiskFullError when the file system holding
// the existing store in dir has less free space than a read-write open
// needs, else nil. A store that does not exist yet, or a file system
// that cannot tell its free space (vfs.NewMem), is not checked.
func checkDiskSpace(fs vfs.FS, dir string) (*DiskFullError, error) {
	desc, err := pebble.Peek(dir, fs)
	if err != nil || !desc.Exists {
		return nil, nil // Open reports what Peek cannot read
	}
	usage, err := fs.GetDiskUsage(dir)
	if err != nil {
		return nil, nil
	}
	minLive, err := minUnflushedLog(fs, desc.ManifestFilename)
	if err != nil {
		return nil, err
	}
	names, err := fs.List(dir)
	if err != nil {
		return nil, fmt.Errorf("kv: list store %q: %w", dir, err)
	}
	var wal uint64
	for _, name := range names {
		stem, ok := strings.CutSuffix(name, ".log")
		if !ok {
			continue
		}
		if num, err := strconv.ParseUint(stem, 10, 64); err != nil || num < minLive {
			continue
		}
		if st, err := fs.Stat(fs.PathJoin(dir, name)); err == nil {
			wal += uint64(st.Size())
		}
	}
	need := wal + diskHeadroom
	if usage.AvailBytes >= need {
		return nil, nil
	}
	return &DiskFullError{Dir: dir, Avail: usage.AvailBytes, Need: need, AtOpen: true}, nil
}

// BallastFile is the emergency ballast in a store's directory
// (PebbleOptions.Ballast): zeros that hold space for the next open. As
// in CockroachDB, it is given up when the disk is too full for the
// store to open writable, and made again once space allows.
const BallastFile = "KVSQL-BALLAST"

// removeBallast deletes the ballast of the store in dir, if there is
// one and it makes enough room for a read-write open; it reports
// whether it did.
func removeBallast(fs vfs.FS, dir string, why *DiskFullError) bool {
	path := fs.PathJoin(dir, BallastFile)
	st, err := fs.Stat(path)
	if err != nil {
		return false
	}
	if why.Avail+uint64(st.Size()) < why.Need {
		log.Printf("kvsql: the disk is full (%d bytes free, %d needed to open the store writable); the emergency ballast %s (%d bytes) is too small to make room: left alone", why.Avail, why.Need, path, st.Size())
		return false
	}
	if err := fs.Remove(path); err != nil {
		log.Printf("kvsql: the disk is full (%d bytes free, %d needed to open the store writable); could not remove the emergency ballast %s: %v", why.Avail, why.Need, path, err)
		return false
	}
	log.Printf("kvsql: the disk is full (%d bytes free, %d needed to open the store writable): removed the emergency ballast %s (%d bytes) to make room; it is made again once there is room for it", why.Avail, why.Need, path, st.Size())
	return true
}

// makeBallast writes the ballast file of size bytes (zeros, written so
// that the space is really taken), replacing a partial one; on error
// nothing is left behind.
func makeBallast(fs vfs.FS, dir string, size int64) error {
	path := fs.PathJoin(dir, BallastFile)
	tmp := path + ".tmp"
	f, err := fs.Create(tmp, vfs.WriteCategoryUnspecified)
	if err != nil {
		return err
	}
	buf := make([]byte, 1<<20)
	for left := size; left > 0 && err == nil; left -= int64(len(buf)) {
		_, err = f.Write(buf[:min(left, int64(len(buf)))])
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = fs.Rename(tmp, path)
	}
	if err != nil {
		_ = fs.Remove(tmp)
	}
	return err
}

// spaceGuard refuses writes that would leave less than reserve bytes
// free. It asks the file system at most every spaceCheckInterval, or
// for every write once the free space it last saw, less what it has
// admitted since, comes near the reserve.
type spaceGuard struct {
	fs      vfs.FS
	dir     string
	reserve uint64
	mu      sync.Mutex
	avail   uint64    // free bytes at the last look
	at      time.Time // when
	since   uint64    // bytes admitted since
	// ballast is PebbleOptions.Ballast; making is set while a goroutine
	// writes a missing ballast.
	ballast int64
	making  atomic.Bool
}

// smallWrite is the largest write that may use the lower half of the
// reserve: once bulk writes are refused, a DROP TABLE, TRUNCATE or a
// DELETE of a few rows still runs (the space it frees comes back once
// Pebble has flushed and compacted the range).
const smallWrite = 64 << 10

// spaceCheckInterval is the longest a spaceGuard trusts its estimate (a
// variable for tests).
var spaceCheckInterval = time.Second

// reserveFor is the free space kept for flushes, compactions and the
// write-ahead log on a disk of total bytes: 1%, between diskHeadroom
// and 1 GiB.
func reserveFor(total uint64) uint64 { return min(max(total/100, diskHeadroom), 1<<30) }

// newSpaceGuard returns the guard for the store in dir, or nil when the
// file system cannot tell its free space. A positive ballast is the size
// of the ballast file to keep (made now if missing and there is room).
func newSpaceGuard(fs vfs.FS, dir string, ballast int64) *spaceGuard {
	usage, err := fs.GetDiskUsage(dir)
	if err != nil {
		return nil
	}
	g := &spaceGuard{fs: fs, dir: dir, reserve: reserveFor(usage.TotalBytes), avail: usage.AvailBytes, at: time.Now(), ballast: ballast}
	g.maybeMakeBallast(usage.AvailBytes, false)
	return g
}

// maybeMakeBallast makes the ballast if it is missing and avail leaves
// room for it and twice the reserve (on a new goroutine if background).
func (g *spaceGuard) maybeMakeBallast(avail uint64, background bool) {
	if g.ballast <= 0 || avail < uint64(g.ballast)+2*g.reserve || !g.making.CompareAndSwap(false, true) {
		return
	}
	run := func() {
		defer g.making.Store(false)
		if _, err := g.fs.Stat(g.fs.PathJoin(g.dir, BallastFile)); err == nil {
			return
		}
		if err := makeBallast(g.fs, g.dir, g.ballast); err != nil {
			log.Printf("kvsql: could not make the emergency ballast in %s: %v", g.dir, err)
		}
	}
	if background {
		go run()
	} else {
		run()
	}
}

// admit reports whether a write of n bytes may go ahead: nil, or a
// *DiskFullError.
func (g *spaceGuard) admit(n uint64) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	est := g.avail - min(g.avail, g.since)
	if time.Since(g.at) > spaceCheckInterval || est < 2*g.reserve+n {
		usage, err := g.fs.GetDiskUsage(g.dir)
		if err != nil {
			return nil // cannot tell: let Pebble try
		}
		g.avail, g.at, g.since = usage.AvailBytes, time.Now(), 0
		est = g.avail
		g.maybeMakeBallast(est, true)
	}
	need := g.reserve + n
	if n <= smallWrite {
		need = g.reserve/2 + n
	}
	if est < need {
		return &DiskFullError{Dir: g.dir, Avail: est, Need: need}
	}
	g.since += n
	return nil
}

// FatalError is the panic value of the engine's Pebble logger's Fatalf
// (a failed write-ahead log write or sync, a broken invariant): Msg is
// Pebble's message, Err the first error among its arguments, if any.
type FatalError struct {
	Msg string
	Err error
}

func (e *FatalError) Error() string { return e.Msg }

// Unwrap returns the error Pebble reported.
func (e *FatalError) Unwrap() error { return e.Err }
