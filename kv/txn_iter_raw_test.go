package kv

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

var rawSeed = flag.Uint64("raw.seed", 0, "seed of TestTxnIterRawDifferential (0: from the clock)")

// TestTxnIterRawDifferential checks the read-only Txn iterator's direct
// path over Pebble (txnIter.raw) against the path it bypasses: the same
// random moves (First, Last, SeekGE, SeekLT, Next, Prev) on a Txn over a
// Pebble store with an empty write buffer, on the store's own Iterator
// and on a Txn over a memory store with the same keys, which must see
// the same keys and values. The Pebble store holds keys in compacted
// sstables, in a flushed table and in the memtable, with overwrites and
// deletes across them.
func TestTxnIterRawDifferential(t *testing.T) {
	seed := *rawSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (-raw.seed to repeat)", seed)
	for round := range 10 {
		rng := rand.New(rand.NewPCG(seed, uint64(round)))
		rawIterRound(t, rng, fmt.Sprintf("seed %d round %d", seed, round))
	}
}

func rawIterRound(t *testing.T, rng *rand.Rand, name string) {
	pe, err := OpenPebble("raw", PebbleOptions{FS: vfs.NewMem(), CacheSize: 1 << 20, MemTableSize: 1 << 20})
	must(t, err)
	defer pe.Close()
	me := NewMemory()
	defer me.Close()
	write := func(phase int) {
		for range 200 + rng.IntN(800) {
			k := fmt.Appendf(nil, "k%05d", rng.IntN(3000))
			if rng.IntN(5) == 0 {
				must(t, pe.Delete(k))
				must(t, me.Delete(k))
				continue
			}
			v := fmt.Appendf(nil, "v%d-%d-%s", phase, rng.IntN(1000), make([]byte, rng.IntN(40)))
			must(t, pe.Set(k, v))
			must(t, me.Set(k, v))
		}
	}
	write(0)
	must(t, pe.Compact([]byte("k"), []byte("l")))
	write(1)
	must(t, pe.Flush())
	write(2)

	lo := fmt.Appendf(nil, "k%05d", rng.IntN(500))
	hi := fmt.Appendf(nil, "k%05d", 2500+rng.IntN(600))
	opts := IterOptions{LowerBound: lo, UpperBound: hi}
	if rng.IntN(4) == 0 {
		opts = IterOptions{}
	}
	tx, ref := NewTxn(pe), NewTxn(me)
	defer tx.Rollback()
	defer ref.Rollback()
	itRaw, err := tx.NewIter(opts)
	must(t, err)
	defer itRaw.Close()
	if ti, ok := itRaw.(*txnIter); !ok || ti.raw == nil {
		t.Fatalf("%s: a read-only Txn on Pebble did not take the direct path", name)
	}
	itEng, err := pe.NewIter(opts)
	must(t, err)
	defer itEng.Close()
	itMem, err := ref.NewIter(opts)
	must(t, err)
	defer itMem.Close()
	its := []Iterator{itRaw, itEng, itMem}

	for step := range 3000 {
		var move string
		var ok [3]bool
		target := fmt.Appendf(nil, "k%05d", rng.IntN(3100))
		switch r := rng.IntN(100); {
		case r < 2:
			move = "First"
		case r < 4:
			move = "Last"
		case r < 7:
			move = fmt.Sprintf("SeekGE(%s)", target)
		case r < 10:
			move = fmt.Sprintf("SeekLT(%s)", target)
		case r < 80:
			move = "Next"
		default:
			move = "Prev"
		}
		for j, it := range its {
			switch move[0:2] {
			case "Fi":
				ok[j] = it.First()
			case "La":
				ok[j] = it.Last()
			case "Se":
				if move[4] == 'G' {
					ok[j] = it.SeekGE(target)
				} else {
					ok[j] = it.SeekLT(target)
				}
			case "Ne":
				ok[j] = it.Next()
			default:
				ok[j] = it.Prev()
			}
		}
		for j := 1; j < len(its); j++ {
			if ok[j] != ok[0] || string(its[j].Key()) != string(its[0].Key()) || string(its[j].Value()) != string(its[0].Value()) {
				t.Fatalf("%s step %d %s: direct path at %v %q=%q, iterator %d at %v %q=%q", name, step, move,
					ok[0], its[0].Key(), its[0].Value(), j, ok[j], its[j].Key(), its[j].Value())
			}
			if its[j].Valid() != its[0].Valid() {
				t.Fatalf("%s step %d %s: Valid differs", name, step, move)
			}
		}
		for _, it := range its {
			if err := it.Error(); err != nil {
				t.Fatalf("%s step %d %s: %v", name, step, move, err)
			}
		}
	}
}
