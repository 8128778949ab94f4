package kv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/sstable/block"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Verification is what VerifyPebble found in a store's files.
type Verification struct {
	// WAL is the write-ahead log damage CheckWAL found, or nil.
	WAL error
	// Manifest is set when Pebble cannot open the store because a file it
	// reads at open (the MANIFEST, the OPTIONS) is damaged; nothing else
	// was checked then.
	Manifest error
	// Damaged lists the damaged sstables (in file order), each with the
	// key range the damage lies in: the whole file's bounds, or for a
	// damaged data block the keys between the last readable key before
	// it and the first readable key after it.
	Damaged []*CorruptionError
	// Tables and Blocks count the sstables and blocks checked.
	Tables, Blocks int
	// Recorded is the damage recorded in the DamageFile, if any.
	Recorded []*CorruptionError
}

// OK reports whether nothing was found damaged.
func (v *Verification) OK() bool {
	return v.WAL == nil && v.Manifest == nil && len(v.Damaged) == 0
}

// VerifyPebble checks the files of the (stopped) Pebble store in dir: the
// live write-ahead logs (CheckWAL), that the MANIFEST opens, and the
// checksum of every block of every live sstable. It opens the store
// read-only and writes nothing. The error is for failures to do the
// check, not for damage found. fs nil means the operating system's.
func VerifyPebble(fs vfs.FS, dir string) (*Verification, error) {
	if fs == nil {
		fs = vfs.Default
	}
	v := &Verification{}
	var err error
	if v.Recorded, err = RecordedDamage(fs, dir); err != nil {
		return nil, err
	}
	if err := CheckWAL(fs, dir); err != nil {
		var dmg *WALDamageError
		if !errors.As(err, &dmg) {
			return nil, err
		}
		v.WAL = err
		// Opening would replay the log up to the damage only; the
		// sstables can still be checked.
	}
	if err := CheckManifest(fs, dir); err != nil {
		var dmg *WALDamageError
		if !errors.As(err, &dmg) {
			return nil, err
		}
		v.Manifest = err
		return v, nil
	}
	db, err := pebble.Open(dir, &pebble.Options{
		FS:       fs,
		ReadOnly: true,
		Merger:   concatMerger,
		Logger:   quietLogger{t: &logThrottle{}, failed: new(atomic.Bool)},
		EventListener: &pebble.EventListener{
			DataCorruption: func(pebble.DataCorruptionInfo) {}, // reported below
		},
	})
	if err != nil {
		if pebble.IsCorruptionError(err) {
			v.Manifest = err
			return v, nil
		}
		return nil, fmt.Errorf("kv: open pebble store %q: %w", dir, err)
	}
	defer db.Close()
	levels, err := db.SSTables()
	if err != nil {
		return nil, fmt.Errorf("kv: list sstables: %w", err)
	}
	seen := map[string]bool{}
	var files []string
	bounds := map[string][2][]byte{}
	// live holds the bounds of every table (virtual ones included) on a
	// backing file: damage outside all of them is unreachable (what an
	// Excise left behind, see Repair).
	live := map[string][][2][]byte{}
	for _, level := range levels {
		for _, t := range level {
			path := fs.PathJoin(dir, fmt.Sprintf("%s.sst", t.BackingSSTNum))
			lo, hi := t.Smallest.UserKey, t.Largest.UserKey
			live[path] = append(live[path], [2][]byte{cloneBytes(lo), cloneBytes(hi)})
			if b, ok := bounds[path]; ok {
				// Virtual sstables share a backing file: widen.
				if bytes.Compare(b[0], lo) < 0 {
					lo = b[0]
				}
				if bytes.Compare(b[1], hi) > 0 {
					hi = b[1]
				}
			}
			bounds[path] = [2][]byte{cloneBytes(lo), cloneBytes(hi)}
			if !seen[path] {
				seen[path] = true
				files = append(files, path)
			}
		}
	}
	sort.Strings(files)
	for _, path := range files {
		b := bounds[path]
		blocks, dmg, err := verifySSTable(fs, path, b[0], b[1])
		if err != nil {
			return nil, err
		}
		v.Tables++
		v.Blocks += blocks
		if dmg != nil && reachable(dmg, live[path]) {
			v.Damaged = append(v.Damaged, dmg)
		}
	}
	return v, nil
}

