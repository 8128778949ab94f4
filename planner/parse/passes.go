package parse

// Token passes that spell PostgreSQL constructs the way vitess reads
// them (VALUES rows, table functions in FROM, NOT operands, FULL JOIN,
// GROUPING SETS, subscript assignments, named arguments), and the
// markers they write; rewrite.go holds the rewriter that runs them.

// valuesRows spells a VALUES list that is a query — the statement, (VALUES
// (1, 'a'), (2, 'b')) AS v(n, s) in FROM or a subquery, a set operation's
// operand — as vitess reads it: VALUES ROW(1, 'a'), ROW(2, 'b'). A VALUES
// list of INSERT is left alone (it follows a table name or a column
// list).
func valuesRows(toks []token) []token {
	out := make([]token, 0, len(toks)+4)
	for i := 0; i < len(toks); i++ {
		out = append(out, toks[i])
		if !toks[i].is("values") || i > 0 && !toks[i-1].isPunct("(") && !valuesFollows[toks[i-1].val] {
			continue
		}
		j := i + 1
		for j < len(toks) && toks[j].isPunct("(") {
			end := matchForward(toks, j)
			if end < 0 {
				break
			}
			out = append(out, raw("row", toks[j].pos))
			out = append(out, toks[j:end+1]...)
			j = end + 1
			if j < len(toks) && toks[j].isPunct(",") {
				out = append(out, toks[j])
				j++
				continue
			}
			break
		}
		i = j - 1
	}
	return out
}

// valuesFollows are the words after which VALUES starts a set
// operation's operand.
var valuesFollows = map[string]bool{"union": true, "intersect": true, "except": true, "all": true}

// seriesInFrom spells generate_series(a, b [, step]) in a FROM clause as
// a derived table vitess can parse, (SELECT kvsql_generate_series(a, b)
// AS column FROM dual) [AS generate_series], which the planner
// turns into a Series node. Elsewhere generate_series is left alone.
func seriesInFrom(toks []token) []token {
	toks = unqualifyFromCalls(toks) // function.go
	out := make([]token, 0, len(toks)+4)
	fromCtx := []bool{false} // per parenthesis depth: inside a FROM clause?
	// Per depth: a query began there, and its FROM clause is open (not
	// the FROM of EXTRACT(f FROM x), SUBSTRING(s FROM n) or IS DISTINCT
	// FROM), where any name( starts a function call.
	query, queryFrom := []bool{false}, []bool{false}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		d := len(fromCtx) - 1
		switch {
		case t.isPunct("("):
			fromCtx, query, queryFrom = append(fromCtx, false), append(query, false), append(queryFrom, false)
		case t.isPunct(")"):
			if d > 0 {
				fromCtx, query, queryFrom = fromCtx[:d], query[:d], queryFrom[:d]
			}
		case t.is("select") || t.is("delete") || t.is("update"):
			query[d] = true
		case t.is("from"):
			fromCtx[d] = true
			queryFrom[d] = query[d] && !(i > 0 && toks[i-1].is("distinct"))
		case t.kind == tkIdent && fromEnds[t.val]:
			fromCtx[d], queryFrom[d] = false, false
		case t.kind == tkIdent && !notFromFunc[t.val] && fromCtx[d] && i > 0 && i+1 < len(toks) && toks[i+1].isPunct("(") &&
			(queryFrom[d] || builtinTableFunc(t.val)) &&
			(toks[i-1].is("from") || toks[i-1].is("join") || toks[i-1].is("lateral") || toks[i-1].isPunct(",")):
			end := matchForward(toks, i+1)
			if end < 0 {
				break
			}
			if toks[i-1].is("join") || toks[i-1].isPunct(",") {
				// A function in FROM may read the items before it, as if
				// LATERAL were written (PostgreSQL's rule).
				out = append(out, raw("lateral", t.pos))
			}
			if !builtinTableFunc(t.val) {
				var next int
				out, next = routineInFrom(out, toks, i, end)
				i = next - 1
				continue
			}
			out = append(out, raw("( select kvsql_"+t.val, t.pos))
			if recordFuncs[t.val] {
				// f(doc) [AS] alias(c1 type1, ...): the column definitions
				// travel as extra arguments 'c1', NULL::type1, ...
				if defs, alias, after, ok := columnDefs(toks, end+1, t); ok {
					out = append(out, toks[i+1:end]...)
					for _, d := range defs {
						out = append(out, raw(",", t.pos), token{kind: tkString, val: d.name.val, pos: d.name.pos, end: d.name.end}, raw(",", t.pos),
							token{kind: tkIdent, val: "null", pos: d.name.pos, end: d.name.pos}, token{kind: tkOp, val: "::", pos: d.name.pos, end: d.name.pos})
						out = append(out, d.typ...)
					}
					out = append(out, toks[end], raw("as "+MarkerPrefix+"v from dual ) as", t.pos), alias)
					i = after - 1
					continue
				}
			}
			out = append(out, toks[i+1:end+1]...)
			tail, next := fromCallTail(toks, t, end+1)
			out = append(out, tail...)
			i = next - 1
			continue
		}
		out = append(out, t)
	}
	return out
}

