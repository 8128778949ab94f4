// Package tikv is kv.Engine on a TiKV cluster, through client-go's
// transactional API (txnkv): kvsql's SQL layer runs unchanged on a
// distributed, replicated, ordered key-value store.
//
// There are only a few types: Engine (the kv.Engine; Open connects to PD),
// Mock (an Engine on client-go's in-process mock cluster, for tests and
// trying it out; OpenMock), and the unexported snapshot, batch and iter.
//
// # Data flow
//
//   - A snapshot is a start timestamp from PD's oracle; every read of it
//     is a TiKV snapshot read at that timestamp.
//   - A batch buffers its writes and commits them as one optimistic
//     Percolator transaction (prewrite every key, commit the primary, then
//     the secondaries): all visible or none. Merge reads the keys it
//     merges into (one BatchGet) and writes the concatenation; DeleteRange
//     scans its range and deletes each key, in the same transaction.
//   - A batch that loses a write conflict is retried on a fresh timestamp;
//     after Options.ConflictRetries it fails with kv.ErrConflict, which the
//     session reports as 40001.
//   - The stores "tikv://PD1,PD2,..." and "tikv-mock://REGIONS" are
//     registered with kv.OpenStore by this package's init.
//
// docs/distributed.md has the whole mapping, the guarantees and the
// measurements.
//
// # Caveats
//
//   - Every key is stored behind Options.Prefix and every value behind a
//     one-byte tag (TiKV cannot hold empty values).
//   - Flush and Compact do nothing: commits are durable when they return,
//     and old versions go when the cluster's GC safepoint passes them,
//     which kvsql does not advance.
//   - One kvsql server per store: kvsql's serializability comes from its
//     in-process commit log, which does not see another server's commits.
//     The SQL layer claims the store (Claim, owner.go: an owner key with
//     an expiry in PD's time, renewed in the background); a second server
//     is refused with 55006, and every commit reads and rewrites the owner
//     key, so a server whose claim was taken cannot commit.
//   - A transaction is bounded by TiKV's size limits (kv.ErrTooLarge,
//     54000): a DeleteRange over millions of keys does not fit in one.
//   - Each direction change or seek of an iterator opens a new scanner (one
//     RPC per region touched); OpenMock turns client-go's global log down.
package tikv
