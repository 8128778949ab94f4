// Package session is kvsql's session layer: where a statement meets its
// transaction. It sits between the wire server (which calls it through
// the wire/backend contract) and the planner and executor below, and it
// owns what a PostgreSQL backend process owns: the session's settings, its
// transaction block and savepoints, prepared statements' plans, DDL, COPY,
// triggers, and the commit path shared by all sessions of a store.
//
// There are only a few types:
//
//   - DB (db.go) is an open store: the engine, the committed catalog, the
//     commit log that validates transactions, group commit (groupcommit.go)
//     and the counters behind SERIAL and identity columns (sequence.go).
//   - Session (session.go) is one client's state: database, settings
//     (settings.go), the explicit transaction (txn.go, txncontrol.go).
//   - registry (activity.go) holds the open sessions by process ID, with
//     what each is doing: pg_stat_activity, pg_cancel_backend and
//     pg_terminate_backend read it.
//   - lockTable (locks.go) holds the row locks of open transactions and
//     the queues of statements waiting for them.
//   - stmt (stmt.go) is one prepared statement; it implements
//     backend.Statement and runs DML, queries, DDL (ddl.go), COPY
//     (copy.go) and trigger bodies (trigger.go).
//
// The life of a query, by function:
//
//  1. Session.Prepare splits and parses the text (planner/parse.Parse).
//  2. The statement is planned against the session's catalog snapshot
//     (planner.Planner.Plan): names are bound, access paths chosen, joins
//     ordered.
//  3. stmt.Execute opens a transaction (DB.begin, or the session's own),
//     builds operators from the plan (exec.Build) and streams rows; the
//     operators read and write the master and index files (package index)
//     through a kv.Txn overlay that records what it reads.
//  4. The transaction commits (DB.commit): under DB.mu its read set is
//     validated against the write sets of the transactions that committed
//     since its snapshot (serializability) and its writes are applied to
//     the engine as one atomic batch; then, outside the mutex, the commit
//     waits for a write-ahead-log sync it shares with every other commit
//     applied meanwhile (group commit, see groupSync).
//
// docs/transactions.md describes the design and its guarantees.
//
// # Caveats
//
//   - Writers wait for each other's row locks (locks.go) and restart
//     their statement after a wait; conflicts no lock covers are found
//     at COMMIT or at the next statement (40001). Locks live in memory.
//   - The package is not the embedding API: programs import the root
//     package kvsql, which re-exports the few types they need.
package session