// reachable reports whether damage in the keys between dmg.Lo and dmg.Hi
// (exclusive, for a located data block; the file's bounds otherwise)
// lies within one of the tables using the file.
func reachable(dmg *CorruptionError, tables [][2][]byte) bool {
	if !dmg.block {
		return true
	}
	for _, t := range tables {
		if bytes.Compare(t[0], dmg.Hi) < 0 && bytes.Compare(t[1], dmg.Lo) > 0 {
			return true
		}
	}
	return false
}

// verifySSTable reads every block of the sstable at path and checks its
// checksum. It returns the number of blocks checked and, for a damaged
// file, where the damage lies. lo and hi are the file's bounds from the
// MANIFEST.
func verifySSTable(fs vfs.FS, path string, lo, hi []byte) (int, *CorruptionError, error) {
	f, err := fs.Open(path)
	if err != nil {
		return 0, &CorruptionError{File: path, Lo: lo, Hi: hi, Err: fmt.Errorf("cannot open: %w", err)}, nil
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return 0, &CorruptionError{File: path, Lo: lo, Hi: hi, Err: fmt.Errorf("cannot read: %w", err)}, nil
	}
	whole := func(err error) (int, *CorruptionError, error) {
		return 0, &CorruptionError{File: path, Lo: lo, Hi: hi, Err: err}, nil
	}
	r, err := sstable.NewMemReader(data, sstable.ReaderOptions{Merger: concatMerger})
	if err != nil {
		return whole(err)
	}
	defer r.Close()
	layout, err := r.Layout()
	if err != nil {
		return whole(err)
	}
	sum := r.BlockReader().ChecksumType()
	check := func(h block.Handle) error {
		if h.Length == 0 {
			return nil
		}
		end := h.Offset + h.Length + block.TrailerLen
		if end > uint64(len(data)) {
			return fmt.Errorf("block at offset %d runs past the end of the file", h.Offset)
		}
		if err := block.ValidateChecksum(sum, data[h.Offset:end], h); err != nil {
			return fmt.Errorf("block at offset %d: %w", h.Offset, err)
		}
		return nil
	}
	n := 0
	var dataErr error
	for _, d := range layout.Data {
		n++
		if err := check(d.Handle); err != nil && dataErr == nil {
			dataErr = err
		}
	}
	meta := append([]block.Handle{layout.TopIndex, layout.RangeDel, layout.RangeKey, layout.ValueIndex, layout.Properties, layout.MetaIndex, layout.BlobReferenceIndex}, layout.Index...)
	meta = append(meta, layout.ValueBlock...)
	for _, fb := range layout.Filter {
		meta = append(meta, fb.Handle)
	}
	for _, h := range meta {
		if h.Length == 0 {
			continue
		}
		n++
		if err := check(h); err != nil {
			// An index or metadata block: the file as a whole cannot be
			// trusted.
			return n, &CorruptionError{File: path, Lo: lo, Hi: hi, Err: err}, nil
		}
	}
	if dataErr == nil {
		return n, nil, nil
	}
	// A damaged data block: narrow the damage down to the keys between
	// the last readable key before it and the first readable key after
	// it (iteration stops at the first block it cannot read).
	dlo, dhi := lo, hi
	if it, err := r.NewPointIter(context.Background(), sstable.IterOptions{}); err == nil {
		for kv := it.First(); kv != nil; kv = it.Next() {
			dlo = cloneBytes(kv.K.UserKey)
		}
		_ = it.Close()
	}
	if it, err := r.NewPointIter(context.Background(), sstable.IterOptions{}); err == nil {
		for kv := it.Last(); kv != nil; kv = it.Prev() {
			dhi = cloneBytes(kv.K.UserKey)
		}
		_ = it.Close()
	}
	if bytes.Compare(dlo, dhi) > 0 {
		return n, &CorruptionError{File: path, Lo: lo, Hi: hi, Err: dataErr}, nil
	}
	return n, &CorruptionError{File: path, Lo: dlo, Hi: dhi, Err: dataErr, block: true}, nil
}
