// Package sqllogictest runs SQLite's sqllogictest files against a
// database and scores the result.
//
// There are only a few types:
//   - Record is one parsed record of a .test file (a statement, a query,
//     hash-threshold or halt, with its skipif/onlyif Conditions); Parse and
//     ParseFile produce them.
//   - Target opens a fresh database per file and returns a Conn, the
//     session the records run on. WireTarget is the Target for any server
//     speaking the PostgreSQL wire protocol (PostgreSQL, kvsql serve); an
//     in-process Target only has to wrap an engine's session in the
//     three Conn methods.
//   - Report, built by RunFiles, holds a FileResult per file with its
//     counts and failures; Summary prints it as a table per directory,
//     JSON writes all of it.
//
// # Data flow
//
// RunFiles expands its paths into .test files and hands them to
// Options.Jobs workers. A worker parses a file, opens a database with
// Target.Open, and runs the records in order: records whose conditions do
// not admit Options.Engine are skipped; a statement passes when it
// succeeds ("statement ok") or fails ("statement error"); a query's rows
// are rendered with FormatValue per the record's column types, sorted per
// its sort mode (SortValues), and compared with the expected values or
// their md5 (Matches). Queries sharing a label must also hash alike. A
// halt record that applies ends the file. Each failure is kept with its
// file:line, SQL, expected and actual values or error.
//
// # Caveats
//
//   - The choice between comparing values and comparing a hash is read
//     from the expected text (a single "N values hashing to H" line), not
//     recomputed from hash-threshold; both give the same verdict on files
//     written by the reference runner.
//   - "statement error" passes on any error; the text after it is kept but
//     not matched, as engines word errors differently.
//   - Values reach the runner as Go values, not as the server's text: R
//     columns use Go's correctly rounded %.3f, which can differ from
//     SQLite's own printf on values exactly halfway between two
//     thousandths; T columns print floats in shortest form (PostgreSQL's
//     style, not SQLite's "1.0"); a time.Time at midnight prints as a date.
//   - A statement timeout asks the target to cancel through the context; a
//     target that ignores the context blocks its worker until it returns.
//   - A panic in the target is recovered and counted as a failure; the
//     engine may be left in a state that fails later records too.
//   - A label's reference hash is the first passing query with that label,
//     so one wrong query is not also blamed on every later one.
package sqllogictest
