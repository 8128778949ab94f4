// Package index writes and reads the master file and the index files of a
// table, as laid out by package catalog (docs/layout.md shows real keys).
//
// A row is a []types.Datum with one entry per catalog.Table column, in
// column order, the hidden row id included.
//
//   - Master file, key space Table.ID: key = the primary key values
//     (encoding.EncodeKey with the key's directions); value =
//     encoding.EncodeRow of the other columns by column id.
//   - Unique index (FormUnique): key = indexed values; value = the primary
//     key's key encoding. NULLs never conflict: an entry with a NULL
//     indexed value has the primary key appended to its key, so several
//     coexist.
//   - Key+id index (FormKeyID): key = indexed values + primary key; value
//     empty. Equality and range lookups are key-range scans.
//   - INCLUDE columns (catalog.Index.Include, unique and key+id forms):
//     the entry's value carries their row encoding (as in a master
//     value), after the primary key in the unique form; ScanIndex
//     decodes them, so such an index can answer an index-only scan.
//   - Inverted-list index (FormInverted): key = indexed values + chunk
//     number (hash of the pk mod NumChunks); value = an op log of
//     "add pk"/"remove pk" appended with kv Merge and folded by readers
//     (inverted.go).
//
// # Data flow
//
// Writers call Insert, Update and Delete with a kv.ReadWriter (a kv.Txn),
// which check constraints through the same ReadWriter before writing. A
// statement inserting many rows uses one Inserter (write.go): once it
// knows the snapshot's last key in each key space, a key above it needs
// no read of the snapshot, only a check of the transaction's own writes.
// Readers call Get for a primary-key lookup (GetUnique through a unique
// index), ScanMaster for a primary-key range and ScanIndex for an index
// range; both scans return a RowIter. The *Cols variants decode only the
// columns a query reads (read.go).
// Backfill fills a new index; Check verifies every master row against
// every index file and back (indextest.AssertConsistent wraps it for
// tests).
//
// # Caveats
//
//   - Key+id entries repeat primary-key columns that are also indexed.
//   - An inverted list's garbage (removed pks) is folded away only when a
//     sampled Delete finds its chunk mostly garbage, or by Compact.
//   - ScanIndex over an inverted index buffers all pks of one search value
//     (to return them in primary-key order).
//   - Per-table layouts are cached by *catalog.Table pointer and never
//     evicted; the cache grows by one small entry per DDL'd table version.
//   - Span bounds are in key order; the caller maps DESC columns and NULL
//     placement.
package index
