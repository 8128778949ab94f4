package kv

import (
	"bytes"
	"fmt"
	"math/rand"
	"sort"
	"sync"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestSnapshotIterReuseMatchesFresh checks the snapshot's reused range
// iterators (pebble_snapiter.go) against a model of the snapshot (its
// keys read once by a fresh unbounded iterator, filtered by the bounds)
// on random stores: keys set, deleted (one by one and by range) and
// merged across flushes; random bounds, among them nil, empty
// (lower = upper), inverted, adjacent (upper = lower+"\x00"), and a
// lower bound that is a prefix of keys; random positioning and stepping
// (First, Last, SeekGE, SeekLT, Next, Prev, Visit) on several iterators
// of one goroutine at once, by several goroutines on one snapshot, while
// writes go on and an older snapshot still answers. Under -race Pebble's
// invariant checks are on. Reproduce a failure with the printed seed.
func TestSnapshotIterReuseMatchesFresh(t *testing.T) {
	e, rng := openRandomStore(t)
	const keys = 300
	key := func(i int) []byte { return fmt.Appendf(nil, "k%03d", i) }
	write := func(n int) { randomWrites(t, e, rng, keys, key, n) }
	var older *pebbleSnapshot
	defer func() { // before the engine: a failed round leaves them open
		if older != nil {
			_ = older.Close()
		}
	}()
	for round := range 6 {
		write(1500)
		if round%2 == 1 {
			must(t, e.Flush())
		}
		s := e.NewSnapshot().(*pebbleSnapshot)
		defer func() { _ = s.Close() }() // ErrClosed if the round closed it
		snaps := []*pebbleSnapshot{s}
		if older != nil {
			snaps = append(snaps, older)
		}
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for _, sn := range snaps {
			m := snapModel(t, sn)
			for g := range 4 {
				wg.Add(1)
				go func(seed int64) {
					defer wg.Done()
					if err := iterReuseRun(sn, m, rand.New(rand.NewSource(seed)), key, keys); err != nil {
						errs <- err
					}
				}(rng.Int63() + int64(g))
			}
		}
		wg.Add(1)
		go func() { // writes while the snapshots are read; they must not see them
			defer wg.Done()
			wrng := rand.New(rand.NewSource(int64(round)))
			for range 300 {
				if err := e.Set(key(wrng.Intn(keys)), []byte("late")); err != nil {
					errs <- err
					return
				}
			}
		}()
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("round %d: %v", round, err)
		}
		s.mu.Lock()
		idle := len(s.mu.ranges)
		s.mu.Unlock()
		if idle == 0 || idle > maxSnapIters {
			t.Errorf("round %d: %d idle range iterators, want 1..%d", round, idle, maxSnapIters)
		}
		if older != nil {
			must(t, older.Close())
			if _, err := older.NewIter(IterOptions{}); err != ErrClosed {
				t.Fatalf("NewIter after Close: %v, want ErrClosed", err)
			}
		}
		older = s
	}
	must(t, older.Close())
	older = nil
}

// kvModel is a snapshot's sorted keys and values.
type kvModel struct{ keys, vals [][]byte }

func snapModel(t *testing.T, s *pebbleSnapshot) kvModel {
	t.Helper()
	it, err := newPebbleIter(s.s, IterOptions{})
	must(t, err)
	defer it.Close()
	var m kvModel
	for ok := it.First(); ok; ok = it.Next() {
		m.keys = append(m.keys, cloneBytes(it.Key()))
		m.vals = append(m.vals, cloneBytes(it.Value()))
	}
	must(t, it.Error())
	return m
}

// within returns the model's positions in [lower, upper) (an inverted
// range is empty): [from, to).
func (m kvModel) within(lower, upper []byte) (from, to int) {
	to = len(m.keys)
	if lower != nil {
		from = sort.Search(len(m.keys), func(i int) bool { return bytes.Compare(m.keys[i], lower) >= 0 })
	}
	if upper != nil {
		to = sort.Search(len(m.keys), func(i int) bool { return bytes.Compare(m.keys[i], upper) >= 0 })
	}
	return from, max(from, to)
}