// fromEnds are the words that end a FROM clause at their depth.
var fromEnds = map[string]bool{"where": true, "group": true, "order": true, "having": true, "limit": true,
	"offset": true, "fetch": true, "union": true, "intersect": true, "except": true, "select": true,
	"window": true, "returning": true, "on": true, "using": true}

// joinWords may follow a FROM item without being its alias.
var joinWords = map[string]bool{"join": true, "inner": true, "left": true, "right": true, "full": true,
	"cross": true, "natural": true, "outer": true}

// comparisonOps take a NOT expression as their right operand in
// PostgreSQL's grammar (`a <> NOT b`), which vitess's does not.
var comparisonOps = map[string]bool{"=": true, "<>": true, "!=": true, "<": true, ">": true, "<=": true, ">=": true}

// notOperandEnd are the words that end a NOT operand: NOT binds looser
// than comparisons and IS, tighter than AND and OR.
var notOperandEnd = map[string]bool{
	"and": true, "or": true, "then": true, "else": true, "when": true, "end": true,
	"from": true, "where": true, "group": true, "having": true, "order": true,
	"limit": true, "offset": true, "union": true, "intersect": true, "except": true,
	"as": true, "returning": true, "on": true, "using": true,
}

// notOperands parenthesises a NOT expression that is the right operand of
// a comparison or of IS [NOT] DISTINCT FROM: `a <> NOT b AND c` becomes
// `a <> (NOT b) AND c`, as PostgreSQL reads it.
func notOperands(toks []token) []token {
	out := make([]token, 0, len(toks)+4)
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		out = append(out, t)
		after := (t.kind == tkOp && comparisonOps[t.val]) || (t.is("from") && i > 0 && toks[i-1].is("distinct"))
		if !after || i+1 >= len(toks) || !toks[i+1].is("not") {
			continue
		}
		// The operand runs to the first ending word, comma or closing
		// parenthesis at its own depth.
		end, depth := i+1, 0
		for ; end < len(toks); end++ {
			e := toks[end]
			if e.isPunct("(") {
				depth++
			} else if e.isPunct(")") {
				if depth == 0 {
					break
				}
				depth--
			} else if depth == 0 && (e.isPunct(",") || e.isPunct(";") || (e.kind == tkIdent && notOperandEnd[e.val])) {
				break
			}
		}
		out = append(out, raw("(", toks[i+1].pos))
		out = append(out, notOperands(toks[i+1:end])...)
		out = append(out, raw(")", toks[end-1].pos))
		i = end - 1
	}
	return out
}

// selectListEnd are the keywords that end a select list.
var selectListEnd = map[string]bool{
	"from": true, "where": true, "group": true, "having": true, "order": true, "limit": true,
	"offset": true, "fetch": true, "union": true, "intersect": true, "except": true,
	"window": true, "into": true, "for": true,
}

// Array markers: ARRAY[e, ...] is MarkerArray(e, ...) (and a bare
// [e, ...] inside it another MarkerArray, a sub-array), ARRAY(subquery)
// MarkerArraySub((subquery)), x[i] MarkerSubscript(x, i), x[lo:hi]
// MarkerSlice(x, lo, hi) with MarkerSliceOpen() for a missing bound, and
// x op ANY|SOME (array) / x op ALL (array) compare x with MarkerAny(array)
// / MarkerAll(array). x[i][j] nests two calls; the planner makes one
// subscript of an array's.
const (
	MarkerArray = "kvsql_array"
	// MarkerRow is a row constructor of one field (or none): ROW(x).
	MarkerRow       = "kvsql_row"
	MarkerArraySub  = "kvsql_array_sub"
	MarkerSubscript = "kvsql_subscript"
	MarkerSlice     = "kvsql_slice"
	MarkerSliceOpen = "kvsql_slice_open"
	MarkerAny       = "kvsql_any"
	// MarkerOrdinality is the second select item of a table function's
	// derived table WITH ORDINALITY.
	MarkerOrdinality = "kvsql_ordinality"
	MarkerAll        = "kvsql_all"
	// MarkerArrayAgg is the separator of the group_concat standing for
	// array_agg(x ORDER BY y), as vitess keeps it: an escaped NUL byte
	// (user text reaches vitess with its backslashes doubled, and holds
	// no NUL).
	MarkerArrayAgg = MarkerOrderedAgg + "array_agg"
	// MarkerOrderedAgg + name is the separator of the group_concat
	// standing for name(x [ORDER BY y]) or name(DISTINCT x), name
	// an aggregate called with DISTINCT or ORDER BY (aggModifiers).
	MarkerOrderedAgg = `\0kvsql_`
	// MarkerOrderedSet, followed by the aggregate's name, is the
	// separator of the group_concat standing for an ordered-set
	// aggregate: percentile_cont(f) WITHIN GROUP (ORDER BY x) is
	// group_concat(f, x ORDER BY x SEPARATOR '\0kvsql_os:percentile_cont').
	MarkerOrderedSet = `\0kvsql_os:`
)

