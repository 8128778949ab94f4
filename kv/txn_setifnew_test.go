package kv

import (
	"testing"
)

// TestTxnSnapshotLast: the hint reads the snapshot only (not the Txn's
// writes) and is nil for an empty span.
func TestTxnSnapshotLast(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		mustWrite(t, e, []kvPair{{"a1", "x"}, {"a5", "x"}, {"b1", "x"}})
		txn := NewTxn(e)
		defer txn.Rollback()
		must(t, txn.Set([]byte("a9"), []byte("y")))
		must(t, txn.Set([]byte("c1"), []byte("y")))
		for _, c := range []struct{ lo, hi, want string }{
			{"a", "b", "a5"}, {"b", "c", "b1"}, {"c", "d", ""}, {"a", "a5", "a1"},
		} {
			got, err := txn.SnapshotLast([]byte(c.lo), []byte(c.hi))
			must(t, err)
			if string(got) != c.want || (c.want == "") != (got == nil) {
				t.Errorf("SnapshotLast(%s, %s) = %q, want %q", c.lo, c.hi, got, c.want)
			}
		}
		if n := len(txn.ReadSet()); n != 0 {
			t.Errorf("SnapshotLast added %d read spans", n)
		}
	})
}

// TestTxnSetIfNew: SetIfNew writes unless the buffer holds the key (a
// buffered Delete does not count), records the read, and is undone by
// RollbackTo like any write.
func TestTxnSetIfNew(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		txn := NewTxn(e)
		defer txn.Rollback()
		ok, err := txn.SetIfNew([]byte("k1"), []byte("v1"))
		must(t, err)
		if !ok {
			t.Fatal("SetIfNew of a new key did not write")
		}
		sp0 := txn.Savepoint()
		if ok, err = txn.SetIfNew([]byte("k1"), []byte("v2")); err != nil || ok {
			t.Fatalf("SetIfNew of a buffered key = %v, %v; want false", ok, err)
		}
		if txn.Savepoint() != sp0 {
			t.Error("a refused SetIfNew recorded an undo step")
		}
		if rs := txn.ReadSet(); len(rs) != 2 || !rs[0].Contains([]byte("k1")) || !rs[1].Contains([]byte("k1")) || rs[0].Contains([]byte("k10")) {
			t.Errorf("read set after two SetIfNew of k1: %q, want two point spans of k1", rs)
		}
		wantGet(t, txn, "k1", sp("v1"))
		must(t, txn.Merge([]byte("k2"), []byte("m")))
		if ok, _ = txn.SetIfNew([]byte("k2"), []byte("v")); ok {
			t.Error("SetIfNew wrote over a buffered Merge")
		}
		must(t, txn.Set([]byte("k3"), []byte("old")))
		must(t, txn.Delete([]byte("k3")))
		sp1 := txn.Savepoint()
		if ok, _ = txn.SetIfNew([]byte("k3"), []byte("new")); !ok {
			t.Error("SetIfNew refused a key deleted in the Txn")
		}
		ok, _ = txn.SetIfNew([]byte("k4"), nil)
		if !ok {
			t.Error("SetIfNew of a new key with an empty value did not write")
		}
		wantGet(t, txn, "k3", sp("new"))
		wantGet(t, txn, "k4", sp(""))
		must(t, txn.RollbackTo(sp1))
		wantGet(t, txn, "k3", nil)
		wantGet(t, txn, "k4", nil)
		must(t, txn.Commit(true))
		wantGet(t, e, "k1", sp("v1"))
		wantGet(t, e, "k2", sp("m"))
	})
}
