// Package exec runs physical plans: it turns the planner's plan nodes
// (package planner) into a tree of operators that pull rows from each
// other, read and write the key-value store through packages index and
// catalog, and compute expressions with package exec/eval.
//
// There are only a few types:
//
//   - Ctx: what one execution needs (the transaction, parameters, the
//     statement time, the memory budget and temp directory, sequences,
//     cancellation, EXPLAIN ANALYZE).
//   - Operator: the one row-iterator protocol below; one unexported
//     implementation per plan node, one file each (scan.go, hashjoin.go,
//     aggregate.go, sort.go, ...).
//   - Stats: per-node actual rows, loops and time for EXPLAIN ANALYZE.
//
// # Data flow
//
// Build(ctx, plan) builds the operator tree top-down; nothing runs until
// the first Next. The caller (the wire server, Run) pulls rows from the
// root; each operator pulls from its inputs. Blocking operators (sort,
// hash join build, hash aggregation, INTERSECT/EXCEPT, UPDATE and DELETE
// collecting their targets) read their input on their first Next.
// Subqueries in expressions are run through eval.Env.Subquery, which
// builds the subquery's plan with the current row pushed on Env.Outer;
// uncorrelated ones run once per execution and are cached.
//
// BuildReusable builds a tree that a prepared statement keeps between
// executions (Reusable, reuse.go) when all its operators can rerun:
// Rerun rebinds it to the next execution's Ctx and resets every
// operator, and refuses while the previous run's root is open. Close
// still happens once per run; a rerun operator is closed again only
// after the reset.
//
// # The Operator protocol
//
// Like Pebble's iterators, an Operator's contract is about positioning,
// ownership, errors and release:
//
//   - Next returns the next row, or (nil, nil) when there are no more;
//     further calls keep returning (nil, nil).
//   - The returned slice belongs to the operator and is valid only until
//     the next call to Next or Close; callers that keep a row copy the
//     slice (a shallow copy: Datums are immutable values).
//   - After Next returns an error, only Close may be called.
//   - Close releases everything: inputs, kv iterators, memory, temporary
//     files. It may be called exactly once, at any time.
//   - Long loops check the Ctx's context every 1024 rows and then fail
//     with SQLSTATE 57014.
//
// # Memory and spilling
//
// Each memory-hungry operator accounts the rows it holds (rowSize: a
// fixed overhead per row and per Datum plus string bytes) against
// Ctx.WorkMem. Past it: sort writes sorted runs to spill files and merges
// them (multi-pass beyond 64 runs); hash join partitions both sides by key
// hash (a grace hash join, re-partitioning a partition still too big, up
// to 4 levels); hash aggregation and DISTINCT stop admitting new groups
// and send rows of other groups to hash partitions processed afterwards;
// DML and nested-loop inner sides use a row buffer that overflows into a
// file. Spill files (spill.go) are unlinked as soon as they are created,
// so nothing is left on disk even after a crash; Close closes them.
//
// Every memAccount also charges the statement's queryMem (querymem.go),
// bounded by Ctx.MaxQueryMem: spilling operators spill when it is full,
// and operators that cannot spill (INTERSECT/EXCEPT, TopN, window
// partitions, IN-subquery values, aggregate states) fail with 53200.
// Close releases what an operator charged.
//
// # Caveats
//
//   - INTERSECT and EXCEPT count rows in memory and do not spill; neither
//     do the per-group states of DISTINCT aggregates and string_agg, the
//     value lists of IN/ANY/ALL subqueries, nor TopN (which holds
//     Offset+Count rows): Ctx.MaxQueryMem bounds them (53200).
//   - A join or aggregation on a single very skewed key cannot be split
//     by hashing: after 4 levels the partition is loaded whatever its size.
//   - sum over integers is exact in an int64 and fails with 22003 past its
//     range, where PostgreSQL would continue in NUMERIC.
//   - CHAR(n) values are not blank-padded when stored.
//   - Span bounds with a NULL value select nothing (x = NULL is never
//     true); a bound that does not fit the key column's type (e.g. 70000
//     for a SMALLINT key) is an error rather than an empty result.
//   - The hash join's output order is unspecified; with spilling it
//     differs from the in-memory order.
package exec