// fromCallTail finishes the derived table a FROM call f(...) becomes,
// from next (just past the call's closing parenthesis): the result's
// column, named like the function or like an alias without a column list
// (FROM generate_series(1, 3) g has column g, as in PostgreSQL), WITH
// ORDINALITY's second column, and the alias f when none is written. It
// returns the tokens and where reading goes on.
func fromCallTail(toks []token, t token, next int) ([]token, int) {
	ordinality := next+1 < len(toks) && toks[next].is("with") && toks[next+1].is("ordinality")
	if ordinality {
		next += 2
	}
	aliased := next < len(toks) && (toks[next].is("as") || toks[next].kind == tkQIdent ||
		toks[next].kind == tkIdent && !fromEnds[toks[next].val] && !joinWords[toks[next].val])
	column := raw(t.val, t.pos)
	if a := next; aliased {
		if toks[a].is("as") {
			a++
		}
		if a < len(toks) && (toks[a].kind == tkIdent || toks[a].kind == tkQIdent) &&
			(a+1 >= len(toks) || !toks[a+1].isPunct("(")) {
			column = toks[a]
		}
	}
	out := []token{raw("as", t.pos), column}
	if ordinality {
		out = append(out, raw(", "+MarkerOrdinality+" as ordinality", t.pos))
	}
	out = append(out, raw("from dual )", t.pos))
	if !aliased {
		out = append(out, raw("as "+t.val, t.pos))
	}
	return out, next
}

// builtinTableFunc reports whether name is a set-returning function the
// binder plans itself in FROM (a Series or a TableFunc); any other call
// there is a routine's.
func builtinTableFunc(name string) bool {
	return name == "generate_series" || name == "unnest" || name == "string_to_table" || name == "regexp_split_to_table" ||
		name == "pg_partition_ancestors" || jsonTableFuncs[name]
}

// jsonTableFuncs are the JSON set-returning functions seriesInFrom
// spells as derived tables, as it does unnest.
var jsonTableFuncs = map[string]bool{
	"jsonb_array_elements": true, "jsonb_array_elements_text": true, "json_array_elements": true,
	"json_array_elements_text": true, "jsonb_object_keys": true, "json_object_keys": true,
	"jsonb_each": true, "jsonb_each_text": true, "json_each": true, "json_each_text": true,
	"jsonb_path_query": true, "jsonb_to_record": true, "jsonb_to_recordset": true, "json_to_record": true,
	"json_to_recordset": true, "jsonb_populate_record": true, "jsonb_populate_recordset": true,
	"json_populate_record": true, "json_populate_recordset": true,
}

// hypotheticalAggs are the hypothetical-set aggregates, which take
// WITHIN GROUP like the ordered-set ones: rank(v) WITHIN GROUP (ORDER BY
// x) is the rank v would have among the x.
var hypotheticalAggs = map[string]bool{"rank": true, "dense_rank": true, "percent_rank": true, "cume_dist": true}

// MarkerAggFilter(f(args), cond) is an aggregate call with FILTER (WHERE
// cond).
const MarkerAggFilter = "kvsql_agg_filter"

// MarkerVariadic wraps the argument written after VARIADIC.
const MarkerVariadic = "kvsql_variadic"

// MarkerJSONObject names PostgreSQL's json_object in the text given to
// vitess, which has a json_object of its own.
const MarkerJSONObject = "kvsql_json_object"

