package kv

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/record"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// WALDamageError reports a write-ahead log whose damage is not a torn
// tail: replaying it would silently drop acknowledged commits, because
// Pebble treats the first bad chunk of a log as its end.
type WALDamageError struct {
	// File is the log's path; Offset the byte offset of the first record
	// that could not be read.
	File   string
	Offset int64
	// Reason says why the damage is not a torn tail.
	Reason string
	// What names the kind of file; "" means "write-ahead log".
	What string
}

func (e *WALDamageError) Error() string {
	what := e.What
	if what == "" {
		what = "write-ahead log"
	}
	return fmt.Sprintf("kv: %s %s is damaged at offset %d: %s; refusing to open the store, since replaying it would lose committed data (restore the data directory from a backup; see docs/operations.md)", what, e.File, e.Offset, e.Reason)
}

// CheckWAL reads the live write-ahead logs of the Pebble store in dir
// (those the MANIFEST says are not yet flushed) before Pebble replays
// them. Damage is accepted only when it is a torn tail of the newest log:
// nothing valid follows the first bad record, which is what a crash in
// the middle of a write leaves (that write was never acknowledged). A bad
// record followed by valid ones, or an older log that ends early, is a
// *WALDamageError naming the file and offset. A store that does not exist
// yet has nothing to check. fs nil means the operating system's.
func CheckWAL(fs vfs.FS, dir string) error {
	if fs == nil {
		fs = vfs.Default
	}
	if _, err := fs.Stat(dir); err != nil {
		return nil // no store yet: Open creates it
	}
	desc, err := pebble.Peek(dir, fs)
	if err != nil {
		return fmt.Errorf("kv: inspect store %q: %w", dir, err)
	}
	if !desc.Exists {
		return nil
	}
	minLive, err := minUnflushedLog(fs, desc.ManifestFilename)
	if err != nil {
		return err
	}
	names, err := fs.List(dir)
	if err != nil {
		return fmt.Errorf("kv: list store %q: %w", dir, err)
	}
	type wal struct {
		num  uint64
		path string
	}
	var live []wal
	for _, name := range names {
		stem, ok := strings.CutSuffix(name, ".log")
		if !ok {
			continue
		}
		num, err := strconv.ParseUint(stem, 10, 64)
		if err != nil || num < minLive {
			continue // obsolete (kept for recycling) or not a WAL
		}
		live = append(live, wal{num, fs.PathJoin(dir, name)})
	}
	slices.SortFunc(live, func(a, b wal) int { return int(a.num) - int(b.num) })
	for i, w := range live {
		if err := checkLog(fs, w.path, w.num, i == len(live)-1); err != nil {
			return err
		}
	}
	return nil
}

// minUnflushedLog returns the MinUnflushedLogNum recorded in the
// manifest: logs with smaller numbers are already in sstables.
//
// A manifest is a record log of version edits; every edit starts with the
// optional comparator name (tag 1, a string) and then the optional log
// number (tag 2, a uvarint), LevelDB's encoding, which Pebble keeps. Only
// that prefix is decoded; the newest edit that has the tag wins.
func minUnflushedLog(fs vfs.FS, manifest string) (uint64, error) {
	f, err := fs.Open(manifest)
	if err != nil {
		return 0, fmt.Errorf("kv: open manifest: %w", err)
	}
	defer f.Close()
	var minLog uint64
	rr := record.NewReader(f, 0)
	for {
		r, err := rr.Next()
		if err == io.EOF || record.IsInvalidRecord(err) {
			// Pebble's own manifest replay stops at the same place.
			return minLog, nil
		}
		if err != nil {
			return 0, fmt.Errorf("kv: read manifest %s: %w", manifest, err)
		}
		edit, err := io.ReadAll(r)
		if err != nil {
			return minLog, nil
		}
		tag, n := binary.Uvarint(edit)
		if n > 0 && tag == 1 {
			l, m := binary.Uvarint(edit[n:])
			if m <= 0 || uint64(len(edit)-n-m) < l {
				continue
			}
			edit = edit[n+m+int(l):]
			tag, n = binary.Uvarint(edit)
		}
		if n > 0 && tag == 2 {
			if num, m := binary.Uvarint(edit[n:]); m > 0 {
				minLog = num
			}
		}
	}
}

// checkLog reads every record of one log. A read error is damage; it is
// a torn tail (accepted) only in the newest log and only when no valid
// chunk of this log follows the bad spot.
func checkLog(fs vfs.FS, path string, num uint64, newest bool) error {
	f, err := fs.Open(path)
	if err != nil {
		return fmt.Errorf("kv: open write-ahead log: %w", err)
	}
	defer f.Close()
	rr := newLogReader(record.NewReader, f, num)
	var off int64
	for {
		off = rr.Offset()
		r, err := rr.Next()
		if err == nil {
			_, err = io.Copy(io.Discard, r)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if !record.IsInvalidRecord(err) && !errors.Is(err, io.ErrUnexpectedEOF) {
				return fmt.Errorf("kv: read write-ahead log %s: %w", path, err)
			}
			break
		}
	}
	data, err := readAll(fs, path)
	if err != nil {
		return err
	}
	// A record torn by a crash or a full disk can span many blocks: its
	// first chunks are valid and must not count as "a valid record after
	// the damage". The damage starts where the run of valid chunks from
	// the record's start breaks.
	if at := validChunkAfter(data, validChunkRun(data, off, uint32(num)), uint32(num)); at >= 0 {
		return &WALDamageError{File: path, Offset: off, Reason: fmt.Sprintf("a valid record follows at offset %d", at)}
	}
	if !newest {
		return &WALDamageError{File: path, Offset: off, Reason: "a log older than the newest one ends early"}
	}
	return nil
}

