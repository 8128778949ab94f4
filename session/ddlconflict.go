package session

import (
	"bytes"
	"slices"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/kv"
)

// catChange is a transaction's catalog change (catalog.Diff against the
// catalog of its snapshot) in the form commit validation compares
// (DB.validToLocked). Only what the change touched conflicts with it, as
// PostgreSQL's DDL locks only the objects it changes: two sessions that
// create temporary tables, or a migration beside transactions writing
// other tables, all commit.
//
//   - spaces are the key spaces of the tables it changed and of their
//     families (catalog.Change.Tables): a transaction that wrote in one
//     of them did so under the old definition (an INSERT that knew no
//     new index, a row a new constraint never checked), and the
//     changing transaction read them all (its backfills and validations,
//     whether or not its scans recorded their reads).
//   - meta are the descriptor keys it wrote: two changes of one object.
//   - names are the names it took (two CREATE TABLE foo).
//   - broad: a database created or dropped, or an existing type changed;
//     it conflicts with every writing transaction of its database, in
//     both directions.
type catChange struct {
	spaces, meta []kv.KeySpan
	names        []string
	broad        bool
}

// catalogChange returns t's catalog change, nil if t changed no catalog.
// writes is t's write set sorted by Start, which commit has: the
// descriptor keys (meta) come from it. A refresh passes nil and gets no
// meta: validation compares another commit's descriptor keys with t's
// write buffer, never t's own list, which only the commit log keeps (a
// migration that bulk-loaded would otherwise sort its write set again at
// every statement).
func (t *txn) catalogChange(writes []kv.KeySpan) *catChange {
	if !t.catChanged {
		return nil
	}
	ch := catalog.Diff(t.baseCat, t.cat)
	cc := &catChange{names: ch.Names, broad: ch.Broad}
	for _, tb := range ch.Tables {
		cc.spaces = append(cc.spaces, spaceSpan(tb.ID))
		for _, idx := range tb.Indexes {
			cc.spaces = append(cc.spaces, spaceSpan(idx.ID))
		}
	}
	cc.spaces = mergeSpans(cc.spaces)
	if writes != nil {
		cc.meta = descriptorWrites(writes)
	}
	return cc
}

// spaceSpan is the span of key space id.
func spaceSpan(id uint64) kv.KeySpan {
	return kv.KeySpan{Start: catalog.SpacePrefix(id), End: catalog.SpacePrefix(id + 1)}
}

// descriptorWrites returns the spans of writes (sorted by Start) in the
// catalog's key space, but for the store-wide id counter, which every
// CREATE writes and commit merges instead (DB.applyWith), and the
// statistics ANALYZE keeps, where the last writer may win.
func descriptorWrites(writes []kv.KeySpan) []kv.KeySpan {
	lo, hi := catalog.SpacePrefix(catalog.MetaSpace), catalog.SpacePrefix(catalog.MetaSpace+1)
	i, _ := slices.BinarySearchFunc(writes, lo, func(s kv.KeySpan, k []byte) int { return bytes.Compare(s.Start, k) })
	var out []kv.KeySpan
	next, stats := catalog.NextIDKey(), catalog.StatsPrefix()
	for _, s := range writes[i:] {
		if bytes.Compare(s.Start, hi) >= 0 {
			break
		}
		if bytes.Equal(s.Start, next) || bytes.HasPrefix(s.Start, stats) {
			continue
		}
		out = append(out, s)
	}
	return out
}

// conflictsWithChange reports whether c, a commit after t's snapshot,
// changed the catalog in a way t depends on, or t's own change (tc, nil
// if none) meets c: the rules of catChange. Reads of a changed table
// need no rule of their own: a change that alters rows (a rewrite, a
// dropped index) wrote them, which the read set's validation sees.
func (t *txn) conflictsWithChange(c *committed, tc *catChange) bool {
	sameDB := func(db string) bool { return db == "" || t.database == "" || db == t.database }
	if tc != nil && tc.broad && sameDB(c.db) {
		return true
	}
	cc := c.change
	if cc == nil {
		return false
	}
	if cc.broad && sameDB(c.ddlDB) {
		return true
	}
	if t.kv.WritesIn(cc.spaces) {
		return true
	}
	if tc == nil {
		return false
	}
	return spansOverlap(cc.spaces, tc.spaces) || t.kv.WritesIn(cc.meta) || namesMeet(cc.names, tc.names)
}

// namesMeet reports whether two sorted lists share a name.
func namesMeet(a, b []string) bool {
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0] == b[0]:
			return true
		case a[0] < b[0]:
			a = a[1:]
		default:
			b = b[1:]
		}
	}
	return false
}

// withoutNextID returns writes (sorted by Start) without the store's id
// counter key, which every CREATE writes: the commit log leaves it out,
// so that two transactions' CREATEs do not conflict over it (the later
// commit writes the larger value, DB.applyWith).
func withoutNextID(writes []kv.KeySpan) []kv.KeySpan {
	key := catalog.NextIDKey()
	i, found := slices.BinarySearchFunc(writes, key, func(s kv.KeySpan, k []byte) int { return bytes.Compare(s.Start, k) })
	if !found {
		return writes
	}
	return slices.Delete(slices.Clone(writes), i, i+1)
}
