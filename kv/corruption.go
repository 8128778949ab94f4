package kv

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"sync"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Damaged storage. A checksum that does not match in an sstable block, a
// file Pebble cannot parse: Pebble reports these as corruption errors
// (pebble.IsCorruptionError) and, for sstables, through its event
// listener's DataCorruption callback, whose default handler calls the
// logger's Fatalf, a crash on every start when a compaction is what
// finds the damage. The Pebble engine handles them instead:
//
//   - the first report of each damaged file calls PebbleOptions.OnDamage
//     (or logs one line) and records it in the data directory's
//     DamageFile;
//   - from then on the engine refuses writes with ErrStoreDamaged, and a
//     store whose DamageFile exists opens read-only (Pebble's ReadOnly:
//     no flushes, no compactions), until `kvsql check --repair` or the
//     operator removes the file;
//   - a read that meets the damage fails with a *CorruptionError
//     (errors.Is(err, ErrCorruption)) naming the file and the key it
//     read; reads elsewhere go on working.

// ErrCorruption marks every error caused by damaged storage:
// errors.Is(err, kv.ErrCorruption).
var ErrCorruption = errors.New("kv: stored data is corrupted")

// ErrStoreDamaged is returned (wrapped) by the writes of an engine that
// knows its storage is damaged: it serves reads only.
var ErrStoreDamaged = errors.New("kv: the store is damaged and read-only")

// DamageFile is the file, in a Pebble store's directory, that records the
// damage found in it, one line per damaged file. While it exists the
// store opens read-only.
const DamageFile = "KVSQL-DAMAGED"

// CorruptionError reports damaged storage met by a read, a compaction or
// a check.
type CorruptionError struct {
	// File is the damaged file's path; "" when Pebble did not say.
	File string
	// Lo and Hi bound the keys the damaged file holds (both inclusive);
	// nil when unknown.
	Lo, Hi []byte
	// Read is the key the failed read asked for, or the lower bound of
	// the failed iterator; nil when unknown (a compaction).
	Read []byte
	// Err is Pebble's report.
	Err error
	// block is set by VerifyPebble when the damage is one data block's,
	// between the readable keys Lo and Hi (both exclusive).
	block bool
}

func (e *CorruptionError) Error() string {
	file := e.File
	if file == "" {
		file = "the store"
	}
	// Pebble joins a detail carrier to its report: keep the first line.
	msg := fmt.Sprint(e.Err)
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return fmt.Sprintf("kv: data corrupted in %s: %s", file, msg)
}

// Is makes errors.Is(err, ErrCorruption) true.
func (e *CorruptionError) Is(target error) bool { return target == ErrCorruption }

// Unwrap returns Pebble's report.
func (e *CorruptionError) Unwrap() error { return e.Err }

// DamageReporter is implemented by engines that detect damaged storage.
type DamageReporter interface {
	// Damage returns the first damage found since the engine opened (or
	// recorded in the store before), or nil.
	Damage() *CorruptionError
}

// DamageOf returns e's damage, or nil for an intact store or an engine
// that cannot tell.
func DamageOf(e Engine) *CorruptionError {
	if d, ok := e.(DamageReporter); ok {
		return d.Damage()
	}
	return nil
}

// corruptionError turns a Pebble corruption error into a
// *CorruptionError that read (a key or an iterator's lower bound) met;
// any other error is returned as is.
func corruptionError(err error, read []byte) error {
	if err == nil || !pebble.IsCorruptionError(err) {
		return err
	}
	ce := &CorruptionError{Read: cloneBytes(read), Err: err}
	if info := pebble.ExtractDataCorruptionInfo(err); info != nil {
		ce.File = info.Path
		ce.Lo = cloneBytes(info.Bounds.Start)
		ce.Hi = cloneBytes(info.Bounds.End.Key)
	}
	return ce
}

