package kv

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestPebbleMergeAcrossFlushes writes merge operands for a few keys with
// a tiny memtable, so operands of one key end up spread over several
// sstables and the memtable, and checks that Get, both iteration
// directions and a reopen all see the operands concatenated in order.
func TestPebbleMergeAcrossFlushes(t *testing.T) {
	fs := vfs.NewMem()
	opts := PebbleOptions{FS: fs, CacheSize: 1 << 20, MemTableSize: 64 << 10}
	e, err := OpenPebble("db", opts)
	must(t, err)
	const keys, rounds = 5, 1000
	want := make([][]byte, keys)
	for r := range rounds {
		for k := range keys {
			op := bytes.Repeat([]byte{byte('a' + r%26)}, 50)
			op = fmt.Appendf(op, "%04d|", r)
			must(t, e.Merge(fmt.Appendf(nil, "m%d", k), op))
			want[k] = append(want[k], op...)
		}
		if r == rounds/2 {
			// A Set in the middle replaces everything merged before it.
			must(t, e.Set([]byte("m0"), []byte("reset|")))
			want[0] = []byte("reset|")
		}
	}
	check := func(e Engine) {
		t.Helper()
		for k := range keys {
			got, err := e.Get(fmt.Appendf(nil, "m%d", k))
			must(t, err)
			if !bytes.Equal(got, want[k]) {
				t.Fatalf("m%d: got %d bytes, want %d (prefix %q vs %q)", k, len(got), len(want[k]), got[:20], want[k][:20])
			}
		}
		it, err := e.NewIter(IterOptions{})
		must(t, err)
		defer it.Close()
		k := keys - 1
		for ok := it.Last(); ok; ok = it.Prev() {
			if !bytes.Equal(it.Value(), want[k]) {
				t.Fatalf("backward m%d: wrong value", k)
			}
			k--
		}
		if k != -1 {
			t.Fatalf("backward scan stopped at %d", k)
		}
	}
	check(e)
	must(t, e.Flush())
	must(t, e.Close())
	e, err = OpenPebble("db", opts)
	must(t, err)
	defer e.Close()
	check(e)
}

func TestPebbleReadOnly(t *testing.T) {
	fs := vfs.NewMem()
	e, err := OpenPebble("db", PebbleOptions{FS: fs})
	must(t, err)
	must(t, e.Set([]byte("a"), []byte("1")))
	must(t, e.Close())
	ro, err := OpenPebble("db", PebbleOptions{FS: fs, ReadOnly: true})
	must(t, err)
	defer ro.Close()
	wantGet(t, ro, "a", sp("1"))
	must(t, ro.Flush())
	if err := ro.Set([]byte("b"), nil); err == nil {
		t.Fatal("Set on a read-only store succeeded")
	}
}

func TestPebbleOpenError(t *testing.T) {
	fs := vfs.NewMem()
	if _, err := OpenPebble("missing", PebbleOptions{FS: fs, ReadOnly: true}); err == nil {
		t.Fatal("opening a missing store read-only succeeded")
	}
}
