// Package kvtest holds the test suites every kv.Engine must pass: the
// conformance suite (Conformance) and the randomized differential test
// (Differential). Engines in kv and in packages of their own (kv/tikv)
// run the same suites, so they all keep one contract.
package kvtest

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/kvsql/kvsql/kv"
)

// Kind opens one of the engines under test. Open may be called again on
// the same dir to reopen a Persistent store.
type Kind struct {
	Name       string
	Persistent bool
	Open       func(t testing.TB, dir string) kv.Engine
}

// Builtin returns the kinds of the engines in package kv: memory and
// Pebble.
func Builtin() []Kind {
	return []Kind{
		{Name: "memory", Open: func(testing.TB, string) kv.Engine { return kv.NewMemory() }},
		{Name: "pebble", Persistent: true, Open: func(t testing.TB, dir string) kv.Engine {
			e, err := kv.OpenPebble(dir, kv.PebbleOptions{CacheSize: 8 << 20, MemTableSize: 4 << 20})
			if err != nil {
				t.Fatal(err)
			}
			return e
		}},
	}
}

// openEngine opens a fresh engine of kind k that is closed at the end of
// the test.
func openEngine(t testing.TB, k Kind) kv.Engine {
	t.Helper()
	e := k.Open(t, t.TempDir())
	t.Cleanup(func() { _ = e.Close() })
	return e
}

// kvPair is a key and value in tests.
type kvPair struct{ k, v string }

// rwMaker returns a kv.ReadWriter whose contents are exactly seed.
type rwMaker struct {
	name string
	make func(t *testing.T, k Kind, seed []kvPair) kv.ReadWriter
}

// rwMakers puts the seed data in different places: in the engine, in a
// kv.Txn's snapshot, in a kv.Txn's buffer, and split between the two with stale
// snapshot values the kv.Txn overwrites and extra snapshot keys it deletes.
func rwMakers() []rwMaker {
	newTxn := func(t *testing.T, e kv.Engine) *kv.Txn {
		x := kv.NewTxn(e)
		t.Cleanup(x.Rollback)
		return x
	}
	return []rwMaker{
		{"engine", func(t *testing.T, k Kind, seed []kvPair) kv.ReadWriter {
			e := openEngine(t, k)
			mustWrite(t, e, seed)
			return e
		}},
		{"txn-snapshot", func(t *testing.T, k Kind, seed []kvPair) kv.ReadWriter {
			e := openEngine(t, k)
			mustWrite(t, e, seed)
			return newTxn(t, e)
		}},
		{"txn-buffer", func(t *testing.T, k Kind, seed []kvPair) kv.ReadWriter {
			x := newTxn(t, openEngine(t, k))
			mustWrite(t, x, seed)
			return x
		}},
		{"txn-mixed", func(t *testing.T, k Kind, seed []kvPair) kv.ReadWriter {
			e := openEngine(t, k)
			for j, p := range seed {
				v := p.v
				if j%2 == 1 {
					v = "stale"
				}
				must(t, e.Set([]byte(p.k), []byte(v)))
				must(t, e.Set([]byte(p.k+"~"), []byte("hidden")))
			}
			x := newTxn(t, e)
			for j, p := range seed {
				if j%2 == 1 {
					must(t, x.Set([]byte(p.k), []byte(p.v)))
				}
				must(t, x.Delete([]byte(p.k+"~")))
			}
			return x
		}},
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t testing.TB, w kv.Writer, seed []kvPair) {
	t.Helper()
	for _, p := range seed {
		must(t, w.Set([]byte(p.k), []byte(p.v)))
	}
}

// wantGet checks that r holds want at key; want nil means absent.
func wantGet(t testing.TB, r kv.Reader, key string, want *string) {
	t.Helper()
	got, err := r.Get([]byte(key))
	switch {
	case want == nil && !errors.Is(err, kv.ErrNotFound):
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
func scan(t testing.TB, r kv.Reader, lower, upper []byte) []string {
	t.Helper()
	it, err := r.NewIter(kv.IterOptions{LowerBound: lower, UpperBound: upper})
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

// iterModel is the reference behaviour of an kv.Iterator over sorted keys
// already restricted to the iterator's bounds.
type iterModel struct {
	keys  []string
	lower []byte
	upper []byte
	pos   int // valid iff 0 <= pos < len(keys)
}

func (m *iterModel) valid() bool { return m.pos >= 0 && m.pos < len(m.keys) }

func (m *iterModel) seekGE(k []byte) {
	if m.lower != nil && bytes.Compare(k, m.lower) < 0 {
		k = m.lower
	}
	m.pos = sort.SearchStrings(m.keys, string(k))
}

func (m *iterModel) seekLT(k []byte) {
	if m.upper != nil && bytes.Compare(k, m.upper) > 0 {
		k = m.upper
	}
	m.pos = sort.SearchStrings(m.keys, string(k)) - 1
}

// apply performs op on both the model and it, and fails on any
// difference. op is one of First, Last, SeekGE, SeekLT, Next, Prev.
func (m *iterModel) apply(t testing.TB, it kv.Iterator, op string, arg []byte, vals map[string]string) {
	t.Helper()
	var got bool
	switch op {
	case "First":
		m.pos = 0
		got = it.First()
	case "Last":
		m.pos = len(m.keys) - 1
		got = it.Last()
	case "SeekGE":
		m.seekGE(arg)
		got = it.SeekGE(arg)
	case "SeekLT":
		m.seekLT(arg)
		got = it.SeekLT(arg)
	case "Next":
		if m.valid() {
			m.pos++
		} else {
			m.pos = -1
		}
		got = it.Next()
	case "Prev":
		if m.valid() {
			m.pos--
		} else {
			m.pos = -1
		}
		got = it.Prev()
	}
	desc := fmt.Sprintf("%s(%q)", op, arg)
	if got != m.valid() || it.Valid() != got {
		t.Fatalf("%s = %v (Valid %v); model says %v", desc, got, it.Valid(), m.valid())
	}
	if err := it.Error(); err != nil {
		t.Fatalf("%s: %v", desc, err)
	}
	if !got {
		return
	}
	if k := string(it.Key()); k != m.keys[m.pos] {
		t.Fatalf("%s at %q; model at %q", desc, k, m.keys[m.pos])
	}
	if v := string(it.Value()); vals != nil && v != vals[m.keys[m.pos]] {
		t.Fatalf("%s: value of %q = %q; want %q", desc, it.Key(), v, vals[m.keys[m.pos]])
	}
}

var iterOps = []string{"First", "Last", "SeekGE", "SeekLT", "Next", "Prev", "Next", "Prev"}

// randomIterOps runs n random positioning operations on it and the model.
// Seek keys are drawn from keyAt, which should produce keys inside,
// between and outside the model's keys.
func randomIterOps(t testing.TB, rng *rand.Rand, it kv.Iterator, m *iterModel, vals map[string]string, n int, keyAt func(*rand.Rand) []byte) {
	t.Helper()
	for range n {
		op := iterOps[rng.IntN(len(iterOps))]
		var arg []byte
		if op == "SeekGE" || op == "SeekLT" {
			arg = keyAt(rng)
		}
		m.apply(t, it, op, arg, vals)
	}
}

// modelKeys returns the sorted keys of vals within [lower, upper).
func modelKeys(vals map[string]string, lower, upper []byte) []string {
	var keys []string
	for k := range vals {
		if (lower == nil || k >= string(lower)) && (upper == nil || k < string(upper)) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}
