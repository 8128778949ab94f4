package kv

import (
	"bytes"
	"fmt"
	"math/rand"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestSnapshotGetMatchesPebble checks pebbleSnapshot.Get, which seeks
// iterators it keeps open, against pebble's own Snapshot.Get on random
// stores: keys set, deleted (one by one and by range) and merged across flushes (so a key's history
// spans the memtable and several sstables), present and absent keys,
// read by many goroutines at once on one snapshot, and a snapshot taken
// before later writes still answering as of its time. Reproduce a failure
// with the printed seed.
func TestSnapshotGetMatchesPebble(t *testing.T) {
	e, rng := openRandomStore(t)
	const keys = 400
	key := func(i int) []byte { return fmt.Appendf(nil, "k%04d", i) }
	write := func(n int) { randomWrites(t, e, rng, keys, key, n) }
	compare := func(s *pebbleSnapshot, readers int) {
		t.Helper()
		var wg sync.WaitGroup
		errs := make(chan error, readers)
		for r := range readers {
			wg.Add(1)
			go func(r int) {
				defer wg.Done()
				for i := r; i < keys+10; i += readers { // and a few absent keys past the end
					k := key(i)
					got, gotErr := s.Get(k)
					want, wantErr := pebbleGet(s.s, k)
					if !bytes.Equal(got, want) || (gotErr == nil) != (wantErr == nil) {
						errs <- fmt.Errorf("%s: got %q, %v; pebble %q, %v", k, got, gotErr, want, wantErr)
						return
					}
				}
			}(r)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	}
	for round := range 6 {
		write(2000)
		if round%2 == 1 {
			must(t, e.Flush())
		}
		s := e.NewSnapshot().(*pebbleSnapshot)
		compare(s, 8)
		write(500) // after the snapshot: it must not see these
		compare(s, 3)
		if n := len(s.mu.iters); n == 0 || n > maxSnapIters {
			t.Errorf("round %d: %d idle iterators, want 1..%d", round, n, maxSnapIters)
		}
		must(t, s.Close())
		if _, err := s.Get(key(0)); err != ErrClosed {
			t.Fatalf("Get after Close: %v, want ErrClosed", err)
		}
	}
}

// randomWrites makes n random writes to e over the keys key(0) ..
// key(keys-1): sets of values up to 300 bytes, deletes, merges and now
// and then a range delete, so a key's history spans kinds of records.
func randomWrites(t *testing.T, e Engine, rng *rand.Rand, keys int, key func(int) []byte, n int) {
	t.Helper()
	for range n {
		k := key(rng.Intn(keys))
		switch rng.Intn(6) {
		case 0:
			must(t, e.Delete(k))
		case 1:
			must(t, e.Merge(k, fmt.Appendf(nil, "+%d", rng.Intn(100))))
		case 2:
			if rng.Intn(10) == 0 {
				lo := rng.Intn(keys)
				must(t, e.DeleteRange(key(lo), key(lo+1+rng.Intn(20))))
			}
		default:
			must(t, e.Set(k, bytes.Repeat([]byte{byte('a' + rng.Intn(26))}, rng.Intn(300))))
		}
	}
}

// openRandomStore opens a small in-memory Pebble store, closed when the
// test ends, and a random source whose seed the test logs (reproduce a
// failure with it).
func openRandomStore(t *testing.T) (Engine, *rand.Rand) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	e, err := OpenPebble("db", PebbleOptions{FS: vfs.NewMem(), CacheSize: 1 << 20, MemTableSize: 64 << 10})
	must(t, err)
	t.Cleanup(func() { _ = e.Close() })
	return e, rand.New(rand.NewSource(seed))
}
