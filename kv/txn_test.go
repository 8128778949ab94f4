package kv

import (
	"errors"
	"fmt"
	"testing"
)

// forEachEngine runs f on a fresh engine of every kind.
func forEachEngine(t *testing.T, f func(t *testing.T, e Engine)) {
	for _, k := range engineKinds() {
		t.Run(k.name, func(t *testing.T) { f(t, openEngine(t, k)) })
	}
}

// walk returns the keys and values of it from First to the end and from
// Last to the start.
func walk(t *testing.T, it Iterator) (fwd, bwd string) {
	t.Helper()
	var f, b []string
	for ok := it.First(); ok; ok = it.Next() {
		f = append(f, string(it.Key())+"="+string(it.Value()))
	}
	for ok := it.Last(); ok; ok = it.Prev() {
		b = append(b, string(it.Key())+"="+string(it.Value()))
	}
	must(t, it.Error())
	return fmt.Sprint(f), fmt.Sprint(b)
}

func TestTxnReadYourWritesInIterators(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		mustWrite(t, e, []kvPair{{"a", "1"}, {"b", "2"}, {"c", "3"}, {"d", "4"}, {"e", "5"}, {"f", "6"}})
		x := NewTxn(e)
		defer x.Rollback()
		must(t, x.Set([]byte("b"), []byte("B")))         // overwrite
		must(t, x.Delete([]byte("c")))                   // hide
		must(t, x.Merge([]byte("d"), []byte("+")))       // append to snapshot value
		must(t, x.Set([]byte("bb"), []byte("new")))      // buffer-only key between
		must(t, x.DeleteRange([]byte("e"), []byte("g"))) // hide a range...
		must(t, x.Merge([]byte("f"), []byte("F")))       // ...then write inside it
		must(t, x.Merge([]byte("z"), []byte("tail")))    // merge onto nothing
		it, err := x.NewIter(IterOptions{})
		must(t, err)
		defer it.Close()
		fwd, bwd := walk(t, it)
		if fwd != "[a=1 b=B bb=new d=4+ f=F z=tail]" {
			t.Errorf("forward = %s", fwd)
		}
		if bwd != "[z=tail f=F d=4+ bb=new b=B a=1]" {
			t.Errorf("backward = %s", bwd)
		}
		// Direction changes across buffer-only, hidden and merged keys.
		var path []string
		it.SeekGE([]byte("b"))
		for _, step := range []func() bool{it.Next, it.Next, it.Prev, it.Prev, it.Prev, it.Next, it.Next, it.Next, it.Prev} {
			step()
			path = append(path, string(it.Key()))
		}
		if got := fmt.Sprint(path); got != "[bb d bb b a b bb d bb]" {
			t.Errorf("zig-zag path = %s", got)
		}
		if !it.SeekLT([]byte("e")) || string(it.Key()) != "d" {
			t.Errorf("SeekLT(e) at %q", it.Key())
		}
		// The engine is untouched until Commit.
		wantGet(t, e, "b", sp("2"))
		wantGet(t, e, "bb", nil)
	})
}

