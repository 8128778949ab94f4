// Package wire is kvsql's PostgreSQL wire protocol (v3.0) server: psql,
// pgx, lib/pq and other PostgreSQL clients talk to the engine through it.
//
// There are only a few types:
//
//   - Server (server.go) accepts connections and runs one goroutine per
//     connection; Config sets the address, TLS, authentication and limits.
//   - Backend, Session, Statement, Result and CopySpec (backend.go) are
//     what the engine implements; the server knows nothing about SQL.
//   - conn (conn.go) is one connection: its Session, its prepared
//     statements (the per-connection plan cache: Session.Prepare runs once
//     per Parse) and its portals.
//
// # Data flow
//
//  1. startup.go reads the untyped startup packets straight off the
//     socket (so no plaintext is buffered before a TLS upgrade), answers
//     SSLRequest/GSSENCRequest, routes CancelRequest (cancel.go), checks
//     MaxConnections, authenticates (auth.go, scram.go) and asks the
//     Backend for a Session; it then sends ParameterStatus,
//     BackendKeyData and ReadyForQuery.
//  2. conn.loop reads typed messages (io.go: the length is checked
//     before anything is allocated) and dispatches: Query to simple.go;
//     Parse/Bind/Describe/Execute/Close/Sync/Flush to extended.go.
//  3. portal.go executes a Statement under a statement context
//     (cancel.go: CancelRequest and statement_timeout cancel it with a
//     57014 cause) and streams its Result as DataRows encoded straight into
//     the output buffer (values.go, numeric.go), suspending at Execute's
//     row limit and resuming the same Result later. While it runs,
//     watch.go reads ahead on the socket and cancels it if the client
//     goes away; the session's notices (backend.Noticer) follow its rows.
//  4. A Statement with a CopySpec runs the COPY sub-protocol instead
//     (copy.go, with the text/CSV/binary codecs in copyfmt.go).
//
// The Backend gets each Session's connection as a backend.ConnInfo: its
// pid, address, and the functions pg_cancel_backend (the CancelRequest
// path, conn.cancelQuery) and pg_terminate_backend (conn.terminate) call.
//
// Every call into the Backend goes through conn.guard: a panic becomes an
// XX000 error for that client, is logged with its stack, and the server
// keeps serving.
//
// # Caveats
//
//   - COPY FROM STDIN calls CopySpec.Insert per batch of CopyBatchRows
//     rows. The server never holds the whole COPY in memory, so a failure
//     after some batches relies on the engine running the COPY in one
//     transaction to undo them.
//   - NUMERIC travels as float64 (types' representation): the binary
//     NUMERIC sent to clients has the digits of the shortest decimal that
//     reads back as that float, not arbitrary precision.
//   - Only protocol 3.0. A 3.2 client is told so with
//     NegotiateProtocolVersion; GSSAPI, SSPI and channel binding
//     (SCRAM-SHA-256-PLUS) are not offered.
//   - The trust check in NewServer looks at Config.Addr only; a listener
//     handed to Serve is not checked.
//   - Large messages are read in 1 MiB steps up to MaxMessageSize (the
//     buffer grows geometrically as data arrives), so a client can still
//     make the server hold MaxMessageSize bytes per connection by
//     actually sending them.
//   - A running statement peeks at its socket every 500 ms (peer.go) and
//     is cancelled when the client has gone; on platforms without a
//     non-blocking peek the disconnect is noticed at the next write.
//   - Portals are dropped at Sync when the session is idle ('I'), as
//     PostgreSQL drops non-holdable portals at commit.
package wire
