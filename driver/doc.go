// Package driver is kvsql's database/sql driver: the engine runs inside
// the program, with no server and no sockets, the way SQLite's drivers
// are used.
//
//	import (
//		"database/sql"
//
//		_ "github.com/kvsql/kvsql/driver"
//	)
//
//	db, err := sql.Open("kvsql", "file:./data") // Pebble in ./data
//	db, err := sql.Open("kvsql", ":memory:")    // a store of its own, in memory
//
// The SQL, the $1-style placeholders, the transactions and the errors are
// those a PostgreSQL driver (pgx's stdlib, lib/pq) shows against
// `kvsql serve`; only the transport is gone. The driver enters the engine
// at the session layer: each connection is one session.Session, and each
// statement is the session's backend.Statement, exactly what the wire
// server drives for a PostgreSQL client (docs/architecture.md).
//
// # Data source names
//
//   - "file:DIR" is a Pebble store in the directory DIR (created if
//     missing). Pebble locks its directory, so every *sql.DB opened on the
//     same DIR in one process shares one store, counted by reference and
//     closed when the last handle and the last of its connections close.
//   - ":memory:" is a new in-memory store for each sql.Open: two handles
//     never see each other's tables. It is gone when the handle closes.
//
// Options follow a "?": "database=NAME" opens the connections' sessions on
// another database of the store (CREATE DATABASE makes one), "sync=off"
// acknowledges commits before the write-ahead log is synced (see
// docs/transactions.md; all handles of a file store must agree on it).
//
// # The few types
//
//   - Driver, registered as "kvsql", opens a connector per data source
//     name (driver.DriverContext).
//   - connector holds a reference to the store (store.go) and makes
//     connections; sql.DB.Close closes it.
//   - conn is one session: it runs statements (directly or prepared) and
//     transaction control.
//   - stmt is one prepared statement; rows streams a query's result
//     (rows left open while the connection runs other statements, in a
//     transaction or on a *sql.Conn, keep streaming, as portals do on a
//     PostgreSQL connection); values.go converts between Go values and
//     types.Datum.
//
// # Values
//
// Rows come back as the Go types a lib/pq user gets: int64 for the
// integer types, float64 for real (the value PostgreSQL prints: 1.1, not
// float32's 1.100000023841858) and double precision, string for text,
// varchar and char, []byte for bytea, bool, and time.Time (UTC) for date,
// timestamp and timestamptz. NUMERIC comes back as a string (its text, as
// PostgreSQL prints it). Arguments may be any value database/sql accepts;
// each is converted to its parameter's type as inferred from the statement,
// as a cast would convert it (a string argument for an integer parameter
// is parsed; an integer out of range is 22003). A time.Time for a
// timestamp parameter keeps its wall clock; for timestamptz, its instant.
//
// # Errors
//
// Errors from the engine are *pgerror.Error values (Error is an alias),
// with the SQLSTATE PostgreSQL would report: errors.As finds them, and
// their Code, Constraint and Table fields say what failed. An error inside
// a transaction fails it, as in PostgreSQL: until Rollback every
// statement gets 25P02, and Commit rolls back and says so. A statement
// stopped by its context returns a 57014 error that also wraps the
// context's error (errors.Is(err, context.Canceled) or
// context.DeadlineExceeded holds).
//
// # Caveats
//
//   - statement_timeout, which the wire server enforces, is not: give the
//     statement's context a deadline instead.
//   - COPY FROM STDIN needs the wire protocol (0A000).
//   - Query takes one statement (42601 otherwise, as from pgx); Exec
//     without arguments takes several, run in order.
//   - A connection returned to the pool inside a transaction block that
//     database/sql did not start (Exec("BEGIN")) is discarded and its
//     transaction rolled back: use BeginTx, or a *sql.Conn held for the
//     whole block.
//   - Opening a file store takes a process-wide lock for as long as
//     Pebble needs to open (or, for the last handle, close) it.
package driver
