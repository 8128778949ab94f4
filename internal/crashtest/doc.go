// Package crashtest holds kvsql's crash test: it builds the kvsql binary,
// serves a store from a temporary directory, lets several pgx clients
// commit explicit transactions (inserts, updates and deletes of indexed
// columns) while recording every acknowledged commit in a model, and kills
// the server with SIGKILL at random moments, many times per run.
//
// After each kill it runs `kvsql check --data DIR` (every index entry
// points at a live master row and every master row has its index
// entries), restarts the server and compares the whole store with the
// model: every acknowledged commit is present and no transaction is
// partly visible.
//
// The main pieces:
//
//   - server (server_test.go): build, start, wait for, and kill
//     `kvsql serve`.
//   - model (model_test.go): what each client's rows must be, and the
//     one transaction per client whose fate a kill left unknown.
//   - TestCrash (crash_test.go): the kill loop.
//
// Each transaction also inserts a row (client, n) into a log table, so a
// commit that was in flight when the server died is resolved after the
// restart: if its log row is there the whole transaction must be, else
// none of it.
//
// # Caveats
//
// The test needs the Go toolchain (it runs `go build`) and a free
// loopback port. The number of kills and the seed are flags
// (-crash.kills, -crash.seed); -short runs 5 kills. The kills land at
// random wall-clock moments, so a run is reproducible in its choices
// (operations, delays) but not in where exactly each kill interrupts
// the server.
package crashtest