// iterReuseRun runs random statements on s: each opens one to three
// iterators with random bounds, steps them at random, compares every
// answer with the model, and closes them in random order.
func iterReuseRun(s *pebbleSnapshot, m kvModel, rng *rand.Rand, key func(int) []byte, keys int) error {
	bound := func() []byte {
		switch rng.Intn(6) {
		case 0:
			return nil
		case 1:
			return []byte("k0") // a prefix of keys k000..k099
		default:
			return key(rng.Intn(keys + 2))
		}
	}
	type open struct {
		it       Iterator
		from, to int
		pos      int // model position; -1 invalid
		desc     string
	}
	for stmt := range 150 {
		var its []*open
		for range 1 + rng.Intn(3) {
			lower, upper := bound(), bound()
			switch rng.Intn(5) {
			case 0:
				upper = lower // empty
			case 1:
				if lower != nil {
					upper = append(cloneBytes(lower), 0) // adjacent: lower alone
				}
			}
			buf := IterOptions{LowerBound: cloneBytes(lower), UpperBound: cloneBytes(upper)}
			it, err := s.NewIter(buf)
			if err != nil {
				return err
			}
			for i := range buf.LowerBound { // the bounds are copied: the caller may reuse them
				buf.LowerBound[i] = 'z'
			}
			from, to := m.within(lower, upper)
			its = append(its, &open{it: it, from: from, to: to, pos: -1, desc: fmt.Sprintf("stmt %d [%q, %q)", stmt, lower, upper)})
		}
		for range 12 {
			o := its[rng.Intn(len(its))]
			var op string
			var ok bool
			switch k := key(rng.Intn(keys + 2)); rng.Intn(7) {
			case 0:
				op, ok = "First", o.it.First()
				o.pos = o.from
			case 1:
				op, ok = "Last", o.it.Last()
				o.pos = o.to - 1
			case 2:
				op, ok = fmt.Sprintf("SeekGE(%s)", k), o.it.SeekGE(k)
				o.pos = max(o.from, sort.Search(len(m.keys), func(i int) bool { return bytes.Compare(m.keys[i], k) >= 0 }))
			case 3:
				op, ok = fmt.Sprintf("SeekLT(%s)", k), o.it.SeekLT(k)
				o.pos = min(o.to, sort.Search(len(m.keys), func(i int) bool { return bytes.Compare(m.keys[i], k) >= 0 })) - 1
			case 4:
				op, ok = "Next", o.it.Next()
				if o.pos >= 0 {
					o.pos++
				}
			case 5:
				op, ok = "Prev", o.it.Prev()
				if o.pos >= 0 {
					o.pos--
				}
			case 6:
				limit := 1 + rng.Intn(4)
				var got [][]byte
				n, err := o.it.Visit(limit, func(k, _ []byte) error { got = append(got, cloneBytes(k)); return nil })
				if err != nil {
					return fmt.Errorf("%s: Visit: %v", o.desc, err)
				}
				want := 0
				if o.pos >= o.from && o.pos < o.to {
					want = min(limit, o.to-o.pos)
				}
				if n != want || len(got) != n {
					return fmt.Errorf("%s: Visit(%d) read %d keys %q, want %d from position %d", o.desc, limit, n, got, want, o.pos)
				}
				for j, k := range got {
					if !bytes.Equal(k, m.keys[o.pos+j]) {
						return fmt.Errorf("%s: Visit(%d) read %q, want %q", o.desc, limit, got, m.keys[o.pos:o.pos+n])
					}
				}
				if o.pos >= 0 {
					o.pos += n // at the entry after the last one visited
				}
				op, ok = "after Visit", o.it.Valid()
			}
			if o.pos < o.from || o.pos >= o.to {
				o.pos = -1
			}
			if ok != (o.pos >= 0) {
				return fmt.Errorf("%s: %s = %v, model position %d in [%d, %d)", o.desc, op, ok, o.pos, o.from, o.to)
			}
			if ok && (!bytes.Equal(o.it.Key(), m.keys[o.pos]) || !bytes.Equal(o.it.Value(), m.vals[o.pos])) {
				return fmt.Errorf("%s: %s at %q=%q, want %q=%q", o.desc, op, o.it.Key(), o.it.Value(), m.keys[o.pos], m.vals[o.pos])
			}
			if err := o.it.Error(); err != nil {
				return fmt.Errorf("%s: %s: %v", o.desc, op, err)
			}
		}
		rng.Shuffle(len(its), func(i, j int) { its[i], its[j] = its[j], its[i] })
		for _, o := range its {
			if err := o.it.Close(); err != nil {
				return fmt.Errorf("%s: Close: %v", o.desc, err)
			}
			if err := o.it.Close(); err != ErrClosed {
				return fmt.Errorf("%s: second Close: %v, want ErrClosed", o.desc, err)
			}
		}
	}
	return nil
}

