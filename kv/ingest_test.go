package kv

import (
	"errors"
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// withIngestThreshold sets IngestThreshold for one test.
func withIngestThreshold(t *testing.T, n int64) {
	old := IngestThreshold
	IngestThreshold = n
	t.Cleanup(func() { IngestThreshold = old })
}

// TestTxnCommitByIngest commits a Txn big enough to be ingested, with
// Sets, Deletes and Merges over keys the engine already holds, and checks
// on each engine that: a snapshot taken before the commit sees none of
// it, the engine afterwards sees exactly what a Batch commit would have
// left, and (Pebble) the result survives a reopen with nothing left in
// IngestDir.
func TestTxnCommitByIngest(t *testing.T) {
	withIngestThreshold(t, 1) // every commit of these Txns ingests
	for _, k := range engineKinds() {
		t.Run(k.name, func(t *testing.T) {
			dir := t.TempDir()
			e := k.open(t, dir)
			defer func() { _ = e.Close() }()
			if _, ok := e.(Ingester); !ok {
				t.Fatalf("%s engine is not an Ingester", k.name)
			}
			// Existing data: old values, a key to delete, a merge base,
			// and a key outside the Txn's writes.
			mustWrite(t, e, []kvPair{{"a005", "old"}, {"a007", "gone"}, {"m", "base"}, {"z", "keep"}})
			before := e.NewSnapshot()

			x := NewTxn(e)
			want := map[string]string{"m": "base+1+2", "z": "keep"}
			for i := range 1000 {
				key := fmt.Sprintf("a%03d", i)
				must(t, x.Set([]byte(key), []byte("v"+key)))
				want[key] = "v" + key
			}
			must(t, x.Delete([]byte("a007")))
			delete(want, "a007")
			must(t, x.Merge([]byte("m"), []byte("+1")))
			must(t, x.Merge([]byte("m"), []byte("+2")))
			must(t, x.Commit(false))

			if got := scan(t, before, nil, nil); fmt.Sprint(got) != "[a005=old a007=gone m=base z=keep]" {
				t.Fatalf("the snapshot taken before the ingest sees %v", got)
			}
			check := func(r Reader) {
				t.Helper()
				got := scan(t, r, nil, nil)
				if len(got) != len(want) {
					t.Fatalf("%d keys after the ingest, want %d", len(got), len(want))
				}
				for _, kv := range got {
					var key, val string
					for i := range kv {
						if kv[i] == '=' {
							key, val = kv[:i], kv[i+1:]
							break
						}
					}
					if want[key] != val {
						t.Fatalf("%s = %q, want %q", key, val, want[key])
					}
				}
			}
			check(e)
			must(t, before.Close())
			if !k.persistent {
				return
			}
			must(t, e.Close())
			e = k.open(t, dir)
			check(e)
			pe := e.(*pebbleEngine)
			if names, err := pe.ingest.fs.List(pe.ingest.dir); err == nil && len(names) > 0 {
				t.Fatalf("%s holds %v after a successful ingest", IngestDir, names)
			}
		})
	}
}

// TestIngestOrder checks that keys out of order fail the whole ingest and
// apply nothing.
func TestIngestOrder(t *testing.T) {
	for _, k := range engineKinds() {
		t.Run(k.name, func(t *testing.T) {
			e := openEngine(t, k)
			err := e.(Ingester).Ingest(func(w SortedWriter) error {
				must(t, w.Set([]byte("b"), []byte("1")))
				return w.Set([]byte("a"), []byte("2"))
			})
			if !errors.Is(err, ErrIngestOrder) {
				t.Fatalf("out-of-order ingest: %v, want ErrIngestOrder", err)
			}
			if got := scan(t, e, nil, nil); len(got) != 0 {
				t.Fatalf("a failed ingest left %v", got)
			}
			// A failing fill applies nothing either.
			boom := errors.New("boom")
			err = e.(Ingester).Ingest(func(w SortedWriter) error {
				must(t, w.Set([]byte("a"), []byte("1")))
				return boom
			})
			if !errors.Is(err, boom) {
				t.Fatalf("failing fill: %v", err)
			}
			if got := scan(t, e, nil, nil); len(got) != 0 {
				t.Fatalf("a failed ingest left %v", got)
			}
		})
	}
}

// TestIngestLeftoversRemoved checks that OpenPebble removes files a crash
// left in IngestDir (they were never linked into the store).
func TestIngestLeftoversRemoved(t *testing.T) {
	dir := t.TempDir()
	k := engineKinds()[1]
	e := k.open(t, dir)
	pe := e.(*pebbleEngine)
	must(t, pe.ingest.fs.MkdirAll(pe.ingest.dir, 0o755))
	f, err := pe.ingest.fs.Create(pe.ingest.fs.PathJoin(pe.ingest.dir, "000001.sst"), vfs.WriteCategoryUnspecified)
	must(t, err)
	_, err = f.Write([]byte("half an sstable"))
	must(t, err)
	must(t, f.Close())
	must(t, e.Close())
	e = k.open(t, dir)
	defer func() { _ = e.Close() }()
	pe = e.(*pebbleEngine)
	if names, _ := pe.ingest.fs.List(pe.ingest.dir); len(names) > 0 {
		t.Fatalf("%s still holds %v after reopening", IngestDir, names)
	}
}

// TestDiscardReads checks that a Txn told to discard reads records none
// (Get, NewIter, SetIfNew), forgets those it had, and records again once
// told to.
func TestDiscardReads(t *testing.T) {
	e := NewMemory()
	defer func() { _ = e.Close() }()
	x := NewTxn(e)
	defer x.Rollback()
	_, _ = x.Get([]byte("a"))
	x.DiscardReads(true)
	if n := len(x.ReadSet()); n != 0 {
		t.Fatalf("DiscardReads(true) kept %d reads", n)
	}
	_, _ = x.Get([]byte("b"))
	it, err := x.NewIter(IterOptions{})
	must(t, err)
	must(t, it.Close())
	ok, err := x.SetIfNew([]byte("c"), []byte("1"))
	must(t, err)
	if !ok {
		t.Fatal("SetIfNew did not write")
	}
	if n := len(x.ReadSet()); n != 0 {
		t.Fatalf("%d reads recorded while discarding", n)
	}
	if w := x.WriteSet(); len(w) != 1 || string(w[0].Start) != "c" || string(w[0].End) != "c\x00" {
		t.Fatalf("WriteSet = %q", w)
	}
	x.DiscardReads(false)
	_, _ = x.Get([]byte("d"))
	if n := len(x.ReadSet()); n != 1 {
		t.Fatalf("%d reads after DiscardReads(false) and one Get, want 1", n)
	}
}

// TestWriteSetsSlabs checks WriteSets over more keys than one 64 KiB slab
// holds: every span is its key's point span, in order, and the
// overwrite set leaves out exactly the merges.
func TestWriteSetsSlabs(t *testing.T) {
	e := NewMemory()
	defer func() { _ = e.Close() }()
	x := NewTxn(e)
	defer x.Rollback()
	const n = 3000
	pad := make([]byte, 90)
	for i := range n {
		key := append(fmt.Appendf(nil, "k%05d", i), pad...)
		if i%3 == 0 {
			must(t, x.Merge(key, []byte("m")))
		} else {
			must(t, x.Set(key, []byte("v")))
		}
	}
	writes, over := x.WriteSets()
	if len(writes) != n || len(over) != n-n/3 {
		t.Fatalf("%d writes and %d overwrites, want %d and %d", len(writes), len(over), n, n-n/3)
	}
	j := 0
	for i, w := range writes {
		key := string(append(fmt.Appendf(nil, "k%05d", i), pad...))
		if string(w.Start) != key || string(w.End) != key+"\x00" {
			t.Fatalf("write span %d = [%q, %q)", i, w.Start, w.End)
		}
		if i%3 != 0 {
			if string(over[j].Start) != key {
				t.Fatalf("overwrite span %d = %q, want %q", j, over[j].Start, key)
			}
			j++
		}
	}
}