// recordFuncs are the JSON functions returning records, whose FROM item
// needs a column definition list.
var recordFuncs = map[string]bool{
	"jsonb_to_record": true, "jsonb_to_recordset": true, "json_to_record": true, "json_to_recordset": true,
	"jsonb_populate_record": true, "jsonb_populate_recordset": true, "json_populate_record": true, "json_populate_recordset": true,
}

type columnDef struct {
	name token
	typ  []token
}

// columnDefs reads [AS] [alias] (name type, ...) starting at toks[i]:
// the definitions, the alias token (the function's name when none is
// written) and the index after the list.
func columnDefs(toks []token, i int, fn token) (defs []columnDef, alias token, after int, ok bool) {
	alias = raw(fn.val, fn.pos)
	if i < len(toks) && toks[i].is("as") {
		i++
	}
	if i < len(toks) && (toks[i].kind == tkIdent && !fromEnds[toks[i].val] && !joinWords[toks[i].val] || toks[i].kind == tkQIdent) {
		alias = toks[i]
		i++
	}
	if i >= len(toks) || !toks[i].isPunct("(") {
		return nil, alias, 0, false
	}
	end := matchForward(toks, i)
	if end < 0 {
		return nil, alias, 0, false
	}
	j := i + 1
	for j < end {
		if toks[j].kind != tkIdent && toks[j].kind != tkQIdent {
			return nil, alias, 0, false
		}
		d := columnDef{name: toks[j]}
		k, depth := j+1, 0
		for k < end && !(depth == 0 && toks[k].isPunct(",")) {
			if toks[k].isPunct("(") || toks[k].isPunct("[") {
				depth++
			} else if toks[k].isPunct(")") || toks[k].isPunct("]") {
				depth--
			}
			k++
		}
		d.typ = toks[j+1 : k]
		if len(d.typ) == 0 {
			return nil, alias, 0, false
		}
		defs = append(defs, d)
		j = k + 1
	}
	return defs, alias, end + 1, len(defs) > 0
}

// MarkerPrefix starts every marker identifier the dialect layer writes.
const MarkerPrefix = markerPrefix

// MarkerDistinctOn names the call that stands, as the last select item,
// for SELECT DISTINCT ON (its arguments): the binder takes it out.
const MarkerDistinctOn = "kvsql_distinct_on"

// markerFunc prefixes the name of a function call in plainFuncs.
const markerFunc = "kvsql_fn_"

// plainFuncs are PostgreSQL functions whose names vitess parses with
// MySQL's own grammar (ltrim(s) with one argument, regexp_replace with
// MySQL's arguments): they reach the binder as plain calls.
var plainFuncs = map[string]bool{
	"ltrim": true, "rtrim": true, "regexp_replace": true, "regexp_like": true,
	"regexp_substr": true, "regexp_instr": true, "float4": true, "float8": true, "int2": true, "int4": true, "int8": true,
}

// MarkerGroupingSets names the call that stands for GROUP BY's GROUPING
// SETS (...); MarkerEmptySet for an empty grouping set () among its
// arguments. ROLLUP (...) and CUBE (...) already parse as calls.
// MarkerNullOf(e) is a NULL of e's type: what a grouping expression a
// grouping set leaves out reads.
const (
	MarkerGroupingSets = "kvsql_grouping_sets"
	MarkerEmptySet     = "kvsql_empty_set"
	MarkerNullOf       = "kvsql_null_of"
)

// groupingSets spells GROUPING SETS (...) as a call of MarkerGroupingSets
// and an empty set () inside it as MarkerEmptySet().
func groupingSets(toks []token) []token {
	out := make([]token, 0, len(toks)+4)
	var open []int // parenthesis depths of GROUPING SETS lists
	depth := 0
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.is("grouping") && i+2 < len(toks) && toks[i+1].is("sets") && toks[i+2].isPunct("("):
			out = append(out, raw(MarkerGroupingSets, t.pos))
			open = append(open, depth)
			i++
			continue
		case len(open) > 0 && t.isPunct("(") && i+1 < len(toks) && toks[i+1].isPunct(")") && depth > open[len(open)-1]:
			out = append(out, raw(MarkerEmptySet, t.pos), t, toks[i+1])
			i++
			continue
		case t.isPunct("("):
			depth++
		case t.isPunct(")"):
			depth--
			if len(open) > 0 && depth == open[len(open)-1] {
				open = open[:len(open)-1]
			}
		}
		out = append(out, t)
	}
	return out
}

// markerFullJoin is the first conjunct of ON, or the first USING column,
// of a FULL [OUTER] JOIN written as a LEFT JOIN (see fullJoins).
const markerFullJoin = "kvsql_full_join"

