// Package planner turns parsed SQL into physical plans: trees of the plain
// structs in plan.go, each naming the key-value operations it performs.
//
// There are only a few types: Planner (one catalog snapshot and database),
// Node (a plan node: Scan, Join, LookupJoin, Aggregate, Sort, TopN, ...),
// Expr (a bound expression: Const, ColRef, BinOp, Func, Subquery, ...) and
// Column (a node's output column).
//
// # Data flow
//
// Planner.Plan takes a parse.Statement (a vitess syntax tree from
// planner/parse):
//
//  1. The binder resolves names. FROM is flattened (from.go): inner joins
//     and comma joins become a list of relations plus conjuncts; outer
//     joins, derived tables and views become planned subtrees. Every
//     column of the FROM clause has a position in one FROM-order row
//     layout; expressions are bound against it (scope.go, bind_expr.go),
//     typed and coerced as PostgreSQL does (coerce.go, typing.go,
//     functions.go). Correlated references name an enclosing query's row
//     through ColRef.Outer.
//  2. joinTree (join.go) pushes each conjunct to the lowest place it can
//     run, picks an access path for each base table (access.go:
//     chooseScan compares a full scan with primary-key gets and ranges,
//     unique-index gets, key+id index ranges and inverted-list lookups,
//     by estimated rows), then joins the relations greedily, smallest
//     first, always through an equality when one connects: a lookup join
//     when the inner table has a usable key and the outer side is small,
//     a hash join otherwise, nested loops only without an equality.
//  3. Aggregation, HAVING, the select list, DISTINCT, ORDER BY and LIMIT
//     are stacked on top (bind_select.go); ORDER BY over an index or
//     primary-key scan in key order needs no sort, ORDER BY with LIMIT is
//     a TopN, and GROUP BY over input in key order streams.
//  4. Explain (explain.go) draws the tree.
//
// # Rules
//
// The optimizations are named rules (Rules) that Planner.Disabled can
// switch off one by one; tests check that every rule preserves results.
// They are applied while the plan is built, each at the one place it
// concerns, rather than as passes over a finished tree.
//
// # Caveats
//
//   - Statistics are row counts and distinct counts from ANALYZE, or a
//     live row-count estimate; selectivities are fixed guesses otherwise.
//   - Conjuncts with correlated subqueries run over the relation or the
//     first join that has every column they read, never inside a scan's
//     access path; they are not decorrelated into joins.
package planner

// Rules are the names of the optimizer rules, each of which can be
// disabled through Planner.Disabled.
var Rules = []string{
	"constant_folding",     // NULL-strict operators, AND/OR with constants, always-false filters
	"filter_pushdown",      // conjuncts move into scans and joins
	"subquery_pushdown",    // conjuncts over a derived table or view move into its plan (pushdown.go)
	"column_pruning",       // joins carry only the columns the query reads
	"index_select",         // index and primary-key access paths instead of full scans
	"index_only",           // no master get when the index holds every needed column
	"index_order",          // no sort when a key scan delivers the order
	"join_order",           // smallest-first, equality-connected join order
	"hash_join",            // hash joins on equalities (else nested loops)
	"lookup_join",          // index-lookup joins for small outer sides
	"stream_agg",           // streaming aggregation over input in group order
	"topn",                 // ORDER BY ... LIMIT as a bounded heap
	"scan_memo",            // a correlated subquery's rescans become hash lookups
	"minmax_index",         // min/max of a column read from the first key in order
	"outer_join_reduction", // a LEFT/RIGHT JOIN whose null-extended rows WHERE discards plans as an inner join
	"one_time_filter",      // conjuncts over no column of the query's rows are judged before its input runs
	"vectorize",            // scans, filters, aggregations and hash joins run in batches of column vectors
}
