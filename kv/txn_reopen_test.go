package kv

import (
	"errors"
	"fmt"
	"testing"
)

// TestTxnReopen: a reopened Txn is a new transaction on its new snapshot,
// with nothing of the old one left (writes, reads, iterators), on every
// engine.
func TestTxnReopen(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		mustWrite(t, e, []kvPair{{"a", "1"}, {"b", "1"}})
		x := NewTxn(e)
		if err := x.Reopen(e.NewSnapshot()); !errors.Is(err, errReopenLive) {
			t.Fatalf("Reopen of a live Txn: %v", err)
		}
		wantGet(t, x, "a", sp("1")) // unchanged by the refused Reopen
		it, err := x.NewIter(IterOptions{})
		must(t, err)
		x.Rollback()

		// A commit after the first snapshot; the reopened Txn sees it.
		must(t, e.Set([]byte("a"), []byte("2")))
		must(t, x.Reopen(e.NewSnapshot()))
		wantGet(t, x, "a", sp("2"))
		if n := len(x.ReadSet()); n != 1 {
			t.Fatalf("read set of the reopened Txn: %d spans, want 1 (its own Get)", n)
		}
		if err := it.Close(); !errors.Is(err, ErrClosed) {
			t.Fatalf("closing the old Txn's iterator: %v, want ErrClosed", err)
		}
		if n := x.OpenIters(); n != 0 {
			t.Fatalf("%d open iterators after Reopen", n)
		}

		// It writes and commits like a new Txn.
		must(t, x.Set([]byte("c"), []byte("3")))
		must(t, x.Delete([]byte("b")))
		wantGet(t, x, "c", sp("3"))
		must(t, x.Commit(false))
		wantGet(t, e, "c", sp("3"))
		wantGet(t, e, "b", nil)

		// Reopened after a commit with writes: an empty buffer again.
		must(t, x.Reopen(e.NewSnapshot()))
		if x.Len() != 0 || len(x.WriteSet()) != 0 {
			t.Fatalf("reopened after a commit: %d writes", x.Len())
		}
		wantGet(t, x, "c", sp("3"))
		x.Rollback()
	})
}

// TestTxnReopenKeepsClonedBuffer: an iterator of the ended Txn that read
// a clone of its (empty) buffer is not disturbed by the next
// transaction's writes, and the reverse.
func TestTxnReopenKeepsClonedBuffer(t *testing.T) {
	e := NewMemory()
	defer e.Close()
	mustWrite(t, e, []kvPair{{"k1", "v"}, {"k3", "v"}})
	x := NewTxn(e)
	v := x.View() // freezes a clone of the empty buffer
	x.Rollback()
	must(t, x.Reopen(e.NewSnapshot()))
	for i := range 100 {
		must(t, x.Set(fmt.Appendf(nil, "k2-%03d", i), []byte("w")))
	}
	if got, want := len(scan(t, x, nil, nil)), 102; got != want {
		t.Fatalf("reopened Txn sees %d keys, want %d", got, want)
	}
	if _, err := v.Get([]byte("k2-000")); !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrClosed) {
		t.Fatalf("the old view reads the reopened Txn's write: %v", err)
	}
	x.Rollback()
}

// BenchmarkReadTxn is one short read-only transaction (begin, a point
// read, rollback) made anew or reopened.
func BenchmarkReadTxn(b *testing.B) {
	e := NewMemory()
	defer e.Close()
	mustWrite(b, e, []kvPair{{"k", "v"}})
	snap := e.NewSnapshot()
	defer snap.Close()
	// shared stands for the session's shared snapshot: the Txn's Close of
	// it releases a reference, not the snapshot.
	shared := nopCloseSnap{snap}
	key := []byte("k")
	b.Run("new", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			x := NewTxnOn(e, shared)
			if _, err := x.Get(key); err != nil {
				b.Fatal(err)
			}
			x.Rollback()
		}
	})
	b.Run("reopen", func(b *testing.B) {
		x := NewTxnOn(e, shared)
		x.Rollback()
		b.ReportAllocs()
		for range b.N {
			if err := x.Reopen(shared); err != nil {
				b.Fatal(err)
			}
			if _, err := x.Get(key); err != nil {
				b.Fatal(err)
			}
			x.Rollback()
		}
	})
}

// nopCloseSnap is a Snapshot whose Close does nothing.
type nopCloseSnap struct{ Snapshot }

func (nopCloseSnap) Close() error { return nil }

// TestTxnViewOfEmptyBuffer: a view taken before the Txn wrote anything
// (it holds no buffer) reads the snapshot and nothing the Txn writes
// after it, through Get and through iterators; a view taken after the
// writes sees them.
func TestTxnViewOfEmptyBuffer(t *testing.T) {
	e := NewMemory()
	defer e.Close()
	mustWrite(t, e, []kvPair{{"k1", "v1"}, {"k3", "v3"}})
	x := NewTxn(e)
	v := x.View()
	must(t, x.Set([]byte("k2"), []byte("w")))
	must(t, x.Delete([]byte("k1")))
	must(t, x.DeleteRange([]byte("k3"), []byte("k4")))
	wantGet(t, v, "k1", sp("v1"))
	wantGet(t, v, "k2", nil)
	wantGet(t, v, "k3", sp("v3"))
	if got, want := fmt.Sprint(scan(t, v, nil, nil)), "[k1=v1 k3=v3]"; got != want {
		t.Fatalf("the early view scans %s, want %s", got, want)
	}
	w := x.View()
	wantGet(t, w, "k1", nil)
	wantGet(t, w, "k2", sp("w"))
	wantGet(t, w, "k3", nil)
	if got, want := fmt.Sprint(scan(t, w, nil, nil)), "[k2=w]"; got != want {
		t.Fatalf("the later view scans %s, want %s", got, want)
	}
	x.Rollback()
}
