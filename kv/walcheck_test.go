package kv

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestCheckWALTornLargeRecord: a full disk tears a write in the middle
// of a record that spans many 32 KiB blocks; the record's first chunks
// are valid, and CheckWAL must still see a torn tail (nothing after the
// tear), not "a valid record follows" (the restart on a full disk was
// refused that way). A byte flipped inside the same record, with the
// rest of the record intact after it, is damage.
func TestCheckWALTornLargeRecord(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	e, err := OpenPebble(dir, PebbleOptions{CacheSize: 1 << 20})
	must(t, err)
	must(t, e.Set([]byte("small"), []byte("v")))
	big := make([]byte, 300<<10) // about 10 blocks, incompressible
	r := rand.New(rand.NewPCG(1, 2))
	for i := range big {
		big[i] = byte(r.Uint32())
	}
	must(t, e.Set([]byte("big"), big))
	must(t, e.Flush())
	// Copy the store as a crash would leave it (the WAL not yet
	// flushed to sstables), then close the original.
	snap := filepath.Join(t.TempDir(), "snap")
	if _, err := vfs.Clone(vfs.Default, vfs.Default, dir, snap); err != nil {
		t.Fatal(err)
	}
	must(t, e.Close())
	wal, size := "", int64(0)
	ents, err := os.ReadDir(snap)
	must(t, err)
	for _, de := range ents {
		if info, err := de.Info(); err == nil && strings.HasSuffix(de.Name(), ".log") && info.Size() > size {
			wal, size = de.Name(), info.Size()
		}
	}
	if size < int64(len(big)) {
		t.Fatalf("largest log %q has %d bytes, want the %d-byte record", wal, size, len(big))
	}
	damaged := func(name string, f func([]byte) []byte) error {
		d := filepath.Join(t.TempDir(), name)
		if _, err := vfs.Clone(vfs.Default, vfs.Default, snap, d); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(d, wal)
		b, err := os.ReadFile(p)
		must(t, err)
		must(t, os.WriteFile(p, f(b), 0o644))
		return CheckWAL(nil, d)
	}
	// Torn in the 6th block of the big record: a tail.
	if err := damaged("torn", func(b []byte) []byte { return b[:5*walBlockSize+1000] }); err != nil {
		t.Errorf("a record torn in its 6th block: %v, want a torn tail (nil)", err)
	}
	// A flipped byte in its 3rd block, the blocks after it intact: damage.
	err = damaged("flip", func(b []byte) []byte { b[2*walBlockSize+500] ^= 0x5a; return b })
	var we *WALDamageError
	if !errors.As(err, &we) {
		t.Errorf("a flipped byte inside a complete record: %v, want a *WALDamageError", err)
	}
}
