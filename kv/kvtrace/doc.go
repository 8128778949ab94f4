// Package kvtrace wraps a kv.Engine so that every key-value operation is
// reported, one line per operation, with keys rendered by encoding.Pretty.
// Golden-script tests use it to show which master and index records a
// statement read and wrote.
//
// There are only a few types: Engine (the wrapper, built by Wrap or New)
// and the unexported snapshot, batch and iterator wrappers it hands out,
// which report through the same Engine.
//
// Data flow: a caller (usually kv.Txn, via the SQL layer) calls the
// wrapper; the wrapper forwards the call to the wrapped engine, and, while
// logging is enabled, calls the log function with one line such as
//
//	get /100/1 -> {2:"x"}
//	snap.iter [/102/10, /102/11) seekge /102/10 -> /102/10/3
//	snap.iter next -> end
//	batch set /100/4 = {2:"y"}
//	batch commit (3 ops)
//
// Reads through a snapshot are prefixed "snap."; writes in a batch are
// logged when they are added to the batch, and the batch's commit gets its
// own line. Values are rendered by Engine.FormatValue (by default
// encoding.PrettyRow, "(empty)" for an empty value).
//
// # Caveats
//
//   - Logging is on or off for the whole Engine (SetEnabled); it is read
//     per operation, so a batch built while enabled and committed while
//     disabled logs its writes but not its commit.
//   - The log function is called synchronously and may be called from
//     several goroutines at once when the engine is used concurrently; it
//     must do its own locking.
//   - The wrapper adds an allocation or two per operation even when
//     disabled; it is for tests and debugging, not production.
package kvtrace
