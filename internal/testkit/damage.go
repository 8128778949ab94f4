package testkit

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable"

	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/session"
	"github.com/kvsql/kvsql/types"
)

// Tools to damage a copy of a real Pebble store, for the corruption
// tests: find the sstables, the block of an sstable that holds a key,
// its index block; flip a byte.

// SSTables returns the paths of the sstables in dir, sorted.
func SSTables(t testing.TB, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.sst"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(m)
	return m
}

// Block is a byte range of an sstable file.
type Block struct{ Offset, Length uint64 }

// readerOptions opens kvsql's sstables: the merger's name must match.
func readerOptions() sstable.ReaderOptions {
	return sstable.ReaderOptions{Merger: &pebble.Merger{Name: "kvsql.concat", Merge: pebble.DefaultMerger.Merge}}
}

// SSTLayout returns the data blocks and the index blocks of the sstable
// at path.
func SSTLayout(t testing.TB, path string) (data, index []Block) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := sstable.NewMemReader(b, readerOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	l, err := r.Layout()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range l.Data {
		data = append(data, Block{d.Offset, d.Length})
	}
	for _, h := range append(l.Index, l.TopIndex) {
		if h.Length > 0 {
			index = append(index, Block{h.Offset, h.Length})
		}
	}
	return data, index
}

// DataBlockHolding returns the data block of the sstable at path that
// holds the first key >= key, and whether there is one: it flips a byte
// of each block in turn, in memory, and sees which flip makes a seek to
// key fail.
func DataBlockHolding(t testing.TB, path string, key []byte) (Block, bool) {
	t.Helper()
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := SSTLayout(t, path)
	for _, blk := range data {
		b := bytes.Clone(orig)
		b[blk.Offset+blk.Length/2] ^= 0xff
		r, err := sstable.NewMemReader(b, readerOptions())
		if err != nil {
			t.Fatal(err)
		}
		it, err := r.NewPointIter(context.Background(), sstable.IterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		kv := it.SeekGE(key, 0)
		failed := kv == nil && it.Error() != nil
		_ = it.Close()
		_ = r.Close()
		if failed {
			return blk, true
		}
	}
	return Block{}, false
}

// FlipByte flips every bit of the byte at off in the file at path.
func FlipByte(t testing.TB, path string, off int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if off < 0 || off >= int64(len(b)) {
		t.Fatalf("flip at %d: %s has %d bytes", off, path, len(b))
	}
	b[off] ^= 0xff
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// DamagedKey is the key (id, or v in the index) whose data block
// DamagedStore damages.
const DamagedKey = 15000

// DamageSchema creates the tables the corruption tests damage: good (100
// rows) and bad (30,000 rows, index bad_v on v = id). Enough rows that
// the block holding DamagedKey, in the middle of bad's master file or
// of bad_v, holds keys of that file alone (data blocks are 32 KiB,
// kv/pebble.go).
var DamageSchema = []string{
	"CREATE TABLE good (id INT PRIMARY KEY, v TEXT)",
	"INSERT INTO good SELECT g, 'good' FROM generate_series(1, 100) g",
	"CREATE TABLE bad (id INT PRIMARY KEY, v INT, pad TEXT)",
	"CREATE INDEX bad_v ON bad (v)",
	"INSERT INTO bad SELECT g, g, repeat('x', 100) FROM generate_series(1, 30000) g",
}

// DamagedStore makes a Pebble store in a temporary directory with
// DamageSchema's tables, closes it (its rows go to sstables) and flips a
// byte in the middle of the data block that holds bad's row DamagedKey,
// in bad's master file (target "master") or in bad_v (target "index").
// It returns the directory and the damaged sstable.
func DamagedStore(t testing.TB, target string) (dir, sst string) {
	t.Helper()
	dir = t.TempDir()
	db, err := session.Open(session.Options{Dir: dir, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	s, err := db.Session("")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range DamageSchema {
		Must(t, s, q)
	}
	tbl, err := db.Catalog().Table(session.DefaultDatabase, "bad")
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	space := tbl.ID
	if target == "index" {
		space = tbl.Indexes[0].ID
	}
	return dir, DamageKeyBlock(t, dir, space)
}

// DamageKeyBlock flips a byte in the middle of the data block, in one of
// the sstables in dir, that holds key DamagedKey of key space space (a
// one-column ascending integer key), and returns that sstable.
func DamageKeyBlock(t testing.TB, dir string, space uint64) string {
	t.Helper()
	key := encoding.EncodeKey(nil, space, []types.Datum{types.NewInt(DamagedKey)}, []encoding.Direction{encoding.Ascending})
	for _, sst := range SSTables(t, dir) {
		if blk, ok := DataBlockHolding(t, sst, key); ok {
			FlipByte(t, sst, int64(blk.Offset+blk.Length/2))
			return sst
		}
	}
	t.Fatalf("no sstable block holds %s", encoding.Pretty(key))
	return ""
}
