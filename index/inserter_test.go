package index

import (
	"bytes"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// dumpAll renders every key and value of r, in order.
func dumpAll(t testing.TB, r kv.Reader) string {
	t.Helper()
	it, err := r.NewIter(kv.IterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var b bytes.Buffer
	for ok := it.First(); ok; ok = it.Next() {
		fmt.Fprintf(&b, "%x=%x\n", it.Key(), it.Value())
	}
	if err := it.Error(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestInserterDuplicates drives one statement's Inserter over a kv.Txn
// whose snapshot already holds rows, so that both of its paths run: keys
// above the snapshot's last key (checked in the write buffer only) and
// keys below it (checked with a Get). Every violation must be 23505 and
// leave the transaction as it was.
func TestInserterDuplicates(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			e := eng.open(t)
			defer e.Close()
			c, tb := newTable(t, e)
			txn := kv.NewTxn(e)
			for _, r := range [][]types.Datum{row(10, "x", 1, "u10"), row(20, "x", 2, "u20")} {
				if err := Insert(txn, tb, r); err != nil {
					t.Fatal(err)
				}
			}
			if err := txn.Commit(true); err != nil {
				t.Fatal(err)
			}

			txn = kv.NewTxn(e)
			defer txn.Rollback()
			ins := NewInserter(txn, tb)
			steps := []struct {
				r    []types.Datum
				code pgerror.Code // "" for success
			}{
				{row(30, "x", 3, "u30"), ""},                        // above the snapshot: buffer check
				{row(5, "x", 3, "u5"), ""},                          // below: Get
				{row(30, "x", 9, "other"), pgerror.UniqueViolation}, // pk taken in this statement
				{row(20, "x", 9, "other"), pgerror.UniqueViolation}, // pk committed
				{row(10, "y", 9, nil), ""},                          // same a, other b
				{row(40, "x", 9, "u10"), pgerror.UniqueViolation},   // unique d committed, pk new
				{row(41, "x", 9, "u30"), pgerror.UniqueViolation},   // unique d taken in this statement
				{row(6, "x", 9, "u5"), pgerror.UniqueViolation},     // same, pk below the snapshot's last
				{row(42, "x", 9, nil), ""},                          // NULLs never conflict
				{row(43, "x", 9, nil), ""},                          //
				{row(44, "x", 9, "u99"), ""},                        // unique d above the snapshot
				{row(45, "x", 9, "u99"), pgerror.UniqueViolation},   // and again
				{row(46, "x", 9, "u00"), ""},                        // unique d below the snapshot's last
				{row(47, "x", 9, "u00"), pgerror.UniqueViolation},   // and again
			}
			for i, s := range steps {
				before := txn.WriteSet()
				err := ins.Insert(s.r)
				if got := pgerror.CodeOf(err); err != nil && got != s.code || err == nil && s.code != "" {
					t.Fatalf("step %d %v: err %v, want code %q", i, s.r, err, s.code)
				}
				if err != nil {
					if after := txn.WriteSet(); len(after) != len(before) {
						t.Errorf("step %d: a failed insert changed the write set: %d -> %d entries", i, len(before), len(after))
					}
				}
			}
			if err := txn.Commit(true); err != nil {
				t.Fatal(err)
			}
			mustCheck(t, e, c)
			it := mustIter(ScanMaster(e, tb, Span{}, false))
			if got := len(collect(t, it)); got != 2+7 {
				t.Errorf("%d rows after the statement, want 9", got)
			}
		})
	}
}

// TestInserterDifferential inserts random rows in random statements
// through Inserters over kv.Txns (the fast path) and, row by row, through
// the plain path on a second engine; the outcome of every row and the
// final stores must agree. Rows come partly in ascending key order (as a
// COPY's do) and partly at random, so both checks are taken and
// duplicates hit committed rows, earlier rows of the statement and
// unique values.
func TestInserterDifferential(t *testing.T) {
	s := *seed
	if s == 0 {
		s = time.Now().UnixNano()
	}
	t.Logf("seed %d (rerun with -seed %d)", s, s)
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			rng := rand.New(rand.NewSource(s))
			fastE, refE := eng.open(t), eng.open(t)
			defer fastE.Close()
			defer refE.Close()
			c, tb := newTable(t, fastE)
			_, refT := newTable(t, refE)
			next := int64(0)
			for stmt := 0; stmt < 20; stmt++ {
				txn := kv.NewTxn(fastE)
				ins := NewInserter(txn, tb)
				n := 1 + rng.Intn(40)
				for i := 0; i < n; i++ {
					a := next
					if rng.Intn(3) == 0 {
						a = int64(rng.Intn(int(next) + 1))
					} else {
						next++
					}
					r := row(a, string(rune('a'+rng.Intn(2))), rng.Intn(5), fmt.Sprint("u", rng.Intn(300)))
					if rng.Intn(4) == 0 {
						r[3] = types.Null
					}
					errFast := ins.Insert(r)
					errRef := Insert(refE, refT, r)
					if pgerror.CodeOf(errFast) != pgerror.CodeOf(errRef) || (errFast == nil) != (errRef == nil) {
						t.Fatalf("statement %d row %v: fast path %v, plain path %v", stmt, r, errFast, errRef)
					}
				}
				if err := txn.Commit(false); err != nil {
					t.Fatal(err)
				}
			}
			mustCheck(t, fastE, c)
			if f, r := dumpAll(t, fastE), dumpAll(t, refE); f != r {
				t.Errorf("stores differ:\nfast:\n%s\nplain:\n%s", f, r)
			}
		})
	}
}
