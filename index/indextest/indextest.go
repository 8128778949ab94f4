// Package indextest holds test helpers for code that writes tables through
// package index: call AssertConsistent at the end of a storage test, as
// bbolt runs its consistency check after every test.
//
// # Caveats
//
// Check reads every master row and index entry, so call it once per test,
// not once per operation, on large tables.
package indextest

import (
	"testing"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/kv"
)

// AssertConsistent fails t with one error per problem index.Check finds
// between the master files and the index files of c in r.
func AssertConsistent(t testing.TB, r kv.Reader, c *catalog.Catalog) {
	t.Helper()
	probs, err := index.Check(r, c)
	if err != nil {
		t.Fatalf("index.Check: %v", err)
	}
	for _, p := range probs {
		t.Errorf("index.Check: %s", p)
	}
}
