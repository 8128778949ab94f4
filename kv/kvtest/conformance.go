package kvtest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/kvsql/kvsql/kv"
)

// Conformance runs the read-write suite against every kind of engine,
// directly and through a kv.Txn, and the engine suite against every kind.
func Conformance(t *testing.T, kinds []Kind) {
	for _, k := range kinds {
		t.Run(k.Name, func(t *testing.T) {
			for _, m := range rwMakers() {
				t.Run(m.name, func(t *testing.T) {
					runReadWriteSuite(t, k, m)
				})
			}
			t.Run("engine-only", func(t *testing.T) { runEngineSuite(t, k) })
		})
	}
}

// runReadWriteSuite checks the kv.Reader and kv.Writer contracts on whatever
// kv.ReadWriter m makes.
func runReadWriteSuite(t *testing.T, k Kind, m rwMaker) {
	mk := func(t *testing.T, seed ...kvPair) kv.ReadWriter { return m.make(t, k, seed) }

	t.Run("get-set-delete", func(t *testing.T) {
		rw := mk(t, kvPair{"a", "1"}, kvPair{"b", "2"})
		wantGet(t, rw, "a", sp("1"))
		wantGet(t, rw, "missing", nil)
		key, val := []byte("a"), []byte("10")
		must(t, rw.Set(key, val))
		key[0], val[0] = 'z', '9' // the caller may reuse its slices
		wantGet(t, rw, "a", sp("10"))
		wantGet(t, rw, "z", nil)
		must(t, rw.Delete([]byte("b")))
		wantGet(t, rw, "b", nil)
		must(t, rw.Delete([]byte("never-there")))
		must(t, rw.Set([]byte("empty"), nil))
		wantGet(t, rw, "empty", sp(""))
		got, err := rw.Get([]byte("a"))
		must(t, err)
		got[0] = 'X' // Get returns a copy
		wantGet(t, rw, "a", sp("10"))
		must(t, rw.Set([]byte{}, []byte("empty key")))
		wantGet(t, rw, "", sp("empty key"))
	})

	t.Run("merge", func(t *testing.T) {
		rw := mk(t, kvPair{"base", "ab"}, kvPair{"gone", "x"})
		must(t, rw.Merge([]byte("base"), []byte("cd")))
		must(t, rw.Merge([]byte("base"), []byte("ef")))
		wantGet(t, rw, "base", sp("abcdef"))
		must(t, rw.Merge([]byte("fresh"), []byte("1")))
		must(t, rw.Merge([]byte("fresh"), []byte("2")))
		wantGet(t, rw, "fresh", sp("12"))
		must(t, rw.Delete([]byte("gone")))
		must(t, rw.Merge([]byte("gone"), []byte("y")))
		wantGet(t, rw, "gone", sp("y"))
		must(t, rw.Set([]byte("fresh"), []byte("S")))
		must(t, rw.Merge([]byte("fresh"), []byte("3")))
		wantGet(t, rw, "fresh", sp("S3"))
		must(t, rw.Merge([]byte("nothing"), nil))
		wantGet(t, rw, "nothing", sp(""))
		if got := scan(t, rw, nil, nil); fmt.Sprint(got) != "[base=abcdef fresh=S3 gone=y nothing=]" {
			t.Fatalf("scan after merges = %v", got)
		}
	})

	t.Run("delete-range", func(t *testing.T) {
		var seed []kvPair
		for c := 'a'; c <= 'j'; c++ {
			seed = append(seed, kvPair{string(c), string(c) + "v"})
		}
		rw := mk(t, seed...)
		must(t, rw.DeleteRange([]byte("c"), []byte("f")))
		must(t, rw.DeleteRange([]byte("h"), []byte("h"))) // empty
		must(t, rw.DeleteRange([]byte("j"), []byte("i"))) // inverted
		wantGet(t, rw, "b", sp("bv"))
		wantGet(t, rw, "c", nil)
		wantGet(t, rw, "e", nil)
		wantGet(t, rw, "f", sp("fv"))
		if got := fmt.Sprint(scan(t, rw, nil, nil)); got != "[a=av b=bv f=fv g=gv h=hv i=iv j=jv]" {
			t.Fatalf("after DeleteRange(c,f): %v", got)
		}
		must(t, rw.Set([]byte("d"), []byte("new")))
		must(t, rw.Merge([]byte("e"), []byte("m")))
		wantGet(t, rw, "d", sp("new"))
		wantGet(t, rw, "e", sp("m"))
		must(t, rw.DeleteRange([]byte("a"), []byte("z")))
		if got := scan(t, rw, nil, nil); len(got) != 0 {
			t.Fatalf("after DeleteRange(a,z): %v", got)
		}
	})

	t.Run("iterator-positioning", func(t *testing.T) {
		vals := map[string]string{}
		var seed []kvPair
		for j := range 20 {
			k := fmt.Sprintf("k%02d", 2*j) // even numbers: odd ones fall between
			vals[k] = fmt.Sprintf("v%d", j)
			seed = append(seed, kvPair{k, vals[k]})
		}
		rw := mk(t, seed...)
		keyAt := func(r *rand.Rand) []byte {
			switch r.IntN(8) {
			case 0:
				return nil
			case 1:
				return []byte("a") // below every key
			case 2:
				return []byte("z") // above every key
			default:
				return fmt.Appendf(nil, "k%02d", r.IntN(42))
			}
		}
		bounds := []struct{ lo, hi []byte }{
			{nil, nil},
			{[]byte("k10"), nil},
			{nil, []byte("k11")},
			{[]byte("k05"), []byte("k31")},
			{[]byte("k12"), []byte("k12")}, // empty
			{[]byte("m"), nil},             // past every key
		}
		for _, b := range bounds {
			t.Run(fmt.Sprintf("%s-%s", b.lo, b.hi), func(t *testing.T) {
				it, err := rw.NewIter(kv.IterOptions{LowerBound: b.lo, UpperBound: b.hi})
				must(t, err)
				defer it.Close()
				if it.Valid() {
					t.Fatal("new iterator is positioned")
				}
				model := &iterModel{keys: modelKeys(vals, b.lo, b.hi), lower: b.lo, upper: b.hi, pos: -1}
				// Scripted walks: full scans, direction changes at both ends.
				script := []string{"First", "Next", "Next", "Prev", "Prev", "Prev", "Next",
					"Last", "Prev", "Next", "Next", "Prev", "First", "Prev", "Next"}
				for _, op := range script {
					model.apply(t, it, op, nil, vals)
				}
				for ok := model.apply; ; {
					ok(t, it, "Next", nil, vals)
					if !it.Valid() {
						break
					}
				}
				model.apply(t, it, "Prev", nil, vals) // invalid stays invalid
				rng := rand.New(rand.NewPCG(1, uint64(len(b.lo)+len(b.hi))))
				randomIterOps(t, rng, it, model, vals, 400, keyAt)
			})
		}
	})

	t.Run("iterator-bounds-copied", func(t *testing.T) {
		rw := mk(t, kvPair{"a", "1"}, kvPair{"b", "2"}, kvPair{"c", "3"})
		lo, hi := []byte("b"), []byte("c")
		it, err := rw.NewIter(kv.IterOptions{LowerBound: lo, UpperBound: hi})
		must(t, err)
		defer it.Close()
		lo[0], hi[0] = 'a', 'z'
		if !it.First() || string(it.Key()) != "b" || it.Next() {
			t.Fatal("iterator followed the caller's mutated bounds")
		}
	})

	t.Run("iterator-stable", func(t *testing.T) {
		rw := mk(t, kvPair{"a", "1"}, kvPair{"c", "3"})
		it, err := rw.NewIter(kv.IterOptions{})
		must(t, err)
		defer it.Close()
		must(t, rw.Set([]byte("b"), []byte("2")))
		must(t, rw.Delete([]byte("c")))
		must(t, rw.Set([]byte("a"), []byte("changed")))
		var got []string
		for ok := it.First(); ok; ok = it.Next() {
			got = append(got, string(it.Key())+"="+string(it.Value()))
		}
		if fmt.Sprint(got) != "[a=1 c=3]" {
			t.Fatalf("iterator saw later writes: %v", got)
		}
	})

	t.Run("iterator-closed", func(t *testing.T) {
		rw := mk(t, kvPair{"a", "1"})
		it, err := rw.NewIter(kv.IterOptions{})
		must(t, err)
		if !it.First() {
			t.Fatal("First on one key failed")
		}
		must(t, it.Close())
		if it.First() || it.Valid() || it.Key() != nil {
			t.Fatal("closed iterator still positions")
		}
		if !errors.Is(it.Error(), kv.ErrClosed) || !errors.Is(it.Close(), kv.ErrClosed) {
			t.Fatalf("closed iterator: Error %v", it.Error())
		}
	})
}

