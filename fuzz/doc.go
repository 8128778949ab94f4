// Package fuzz is kvsql's own SQL fuzzer: it generates random schemas,
// data, queries and writes from a grammar of what kvsql supports, judges
// kvsql's answers with several oracles, and reduces each failure to a
// small script.
//
// There are only a few types:
//
//   - gen (gen.go) draws a case from a seed: two or three tables with
//     INTEGER, BIGINT, DOUBLE PRECISION, TEXT and BOOLEAN columns, primary
//     keys, UNIQUE, indexes (btree, keyid, inverted; PostgreSQL gets the
//     plain index), maybe a view, rows with NULLs, duplicates and boundary
//     values; then queries (joins of every kind, subqueries, aggregates,
//     GROUP BY/HAVING, DISTINCT, ORDER BY/LIMIT, set operations) and
//     writes (INSERT, UPDATE, DELETE).
//   - node, selectQ and the stmt kinds (ast.go) hold what was generated
//     so that the reducer can simplify it: drop rows, joins, columns,
//     replace a sub-expression by a simpler one.
//   - env (oracle.go) is kvsql (in memory, served over the wire in this
//     process) and, optionally, PostgreSQL; probe judges one statement by
//     one oracle: Differential, TLP, NoREC, Check, Perf.
//   - Run (run.go) loops over cases until the time is up and returns a
//     Report; reduce (reduce.go) shrinks each finding.
//
// Answers are compared as a client sees them: text values over the
// simple query protocol, as multisets unless the query orders its rows
// totally (ORDER BY every output column), floats and numerics within a
// relative tolerance, errors by SQLSTATE class.
//
// # Caveats
//
//   - Generated queries avoid answers that are nondeterministic by
//     PostgreSQL's own rules: LIMIT comes only after a total ORDER BY,
//     float sums are compared with a tolerance, UPDATE never touches
//     key or UNIQUE columns (PostgreSQL checks uniqueness row by row in
//     physical order).
//   - TLP and NoREC skip a judgement when a query fails; a data error
//     (class 22) in one form only is skipped too, since it may come from
//     rows the other form never evaluates.
//   - knownUnsupported (unsupported.go) lists the kvsql errors that are
//     not findings; docs/fuzzing.md explains each.
package fuzz