// newLogReader calls record.NewReader, whose log-number parameter has a
// type from a Pebble-internal package that only inference can name.
func newLogReader[N ~uint64](newReader func(io.Reader, N) *record.Reader, r io.Reader, num uint64) *record.Reader {
	return newReader(r, N(num))
}

func readAll(fs vfs.FS, path string) ([]byte, error) {
	f, err := fs.Open(path)
	if err != nil {
		return nil, fmt.Errorf("kv: open write-ahead log: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("kv: read write-ahead log %s: %w", path, err)
	}
	return data, nil
}

// Chunk layout of Pebble's record format (pebble/v2/record): checksum (4
// bytes), length (2), encoding (1), then for the recyclable encodings 5-8
// the log number (4) and for the WAL-sync encodings 9-12 also the synced
// offset (8); the checksum covers the bytes from the encoding to the end
// of the payload.
const (
	chunkLogNumHeader  = 11
	chunkSyncHeader    = 19
	walBlockSize       = 32 << 10
	firstRecyclableEnc = 5
	lastSyncEnc        = 12
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// chunkEnd returns the end of the chunk at i if it carries this log's
// number and a correct checksum, or -1.
func chunkEnd(data []byte, i int, logNum uint32) int {
	if i+chunkLogNumHeader > len(data) {
		return -1
	}
	enc := data[i+6]
	if enc < firstRecyclableEnc || enc > lastSyncEnc || binary.LittleEndian.Uint32(data[i+7:]) != logNum {
		return -1
	}
	hdr := chunkLogNumHeader
	if enc > 8 {
		hdr = chunkSyncHeader
	}
	end := i + hdr + int(binary.LittleEndian.Uint16(data[i+4:]))
	// A chunk never crosses a block boundary.
	if end > len(data) || (i/walBlockSize) != ((end-1)/walBlockSize) {
		return -1
	}
	c := crc32.Checksum(data[i+6:end], castagnoli)
	if binary.LittleEndian.Uint32(data[i:]) != (c>>15|c<<17)+0xa282ead8 {
		return -1
	}
	return end
}

// validChunkRun returns the offset where the run of valid chunks that
// starts at off ends (skipping the zero padding at a block's end, too
// short for a header): the first bad byte of a torn or damaged record.
func validChunkRun(data []byte, off int64, logNum uint32) int64 {
	i := int(off)
	for i < len(data) {
		if rest := walBlockSize - i%walBlockSize; rest < chunkSyncHeader && allZero(data[i:min(len(data), i+rest)]) {
			i += rest
			continue
		}
		end := chunkEnd(data, i, logNum)
		if end < 0 {
			break
		}
		i = end
	}
	return int64(i)
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// validChunkAfter returns the offset of the first chunk after off that
// carries this log's number and a correct checksum, or -1. A chunk of a
// recycled log's previous life carries another number, and random bytes
// pass both tests with odds of about 2^-64.
func validChunkAfter(data []byte, off int64, logNum uint32) int64 {
	for i := int(off) + 1; i+chunkLogNumHeader <= len(data); i++ {
		if chunkEnd(data, i, logNum) >= 0 {
			return int64(i)
		}
	}
	return -1
}

// CheckManifest reads the current MANIFEST of the Pebble store in dir
// the way CheckWAL reads a log. Pebble's own replay treats the first bad
// record as the end of the MANIFEST, a torn write's tail; when a valid
// record follows, the damage is not a tail, and opening would silently
// forget every version edit after it (and the sstables they added), so
// it is a *WALDamageError naming the MANIFEST. fs nil means the
// operating system's.
func CheckManifest(fs vfs.FS, dir string) error {
	if fs == nil {
		fs = vfs.Default
	}
	if _, err := fs.Stat(dir); err != nil {
		return nil
	}
	desc, err := pebble.Peek(dir, fs)
	if err != nil || !desc.Exists {
		return nil // Pebble's Open reports what Peek cannot read
	}
	path := desc.ManifestFilename
	f, err := fs.Open(path)
	if err != nil {
		return fmt.Errorf("kv: open manifest: %w", err)
	}
	defer f.Close()
	rr := record.NewReader(f, 0)
	var off int64
	for {
		off = rr.Offset()
		r, err := rr.Next()
		if err == nil {
			_, err = io.Copy(io.Discard, r)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if !record.IsInvalidRecord(err) && !errors.Is(err, io.ErrUnexpectedEOF) {
				return fmt.Errorf("kv: read manifest %s: %w", path, err)
			}
			break
		}
	}
	data, err := readAll(fs, path)
	if err != nil {
		return err
	}
	if at := validLegacyChunkAfter(data, off); at >= 0 {
		return &WALDamageError{File: path, Offset: off, What: "MANIFEST", Reason: fmt.Sprintf("a valid record follows at offset %d", at)}
	}
	return nil
}

// validLegacyChunkAfter is validChunkAfter for the MANIFEST's chunks,
// which carry no log number: checksum (4), length (2), type 1-4.
func validLegacyChunkAfter(data []byte, off int64) int64 {
	const hdr = 7
	for i := int(off) + 1; i+hdr <= len(data); i++ {
		typ := data[i+6]
		if typ < 1 || typ > 4 {
			continue
		}
		end := i + hdr + int(binary.LittleEndian.Uint16(data[i+4:]))
		if end > len(data) || (i/walBlockSize) != ((end-1)/walBlockSize) {
			continue
		}
		c := crc32.Checksum(data[i+6:end], castagnoli)
		if binary.LittleEndian.Uint32(data[i:]) == (c>>15|c<<17)+0xa282ead8 {
			return int64(i)
		}
	}
	return -1
}
