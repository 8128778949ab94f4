// Package parse is kvsql's SQL dialect layer: PostgreSQL text (and SQLite's,
// as the sqllogictest corpus writes it) in, vitess syntax trees plus a few
// kvsql statement types out. Vitess parses MySQL; several PostgreSQL
// spellings would parse there with a different meaning ("name" as a
// string, || as OR, $1 as a column), so every statement goes through this
// package and never straight to vitess.
//
// # Types
//
// There are only a few: Statement (one parsed statement; exactly one of
// its AST, Compound, Set, Show, Copy, DropIndex, Analyze, Database fields
// describes it), Compound (INTERSECT / EXCEPT, and UNION mixed with them),
// and the kvsql statements SetStmt, ShowStmt, CopyStmt, DropIndexStmt,
// AnalyzeStmt and DatabaseStmt. Parse and ParseOne are the entry points.
//
// # Data flow
//
//  1. lex (lex.go) tokenizes with PostgreSQL's lexical rules: quoted
//     identifiers with "" escapes, ” strings, E” strings with backslash
//     escapes, $tag$ dollar quoting, -- and nested /* */ comments, $n
//     parameters, numbers, operators. Parse splits the tokens at semicolons.
//  2. statement (statement.go) dispatches on the leading words. SET, RESET,
//     SHOW, COPY, ANALYZE, CREATE/DROP DATABASE, DROP INDEX and the
//     transaction statements are parsed here (session.go, copy.go).
//     INTERSECT/EXCEPT queries are split into operands (compound.go);
//     RETURNING is cut off and parsed as a select list; CREATE TABLE, ALTER
//     TABLE ADD COLUMN and CREATE INDEX are reshaped (ddl.go,
//     createindex.go, which also reads INCLUDE lists). A
//     multi-row INSERT ... VALUES whose later rows are all plain
//     literals parses its head and first row by the steps below and
//     builds the other rows' literals straight from the tokens
//     (fastinsert.go).
//  3. rewriter.clauses (clauses.go) rewrites ORDER BY ... NULLS FIRST|LAST
//     and LIMIT / OFFSET / FETCH FIRST; rewriter.exprs (rewrite.go) turns
//     casts, OPERATOR(), COLLATE, IS [NOT] DISTINCT FROM and IN () into
//     vitess spellings; rewriter.emit writes vitess text (identifiers
//     backquoted, strings re-quoted so vitess decodes them to the same
//     bytes).
//  4. vitess's Parser.ParseStrictDDL parses that text (a DDL vitess only
//     half understands is an error, never a partial tree), and fixup
//     (fixup.go) removes the markers the rewriter planted.
//
// # The AST contract
//
// What the planner receives for each PostgreSQL spelling:
//
//   - "Name" is an identifier keeping its case; unquoted identifiers are
//     lower-cased, as PostgreSQL folds them.
//   - a || b is &sqlparser.FuncExpr{Name: "||", Exprs: [a, b]} with
//     PostgreSQL's precedence (looser than + - * /, tighter than
//     comparisons, LIKE, IN, BETWEEN, IS). a ~ b, ~*, !~, !~* are FuncExprs
//     named "~", "~*", "!~", "!~*"; OPERATOR(pg_catalog.~) is "~". Bitwise
//     operators (| & # << >> ^) are 0A000.
//   - String literals (”, E”, $$) are *sqlparser.Literal StrVal holding
//     the decoded bytes; backslashes in ” strings are literal.
//   - x::t, CAST(x AS t) and t 'lit' are *sqlparser.CastExpr whose
//     ConvertType.Type is PostgreSQL's canonical lower-case name (smallint,
//     integer, bigint, real, double precision, numeric, text, varchar, char,
//     boolean, bytea, date, timestamp, timestamptz, time, timetz, regclass,
//     regtype, oid, name; SQLite's SIGNED is bigint; unknown names pass
//     through lower-cased) with Length/Scale from the modifiers and Array
//     for t[]. :: binds tighter than unary minus.
//   - INTERSECT / EXCEPT at the top level give Statement.Compound; pure
//     UNION chains stay *sqlparser.Union.
//   - INSERT / UPDATE / DELETE ... RETURNING list: Statement.Returning.
//   - ORDER BY x ASC NULLS FIRST becomes ORDER BY x IS NULL DESC, x ASC;
//     x DESC NULLS LAST becomes x IS NULL ASC, x DESC; the default NULLS
//     order is dropped.
//   - LIMIT n OFFSET m, OFFSET m alone, LIMIT ALL, FETCH FIRST n ROWS ONLY:
//     *sqlparser.Limit with Rowcount nil when there is no limit.
//   - a [NOT] ILIKE b: ComparisonExpr LikeOp/NotLikeOp of lower(a) and
//     lower(b).
//   - x [NOT] IN (): ComparisonExpr InOp/NotInOp with an empty ValTuple.
//   - a IS DISTINCT FROM b: NotExpr{a <=> b}; IS NOT DISTINCT FROM: a <=> b
//     (sqlparser.NullSafeEqualOp).
//   - x NOTNULL / x ISNULL and SQLite's x NOT NULL: IsExpr.
//   - INSERT OR REPLACE: vitess REPLACE; INSERT OR IGNORE: Insert.Ignore.
//   - (VALUES (1, 'a'), (2, 'b')) AS v(n, s): vitess's VALUES ROW(...)
//     statement in a derived table with column names (rewrite.go).
//   - generate_series(a, b [, step]) in FROM: the derived table (SELECT
//     kvsql_generate_series(a, b, step) AS generate_series FROM dual),
//     which the planner plans as a Series node.
//   - $n is &sqlparser.Argument{Name: "pN"} (N the 1-based number); a ?
//     placeholder is vitess's Argument{Name: "vN"}, N counting the ?s from
//     1. Mixing both is an error. Statement.NumParams is the highest N.
//   - CREATE TABLE column types are canonical as for casts, plus serial,
//     bigserial, smallserial; GENERATED {ALWAYS|BY DEFAULT} AS IDENTITY on
//     smallint/integer/bigint turns the type into smallserial/serial/
//     bigserial (the identity clause itself is dropped). DEFAULT
//     expressions arrive parenthesised (vitess's form for non-literals).
//     Column CHECK constraints are moved by vitess to table constraints.
//   - CREATE [UNIQUE] INDEX [IF NOT EXISTS] [name] ON t [USING m] (cols):
//     vitess's *sqlparser.AlterTable with an AddIndexDefinition;
//     Statement.IndexMethod holds m and Statement.IfNotExists the flag. A
//     missing name is generated as t_col_idx (t_col_key for UNIQUE).
//   - CREATE TEMP TABLE: CreateTable.Temp. CREATE TEMP VIEW: a CreateView
//     with Statement.Temp. DROP TABLE/VIEW ... CASCADE|RESTRICT: the
//     keyword is dropped.
//   - BEGIN / START TRANSACTION [modes], COMMIT / END, ROLLBACK / ABORT,
//     SAVEPOINT, RELEASE [SAVEPOINT], ROLLBACK TO [SAVEPOINT]: vitess's
//     Begin, Commit, Rollback, Savepoint, Release, SRollback; the isolation
//     level goes to Statement.Isolation, READ ONLY/WRITE to
//     Begin.TxAccessModes.
//   - EXPLAIN [ANALYZE] stmt: *sqlparser.ExplainStmt (Type AnalyzeType for
//     ANALYZE) plus Statement.Explained.
//   - A window frame clause is read into Statement.Frames[i] and the text
//     vitess parses holds ROWS FrameMarkerBase+i PRECEDING; a call
//     name(args) [FILTER (WHERE c)] OVER w is first_value(MarkerWindow(
//     'name', args)) OVER w (MarkerWindowFilter('name', c, args) with a
//     FILTER); WINDOW a AS (...), b AS (...) repeats WINDOW for vitess
//     (window.go).
//   - ORDER BY x USING < is x ASC, USING > x DESC; with any other
//     operator the key is MarkerSortUsing('op', x), which the binder
//     rejects (42809).
//   - COLLATE of the default collation ("default", "C", "POSIX") is
//     dropped; any other collation is 0A000.
//   - x = ANY(expr) and x = SOME(expr), expr not a subquery, are
//     &sqlparser.FuncExpr{Name: "= any", Exprs: [x, expr]}: expr is an
//     array in text form ("{a,b}"). ARRAY(subquery) is a scalar subquery
//     building that text with string_agg (pgcompat.go).
//   - A few psql catalog queries that need syntax kvsql lacks are
//     replaced by equivalent ones (psqlEmulated in pgcompat.go);
//     Statement.SQL keeps the original text.
//
// # Errors
//
// Every error is a *pgerror.Error: 42601 for syntax errors (including what
// vitess rejects) and 0A000 for recognised but unsupported constructs,
// with Position a 1-based character offset into the original text.
//
// # Caveats
//
//   - Markers: the rewriter writes char(900000000+i) for type names, the
//     column names kvsql_empty_list, kvsql_no_limit and kvsql_op_*, the
//     function kvsql_any and the alias kvsql_arr(kvsql_elem), and
//     BINARY before the right operand of IS DISTINCT FROM. User
//     identifiers starting with kvsql_ and the words regexp, rlike, binary,
//     div, xor are rejected with 42601 so they cannot collide.
//   - sqlparser.String panics on a Limit whose Rowcount is nil (OFFSET
//     without LIMIT); format such a Limit yourself.
//   - IS [NOT] DISTINCT FROM gets comparison precedence (vitess's <=>),
//     slightly tighter than PostgreSQL's IS; it only matters when its
//     operands are themselves unparenthesised comparisons.
//   - ORDER BY n NULLS FIRST with n an output-column number is rewritten
//     as if n were an expression ((n IS NULL) is constant).
//   - Vitess reserves MySQL words PostgreSQL does not (e.g. key, interval
//     as a column name); quote such identifiers.
//   - Not supported: arrays other than the forms above (ARRAY[...],
//     subscripts, t[] values), op ANY(array) for op other than =,
//     string_agg(x, sep ORDER BY y) with a separator that is not a string
//     literal, table functions other than generate_series, INTERSECT/EXCEPT inside a
//     subquery, WITH on INTERSECT/EXCEPT, bit-string literals, NOT
//     INDEXED (see testdata/corpus_failures.txt), and triggers other
//     than SQLite's row triggers (trigger.go): TEMP, INSTEAD OF on views,
//     FOR EACH STATEMENT, EXECUTE FUNCTION.
package parse
