package kv

import (
	"errors"
	"fmt"
	"testing"
)

// engineKind opens one of the engines under test. open may be called again
// on the same dir to reopen a persistent store.
type engineKind struct {
	name       string
	persistent bool
	open       func(t testing.TB, dir string) Engine
}

// extraKinds are engines of other packages, added by their tests through
// AddEngineKind (export_test.go) before the tests run: kv cannot import
// them.
var extraKinds []engineKind

func engineKinds() []engineKind {
	return append([]engineKind{
		{name: "memory", open: func(testing.TB, string) Engine { return NewMemory() }},
		{name: "pebble", persistent: true, open: func(t testing.TB, dir string) Engine {
			e, err := OpenPebble(dir, PebbleOptions{CacheSize: 8 << 20, MemTableSize: 4 << 20})
			if err != nil {
				t.Fatal(err)
			}
			return e
		}},
	}, extraKinds...)
}

// openEngine opens a fresh engine of kind k that is closed at the end of
// the test.
func openEngine(t testing.TB, k engineKind) Engine {
	t.Helper()
	e := k.open(t, t.TempDir())
	t.Cleanup(func() { _ = e.Close() })
	return e
}

// kvPair is a key and value in tests.
type kvPair struct{ k, v string }

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t testing.TB, w Writer, seed []kvPair) {
	t.Helper()
	for _, p := range seed {
		must(t, w.Set([]byte(p.k), []byte(p.v)))
	}
}

// wantGet checks that r holds want at key; want nil means absent.
func wantGet(t testing.TB, r Reader, key string, want *string) {
	t.Helper()
	got, err := r.Get([]byte(key))
	switch {
	case want == nil && !errors.Is(err, ErrNotFound):
		t.Fatalf("Get(%q) = %q, %v; want ErrNotFound", key, got, err)
	case want != nil && err != nil:
		t.Fatalf("Get(%q): %v; want %q", key, err, *want)
	case want != nil && (got == nil || string(got) != *want):
		t.Fatalf("Get(%q) = %q (nil=%v); want %q", key, got, got == nil, *want)
	}
}

func sp(s string) *string { return &s }

// scan reads every key and value of r within bounds, forward and backward,
// fails if the two directions disagree, and returns "k=v" strings.
func scan(t testing.TB, r Reader, lower, upper []byte) []string {
	t.Helper()
	it, err := r.NewIter(IterOptions{LowerBound: lower, UpperBound: upper})
	must(t, err)
	defer func() { must(t, it.Close()) }()
	var fwd, bwd []string
	for ok := it.First(); ok; ok = it.Next() {
		fwd = append(fwd, string(it.Key())+"="+string(it.Value()))
	}
	must(t, it.Error())
	for ok := it.Last(); ok; ok = it.Prev() {
		bwd = append(bwd, string(it.Key())+"="+string(it.Value()))
	}
	must(t, it.Error())
	for a, b := 0, len(bwd)-1; a < b; a, b = a+1, b-1 {
		bwd[a], bwd[b] = bwd[b], bwd[a]
	}
	if fmt.Sprint(fwd) != fmt.Sprint(bwd) {
		t.Fatalf("forward scan %v != backward scan %v", fwd, bwd)
	}
	return fwd
}
