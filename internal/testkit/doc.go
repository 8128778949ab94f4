// Package testkit holds what kvsql's tests share: reproducible seeds,
// stores over each engine, in-process sessions with assertion helpers, a
// wire server on a loopback port, and a throwaway PostgreSQL 15 to compare
// answers with. It is imported only by _test.go files.
//
// There are only a few entry points:
//
//   - Seed (seed.go) returns a logged, replayable seed for randomized tests.
//   - OpenMem, ForEachEngine, NewSession, Must, Query, Want and WantCode
//     (store.go) run SQL in process on a session.DB.
//   - StartServer (server.go) serves a session.DB over the wire and hands
//     out connection URLs and pgx connections.
//   - StartPostgres (postgres.go) starts a PostgreSQL cluster for the test,
//     or skips it, saying why, when PostgreSQL's binaries are missing.
//
// # Caveats
//
//   - Everything is torn down by t.Cleanup; nothing outlives its test.
//   - Because it imports session, session's own internal (package
//     session) tests cannot use it; they are few and need none of it.
package testkit