func TestTxnSavepoints(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		mustWrite(t, e, []kvPair{{"a", "1"}, {"b", "2"}, {"c", "3"}})
		x := NewTxn(e)
		defer x.Rollback()
		must(t, x.Set([]byte("a"), []byte("A")))
		sp1 := x.Savepoint()
		must(t, x.Merge([]byte("a"), []byte("+")))
		must(t, x.Delete([]byte("b")))
		must(t, x.DeleteRange([]byte("a"), []byte("c")))
		must(t, x.Set([]byte("n"), []byte("new")))
		sp2 := x.Savepoint()
		must(t, x.Set([]byte("c"), []byte("C")))
		if got := fmt.Sprint(scan(t, x, nil, nil)); got != "[c=C n=new]" {
			t.Fatalf("before RollbackTo = %s", got)
		}
		must(t, x.RollbackTo(sp2))
		if got := fmt.Sprint(scan(t, x, nil, nil)); got != "[c=3 n=new]" {
			t.Fatalf("after RollbackTo(sp2) = %s", got)
		}
		must(t, x.RollbackTo(sp1))
		if got := fmt.Sprint(scan(t, x, nil, nil)); got != "[a=A b=2 c=3]" {
			t.Fatalf("after RollbackTo(sp1) = %s", got)
		}
		if err := x.RollbackTo(sp2); !errors.Is(err, errBadSavepoint) {
			t.Fatalf("RollbackTo a savepoint past the current one: %v", err)
		}
		must(t, x.RollbackTo(sp1)) // again: still valid
		must(t, x.RollbackTo(0))
		if x.Len() != 0 {
			t.Fatalf("Len after RollbackTo(0) = %d", x.Len())
		}
		must(t, x.Commit(false))
		if got := fmt.Sprint(scan(t, e, nil, nil)); got != "[a=1 b=2 c=3]" {
			t.Fatalf("engine after committing nothing = %s", got)
		}
	})
}

func TestTxnCommitAndRollback(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		mustWrite(t, e, []kvPair{{"a", "1"}, {"b", "2"}, {"c", "3"}, {"d", "4"}})
		x := NewTxn(e)
		must(t, x.Set([]byte("a"), []byte("A")))
		must(t, x.DeleteRange([]byte("b"), []byte("d")))
		must(t, x.Merge([]byte("c"), []byte("m")))
		must(t, x.Merge([]byte("d"), []byte("+")))
		must(t, x.Merge([]byte("d"), []byte("+")))
		// A concurrent writer the Txn's snapshot does not see.
		must(t, e.Set([]byte("e"), []byte("5")))
		wantGet(t, x, "e", nil)
		s := e.NewSnapshot() // before the commit
		defer s.Close()
		it, err := x.NewIter(IterOptions{})
		must(t, err)
		must(t, x.Commit(true))
		if it.First() || !errors.Is(it.Error(), ErrClosed) {
			t.Fatal("Txn iterator still usable after Commit")
		}
		if got := fmt.Sprint(scan(t, e, nil, nil)); got != "[a=A c=m d=4++ e=5]" {
			t.Fatalf("after commit = %s", got)
		}
		if got := fmt.Sprint(scan(t, s, nil, nil)); got != "[a=1 b=2 c=3 d=4 e=5]" {
			t.Fatalf("snapshot taken before commit = %s", got)
		}
		if _, err := x.Get([]byte("a")); !errors.Is(err, ErrClosed) {
			t.Fatalf("Get after Commit: %v", err)
		}
		if !errors.Is(x.Set([]byte("a"), nil), ErrClosed) || !errors.Is(x.Commit(false), ErrClosed) {
			t.Fatal("Txn accepted writes or a Commit after Commit")
		}

		y := NewTxn(e)
		must(t, y.Set([]byte("a"), []byte("rolled back")))
		must(t, y.DeleteRange([]byte("a"), []byte("z")))
		y.Rollback()
		y.Rollback() // idempotent
		if got := fmt.Sprint(scan(t, e, nil, nil)); got != "[a=A c=m d=4++ e=5]" {
			t.Fatalf("after rollback = %s", got)
		}
	})
}

func TestTxnReadAndWriteSets(t *testing.T) {
	e := NewMemory()
	defer e.Close()
	x := NewTxn(e)
	defer x.Rollback()
	_, _ = x.Get([]byte("a"))
	it, err := x.NewIter(IterOptions{LowerBound: []byte("m"), UpperBound: []byte("p")})
	must(t, err)
	must(t, it.Close())
	must(t, x.Set([]byte("k"), []byte("1")))
	must(t, x.DeleteRange([]byte("r"), []byte("t")))
	sp := x.Savepoint()
	must(t, x.Set([]byte("undone"), nil))
	must(t, x.RollbackTo(sp))

	reads := x.ReadSet()
	if len(reads) != 2 || !reads[0].Contains([]byte("a")) || reads[0].Contains([]byte("a\x00")) ||
		string(reads[1].Start) != "m" || string(reads[1].End) != "p" {
		t.Fatalf("ReadSet = %q", reads)
	}
	writes := x.WriteSet()
	var got []string
	for _, s := range writes {
		got = append(got, fmt.Sprintf("[%q,%q)", s.Start, s.End))
	}
	if fmt.Sprint(got) != `[["r","t") ["k","k\x00")]` {
		t.Fatalf("WriteSet = %v", got)
	}
}