// BenchmarkSnapshotRangeRead is a short range read on a snapshot (new
// iterator on a random 10-key range, First, 9 Next, Close), as an
// autocommit LIMIT 10 scan does: fresh is a new Pebble iterator stack
// per read (the path before iterator reuse), reused is the snapshot's
// NewIter.
func BenchmarkSnapshotRangeRead(b *testing.B) {
	e, err := OpenPebble("db", PebbleOptions{FS: vfs.NewMem(), CacheSize: 64 << 20})
	must(b, err)
	defer e.Close()
	const keys = 200_000
	key := func(i int) []byte { return fmt.Appendf(nil, "k%07d", i) }
	for i := range keys {
		must(b, e.Set(key(i), bytes.Repeat([]byte{'v'}, 100)))
	}
	must(b, e.Flush())
	s := e.NewSnapshot().(*pebbleSnapshot)
	defer s.Close()
	for _, bc := range []struct {
		name string
		open func(IterOptions) (Iterator, error)
	}{
		{"fresh", func(o IterOptions) (Iterator, error) { return newPebbleIter(s.s, o) }},
		{"reused", s.NewIter},
	} {
		b.Run(bc.name, func(b *testing.B) {
			rng := rand.New(rand.NewSource(1))
			b.ReportAllocs()
			for b.Loop() {
				lo := rng.Intn(keys - 10)
				it, err := bc.open(IterOptions{LowerBound: key(lo), UpperBound: key(lo + 10)})
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for ok := it.First(); ok; ok = it.Next() {
					n++
				}
				if n != 10 {
					b.Fatalf("read %d keys, want 10", n)
				}
				must(b, it.Close())
			}
		})
	}
}

// TestEngineCloseWithOpenSnapshot: a snapshot its user never closed keeps
// idle iterators (a range iterator closed back to it, a point get's),
// which hold references to the store's files; the engine's Close closes
// the snapshot first instead of leaving Pebble to panic on them.
func TestEngineCloseWithOpenSnapshot(t *testing.T) {
	e, err := OpenPebble("db", PebbleOptions{FS: vfs.NewMem(), CacheSize: 1 << 20})
	must(t, err)
	for i := range 100 {
		must(t, e.Set(fmt.Appendf(nil, "k%03d", i), []byte("v")))
	}
	must(t, e.Flush())
	if err := e.(*pebbleEngine).db.Flush(); err != nil { // into an sstable
		t.Fatal(err)
	}
	s := e.NewSnapshot()
	it, err := s.NewIter(IterOptions{LowerBound: []byte("k010"), UpperBound: []byte("k020")})
	must(t, err)
	if !it.First() {
		t.Fatal("no key in [k010, k020)")
	}
	must(t, it.Close()) // back to the snapshot, idle
	if _, err := s.Get([]byte("k050")); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("Close with a snapshot left open: %v", err)
	}
	if _, err := s.Get([]byte("k050")); err == nil {
		t.Error("a snapshot of a closed engine still answers")
	}
}