// fullJoins spells `FULL [OUTER] JOIN b ON cond` as `LEFT JOIN b ON
// kvsql_full_join AND cond`, and `FULL JOIN b USING (x)` as `LEFT JOIN b
// USING (kvsql_full_join, x)`. The condition is the first ON or USING at
// the join's parenthesis depth after it.
func fullJoins(toks []token) []token {
	out := make([]token, 0, len(toks)+4)
	var pending []int // parenthesis depths of FULL JOINs awaiting ON/USING
	depth := 0
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.isPunct("("):
			depth++
		case t.isPunct(")"):
			depth--
		case t.is("full") && i+1 < len(toks) && (toks[i+1].is("join") || toks[i+1].is("outer") && i+2 < len(toks) && toks[i+2].is("join")):
			if toks[i+1].is("outer") {
				i++
			}
			out = append(out, raw("left", t.pos), toks[i+1])
			pending = append(pending, depth)
			i++
			continue
		case len(pending) > 0 && pending[len(pending)-1] == depth && t.is("on"):
			pending = pending[:len(pending)-1]
			out = append(out, t, raw(markerFullJoin, t.pos), raw("and", t.pos))
			continue
		case len(pending) > 0 && pending[len(pending)-1] == depth && t.is("using") && i+1 < len(toks) && toks[i+1].isPunct("("):
			pending = pending[:len(pending)-1]
			out = append(out, t, toks[i+1], raw(markerFullJoin, t.pos), raw(",", t.pos))
			depth++
			i++
			continue
		}
		out = append(out, t)
	}
	return out
}

// joinAliases spells a parenthesised join with an alias, `FROM (a JOIN b
// ON ...) [AS] j [(c1, ...)]`, as the derived table `(SELECT * FROM a
// JOIN b ON ...) AS j [(c1, ...)]`, which vitess can read: as in
// PostgreSQL, the alias hides the joined tables' names, j.* is every
// column of the join, and a column list renames them.
func joinAliases(toks []token) []token {
	out := make([]token, 0, len(toks)+4)
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.isPunct("(") && i > 0 && (toks[i-1].is("from") || toks[i-1].is("join") || toks[i-1].isPunct(",") || toks[i-1].isPunct("(")) {
			if end := matchForward(toks, i); end > i+1 && isParenJoin(toks[i+1:end]) && aliasFollows(toks, end+1) {
				inner := joinAliases(toks[i+1 : end])
				out = append(out, t)
				for _, w := range selectStarFrom {
					w.pos, w.end = t.pos, t.pos
					out = append(out, w) // real tokens: aliasColumns reads this FROM
				}
				out = append(out, inner...)
				out = append(out, toks[end])
				i = end
				continue
			}
		}
		out = append(out, t)
	}
	return out
}

// selectStarFrom are the tokens of SELECT * FROM.
var selectStarFrom, _ = lex("select * from")

// isParenJoin reports whether the tokens inside parentheses in FROM are
// a join (rather than a subquery): not a query's first word, and JOIN at
// their top level.
func isParenJoin(toks []token) bool {
	if t := toks[0]; t.is("select") || t.is("values") || t.is("with") || t.is("table") {
		return false
	}
	return topLevel(toks, func(t token) bool { return t.is("join") }) >= 0
}

// aliasFollows reports whether toks[i] starts an alias: AS, or a name
// that is no keyword ending or continuing the FROM clause.
func aliasFollows(toks []token, i int) bool {
	if i >= len(toks) {
		return false
	}
	t := toks[i]
	return t.is("as") || t.kind == tkQIdent || t.kind == tkIdent && !labelFollowers[t.val] && !joinWords[t.val] && !fromEnds[t.val]
}

// MarkerUsingAlias, followed by the alias, is the first USING column of a
// join written USING (cols) AS alias (see usingAliases).
const MarkerUsingAlias = "kvsql_using_as_"

// usingAliases spells `USING (a, b) AS x` as `USING (kvsql_using_as_x,
// a, b)`: vitess has no alias there, and the planner lets x.a name the
// merged column. An alias that is not a plain lower-case name is 0A000.
func (r *rewriter) usingAliases(toks []token) ([]token, error) {
	out := make([]token, 0, len(toks)+4)
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		out = append(out, t)
		if !t.is("using") || i+1 >= len(toks) || !toks[i+1].isPunct("(") {
			continue
		}
		end := matchForward(toks, i+1)
		if end < 0 || end+2 >= len(toks) || !toks[end+1].is("as") {
			continue
		}
		alias := toks[end+2]
		if alias.kind != tkIdent || !isFieldName(alias.val) {
			return nil, unsupported(r.sql, alias.pos, "this USING alias is not supported")
		}
		out = append(out, toks[i+1], raw(MarkerUsingAlias+alias.val, alias.pos), token{kind: tkPunct, val: ",", pos: alias.pos, end: alias.pos})
		out = append(out, toks[i+2:end+1]...)
		i = end + 2
	}
	return out, nil
}

