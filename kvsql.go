// Package kvsql embeds the kvsql database in a Go program: open a store,
// start sessions, run SQL, with no server in between.
//
//	db, err := kvsql.Open(kvsql.Options{Dir: "./kvsql-data"})
//	...
//	defer db.Close()
//	s, err := db.Session("") // the default database
//	...
//	defer s.Close()
//	res, err := s.Exec(ctx, "SELECT 1 + 1")
//
// Each Result holds a statement's columns, rows (types.Datum values) and
// command tag, as a PostgreSQL client would see them. The same sessions
// are what `kvsql serve` hands to PostgreSQL clients over the wire.
//
// The engine lives in internal layers, each a package that imports only
// the ones below it: wire (the PostgreSQL protocol server) → session
// (statements and transactions) → planner and exec → index (master and
// index files) → catalog → kv (Pebble or memory) → encoding.
// docs/architecture.md follows a query through them.
package kvsql

import "github.com/kvsql/kvsql/session"

type (
	// Options configure Open: the data directory or an in-memory store,
	// durability (NoSync), the per-operator memory budget and the cache.
	Options = session.Options
	// DB is an open store, safe for concurrent use by many sessions.
	DB = session.DB
	// Session is one connection's state: database, settings and open
	// transaction. Use a Session from one goroutine at a time.
	Session = session.Session
	// Result is the outcome of one statement run with Session.Exec.
	Result = session.Result
)

// DefaultDatabase is the database every store has; Session("") opens it.
const DefaultDatabase = session.DefaultDatabase

// Open opens the store described by opts, creating it if it does not
// exist. Close it when done; sessions must be closed first.
func Open(opts Options) (*DB, error) { return session.Open(opts) }