func TestSpanList(t *testing.T) {
	var l spanList
	for _, r := range [][2]string{{"d", "f"}, {"a", "b"}, {"x", "z"}, {"e", "h"}, {"b", "c"}, {"j", "k"}, {"i", "y"}} {
		l = l.add([]byte(r[0]), []byte(r[1]))
	}
	var got []string
	for _, s := range l {
		got = append(got, string(s.Start)+"-"+string(s.End))
	}
	if fmt.Sprint(got) != "[a-c d-h i-z]" {
		t.Fatalf("spans = %v", got)
	}
	for key, want := range map[string]bool{"a": true, "bz": true, "c": false, "d": true, "h": false, "hh": false, "i": true, "yy": true, "z": false} {
		if l.covers([]byte(key)) != want {
			t.Errorf("covers(%q) = %v", key, !want)
		}
	}
}

// TestTxnRefresh: after Refresh the Txn reads the new snapshot with its
// own writes (points, merges, deleted ranges) still laid over it, keeps
// its read set and savepoints, and refuses to move with an iterator open.
func TestTxnRefresh(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		mustWrite(t, e, []kvPair{{"a", "1"}, {"b", "2"}, {"d", "4"}})
		x := NewTxn(e)
		defer x.Rollback()
		must(t, x.Set([]byte("a"), []byte("A")))
		must(t, x.Merge([]byte("d"), []byte("+")))
		mark := x.Savepoint()
		must(t, x.DeleteRange([]byte("e"), []byte("g")))
		wantGet(t, x, "b", sp("2"))
		reads := len(x.ReadSet())

		// Others commit: b changes, c and f appear, d grows.
		mustWrite(t, e, []kvPair{{"b", "22"}, {"c", "3"}, {"d", "44"}, {"f", "6"}})
		wantGet(t, x, "b", sp("2")) // still the old snapshot

		it, err := x.NewIter(IterOptions{})
		must(t, err)
		if err := x.Refresh(e.NewSnapshot()); !errors.Is(err, ErrItersOpen) {
			t.Fatalf("Refresh with an open iterator = %v, want ErrItersOpen", err)
		}
		must(t, it.Close())
		if x.OpenIters() != 0 {
			t.Fatalf("OpenIters = %d after Close", x.OpenIters())
		}
		must(t, x.Refresh(e.NewSnapshot()))
		if len(x.ReadSet()) < reads {
			t.Errorf("read set shrank from %d to %d spans", reads, len(x.ReadSet()))
		}
		it, err = x.NewIter(IterOptions{})
		must(t, err)
		fwd, _ := walk(t, it)
		must(t, it.Close())
		// f is hidden by the Txn's DeleteRange, d is the new base + "+".
		if fwd != "[a=A b=22 c=3 d=44+]" {
			t.Errorf("after Refresh = %s", fwd)
		}
		// Savepoints taken before Refresh still roll back.
		must(t, x.RollbackTo(mark))
		wantGet(t, x, "f", sp("6"))
		must(t, x.Commit(false))
		wantGet(t, e, "a", sp("A"))
		wantGet(t, e, "d", sp("44+"))
		if err := x.Refresh(e.NewSnapshot()); !errors.Is(err, ErrClosed) {
			t.Errorf("Refresh after Commit = %v, want ErrClosed", err)
		}
	})
}