// markerAliasColumns heads the index hint aliasColumns writes for a
// table alias's column list; the fix-up moves the list to the
// AliasedTableExpr's Columns.
const markerAliasColumns = "kvsql_alias_columns"

// aliasColumns spells a base table's alias with a column list, `FROM t
// [AS] x (a, b)`, as `FROM t AS x USE INDEX (kvsql_alias_columns, a, b)`:
// vitess reads column lists only after derived tables. DELETE's target
// takes no column list (PostgreSQL's grammar), so its FROM is skipped.
func aliasColumns(toks []token) []token {
	out := make([]token, 0, len(toks)+4)
	fromCtx := []bool{false} // per parenthesis depth: inside a FROM clause?
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		d := len(fromCtx) - 1
		switch {
		case t.isPunct("("):
			// A parenthesised join continues the FROM clause; a
			// subquery's SELECT ends it.
			fromCtx = append(fromCtx, fromCtx[d])
		case t.isPunct(")"):
			if d > 0 {
				fromCtx = fromCtx[:d]
			}
		case t.is("from"):
			// Not IS DISTINCT FROM, nor the FROM of DELETE.
			fromCtx[d] = i == 0 || !toks[i-1].is("delete") && !toks[i-1].is("distinct")
		case t.is("join"):
			fromCtx[d] = true
		case t.kind == tkIdent && fromEnds[t.val]:
			fromCtx[d] = false
		case fromCtx[d] && i > 0 && (toks[i-1].is("from") || toks[i-1].is("join") || toks[i-1].is("only") || toks[i-1].isPunct(",") || toks[i-1].isPunct("(")):
			if name, alias, cols, end, ok := aliasedColumnList(toks, i); ok {
				pos := toks[alias].pos
				out = append(out, toks[i:name]...)
				out = append(out, raw("as", pos), toks[alias], raw("use index", pos), token{kind: tkPunct, val: "(", pos: pos, end: pos}, raw(markerAliasColumns, pos))
				for _, c := range cols {
					out = append(out, raw(",", c.pos), c)
				}
				out = append(out, toks[end])
				i = end
				continue
			}
		}
		out = append(out, t)
	}
	return out
}

// aliasedColumnList matches `name[.name] [AS] alias (c1, ...)` at
// toks[i], returning the index after the name, the alias's index, the
// column names and the index of the closing parenthesis.
func aliasedColumnList(toks []token, i int) (name, alias int, cols []token, end int, ok bool) {
	isName := func(k int) bool {
		return k < len(toks) && (toks[k].kind == tkQIdent || toks[k].kind == tkIdent && !labelFollowers[toks[k].val] && !joinWords[toks[k].val] && !toks[k].is("lateral") && !toks[k].is("as"))
	}
	k := i
	if !isName(k) {
		return 0, 0, nil, 0, false
	}
	if k+2 < len(toks) && toks[k+1].isPunct(".") && isName(k+2) {
		k += 2
	}
	k++
	name = k
	if k < len(toks) && toks[k].is("as") {
		k++
	}
	if !isName(k) || k+1 >= len(toks) || !toks[k+1].isPunct("(") {
		return 0, 0, nil, 0, false
	}
	alias = k
	for k += 2; k < len(toks); k += 2 {
		if !isName(k) || k+1 >= len(toks) {
			return 0, 0, nil, 0, false
		}
		cols = append(cols, toks[k])
		if toks[k+1].isPunct(")") {
			return name, alias, cols, k + 1, true
		}
		if !toks[k+1].isPunct(",") {
			return 0, 0, nil, 0, false
		}
	}
	return 0, 0, nil, 0, false
}

// defaultValues spells INSERT's DEFAULT VALUES as VALUES (), a row of no
// expressions, which the binder fills with every column's default. After
// a column list it stays: PostgreSQL's grammar has no such form.
func defaultValues(toks []token) []token {
	if len(toks) == 0 || !toks[0].is("insert") {
		return toks
	}
	for i := 1; i+1 < len(toks); i++ {
		if toks[i].is("default") && toks[i+1].is("values") && !toks[i-1].isPunct(")") {
			pos := toks[i].pos
			out := append([]token{}, toks[:i]...)
			out = append(out, toks[i+1], token{kind: tkPunct, val: "(", pos: pos, end: pos}, token{kind: tkPunct, val: ")", pos: pos, end: pos})
			return append(out, toks[i+2:]...)
		}
	}
	return toks
}

