// Package foreign reads and writes tables that live in someone else's
// key-value store, in that application's own key layout: the chat
// server's user:5:username, the broker's MESSAGE.7.QUEUE_ID. kvsql did
// not write these keys and does not own the store; the catalog only
// describes them (docs/layout.md, "Foreign layouts").
//
// There are only a few types:
//
//   - Layout: one table over the application's keys — a key template
//     (literal text, {field} placeholders, {0xHH} bytes), a Shape (one
//     key per attribute, one key per row with a value Format, presence
//     keys) and a Field per column with its Encoding (decimal text,
//     UTF-8 text, raw bytes, big-endian integers). It travels inside
//     the table's catalog descriptor (catalog.Table.Foreign); DocLayout
//     is its element in the catalog document.
//   - Store: the application's store opened through a small interface
//     of its own (NewIter, Get, Write, Close) over goleveldb or Pebble,
//     not kv.Engine: kvsql's own engine keeps its transactions,
//     snapshots and merge operator, which an application's store has
//     not got and must not be given.
//   - Scanner: a table's rows from some key ranges, merging the
//     adjacent keys of one row (ShapeAttribute) and skipping — and
//     counting — keys and values the layout does not decode.
//   - Counter: an application's id counter key, shown as a sequence.
//   - Overlay: a transaction's buffered writes over a Store.
//
// # Data flow
//
// The catalog builds a Layout from the document (FromDoc) and its
// table's primary key from the template's fields (KeyFields). The
// planner (planner/foreign.go) turns equalities on leading key fields
// into Bounds and a range on the next field into key bounds when that
// field's encoding Sorts; exec (exec/foreign.go) evaluates them,
// asks KeyRange for each key range and runs a Scanner. Writes
// (exec/foreign_write.go) ask the Layout for the keys and values of a
// row (Puts, Deletes) and apply one batch per statement.
//
// # Caveats
//
//   - Key order is the store's byte order, not the values' order: a
//     decimal key field (user:10 before user:9) never gives a range or
//     an ORDER BY without a sort.
//   - A variable-width field ends at the first occurrence of the
//     literal after it, so a text key field holding that literal is
//     ambiguous: reads take the shortest field, writes refuse it.
//   - Each scan reads its own snapshot of the store (one iterator per
//     key range): a statement that scans twice may see the application
//     write in between. Writes are applied when their statement ends;
//     inside a transaction block an Overlay buffers them, serves the
//     block's reads merged over the store and is applied at COMMIT as
//     one batch. Nothing detects another writer's conflicting writes.
//   - A Counter is read and written by the caller's read-modify-write
//     (session/sequence_foreign.go); it is atomic only because one
//     process has the store open.
//   - LevelDB locks its directory: the application and kvsql cannot
//     have the store open at the same time.
package foreign