// runEngineSuite checks what only an kv.Engine has: batches, snapshots,
// durability and closing.
func runEngineSuite(t *testing.T, k Kind) {
	t.Run("batch", func(t *testing.T) {
		e := openEngine(t, k)
		must(t, e.Set([]byte("m"), []byte("0")))
		must(t, e.Set([]byte("old"), []byte("x")))
		b := e.NewBatch()
		must(t, b.Set([]byte("a"), []byte("1")))
		must(t, b.Merge([]byte("m"), []byte("1")))
		must(t, b.Delete([]byte("old")))
		must(t, b.DeleteRange([]byte("q"), []byte("p"))) // empty: not counted
		must(t, b.DeleteRange([]byte("r"), []byte("t")))
		must(t, b.Set([]byte("s"), []byte("after-range")))
		if b.Count() != 5 {
			t.Fatalf("Count = %d; want 5", b.Count())
		}
		wantGet(t, e, "a", nil) // nothing visible before Commit
		wantGet(t, e, "m", sp("0"))
		must(t, b.Commit(true))
		wantGet(t, e, "a", sp("1"))
		wantGet(t, e, "m", sp("01"))
		wantGet(t, e, "old", nil)
		wantGet(t, e, "s", sp("after-range"))
		if err := b.Commit(false); err == nil {
			t.Fatal("second Commit succeeded")
		}
		if err := b.Set([]byte("a"), nil); err == nil {
			t.Fatal("Set on a committed batch succeeded")
		}
		must(t, b.Close())
		if !errors.Is(b.Set([]byte("a"), nil), kv.ErrClosed) || !errors.Is(b.Close(), kv.ErrClosed) {
			t.Fatal("closed batch accepted a write or a second Close")
		}
		d := e.NewBatch()
		must(t, d.Set([]byte("discarded"), []byte("1")))
		must(t, d.Close())
		wantGet(t, e, "discarded", nil)
	})

	t.Run("batch-atomic-under-concurrency", func(t *testing.T) {
		e := openEngine(t, k)
		const rounds = 200
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				b := e.NewBatch()
				v := fmt.Appendf(nil, "%04d", r)
				for _, key := range []string{"x", "y", "z"} {
					_ = b.Set([]byte(key), v)
				}
				_ = b.Commit(false)
				_ = b.Close()
			}
		}()
		for range rounds {
			s := e.NewSnapshot()
			x, errX := s.Get([]byte("x"))
			z, errZ := s.Get([]byte("z"))
			vals := scan(t, s, nil, nil)
			_ = s.Close()
			if (errX == nil) != (errZ == nil) || string(x) != string(z) {
				t.Fatalf("torn batch: x=%q (%v) z=%q (%v)", x, errX, z, errZ)
			}
			if len(vals) == 3 && (vals[0][2:] != vals[1][2:] || vals[1][2:] != vals[2][2:]) {
				t.Fatalf("torn batch in scan: %v", vals)
			}
		}
		wg.Wait()
	})

	t.Run("snapshot-isolation", func(t *testing.T) {
		e := openEngine(t, k)
		mustWrite(t, e, []kvPair{{"a", "1"}, {"b", "2"}, {"c", "3"}, {"d", "4"}})
		s := e.NewSnapshot()
		must(t, e.Set([]byte("a"), []byte("new")))
		must(t, e.Delete([]byte("b")))
		must(t, e.Merge([]byte("c"), []byte("+")))
		must(t, e.DeleteRange([]byte("d"), []byte("e")))
		must(t, e.Set([]byte("e"), []byte("5")))
		wantGet(t, s, "a", sp("1"))
		wantGet(t, s, "b", sp("2"))
		wantGet(t, s, "e", nil)
		if got := fmt.Sprint(scan(t, s, nil, nil)); got != "[a=1 b=2 c=3 d=4]" {
			t.Fatalf("snapshot scan = %v", got)
		}
		if got := fmt.Sprint(scan(t, e, nil, nil)); got != "[a=new c=3+ e=5]" {
			t.Fatalf("engine scan = %v", got)
		}
		must(t, s.Close())
		if _, err := s.Get([]byte("a")); !errors.Is(err, kv.ErrClosed) {
			t.Fatalf("Get on closed snapshot: %v", err)
		}
		if _, err := s.NewIter(kv.IterOptions{}); !errors.Is(err, kv.ErrClosed) {
			t.Fatalf("NewIter on closed snapshot: %v", err)
		}
		if !errors.Is(s.Close(), kv.ErrClosed) {
			t.Fatal("second snapshot Close did not return ErrClosed")
		}
	})

	t.Run("concurrent-readers-and-writers", func(t *testing.T) {
		e := openEngine(t, k)
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range 100 {
					key := fmt.Appendf(nil, "w%d-%03d", w, j)
					if err := e.Set(key, key); err != nil {
						errs <- err
						return
					}
					if err := e.Merge([]byte("log"), []byte{byte('0' + w)}); err != nil {
						errs <- err
						return
					}
					if got, err := e.Get(key); err != nil || string(got) != string(key) {
						errs <- fmt.Errorf("Get(%s) = %q, %v", key, got, err)
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		log, err := e.Get([]byte("log"))
		must(t, err)
		if len(log) != 400 {
			t.Fatalf("merged log has %d bytes; want 400", len(log))
		}
		if n := len(scan(t, e, []byte("w"), []byte("x"))); n != 400 {
			t.Fatalf("scan found %d keys; want 400", n)
		}
	})

	t.Run("closed-engine", func(t *testing.T) {
		e := k.Open(t, t.TempDir())
		must(t, e.Set([]byte("a"), []byte("1")))
		must(t, e.Flush())
		must(t, e.Close())
		checks := map[string]error{
			"Set":         e.Set([]byte("a"), nil),
			"Delete":      e.Delete([]byte("a")),
			"DeleteRange": e.DeleteRange([]byte("a"), []byte("b")),
			"Merge":       e.Merge([]byte("a"), nil),
			"Flush":       e.Flush(),
			"Close":       e.Close(),
			"Batch.Set":   e.NewBatch().Set([]byte("a"), nil),
		}
		_, checks["Get"] = e.Get([]byte("a"))
		_, checks["NewIter"] = e.NewIter(kv.IterOptions{})
		_, checks["Snapshot.Get"] = e.NewSnapshot().Get([]byte("a"))
		for name, err := range checks {
			if !errors.Is(err, kv.ErrClosed) {
				t.Errorf("%s on closed engine: %v; want ErrClosed", name, err)
			}
		}
	})

	if k.Persistent {
		t.Run("reopen", func(t *testing.T) {
			dir := t.TempDir()
			e := k.Open(t, dir)
			mustWrite(t, e, []kvPair{{"a", "1"}, {"b", "2"}, {"c", "3"}})
			must(t, e.Merge([]byte("a"), []byte("+")))
			must(t, e.Delete([]byte("b")))
			b := e.NewBatch()
			must(t, b.Set([]byte("d"), []byte("4")))
			must(t, b.Commit(true))
			must(t, b.Close())
			must(t, e.Flush())
			must(t, e.Close())
			e = k.Open(t, dir)
			defer e.Close()
			if got := fmt.Sprint(scan(t, e, nil, nil)); got != "[a=1+ c=3 d=4]" {
				t.Fatalf("after reopen: %v", got)
			}
		})
	}
}
