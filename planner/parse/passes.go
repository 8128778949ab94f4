package parse

// Token passes that spell PostgreSQL constructs the way vitess reads
// them (VALUES rows, table functions in FROM, NOT operands, FULL JOIN,
// GROUPING SETS, subscript assignments, named arguments), and the
// markers they write; rewrite.go holds the rewriter that runs them.

// valuesRows spells a parenthesised VALUES list — (VALUES (1, 'a'), (2,
// 'b')) AS v(n, s) in FROM or a subquery — as vitess reads it: VALUES
// ROW(1, 'a'), ROW(2, 'b'). A VALUES list of INSERT is left alone (it
// follows a table name or a column list, not an open parenthesis).
func valuesRows(toks []token) []token {
	var out []token
	for i := 0; i < len(toks); i++ {
		out = append(out, toks[i])
		if !toks[i].is("values") || i == 0 || !toks[i-1].isPunct("(") {
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

// seriesInFrom spells generate_series(a, b [, step]) in a FROM clause as
// a derived table vitess can parse, (SELECT kvsql_generate_series(a, b)
// AS column FROM dual) [AS generate_series], which the planner
// turns into a Series node. Elsewhere generate_series is left alone.
func seriesInFrom(toks []token) []token {
	var out []token
	fromCtx := []bool{false} // per parenthesis depth: inside a FROM clause?
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		d := len(fromCtx) - 1
		switch {
		case t.isPunct("("):
			fromCtx = append(fromCtx, false)
		case t.isPunct(")"):
			if d > 0 {
				fromCtx = fromCtx[:d]
			}
		case t.is("from"):
			fromCtx[d] = true
		case t.kind == tkIdent && fromEnds[t.val]:
			fromCtx[d] = false
		case (t.is("generate_series") || t.is("unnest") || t.is("string_to_table") || t.kind == tkIdent && jsonTableFuncs[t.val]) && fromCtx[d] && i > 0 && i+1 < len(toks) && toks[i+1].isPunct("(") &&
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
			next := end + 1
			ordinality := next+1 < len(toks) && toks[next].is("with") && toks[next+1].is("ordinality")
			if ordinality {
				next += 2
				end += 2
			}
			aliased := next < len(toks) && (toks[next].is("as") || toks[next].kind == tkQIdent ||
				toks[next].kind == tkIdent && !fromEnds[toks[next].val] && !joinWords[toks[next].val])
			// The column is named like the table: generate_series, or the
			// alias when it has no column list (FROM generate_series(1, 3) g
			// has column g, as in PostgreSQL).
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
			out = append(out, raw("as", t.pos), column)
			if ordinality {
				// WITH ORDINALITY: a second column numbering the rows.
				out = append(out, raw(", "+MarkerOrdinality+" as ordinality", t.pos))
			}
			out = append(out, raw("from dual )", t.pos))
			if !aliased {
				out = append(out, raw("as "+t.val, t.pos))
			}
			i = end
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
	var out []token
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
	MarkerArray     = "kvsql_array"
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
	// array_agg or one of orderedAggs.
	MarkerOrderedAgg = `\0kvsql_`
	// MarkerOrderedSet, followed by the aggregate's name, is the
	// separator of the group_concat standing for an ordered-set
	// aggregate: percentile_cont(f) WITHIN GROUP (ORDER BY x) is
	// group_concat(f, x ORDER BY x SEPARATOR '\0kvsql_os:percentile_cont').
	MarkerOrderedSet = `\0kvsql_os:`
)

// jsonTableFuncs are the JSON set-returning functions seriesInFrom
// spells as derived tables, as it does unnest.
var jsonTableFuncs = map[string]bool{
	"jsonb_array_elements": true, "jsonb_array_elements_text": true, "json_array_elements": true,
	"json_array_elements_text": true, "jsonb_object_keys": true, "json_object_keys": true,
	"jsonb_each": true, "jsonb_each_text": true, "json_each": true, "json_each_text": true,
	"jsonb_path_query": true, "jsonb_to_record": true, "jsonb_to_recordset": true, "json_to_record": true,
	"json_to_recordset": true,
}

// MarkerVariadic wraps the argument written after VARIADIC.
const MarkerVariadic = "kvsql_variadic"

// MarkerJSONObject names PostgreSQL's json_object in the text given to
// vitess, which has a json_object of its own.
const MarkerJSONObject = "kvsql_json_object"

// recordFuncs are the JSON functions returning records, whose FROM item
// needs a column definition list.
var recordFuncs = map[string]bool{
	"jsonb_to_record": true, "jsonb_to_recordset": true, "json_to_record": true, "json_to_recordset": true,
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

// orderedAggs are the aggregates besides array_agg whose ORDER BY and
// DISTINCT travel as group_concat's (the JSON aggregates).
var orderedAggs = map[string]bool{"jsonb_agg": true, "json_agg": true, "jsonb_object_agg": true, "json_object_agg": true}

// OrderedAgg reports whether name is one of orderedAggs.
func OrderedAgg(name string) bool { return orderedAggs[name] }

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
	"regexp_substr": true, "regexp_instr": true,
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
	var out []token
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
	var out []token
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

// MarkerSubscriptAssign names the call that UPDATE ... SET col[k1][k2] =
// v becomes: SET col = kvsql_subscript_assign(col, v, k1, k2).
// MarkerSliceAssign is the call for a slice, SET col[lo1:hi1][k2] = v:
// kvsql_slice_assign(col, v, lo1, hi1, 1, k2), a missing bound
// MarkerSliceOpen() and a plain subscript the slice from 1 to it, as in
// PostgreSQL.
const (
	MarkerSubscriptAssign = "kvsql_subscript_assign"
	MarkerSliceAssign     = "kvsql_slice_assign"
)

// subscriptAssignments rewrites the subscripted targets of an UPDATE's
// SET list (col[k]... = v, jsonb's subscript assignment) into calls of
// MarkerSubscriptAssign; other statements pass unchanged.
func subscriptAssignments(toks []token) []token {
	if len(toks) == 0 || !toks[0].is("update") {
		return toks
	}
	set := topLevel(toks, func(t token) bool { return t.is("set") })
	if set < 0 {
		return toks
	}
	// The SET list's items, each an assignment's tokens; a subscripted
	// target's item is col = call, the call's first argument the
	// column's value before it: the previous subscripted assignment to
	// the same column when there is one (they compose, as in PostgreSQL).
	var items [][]token
	assignedAt := map[string]int{} // column -> its subscripted item
	i := set + 1
	for i < len(toks) {
		end := len(toks)
		if k := topLevel(toks[i:], func(t token) bool {
			return t.isPunct(",") || t.is("where") || t.is("from") || t.is("returning") || t.isPunct(";")
		}); k >= 0 {
			end = i + k
		}
		item := toks[i:end]
		items = append(items, item)
		if len(item) > 3 && (item[0].kind == tkIdent || item[0].kind == tkQIdent) && item[1].isPunct("[") {
			var subs [][]token
			k := 1
			for k < len(item) && item[k].isPunct("[") {
				m := matchForward(item, k)
				if m < 0 {
					break
				}
				subs = append(subs, item[k+1:m])
				k = m + 1
			}
			if k < len(item) && item[k].isOp("=") && len(subs) > 0 {
				pos := item[0].pos
				base := []token{item[0]}
				key := item[0].val
				if prev, ok := assignedAt[key]; ok {
					base = items[prev][2:] // the earlier call
					items[prev] = nil
				}
				name, args := MarkerSubscriptAssign, subs
				if sliced := sliceBounds(subs, pos); sliced != nil {
					name, args = MarkerSliceAssign, sliced
				}
				call := []token{item[0], item[k], raw(name, pos), raw("(", pos)}
				call = append(call, base...)
				call = append(call, raw(",", pos))
				call = append(call, item[k+1:]...)
				for _, s := range args {
					call = append(call, raw(",", pos))
					call = append(call, s...)
				}
				call = append(call, raw(")", pos))
				items[len(items)-1] = call
				assignedAt[key] = len(items) - 1
			}
		}
		i = end
		if i < len(toks) && toks[i].isPunct(",") {
			i++
			continue
		}
		break
	}
	out := append([]token(nil), toks[:set+1]...)
	first := true
	for _, it := range items {
		if it == nil {
			continue
		}
		if !first {
			out = append(out, raw(",", it[0].pos))
		}
		first = false
		out = append(out, it...)
	}
	return append(out, toks[i:]...)
}

// sliceBounds turns the subscripts of an assignment target into the
// bounds of a slice, two per subscript (a missing bound
// MarkerSliceOpen(), a plain subscript k 1 and k), or returns nil when
// no subscript is a slice.
func sliceBounds(subs [][]token, pos int) [][]token {
	sliced := false
	for _, s := range subs {
		sliced = sliced || topLevel(s, func(t token) bool { return t.isPunct(":") }) >= 0
	}
	if !sliced {
		return nil
	}
	var out [][]token
	for _, s := range subs {
		colon := topLevel(s, func(t token) bool { return t.isPunct(":") })
		if colon < 0 {
			out = append(out, []token{{kind: tkNumber, val: "1", pos: pos}}, s)
			continue
		}
		out = append(out, orOpen(s[:colon], pos), orOpen(s[colon+1:], pos))
	}
	return out
}

// orOpen is a slice bound's tokens, MarkerSliceOpen() when there are none.
func orOpen(bound []token, pos int) []token {
	if len(bound) > 0 {
		return bound
	}
	return []token{raw(MarkerSliceOpen, pos), raw("(", pos), raw(")", pos)}
}