// markerStar stands for an unqualified * that is not the first select
// item (SELECT 1 AS t, * FROM x), which vitess's grammar refuses; the
// fix-up makes it a star again.
const markerStar = "kvsql_star"

// laterStars writes markerStar for an unqualified * that follows a comma
// and ends a select item.
func laterStars(toks []token) []token {
	out := make([]token, 0, len(toks))
	for i, t := range toks {
		if t.isOp("*") && i > 0 && toks[i-1].isPunct(",") &&
			(i+1 == len(toks) || toks[i+1].isPunct(",") || toks[i+1].isPunct(")") || toks[i+1].isPunct(";") || toks[i+1].kind == tkIdent && emptySelectEnds[toks[i+1].val]) {
			out = append(out, raw(markerStar, t.pos))
			continue
		}
		out = append(out, t)
	}
	return out
}

// markerNoColumns stands, as the only select item, for an empty select
// list (SELECT FROM t); the fix-up empties the list again.
const markerNoColumns = "kvsql_no_columns"

// emptySelectEnds are the words that may follow SELECT when its list is
// empty.
var emptySelectEnds = map[string]bool{"from": true, "where": true, "group": true, "having": true,
	"window": true, "order": true, "limit": true, "offset": true, "fetch": true, "union": true,
	"intersect": true, "except": true, "into": true, "for": true}

// emptySelects gives an empty select list, which vitess's grammar lacks,
// the marker item markerNoColumns.
func emptySelects(toks []token) []token {
	out := make([]token, 0, len(toks)+4)
	for i, t := range toks {
		out = append(out, t)
		if !t.is("select") {
			continue
		}
		if i+1 == len(toks) || toks[i+1].isPunct(")") || toks[i+1].isPunct(";") || toks[i+1].kind == tkIdent && emptySelectEnds[toks[i+1].val] {
			out = append(out, raw(markerNoColumns, t.pos))
		}
	}
	return out
}

// markerNatural is the USING list naturalJoins gives a NATURAL join; the
// fix-up turns it back into a natural join type (see NaturalFullJoin).
const markerNatural = "kvsql_natural"

// naturalItemEnds are the words that end the right-hand FROM item of a
// NATURAL join at its depth (besides a comma or a closing parenthesis).
var naturalItemEnds = map[string]bool{
	"join": true, "inner": true, "left": true, "right": true, "full": true, "cross": true,
	"natural": true, "on": true, "using": true, "where": true, "group": true, "having": true,
	"order": true, "limit": true, "offset": true, "fetch": true, "union": true, "except": true,
	"intersect": true, "window": true, "returning": true, "for": true,
}

// naturalJoins spells `a NATURAL [kind] JOIN b` as `a [kind] JOIN b USING
// (kvsql_natural)`: vitess has no NATURAL FULL JOIN, and one spelling
// lets fullJoins treat a natural FULL JOIN like any other. It runs before
// fullJoins.
func naturalJoins(toks []token) []token {
	out := make([]token, 0, len(toks)+4)
	var pending []int // depths of NATURAL joins whose right item is open
	awaiting := -1    // depth of a NATURAL still before its JOIN
	depth := 0
	closeItem := func(pos int) {
		// Real tokens, not raw ones: fullJoins reads this USING.
		out = append(out, token{kind: tkIdent, val: "using", pos: pos, end: pos}, token{kind: tkPunct, val: "(", pos: pos, end: pos},
			raw(markerNatural, pos), token{kind: tkPunct, val: ")", pos: pos, end: pos})
		pending = pending[:len(pending)-1]
	}
	first := false // the token after JOIN starts the item and cannot end it
	for i, t := range toks {
		if n := len(pending); n > 0 && !first && pending[n-1] == depth && naturalItemEnd(t) {
			closeItem(t.pos)
		}
		first = false
		switch {
		case t.isPunct("("):
			depth++
		case t.isPunct(")"):
			depth--
		case t.is("natural") && i+1 < len(toks) && toks[i+1].kind == tkIdent && joinWords[toks[i+1].val]:
			awaiting = depth
			continue
		case t.is("join") && awaiting == depth:
			awaiting = -1
			pending = append(pending, depth)
			first = true
		}
		out = append(out, t)
	}
	for len(pending) > 0 {
		closeItem(toks[len(toks)-1].end)
	}
	return out
}

