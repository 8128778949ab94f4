package kv

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestVisitDifferential compares Iterator.Visit with stepping by Next,
// Key and Value on every iterator kind a scan meets: the memory and
// Pebble engines and their snapshots, a read-only Txn (Pebble's raw
// stepping) and a Txn with its own buffered writes and deleted ranges
// (the merging path), over random keys with deletes and overwrites in
// memtables and sstables. Each range is visited in random chunk sizes,
// with a callback that sometimes refuses an entry: the entries accepted
// must be the stepped ones in order, and the iterator must then sit on
// the entry after the last accepted (or on the refused one).
func TestVisitDifferential(t *testing.T) {
	seed := rand.Uint64()
	// kvtest's -seed flag (linked in by the kv_test files) replays a run.
	if f := flag.Lookup("seed"); f != nil {
		if v, err := strconv.ParseUint(f.Value.String(), 10, 64); err == nil && v != 0 {
			seed = v
		}
	}
	t.Logf("seed %d (rerun with -seed %d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	pe, err := OpenPebble("visit", PebbleOptions{FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	defer pe.Close()
	engines := map[string]Engine{"memory": NewMemory(), "pebble": pe}
	key := func(i int) []byte { return fmt.Appendf(nil, "k%05d", i) }
	for round := range 3 {
		for i := range 400 {
			k, v := key(rng.IntN(2000)), fmt.Appendf(nil, "v%d.%d", round, i)
			del := rng.IntN(4) == 0
			for _, e := range engines {
				if del {
					err = e.Delete(k)
				} else {
					err = e.Set(k, v)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
		}
		if round < 2 {
			// Older rounds move to sstables, so the newest sit above
			// older versions and tombstones.
			if err := pe.Compact([]byte("k"), []byte("l")); err != nil {
				t.Fatal(err)
			}
		}
	}
	readers := map[string]func(e Engine) (Reader, func()){
		"engine": func(e Engine) (Reader, func()) { return e, func() {} },
		"snapshot": func(e Engine) (Reader, func()) {
			s := e.NewSnapshot()
			return s, func() { _ = s.Close() }
		},
		"txn": func(e Engine) (Reader, func()) {
			x := NewTxn(e)
			return x, func() { x.Rollback() }
		},
		"txn-writes": func(e Engine) (Reader, func()) {
			x := NewTxn(e)
			r := rand.New(rand.NewPCG(seed, 11)) // the same writes on each engine
			for i := range 50 {
				k := key(r.IntN(2000))
				if r.IntN(3) == 0 {
					_ = x.Delete(k)
				} else {
					_ = x.Set(k, fmt.Appendf(nil, "txn%d", i))
				}
			}
			lo := r.IntN(2000)
			_ = x.DeleteRange(key(lo), key(lo+30))
			return x, func() { x.Rollback() }
		},
	}
	refuse := errors.New("refused")
	for ename, e := range engines {
		for rname, open := range readers {
			for q := range 20 {
				lo, hi := rng.IntN(2000), rng.IntN(2000)
				if lo > hi {
					lo, hi = hi, lo
				}
				opts := IterOptions{LowerBound: key(lo), UpperBound: key(hi + 1)}
				r, done := open(e)
				var want [][2][]byte
				it, err := r.NewIter(opts)
				if err != nil {
					t.Fatal(err)
				}
				for ok := it.First(); ok; ok = it.Next() {
					want = append(want, [2][]byte{bytes.Clone(it.Key()), bytes.Clone(it.Value())})
				}
				if err := it.Error(); err != nil {
					t.Fatal(err)
				}
				_ = it.Close()

				it, err = r.NewIter(opts)
				if err != nil {
					t.Fatal(err)
				}
				var got [][2][]byte
				refuseAt := -1
				if q%3 == 0 && len(want) > 0 {
					refuseAt = rng.IntN(len(want))
				}
				it.First()
				for {
					limit := 1 + rng.IntN(40)
					n, err := it.Visit(limit, func(k, v []byte) error {
						if len(got) == refuseAt {
							return refuse
						}
						got = append(got, [2][]byte{bytes.Clone(k), bytes.Clone(v)})
						return nil
					})
					if err == refuse {
						if n > limit || !it.Valid() || !bytes.Equal(it.Key(), want[refuseAt][0]) {
							t.Fatalf("%s/%s seed %d: after a refusal at %d the iterator is not on the refused entry", ename, rname, seed, refuseAt)
						}
						refuseAt = -1 // accept it on the next visit
						continue
					}
					if err != nil {
						t.Fatal(err)
					}
					if n < limit {
						if it.Valid() {
							t.Fatalf("%s/%s seed %d: a short visit left the iterator valid", ename, rname, seed)
						}
						break
					}
					if len(got) < len(want) && (!it.Valid() || !bytes.Equal(it.Key(), want[len(got)][0])) {
						t.Fatalf("%s/%s seed %d: after %d entries the iterator is not on the next one", ename, rname, seed, len(got))
					}
				}
				if err := it.Error(); err != nil {
					t.Fatal(err)
				}
				_ = it.Close()
				done()
				if len(got) != len(want) {
					t.Fatalf("%s/%s seed %d [%d,%d]: Visit gave %d entries, stepping %d", ename, rname, seed, lo, hi, len(got), len(want))
				}
				for i := range got {
					if !bytes.Equal(got[i][0], want[i][0]) || !bytes.Equal(got[i][1], want[i][1]) {
						t.Fatalf("%s/%s seed %d: entry %d is %q=%q, stepping gave %q=%q", ename, rname, seed, i, got[i][0], got[i][1], want[i][0], want[i][1])
					}
				}
			}
		}
	}
}
