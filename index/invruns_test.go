package index

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/types"
)

// TestInvertedRunsFoldRange folds one search value's inverted list by
// ranges of primary keys — Split's cuts into 1 to 20 parts — and wants
// the parts, one after another, to be exactly the list the row scan's
// fold yields (ReadInvertedList): random inserts and deletes, some
// compacted, so the chunks' logs hold removes and re-adds.
func TestInvertedRunsFoldRange(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	e := kv.NewMemory()
	_, tbl := newTable(t, e)
	var idx = tbl.Indexes[len(tbl.Indexes)-1]
	if idx.Name != "t_c_inv" {
		t.Fatalf("index %q, want t_c_inv", idx.Name)
	}
	live := map[int64]bool{}
	for round := range 6 {
		txn := kv.NewTxn(e)
		for range 400 {
			a := r.Int64N(1500)
			rw := row(a, fmt.Sprint("b", a%7), 5, nil)
			if live[a] {
				if err := Delete(txn, tbl, rw); err != nil {
					t.Fatal(err)
				}
			} else if err := Insert(txn, tbl, rw); err != nil {
				t.Fatal(err)
			}
			live[a] = !live[a]
		}
		if err := txn.Commit(false); err != nil {
			t.Fatal(err)
		}
		if round == 3 {
			if err := compactIn(e, idx); err != nil {
				t.Fatal(err)
			}
		}
	}
	sp := Span{Lo: []types.Datum{types.NewInt(5)}, Hi: []types.Datum{types.NewInt(5)}}
	var want InvertedList
	if err := ReadInvertedList(e, tbl, idx, sp, &want); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range live {
		if l {
			n++
		}
	}
	if want.Len() != n || n < 100 {
		t.Fatalf("the list holds %d keys, %d rows are live", want.Len(), n)
	}
	runs, ok, err := ReadInvertedRuns(e, tbl, idx, sp)
	if err != nil || !ok {
		t.Fatalf("ReadInvertedRuns: %v, %v", ok, err)
	}
	if runs.Ops() < n {
		t.Fatalf("%d ops for %d live keys", runs.Ops(), n)
	}
	var part InvertedList
	var sc InvertedScratch
	for parts := 1; parts <= 20; parts++ {
		cuts := runs.Split(parts)
		bounds := append(append([][]byte{nil}, cuts...), nil)
		got := 0
		for j := 0; j+1 < len(bounds); j++ {
			runs.FoldRange(bounds[j], bounds[j+1], &part, &sc)
			for i := range part.Len() {
				if got >= want.Len() || string(part.PK(i)) != string(want.PK(got)) {
					t.Fatalf("%d parts: key %d of part %d is %x, want key %d of the list", parts, i, j, part.PK(i), got)
				}
				if v := part.Value(i); len(v) != 1 || v[0].I != 5 {
					t.Fatalf("%d parts: search value %v", parts, v)
				}
				got++
			}
		}
		if got != want.Len() {
			t.Fatalf("%d parts (%d cuts): %d keys, want %d", parts, len(cuts), got, want.Len())
		}
	}
	// Another search value in the span: no runs.
	sp.Hi = []types.Datum{types.NewInt(9)}
	txn := kv.NewTxn(e)
	if err := Insert(txn, tbl, row(99_999, "x", 7, nil)); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(false); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := ReadInvertedRuns(e, tbl, idx, sp); ok || err != nil {
		t.Fatalf("a span of two search values: runs %v, %v", ok, err)
	}
}

// compactIn rewrites idx's chunks folded (Compact) in a transaction of
// its own.
func compactIn(e kv.Engine, idx *catalog.Index) error {
	txn := kv.NewTxn(e)
	if err := Compact(txn, idx); err != nil {
		return err
	}
	return txn.Commit(false)
}
