package session

import (
	"bytes"
	"flag"
	"math/rand"
	"testing"
	"time"

	"github.com/kvsql/kvsql/kv"
)

// txIntersect is the obvious pairwise definition spansOverlap must match:
// [a.Start, a.End) and [b.Start, b.End) share a key (nil End: unbounded).
func txIntersect(a, b kv.KeySpan) bool {
	if a.End != nil && bytes.Compare(b.Start, a.End) >= 0 {
		return false
	}
	if b.End != nil && bytes.Compare(a.Start, b.End) >= 0 {
		return false
	}
	return true
}

func txRandSpan(r *rand.Rand) kv.KeySpan {
	key := func() []byte {
		b := make([]byte, 1+r.Intn(2))
		for i := range b {
			b[i] = byte('a' + r.Intn(6))
		}
		return b
	}
	var s kv.KeySpan
	switch r.Intn(10) {
	case 0:
		s.End = key() // open start
	case 1:
		s.Start = key() // open end
	case 2:
		k := key()
		s = kv.KeySpan{Start: k, End: append(append([]byte(nil), k...), 0)} // one key
	default:
		s.Start, s.End = key(), key()
		if bytes.Compare(s.Start, s.End) >= 0 {
			s.Start, s.End = s.End, append(append([]byte(nil), s.Start...), 0)
		}
	}
	return s
}

// spansSeed replays TestTxnSpansOverlap (an internal test: it cannot use
// internal/testkit, which imports this package).
var spansSeed = flag.Int64("spans.seed", 0, "seed of TestTxnSpansOverlap (0: time-based)")

// TestTxnSpansOverlap checks mergeSpans and spansOverlap against the
// pairwise definition on random span sets.
func TestTxnSpansOverlap(t *testing.T) {
	seed := *spansSeed
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("seed %d (replay with -spans.seed=%d)", seed, seed)
	r := rand.New(rand.NewSource(seed))
	for iter := 0; iter < 5000; iter++ {
		reads := make([]kv.KeySpan, r.Intn(6))
		for i := range reads {
			reads[i] = txRandSpan(r)
		}
		writes := make([]kv.KeySpan, r.Intn(4))
		for i := range writes {
			writes[i] = txRandSpan(r)
		}
		merged := mergeSpans(reads)
		for i := 1; i < len(merged); i++ {
			prev := merged[i-1]
			if prev.End == nil || bytes.Compare(prev.End, merged[i].Start) >= 0 {
				t.Fatalf("mergeSpans(%q) = %q: not sorted and disjoint", reads, merged)
			}
		}
		want := false
		for _, w := range writes {
			for _, rd := range reads {
				want = want || txIntersect(w, rd)
			}
		}
		if got := spansOverlap(writes, merged); got != want {
			t.Fatalf("spansOverlap(%q, %q) = %v, want %v (reads %q)", writes, merged, got, want, reads)
		}
	}
}

// BenchmarkTxnValidate measures validating a transaction that read 10,000
// keys against 100 commits of 100 keys each.
func BenchmarkTxnValidate(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	key := func() []byte { k := make([]byte, 8); r.Read(k); return k }
	var reads []kv.KeySpan
	for i := 0; i < 10000; i++ {
		k := key()
		reads = append(reads, kv.KeySpan{Start: k, End: append(k, 0)})
	}
	var log [][]kv.KeySpan
	for c := 0; c < 100; c++ {
		var w []kv.KeySpan
		for i := 0; i < 100; i++ {
			k := key()
			w = append(w, kv.KeySpan{Start: k, End: append(k, 0)})
		}
		log = append(log, sortSpans(w))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m := mergeSpans(reads)
		for _, w := range log {
			if spansOverlap(w, m) {
				b.Fatal("unexpected overlap")
			}
		}
	}
}
