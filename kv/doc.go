// Package kv is kvsql's ordered key-value interface and its engines.
//
// Everything kvsql stores — rows, index entries, the catalog, counters — is
// a key and a value in one ordered keyspace. Keys compare with plain
// bytes.Compare, so any engine with byte-ordered keys can implement Engine:
// Pebble on disk (the default, see OpenPebble) and an in-memory B-tree
// (see NewMemory) are the two here; engines on distributed stores live in
// packages of their own (kv/etcd) and register a store scheme
// (RegisterStore), so OpenStore opens "pebble:DIR", "memory:" or
// "etcd://..." and nothing above kv knows which engine it runs on.
//
// There are only a few types: Engine (the store), Reader (anything you can
// read: the engine, a Snapshot, a Txn), Writer (anything you can write:
// the engine, a Batch, a Txn), Batch (writes applied atomically by Commit),
// Iterator (a cursor over a bounded key range) and Txn (a read-your-writes
// overlay over any Engine that commits as one Batch).
//
// # Data flow
//
// A statement runs inside a Txn:
//
//  1. NewTxn takes a Snapshot of the Engine; every read of the Txn sees
//     that snapshot with the Txn's own buffered writes laid over it.
//  2. Set, Delete, DeleteRange and Merge go into the Txn's in-memory
//     ordered buffer; nothing reaches the Engine yet. Savepoint and
//     RollbackTo undo buffered writes.
//  3. Txn.Commit turns the buffer into one Batch and commits it: all of the
//     Txn's writes become visible at once, or none do. A buffer of
//     IngestThreshold bytes or more goes instead through the engine's
//     optional Ingester (ingest.go): Pebble writes it as sstables and
//     links them into its LSM, skipping the write-ahead log and the
//     memtable (pebble_ingest.go); atomic and invisible to older
//     snapshots the same way, and durable when Commit returns.
//
// Code that needs no isolation may write the Engine directly or through a
// Batch of its own.
//
// # Merge
//
// Merge(key, operand) appends operand to the key's value without reading
// it: the value read back is the existing value (or nothing) followed by
// every operand merged since, in order — byte concatenation. Higher layers
// (the inverted-list index) give the concatenated bytes their meaning.
// Set and Delete replace or remove the whole value as usual. In Pebble the
// merge operator is registered under the name "kvsql.concat"; a store
// written with it cannot be opened with another merger.
//
// # Ownership
//
// Slices passed into the package may be reused by the caller as soon as
// the call returns. Slices returned by Get belong to the caller. Slices
// returned by Iterator.Key and Iterator.Value are valid only until the
// next positioning call or Close, and must not be modified.
//
// # Caveats
//
//   - Iterators and snapshots hold resources until closed; an unclosed
//     iterator in the Pebble engine pins memory and files, and an
//     unclosed snapshot keeps obsolete versions from being compacted away.
//   - Txn gives snapshot reads and buffered writes but does no conflict
//     detection yet: two Txns that write the same key both commit, last
//     writer wins. It records its read and write sets (ReadSet, WriteSet)
//     so a commit-time validation can be added without changing callers.
//   - A Txn iterator sees the Txn's writes as of NewIter; writes made
//     while it is open are not visible to it. Commit and Rollback close
//     the Txn's open iterators.
//   - The read set grows by one span per Txn.Get and per iterator (the
//     iterator's bounds, however little of them it visited), so a Txn
//     that reads millions of keys holds millions of spans. The keys
//     SetIfNew checks are the exception: each is a mark on its buffered
//     write (txn_reads.go), which validation queries with MarkedReadIn
//     beside ReadSpans.
//   - Closing an Engine with open iterators or snapshots is a caller bug:
//     the Pebble engine's Close reports it as an error, and using such an
//     iterator or snapshot afterwards may panic inside Pebble (the memory
//     engine's keep working on the state they froze).
//   - The memory engine stores each value as one slice, so many Merges on
//     one key copy the growing value each time (quadratic); Pebble defers
//     the concatenation to reads and compactions.
//   - Engine.Flush syncs Pebble's write-ahead log; it does not flush
//     memtables to sstables. The memory engine's Flush does nothing, and
//     its data is lost at Close.
package kv