// damageState is what a Pebble engine knows of its damage. Pebble's
// DataCorruption callback (on any goroutine: a read, a compaction) and
// the engine share it.
type damageState struct {
	fs  vfs.FS
	dir string
	// onDamage, if set, is told of each newly damaged file once.
	onDamage func(*CorruptionError)

	mu struct {
		sync.Mutex
		first *CorruptionError
		files map[string]bool
	}
}

// get returns the first damage, or nil.
func (d *damageState) get() *CorruptionError {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.mu.first
}

// report records damage to ce.File. The first report of a file calls
// onDamage (or logs) and appends a line to DamageFile. It does not block
// for long: Pebble calls it synchronously on read paths.
func (d *damageState) report(ce *CorruptionError) {
	d.mu.Lock()
	if d.mu.files == nil {
		d.mu.files = map[string]bool{}
	}
	if d.mu.first == nil {
		d.mu.first = ce
	}
	seen := d.mu.files[ce.File]
	d.mu.files[ce.File] = true
	d.mu.Unlock()
	if seen {
		return
	}
	if d.onDamage != nil {
		d.onDamage(ce)
	} else {
		log.Printf("kvsql: DATA CORRUPTION in %s (keys %q to %q): %v; the store is now read-only: stop the server and run `kvsql check` (docs/operations.md)", ce.File, ce.Lo, ce.Hi, ce.Err)
	}
	d.record(ce)
}

// record appends ce's line to DamageFile, best effort: a store whose
// disk fails is still read-only until restart, and a later read or
// compaction will find the damage again.
func (d *damageState) record(ce *CorruptionError) {
	if d.fs == nil || d.dir == "" {
		return
	}
	path := d.fs.PathJoin(d.dir, DamageFile)
	old, _ := readDamageFile(d.fs, d.dir)
	line := damageLine(ce)
	f, err := d.fs.Create(path, vfs.WriteCategoryUnspecified)
	if err != nil {
		log.Printf("kvsql: cannot record the damage in %s: %v", path, err)
		return
	}
	defer f.Close()
	for _, l := range old {
		if l == line {
			return
		}
	}
	old = append(old, line)
	if _, err := io.WriteString(f, strings.Join(old, "\n")+"\n"); err == nil {
		_ = f.Sync()
	}
}

// damageLine is the DamageFile line of ce: the file, tab, the message.
func damageLine(ce *CorruptionError) string {
	msg := strings.ReplaceAll(fmt.Sprint(ce.Err), "\n", " ")
	return ce.File + "\t" + msg
}

// readDamageFile returns the lines of dir's DamageFile; nil, nil when it
// does not exist.
func readDamageFile(fs vfs.FS, dir string) ([]string, error) {
	f, err := fs.Open(fs.PathJoin(dir, DamageFile))
	if err != nil {
		if isNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, l := range strings.Split(string(bytes.TrimSpace(b)), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines, nil
}

// RecordedDamage returns the damage recorded in the DamageFile of the
// store in dir: one *CorruptionError per damaged file (File and Err
// only). fs nil means the operating system's.
func RecordedDamage(fs vfs.FS, dir string) ([]*CorruptionError, error) {
	if fs == nil {
		fs = vfs.Default
	}
	lines, err := readDamageFile(fs, dir)
	if err != nil {
		return nil, err
	}
	var out []*CorruptionError
	for _, l := range lines {
		file, msg, _ := strings.Cut(l, "\t")
		out = append(out, &CorruptionError{File: file, Err: errors.New(msg)})
	}
	return out, nil
}

// ClearDamage removes the DamageFile of the store in dir (after a
// repair, or once the operator restored the damaged files): the store
// opens read-write again. fs nil means the operating system's.
func ClearDamage(fs vfs.FS, dir string) error {
	if fs == nil {
		fs = vfs.Default
	}
	err := fs.Remove(fs.PathJoin(dir, DamageFile))
	if err != nil && !isNotExist(err) {
		return err
	}
	return nil
}

func isNotExist(err error) bool { return errors.Is(err, os.ErrNotExist) }