// naturalItemEnd reports whether t ends a NATURAL join's right item at
// the item's depth.
func naturalItemEnd(t token) bool {
	return t.isPunct(",") || t.isPunct(")") || t.isPunct(";") || t.kind == tkIdent && naturalItemEnds[t.val]
}

// aliasEnd reports whether toks[i] can follow an AS label: the end, a
// comma, a closing parenthesis or a clause keyword.
func aliasEnd(toks []token, i int) bool {
	if i >= len(toks) {
		return true
	}
	t := toks[i]
	return t.isPunct(",") || t.isPunct(")") || t.isPunct(";") || t.kind == tkIdent && labelFollowers[t.val]
}

// labelFollowers are the keywords that may follow a select-list or FROM
// label.
var labelFollowers = map[string]bool{
	"from": true, "where": true, "group": true, "having": true, "order": true, "limit": true,
	"offset": true, "fetch": true, "union": true, "except": true, "intersect": true, "window": true,
	"into": true, "on": true, "using": true, "join": true, "left": true, "right": true, "inner": true,
	"cross": true, "full": true, "natural": true, "returning": true, "for": true,
}

// MarkerExtract names the call EXTRACT(field FROM x) becomes:
// kvsql_extract('field', x), which returns numeric (date_part returns
// double precision).
const MarkerExtract = "kvsql_extract"

// isFieldName reports whether s can be an EXTRACT field (letters, digits
// and underscores), so that it is safe inside a quoted literal.
func isFieldName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return s != ""
}

// namedArgs rewrites a call's argument list that uses PostgreSQL's
// named notation (name => value) into positional arguments in the order
// of names, the missing ones 0; a list without names is only rewritten.
func (r *rewriter) namedArgs(inner []token, names []string, pos int) ([]token, error) {
	var segs [][]token
	depth, start := 0, 0
	for k, t := range inner {
		switch {
		case t.isPunct("(") || t.isPunct("["):
			depth++
		case t.isPunct(")") || t.isPunct("]"):
			depth--
		case t.isPunct(",") && depth == 0:
			segs = append(segs, inner[start:k])
			start = k + 1
		}
	}
	if len(inner) > 0 {
		segs = append(segs, inner[start:])
	}
	named := false
	for _, s := range segs {
		if len(s) > 2 && s[1].isOp("=>") {
			named = true
		}
	}
	if !named {
		return r.exprs(inner)
	}
	vals := make([][]token, len(names))
	positional := 0
	for _, s := range segs {
		if len(s) > 2 && s[1].isOp("=>") {
			k := -1
			for j, n := range names {
				if s[0].is(n) {
					k = j
				}
			}
			if k < 0 || vals[k] != nil {
				return nil, syntaxErr(r.sql, s[0].pos, "argument name %q used more than once or not known", s[0].val)
			}
			vals[k] = s[2:]
			continue
		}
		if positional >= len(names) || vals[positional] != nil {
			return nil, syntaxErr(r.sql, pos, "positional argument cannot follow named argument")
		}
		vals[positional] = s
		positional++
	}
	var out []token
	for k, v := range vals {
		if k > 0 {
			out = append(out, raw(",", pos))
		}
		if v == nil {
			out = append(out, raw("0", pos))
			continue
		}
		x, err := r.exprs(v)
		if err != nil {
			return nil, err
		}
		out = append(out, x...)
	}
	return out, nil
}

// withinGroupAt reports whether toks[i:] starts with WITHIN GROUP
// (ORDER BY ...).
func withinGroupAt(toks []token, i int) bool {
	return i > 0 && i+4 < len(toks) && toks[i].is("within") && toks[i+1].is("group") && toks[i+2].isPunct("(") &&
		toks[i+3].is("order") && toks[i+4].is("by") && matchForward(toks, i+2) > 0
}

// topLevelComma reports whether toks hold a comma outside parentheses.
func topLevelComma(toks []token) bool {
	return topLevel(toks, func(t token) bool { return t.isPunct(",") }) >= 0
}

// topLevel returns the index of the first token of toks outside any
// parentheses or brackets for which match holds, or -1.
func topLevel(toks []token, match func(token) bool) int {
	depth := 0
	for i, t := range toks {
		switch {
		case t.isPunct("(") || t.isPunct("["):
			depth++
		case t.isPunct(")") || t.isPunct("]"):
			depth--
		case depth == 0 && match(t):
			return i
		}
	}
	return -1
}
