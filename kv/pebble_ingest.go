package kv

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/objstorage/objstorageprovider"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// IngestDir is the directory, inside a Pebble store's directory, where
// Ingest writes its sstables before Pebble links them into the LSM. A
// file left there by a crash was never linked (Pebble moves each file
// out of it when the ingest commits), so OpenPebble removes the directory.
const IngestDir = "kvsql-ingest"

// ingestFileSize is the size at which Ingest starts a new sstable: the
// size of Pebble's files in its bottom level, where an ingested file that
// overlaps nothing lands.
const ingestFileSize = 64 << 20

// pebbleIngest is what the Pebble engine needs to write sstables for
// Ingest.
type pebbleIngest struct {
	fs   vfs.FS
	dir  string // the store's IngestDir
	opts *pebble.Options
	seq  atomic.Uint64 // numbers the files of this process
}

// initIngest prepares e for Ingest: it removes what a crash left in the
// store's IngestDir.
func (e *pebbleEngine) initIngest(fs vfs.FS, dir string, opts *pebble.Options) error {
	e.ingest = &pebbleIngest{fs: fs, dir: fs.PathJoin(dir, IngestDir), opts: opts}
	if e.readOnly {
		return nil
	}
	if err := fs.RemoveAll(e.ingest.dir); err != nil {
		return fmt.Errorf("kv: remove %s: %w", e.ingest.dir, err)
	}
	return nil
}

var _ Ingester = (*pebbleEngine)(nil)

// Ingest implements Ingester. The writes go into sstables of up to
// ingestFileSize in IngestDir (each synced when finished), the
// write-ahead log is synced (so every commit before this one is durable
// before the ingest is), and Pebble's DB.Ingest links the files into the
// LSM in one MANIFEST update at a sequence number above every open
// snapshot: atomic, durable on return, invisible to older snapshots.
// Files that overlap no data land in the lowest level they fit in, so a
// bulk load into an empty key range is not compacted again.
func (e *pebbleEngine) Ingest(fill func(w SortedWriter) error) error {
	if err := e.writable(0); err != nil {
		return err
	}
	if e.readOnly {
		return pebble.ErrReadOnly
	}
	in := e.ingest
	if err := in.fs.MkdirAll(in.dir, 0o755); err != nil {
		return fmt.Errorf("kv: ingest: %w", err)
	}
	w := &sstSortedWriter{e: e}
	err := fill(w)
	if err == nil {
		err = w.finish()
	}
	if err != nil {
		w.abandon()
		return err
	}
	if len(w.paths) == 0 {
		return nil
	}
	if err := e.writable(int(w.size)); err != nil {
		w.abandon()
		return err
	}
	if err := e.db.LogData(nil, pebble.Sync); err != nil {
		e.failed.Store(true)
		w.abandon()
		return fmt.Errorf("kv: ingest: sync the write-ahead log: %w", err)
	}
	if err := e.db.Ingest(context.Background(), w.paths); err != nil {
		w.abandon()
		return fmt.Errorf("kv: ingest: %w", err)
	}
	return nil
}

// sstSortedWriter writes an Ingest's keys into a sequence of sstables.
type sstSortedWriter struct {
	e     *pebbleEngine
	order orderCheck
	cur   *sstable.Writer
	paths []string // the finished files and the one being written
	size  uint64   // bytes of the finished files
}

// writer returns the sstable to write the next key into, finishing the
// current one once it reached ingestFileSize (keys arrive in order, so
// the files do not overlap, as DB.Ingest requires).
func (w *sstSortedWriter) writer(key []byte) (*sstable.Writer, error) {
	if err := w.order.next(key); err != nil {
		return nil, err
	}
	if w.cur != nil && w.cur.Raw().EstimatedSize() >= ingestFileSize {
		if err := w.finish(); err != nil {
			return nil, err
		}
	}
	if w.cur != nil {
		return w.cur, nil
	}
	in := w.e.ingest
	path := in.fs.PathJoin(in.dir, fmt.Sprintf("%06d.sst", in.seq.Add(1)))
	f, err := in.fs.Create(path, vfs.WriteCategoryUnspecified)
	if err != nil {
		return nil, fmt.Errorf("kv: ingest: %w", err)
	}
	w.paths = append(w.paths, path)
	// Level 0's options: an ingested file may land in any level, and the
	// bottom level's would mark keys as the last versions of theirs.
	w.cur = sstable.NewWriter(objstorageprovider.NewFileWritable(f), in.opts.MakeWriterOptions(0, w.e.db.TableFormat()))
	return w.cur, nil
}

func (w *sstSortedWriter) Set(key, value []byte) error {
	sw, err := w.writer(key)
	if err != nil {
		return err
	}
	return sw.Set(key, value)
}

func (w *sstSortedWriter) Delete(key []byte) error {
	sw, err := w.writer(key)
	if err != nil {
		return err
	}
	return sw.Delete(key)
}

func (w *sstSortedWriter) Merge(key, operand []byte) error {
	sw, err := w.writer(key)
	if err != nil {
		return err
	}
	return sw.Merge(key, operand)
}

// finish closes (and so syncs) the file being written, if any.
func (w *sstSortedWriter) finish() error {
	if w.cur == nil {
		return nil
	}
	err := w.cur.Close()
	if err == nil {
		if m, merr := w.cur.Metadata(); merr == nil {
			w.size += m.Size
		}
	}
	w.cur = nil
	if err != nil {
		return fmt.Errorf("kv: ingest: write sstable: %w", err)
	}
	return nil
}

// abandon closes and removes every file of a failed ingest (DB.Ingest
// removes them itself once it linked them).
func (w *sstSortedWriter) abandon() {
	if w.cur != nil {
		_ = w.cur.Close()
		w.cur = nil
	}
	for _, p := range w.paths {
		_ = w.e.ingest.fs.Remove(p)
	}
	w.paths = nil
}
