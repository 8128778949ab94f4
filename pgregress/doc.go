// Package pgregress runs PostgreSQL's own regression suite
// (src/test/regress/sql) statement by statement on PostgreSQL 15 and on a
// subject — kvsql in this process, or a second PostgreSQL for the
// self-check — and scores the subject by agreement. `kvsql pgregress`
// drives it and writes docs/pgregress.md.
//
// The few main types:
//
//   - Script splits a .sql file the way psql does (Next) and hands out the
//     COPY data that follows a COPY FROM STDIN (CopyData).
//   - Conn is a simple-query client (pgx's connection, taken over after
//     its handshake) whose Run returns an Outcome: every result as text,
//     the error's SQLSTATE, or a timeout or lost connection.
//   - Target is a server that gives each file a fresh database: Postgres
//     (a throwaway cluster: C locale, UTF8, TimeZone UTC) or Kvsql.
//   - Compare applies the agreement rules of the corpus's README to two
//     Outcomes and names the reason class of a difference.
//   - Run runs the files and returns a Report, which writes itself as
//     JSON and as Markdown.
//
// Data flows: Run → for each file, fresh databases on both targets → the
// setup files (SetupsFor), then the file, item by item: a Meta item is
// counted and not sent (\copy runs as COPY); a Query goes to the
// reference first, so that COPY FROM STDIN takes the script's lines only
// if PostgreSQL entered COPY mode, then to the subject with the same
// data; Nondeterministic statements are not scored; Compare scores the
// rest.
//
// # Caveats
//
//   - Variable values are substituted as text and not lexed again, so a
//     value holding a semicolon or quote would split differently from psql.
//   - A meta-command in the middle of a statement is run where it stands
//     and the statement goes on after it; psql-only commands other than
//     \set, \unset, \getenv and \copy do nothing.
//   - The out-of-reach features are matched on a statement's words, so a
//     statement that fails because an earlier one did is not counted there.
package pgregress
