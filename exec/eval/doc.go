// Package eval evaluates bound scalar expressions (planner.Expr trees)
// over rows of types.Datum with PostgreSQL 15's semantics, and provides the
// value order, equality and hashing that sorting, grouping and joining use.
//
// There are only a few things here:
//
//   - Env, what evaluation needs besides the row: parameters, the rows of
//     enclosing queries, a callback that runs subqueries (package exec sets
//     it), the statement timestamp, and the caches of compiled LIKE and
//     regular-expression patterns.
//   - Eval and EvalBool, which walk an expression with a type switch. A
//     predicate such as a + b * 2 > 10 AND c LIKE 'ab%' evaluates without
//     allocating: Datums are plain structs and the LIKE pattern is compiled
//     once per statement (cached in the Env by node).
//   - Compare, Equal and Hash: one total order over all Datums (NULL last,
//     int and float numerically, NaN above all numbers, text in C
//     collation, date as midnight timestamp) and a hash consistent with it.
//   - Cast/CastFrom and FormatText: PostgreSQL's explicit casts and its
//     text rendering of values.
//   - The scalar function table (names, arities, result types) lives in
//     package planner (planner.FuncReturnType), which types every call;
//     eval implements the functions it lists.
//
// # Data flow
//
// The planner binds SQL into planner.Expr nodes whose types are known and
// whose operands are already coerced (except int meeting float, which eval
// promotes). Operators in package exec call Eval per row; for WHERE, ON
// and HAVING they call EvalBool (only TRUE passes). Errors a query can
// cause come back as *pgerror.Error with the SQLSTATE PostgreSQL uses:
// 22003 out of range, 22012 division by zero, 22P02 bad input syntax,
// 22007/22008 bad dates, 22025 LIKE escape, 2201B bad regex, 2201E/2201F
// logarithm and power domain errors, 22011 negative substring length,
// 42846 impossible cast, 42883 unknown function or operator.
//
// # Operators
//
// Arithmetic + - * / % on integers runs in int64 and is range-checked
// against the result type (smallint, integer, bigint); / truncates toward
// zero and % takes the dividend's sign. A float operand makes the
// operation float; float overflow and underflow are 22003. date ± integer
// and date - date are supported. Bitwise & | # << >> ~ on integers.
// Comparisons = <> != < <= > >= (NULL in, NULL out), IS [NOT] DISTINCT
// FROM, AND/OR/NOT with three-valued logic (AND stops at the first FALSE,
// OR at the first TRUE), IS [NOT] NULL, IS [NOT] TRUE/FALSE, [NOT] IN with
// SQL's NULL rules, [NOT] LIKE/ILIKE with % _ and an escape character
// (default backslash), ~ ~* !~ !~* regular expressions, || concatenation,
// CASE with or without operand, CAST.
//
// # Functions
//
// abs, coalesce, ifnull, nullif, greatest, least; length, char_length,
// character_length, octet_length, lower, upper, initcap, reverse, substr,
// substring, trim, btrim, ltrim, rtrim, replace, concat, concat_ws, left,
// right, position, strpos, repeat, lpad, rpad, md5; round, trunc (with an
// optional digit count), floor, ceil, ceiling, sign, sqrt, exp, ln, log
// (one or two arguments), log10, power, pow, mod, pi, random; now,
// current_timestamp, localtimestamp, current_date (all from Env.Now);
// version, current_database, current_schema, current_user, session_user,
// pg_backend_pid. The planner also emits "||" and the regex operators as
// Func nodes; eval accepts both spellings.
//
// # Caveats
//
//   - NUMERIC is a float64 (see package types): results are rounded to
//     about 16 significant digits and print without PostgreSQL's trailing
//     zeros (round(9.995, 2) prints 10, not 10.00). round(numeric) rounds
//     half away from zero, round(double precision) half to even, as
//     PostgreSQL does; round(x, n) rounds the shortest decimal form of x.
//   - Regular expressions use Go's RE2 syntax, which agrees with
//     PostgreSQL's ARE syntax for common patterns but lacks backreferences
//     and lookaround (those patterns are 2201B errors).
//   - ILIKE, lower, upper and initcap fold case with Unicode simple rules,
//     not a locale; text compares byte-wise (C collation).
//   - position(a, b) is strpos(a, b): the parser must turn POSITION(b IN
//     a) into position(a, b).
//   - Date/time input (types.ParseDateTime) takes ISO, MDY, month-name,
//     BC, epoch, infinity, now, today, tomorrow and yesterday forms (the
//     relative words read the clock, not the transaction's start), but
//     no other DateStyles; dates are finite. Intervals print in the session's
//     IntervalStyle and floats with its extra_float_digits (Style, and
//     Env.IntervalStyle and Env.FloatDigits for casts to text), inside
//     arrays and records too, but intervals are read as postgres input
//     whatever the style (sql_standard's leading sign is not spread). to_char of a
//     number is PostgreSQL 15's, every pattern, in the C locale
//     (tochar_num.go); to_char of dates, to_date and to_timestamp cover the
//     common template patterns (tochar.go).
//   - An Env is for one goroutine. A fresh Env per row would recompile
//     LIKE patterns per row: reuse one per statement.
//   - Float division and % by zero is 22012 as in PostgreSQL; float % (which
//     PostgreSQL lacks) computes math.Mod.
package eval
