package kv

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

var readsSeed = flag.Uint64("reads.seed", 0, "seed of TestTxnMarkedReads (0: from the clock)")

// TestTxnMarkedReads runs random writes, reads, savepoints, rollbacks and
// deleted ranges on a Txn and checks its read set against a model that
// records every key SetIfNew checked as the span it used to be: each
// such key stays in ReadSet and is found by ReadSpans or MarkedReadIn
// (whether the write that marked it was overwritten, dropped or undone),
// and MarkedReadIn finds no key SetIfNew never checked. DiscardReads
// forgets them. OverwritesIn answers as a search of OverwriteSet does.
func TestTxnMarkedReads(t *testing.T) {
	seed := *readsSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (-reads.seed to repeat)", seed)
	for round := range 30 {
		rng := rand.New(rand.NewPCG(seed, uint64(round)))
		markedReadsRound(t, rng, fmt.Sprintf("seed %d round %d", seed, round))
	}
}

func markedReadsRound(t *testing.T, rng *rand.Rand, name string) {
	e := NewMemory()
	defer func() { _ = e.Close() }()
	for range rng.IntN(10) {
		must(t, e.Set(fmt.Appendf(nil, "k%04d", rng.IntN(300)), []byte("s")))
	}
	x := NewTxn(e)
	defer x.Rollback()
	checked := map[string]bool{} // keys SetIfNew checked while reads were recorded
	var savepoints []int
	next := 0
	key := func() []byte {
		if rng.IntN(4) > 0 {
			next += 1 + rng.IntN(3)
			return fmt.Appendf(nil, "k%04d", next)
		}
		return fmt.Appendf(nil, "k%04d", rng.IntN(next+10))
	}
	covered := func(spans []KeySpan, k []byte) bool {
		for _, s := range spans {
			if s.Contains(k) {
				return true
			}
		}
		return false
	}
	for step := range 300 {
		switch r := rng.IntN(100); {
		case r < 40:
			k := key()
			if _, err := x.SetIfNew(k, []byte("v")); err != nil {
				t.Fatal(err)
			}
			if !x.noReads {
				checked[string(k)] = true
			}
		case r < 50:
			must(t, x.Set(key(), []byte("w")))
		case r < 56:
			must(t, x.Delete(key()))
		case r < 60:
			must(t, x.Merge(key(), []byte("+")))
		case r < 63:
			lo := key()
			hi := append(append([]byte(nil), lo...), 0xff)
			if rng.IntN(2) == 0 {
				hi = fmt.Appendf(nil, "k%04d", rng.IntN(next+10))
			}
			must(t, x.DeleteRange(lo, hi))
		case r < 73:
			savepoints = append(savepoints, x.Savepoint())
		case r < 83:
			if len(savepoints) > 0 {
				i := rng.IntN(len(savepoints))
				must(t, x.RollbackTo(savepoints[i]))
				savepoints = savepoints[:i+1]
			}
		case r < 88:
			_ = x.View() // moves the tail into the B-tree
		case r < 90:
			on := !x.noReads
			x.DiscardReads(on)
			if on {
				clear(checked)
			}
		default:
			_, _ = x.Get(key())
		}
		reads, spans := x.ReadSet(), x.ReadSpans()
		for k := range checked {
			kb := []byte(k)
			if !covered(reads, kb) {
				t.Fatalf("%s step %d: key %s checked by SetIfNew is not in ReadSet", name, step, k)
			}
			if !covered(spans, kb) && !x.MarkedReadIn([]KeySpan{pointSpan(kb)}) {
				t.Fatalf("%s step %d: key %s checked by SetIfNew is in neither ReadSpans nor MarkedReadIn", name, step, k)
			}
		}
		for i := range next + 10 {
			k := fmt.Appendf(nil, "k%04d", i)
			if !checked[string(k)] && x.MarkedReadIn([]KeySpan{pointSpan(k)}) {
				t.Fatalf("%s step %d: MarkedReadIn finds %s, which SetIfNew never checked", name, step, k)
			}
		}
		for range 5 {
			lo := fmt.Appendf(nil, "k%04d", rng.IntN(next+10))
			probe := KeySpan{Start: lo, End: append(append([]byte(nil), lo...), 0)}
			switch rng.IntN(3) {
			case 0:
				probe.End = fmt.Appendf(nil, "k%04d", rng.IntN(next+10))
			case 1:
				probe.End = nil
			}
			want := false
			for _, o := range x.OverwriteSet() {
				want = want || spansMeet(o, probe)
			}
			if got := x.OverwritesIn([]KeySpan{probe}); got != want {
				t.Fatalf("%s step %d: OverwritesIn(%q) = %v, OverwriteSet says %v", name, step, probe, got, want)
			}
		}
		if x.MarkedReadIn([]KeySpan{{Start: []byte("k")}}) != anyMarked(x) {
			t.Fatalf("%s step %d: MarkedReadIn of the whole space disagrees with the buffer's marks", name, step)
		}
	}
	must(t, x.Commit(false))
	if x.MarkedReadIn([]KeySpan{{Start: nil}}) {
		t.Fatalf("%s: MarkedReadIn after Commit", name)
	}
}

// spansMeet reports whether spans a and b share a key (nil End:
// unbounded).
func spansMeet(a, b KeySpan) bool {
	if a.End != nil && bytes.Compare(b.Start, a.End) >= 0 {
		return false
	}
	if b.End != nil && bytes.Compare(a.Start, b.End) >= 0 {
		return false
	}
	return true
}

// anyMarked reports whether some buffered entry carries a read mark.
func anyMarked(x *Txn) bool {
	found := false
	x.ascend(func(e txnEntry) bool {
		found = e.read
		return !found
	})
	return found
}

// TestTxnMarkedReadsConflict: a write of another transaction into a key
// SetIfNew checked is seen by MarkedReadIn; a write beside it is not.
func TestTxnMarkedReadsConflict(t *testing.T) {
	x := NewTxn(NewMemory())
	defer x.Rollback()
	for _, k := range []string{"a1", "a3", "a5"} {
		if ok, err := x.SetIfNew([]byte(k), nil); err != nil || !ok {
			t.Fatalf("SetIfNew(%s) = %v, %v", k, ok, err)
		}
	}
	must(t, x.Set([]byte("a7"), nil))
	for _, c := range []struct {
		spans []KeySpan
		want  bool
	}{
		{[]KeySpan{pointSpan([]byte("a3"))}, true},
		{[]KeySpan{pointSpan([]byte("a2")), pointSpan([]byte("a4"))}, false},
		{[]KeySpan{pointSpan([]byte("a7"))}, false}, // a blind Set is no read
		{[]KeySpan{{Start: []byte("a6"), End: nil}}, false},
		{[]KeySpan{{Start: []byte("a4"), End: []byte("a6")}}, true},
		{[]KeySpan{{Start: []byte("a"), End: []byte("a1")}}, false},
		{nil, false},
	} {
		if got := x.MarkedReadIn(c.spans); got != c.want {
			t.Errorf("MarkedReadIn(%q) = %v, want %v", c.spans, got, c.want)
		}
	}
	if n := len(x.ReadSpans()); n != 0 {
		t.Errorf("ReadSpans holds %d spans after SetIfNew only", n)
	}
	if n := len(x.ReadSet()); n != 3 {
		t.Errorf("ReadSet holds %d spans, want the 3 keys SetIfNew checked", n)
	}
}
