package parse

import (
	"strconv"
	"strings"
)

// Markers kvsql writes into the text it hands to vitess, recognised and
// removed again by the fix-ups in fixup.go. None of them is reachable from
// user text: identifiers the user writes are emitted as they are, and the
// markers are either reserved-looking names that are also checked for in
// the input (see checkIdent) or vitess constructs PostgreSQL cannot spell.
const (
	// markerBase + i is the length of the `char(n)` that stands for the
	// i-th type name in rewriter.types.
	markerBase = 900000000
	// markerEmptyList fills the parentheses of `x IN ()`.
	markerEmptyList = "kvsql_empty_list"
	// markerNoLimit stands for an absent LIMIT when OFFSET is given.
	markerNoLimit = "kvsql_no_limit"
	// markerPrefix starts every marker identifier.
	markerPrefix = "kvsql_"
)

// regexOps maps PostgreSQL's regular-expression operators to the marker
// column placed between two `|` operators (see rewriter.emit).
var regexOps = map[string]string{
	"~": "kvsql_op_re", "~*": "kvsql_op_re_ci", "!~": "kvsql_op_nre", "!~*": "kvsql_op_nre_ci",
	"->": "kvsql_op_jget", "->>": "kvsql_op_jtext", "#>": "kvsql_op_jpath", "#>>": "kvsql_op_jpathtext",
	"@>": "kvsql_op_jcontains", "<@": "kvsql_op_jcontained", "&&": "kvsql_op_overlap",
}

// regexMarkers is regexOps inverted.
var regexMarkers = map[string]string{
	"kvsql_op_re": "~", "kvsql_op_re_ci": "~*", "kvsql_op_nre": "!~", "kvsql_op_nre_ci": "!~*",
	"kvsql_op_jget": "->", "kvsql_op_jtext": "->>", "kvsql_op_jpath": "#>", "kvsql_op_jpathtext": "#>>",
	"kvsql_op_jcontains": "@>", "kvsql_op_jcontained": "<@", "kvsql_op_overlap": "&&",
}

// exprKeywords are reserved words after which an expression starts: an
// operator following one of them is a prefix operator, and a parenthesis
// following one of them is not a function call.
var exprKeywords = map[string]bool{
	"select": true, "where": true, "and": true, "or": true, "not": true, "on": true,
	"when": true, "then": true, "else": true, "case": true, "by": true, "having": true,
	"values": true, "from": true, "as": true, "is": true, "like": true, "ilike": true,
	"between": true, "in": true, "exists": true, "set": true, "distinct": true, "all": true,
	"any": true, "some": true, "limit": true, "offset": true, "using": true, "with": true,
	"union": true, "intersect": true, "except": true, "returning": true, "default": true,
	"check": true, "join": true, "escape": true, "lateral": true, "into": true, "over": true,
	"partition": true, "filter": true, "within": true, "if": true, "table": true, "row": true,
	"array": true,
}

// rewriter turns the tokens of one statement into text vitess parses, and
// remembers what the fix-ups need to undo the markers it wrote.
type rewriter struct {
	sql      string     // the whole original text (for error positions)
	types    []typeName // the type names behind char(markerBase+i) markers
	maxParam int        // highest $n seen
	qmarks   int        // number of ? placeholders seen
	// offsets maps emitted text back to the original: spans[k] starts at
	// output offset outAt[k] and came from original byte offset origAt[k].
	outAt, origAt []int
	// identityAlways and overriding carry what the rewrite drops from the
	// text to Statement.IdentityAlways and Statement.Overriding.
	identityAlways []string
	overriding     string
	checks         []CheckDef
	columnFKs      [][]token // FOREIGN KEY elements made of column REFERENCES
}

// addType records tn and returns the marker tokens that stand for it.
func (r *rewriter) addType(tn typeName, pos int) []token {
	r.types = append(r.types, tn)
	n := markerBase + len(r.types) - 1
	return []token{{kind: tkRaw, val: "char(" + strconv.Itoa(n) + ")", pos: pos, end: pos}}
}

func raw(s string, pos int) token { return token{kind: tkRaw, val: s, pos: pos, end: pos} }

// isOperand reports whether t can end an operand, so that an operator
// after it is binary.
func isOperand(t token) bool {
	switch t.kind {
	case tkIdent:
		return !exprKeywords[t.val]
	case tkQIdent, tkString, tkNumber, tkParam, tkRaw:
		return true
	case tkPunct:
		return t.val == ")" || t.val == "]"
	case tkOp:
		return t.val == "?"
	}
	return false
}

// operandStart returns the index in out where the primary expression that
// ends at out[len(out)-1] starts: a literal, a parameter, a possibly
// qualified name, a parenthesised expression, a function call, an array
// subscript or ARRAY[...]. It returns -1 if out does not end in one.
func operandStart(out []token) int {
	j := len(out) - 1
	if j < 0 {
		return -1
	}
	for {
		t := out[j]
		switch {
		case t.isPunct(")") || t.isPunct("]"):
			m := matchBack(out, j)
			if m < 0 {
				return -1
			}
			j = m
			if j > 1 && out[j-1].is("over") && out[j-2].isPunct(")") {
				j -= 2 // f(...) OVER (...): continue with the call
				continue
			}
			if j > 0 && out[j].isPunct("[") && isOperand(out[j-1]) && !out[j-1].is("array") {
				j-- // subscript: continue with the subscripted operand
				continue
			}
			if j > 0 && (out[j-1].kind == tkIdent && !exprKeywords[out[j-1].val] || out[j-1].is("array") || out[j-1].kind == tkQIdent ||
				out[j-1].kind == tkRaw && (isFieldName(out[j-1].val) || strings.HasPrefix(out[j-1].val, markerPrefix))) { // a marker call's name is raw
				j-- // function call or ARRAY[...]
			} else {
				return j
			}
		case t.kind == tkIdent || t.kind == tkQIdent || t.kind == tkString || t.kind == tkNumber ||
			t.kind == tkParam || t.kind == tkRaw || t.isOp("?"):
			if t.kind == tkIdent && exprKeywords[t.val] {
				return -1
			}
		default:
			return -1
		}
		// Qualifiers: a.b.c
		for j >= 2 && out[j-1].isPunct(".") && (out[j-2].kind == tkIdent || out[j-2].kind == tkQIdent) {
			j -= 2
		}
		return j
	}
}

// matchBack returns the index of the bracket that opens the one closing at
// out[j], or -1.
func matchBack(out []token, j int) int {
	depth := 0
	for k := j; k >= 0; k-- {
		switch {
		case out[k].isPunct(")") || out[k].isPunct("]"):
			depth++
		case out[k].isPunct("(") || out[k].isPunct("["):
			depth--
			if depth == 0 {
				return k
			}
		}
	}
	return -1
}

// matchForward returns the index of the bracket closing the one opening at
// toks[i], or -1.
func matchForward(toks []token, i int) int {
	depth := 0
	for k := i; k < len(toks); k++ {
		switch {
		case toks[k].isPunct("(") || toks[k].isPunct("["):
			depth++
		case toks[k].isPunct(")") || toks[k].isPunct("]"):
			depth--
			if depth == 0 {
				return k
			}
		}
	}
	return -1
}

// exprs rewrites expression-level PostgreSQL syntax into tokens vitess
// understands: `x::t`, CAST(x AS t) and `t 'lit'` become casts to type
// markers; OPERATOR(schema.op) becomes op; COLLATE of the default collation
// is dropped; IS [NOT] DISTINCT FROM becomes <=> (with a BINARY marker on
// the right operand for the negated form); `IN ()` gets a marker element.
func (r *rewriter) exprs(toks []token) ([]token, error) {
	out := make([]token, 0, len(toks)+8)
	var castParen []bool // per open parenthesis: does it belong to CAST?
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.isOp("::"):
			start := operandStart(out)
			if start < 0 {
				return nil, syntaxErr(r.sql, t.pos, `syntax error at or near "::"`)
			}
			tn, next, ok, err := parseType(r.sql, toks, i+1)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, syntaxErr(r.sql, t.pos, "type name expected after ::")
			}
			head := []token{{kind: tkIdent, val: "cast", pos: t.pos}, {kind: tkPunct, val: "(", pos: t.pos}}
			out = append(out[:start], append(head, out[start:]...)...)
			out = append(out, token{kind: tkIdent, val: "as", pos: t.pos})
			out = append(out, r.addType(tn, tn.pos)...)
			out = append(out, token{kind: tkPunct, val: ")", pos: t.pos})
			i = next - 1
		case t.is("array") && i+1 < len(toks) && (toks[i+1].isPunct("[") || toks[i+1].isPunct("(")):
			// ARRAY[e, ...] is a call of MarkerArray, ARRAY(subquery) one
			// of MarkerArraySub with the subquery as its argument.
			end := matchForward(toks, i+1)
			if end < 0 {
				return nil, syntaxErr(r.sql, t.pos, "syntax error at end of input")
			}
			var spliced []token
			if toks[i+1].isPunct("[") {
				spliced = append(spliced, raw(MarkerArray, t.pos), token{kind: tkPunct, val: "(", pos: t.pos})
				spliced = append(spliced, toks[i+2:end]...)
				spliced = append(spliced, token{kind: tkPunct, val: ")", pos: toks[end].pos})
			} else {
				spliced = append(spliced, raw(MarkerArraySub, t.pos), token{kind: tkPunct, val: "(", pos: t.pos})
				spliced = append(spliced, toks[i+1:end+1]...)
				spliced = append(spliced, token{kind: tkPunct, val: ")", pos: toks[end].pos})
			}
			toks = append(append(toks[:i:i], spliced...), toks[end+1:]...)
			i--
		case t.isPunct("[") && len(out) > 0 && isOperand(out[len(out)-1]):
			// x[i] and x[lo:hi] are calls of MarkerSubscript and
			// MarkerSlice (a missing bound is NULL).
			start := operandStart(out)
			end := matchForward(toks, i)
			if start < 0 || end < 0 {
				return nil, syntaxErr(r.sql, t.pos, `syntax error at or near "["`)
			}
			inner := toks[i+1 : end]
			colon := -1
			depth := 0
			for k, x := range inner {
				switch {
				case x.isPunct("(") || x.isPunct("["):
					depth++
				case x.isPunct(")") || x.isPunct("]"):
					depth--
				case x.isPunct(":") && depth == 0 && colon < 0:
					colon = k
				}
			}
			name := MarkerSubscript
			var args []token
			if colon >= 0 {
				name = MarkerSlice
				lo, hi := inner[:colon], inner[colon+1:]
				if len(lo) == 0 {
					lo = []token{raw("null", t.pos)}
				}
				if len(hi) == 0 {
					hi = []token{raw("null", toks[end].pos)}
				}
				args = append(append(append(args, lo...), raw(",", inner[colon].pos)), hi...)
			} else {
				if len(inner) == 0 {
					return nil, syntaxErr(r.sql, toks[end].pos, `syntax error at or near "]"`)
				}
				args = inner
			}
			head := []token{raw(name, t.pos), {kind: tkPunct, val: "(", pos: t.pos}}
			out = append(out[:start], append(head, out[start:]...)...)
			out = append(out, raw(",", t.pos))
			spliced := append(append([]token{}, args...), token{kind: tkPunct, val: ")", pos: toks[end].pos})
			toks = append(append(toks[:i+1:i+1], spliced...), toks[end+1:]...)
		case t.isPunct("[") && len(out) > 0 && (out[len(out)-1].isPunct("(") || out[len(out)-1].isPunct(",")):
			return nil, unsupported(r.sql, t.pos, "multidimensional arrays are not supported")
		case (t.is("any") || t.is("some") || t.is("all")) && i+2 < len(toks) && toks[i+1].isPunct("(") &&
			len(out) > 0 && out[len(out)-1].kind == tkOp && comparisonOps[out[len(out)-1].val] && !startsQuery(toks[i+2]):
			// x op ANY (array) / op ALL (array): a call of MarkerAny or
			// MarkerAll on the comparison's right (vitess only has the
			// subquery forms, which stay as they are).
			name := MarkerAny
			if t.is("all") {
				name = MarkerAll
			}
			out = append(out, raw(name, t.pos))
		case t.isPunct("("):
			isCast := len(out) > 0 && out[len(out)-1].is("cast") && (len(out) < 2 || !out[len(out)-2].isPunct("."))
			castParen = append(castParen, isCast)
			if i+1 < len(toks) && toks[i+1].isPunct(")") && len(out) > 0 && out[len(out)-1].is("in") {
				out = append(out, t, raw(markerEmptyList, t.pos))
				continue
			}
			out = append(out, t)
		case t.isPunct(")"):
			if len(castParen) > 0 {
				castParen = castParen[:len(castParen)-1]
			}
			out = append(out, t)
		case t.is("as") && len(castParen) > 0 && castParen[len(castParen)-1]:
			tn, next, ok, err := parseType(r.sql, toks, i+1)
			if err != nil {
				return nil, err
			}
			if !ok || next >= len(toks) || !toks[next].isPunct(")") {
				return nil, syntaxErr(r.sql, t.pos, "type name expected in CAST")
			}
			out = append(out, t)
			out = append(out, r.addType(tn, tn.pos)...)
			i = next - 1
		case t.is("distinct") && i+2 < len(toks) && toks[i+1].is("on") && toks[i+2].isPunct("(") && len(out) > 0 && out[len(out)-1].is("select"):
			// SELECT DISTINCT ON (e, ...) items: vitess has no grammar for
			// it; a marker call after the last item carries the
			// expressions to the binder (MarkerDistinctOn).
			end := matchForward(toks, i+2)
			if end < 0 {
				return nil, syntaxErr(r.sql, t.pos, "unterminated DISTINCT ON")
			}
			last := findEnd(toks, end+1, selectListEnd)
			marker := append([]token{raw(",", t.pos), raw(MarkerDistinctOn+"(", t.pos)}, toks[i+3:end]...)
			marker = append(marker, raw(")", t.pos))
			rest := append(append(append([]token{}, toks[end+1:last]...), marker...), toks[last:]...)
			toks = append(toks[:i:i], rest...)
			i--
		case t.kind == tkIdent && (t.val == "last_value" || t.val == "first_value") && !(i+1 < len(toks) && toks[i+1].isPunct("(")):
			// A column named like a window function (a sequence's
			// last_value): vitess reserves the word, so quote it.
			t.kind = tkQIdent
			out = append(out, t)
		case t.kind == tkIdent && plainFuncs[t.val] && i+1 < len(toks) && toks[i+1].isPunct("(") && !(len(out) > 0 && out[len(out)-1].isPunct(".")):
			// A PostgreSQL function vitess has MySQL grammar for: call it
			// by a marker name the fix-up turns back (fixup.go).
			out = append(out, raw(markerFunc+t.val, t.pos))
		case t.is("as") && i+1 < len(toks) && toks[i+1].kind == tkIdent && !toks[i+1].is("identity") && aliasEnd(toks, i+2):
			// AS label: PostgreSQL takes any keyword as a label (SELECT 1
			// AS key, 2 AS default); vitess only a non-reserved one.
			label := toks[i+1]
			label.kind = tkQIdent
			out = append(out, t, label)
			i++
		case t.kind == tkIdent && literalTypes[t.val] && !(len(out) > 0 && (out[len(out)-1].isPunct(".") || out[len(out)-1].isOp("::"))):
			tn, next, ok, err := parseType(r.sql, toks, i)
			if err == nil && ok && next < len(toks) && toks[next].kind == tkString && next > i {
				lit := toks[next]
				if tn.Name == "interval" {
					next = intervalQualifier(toks, next+1, &tn) - 1 // interval '1' day to hour
				}
				out = append(out, token{kind: tkIdent, val: "cast", pos: t.pos}, token{kind: tkPunct, val: "(", pos: t.pos},
					lit, token{kind: tkIdent, val: "as", pos: t.pos})
				out = append(out, r.addType(tn, t.pos)...)
				out = append(out, token{kind: tkPunct, val: ")", pos: t.pos})
				i = next
				continue
			}
			out = append(out, t)
		case t.is("make_interval") && i+1 < len(toks) && toks[i+1].isPunct("(") && !(len(out) > 0 && out[len(out)-1].isPunct(".")):
			// make_interval(days => 10): named arguments become
			// positional ones (vitess has no => ), the others 0.
			end := matchForward(toks, i+1)
			if end < 0 {
				return nil, syntaxErr(r.sql, t.pos, "unterminated parenthesis")
			}
			args, err := r.namedArgs(toks[i+2:end], []string{"years", "months", "weeks", "days", "hours", "mins", "secs"}, t.pos)
			if err != nil {
				return nil, err
			}
			out = append(out, t, toks[i+1])
			out = append(out, args...)
			out = append(out, toks[end])
			i = end
		case t.is("at") && i+3 < len(toks) && toks[i+1].is("time") && toks[i+2].is("zone") && operandStart(out) >= 0:
			// x AT TIME ZONE z binds tighter than arithmetic: it becomes
			// timezone(z, x) around the operand before it.
			start := operandStart(out)
			zone := toks[i+3 : i+4]
			next := i + 3
			if toks[i+3].isPunct("(") {
				end := matchForward(toks, i+3)
				if end < 0 {
					return nil, syntaxErr(r.sql, toks[i+3].pos, "unterminated parenthesis")
				}
				zone, next = toks[i+3:end+1], end
			} else if toks[i+3].is("interval") && i+4 < len(toks) && toks[i+4].kind == tkString {
				zone, next = toks[i+3:i+5], i+4
			}
			z, err := r.exprs(zone)
			if err != nil {
				return nil, err
			}
			left := append([]token{}, out[start:]...)
			out = append(out[:start], token{kind: tkIdent, val: "timezone", pos: t.pos}, token{kind: tkPunct, val: "(", pos: t.pos})
			out = append(out, z...)
			out = append(out, token{kind: tkPunct, val: ",", pos: t.pos})
			out = append(out, left...)
			out = append(out, token{kind: tkPunct, val: ")", pos: t.pos})
			i = next
		case t.is("extract") && i+3 < len(toks) && toks[i+1].isPunct("(") && toks[i+3].is("from") &&
			(toks[i+2].kind == tkIdent || toks[i+2].kind == tkQIdent || toks[i+2].kind == tkString) && isFieldName(toks[i+2].val) &&
			!(len(out) > 0 && out[len(out)-1].isPunct(".")):
			// EXTRACT(field FROM x): vitess knows only MySQL's units, so
			// it becomes MarkerExtract('field', x).
			out = append(out, raw(MarkerExtract, t.pos), toks[i+1],
				token{kind: tkString, val: strings.ToLower(toks[i+2].val), pos: toks[i+2].pos}, token{kind: tkPunct, val: ",", pos: toks[i+3].pos})
			i += 3
		case t.is("overriding") && i+2 < len(toks) && (toks[i+1].is("system") || toks[i+1].is("user")) && toks[i+2].is("value"):
			// INSERT ... OVERRIDING {SYSTEM | USER} VALUE: vitess has no
			// grammar for it; the binder applies it (Statement.Overriding).
			r.overriding = toks[i+1].val
			i += 2
		case t.is("for") && i+3 < len(toks) && toks[i+1].is("no") && toks[i+2].is("key") && toks[i+3].is("update"):
			// FOR NO KEY UPDATE locks as FOR UPDATE: kvsql has no weaker
			// exclusive mode (planner.RowLock).
			out = append(out, t)
			i += 2
		case t.is("for") && i+2 < len(toks) && toks[i+1].is("key") && toks[i+2].is("share"):
			out = append(out, t) // FOR KEY SHARE locks as FOR SHARE
			i++
		case t.is("operator") && i+1 < len(toks) && toks[i+1].isPunct("("):
			end := matchForward(toks, i+1)
			if end < 0 || end < i+3 || toks[end-1].kind != tkOp {
				return nil, syntaxErr(r.sql, t.pos, "syntax error in OPERATOR()")
			}
			op := toks[end-1]
			op.pos = t.pos
			out = append(out, op)
			i = end
		case (t.is("percentile_cont") || t.is("percentile_disc") || t.is("mode")) && i+1 < len(toks) && toks[i+1].isPunct("(") &&
			!(len(out) > 0 && out[len(out)-1].isPunct(".")) && withinGroupAt(toks, matchForward(toks, i+1)+1):
			// An ordered-set aggregate, f(args) WITHIN GROUP (ORDER BY x):
			// vitess's group_concat(args, x ORDER BY x SEPARATOR marker),
			// the marker naming the aggregate (MarkerOrderedSet).
			end := matchForward(toks, i+1)
			wg := matchForward(toks, end+3) // the WITHIN GROUP parenthesis
			args, err := r.exprs(toks[i+2 : end])
			if err != nil {
				return nil, err
			}
			order, err := r.exprs(toks[end+6 : wg])
			if err != nil {
				return nil, err
			}
			// The sort key without its direction is the aggregated value.
			key := order
			for k := len(key) - 1; k >= 0; k-- {
				if key[k].is("asc") || key[k].is("desc") || key[k].is("nulls") || key[k].is("first") || key[k].is("last") {
					key = key[:k]
					continue
				}
				break
			}
			if topLevelComma(order) {
				return nil, syntaxErr(r.sql, toks[end+6].pos, "an ordered-set aggregate takes one ORDER BY expression")
			}
			out = append(out, raw("group_concat", t.pos), toks[i+1])
			out = append(out, args...)
			if len(args) > 0 {
				out = append(out, raw(",", t.pos))
			}
			out = append(out, key...)
			out = append(out, raw("order by", toks[end+4].pos))
			out = append(out, order...)
			out = append(out, raw("separator '"+MarkerOrderedSet+t.val+"'", t.pos), toks[end])
			i = wg
		case t.is("array_agg") && i+1 < len(toks) && toks[i+1].isPunct("(") && !(len(out) > 0 && out[len(out)-1].isPunct(".")) &&
			(topLevelOrderBy(toks[i+2:max(matchForward(toks, i+1), i+2)]) > 0 || i+2 < len(toks) && toks[i+2].is("distinct")):
			// array_agg([DISTINCT] x [ORDER BY y]) has the spelling of
			// string_agg's vitess form with a separator no user text can
			// produce (MarkerArrayAgg).
			end := matchForward(toks, i+1)
			inner := toks[i+2 : end]
			ob := topLevelOrderBy(inner)
			argEnd := ob
			if ob < 0 {
				argEnd = len(inner)
			}
			arg, err := r.exprs(inner[:argEnd])
			if err != nil {
				return nil, err
			}
			out = append(out, raw("group_concat", t.pos), toks[i+1])
			out = append(out, arg...)
			if ob >= 0 {
				order, err := r.exprs(inner[ob+2:])
				if err != nil {
					return nil, err
				}
				out = append(out, raw("order by", inner[ob].pos))
				out = append(out, order...)
			}
			out = append(out, raw("separator '"+MarkerArrayAgg+"'", t.pos), toks[end])
			i = end
		case t.is("string_agg") && i+1 < len(toks) && toks[i+1].isPunct("(") && !(len(out) > 0 && out[len(out)-1].isPunct(".")):
			// string_agg(x, 'sep' ORDER BY y) has vitess's spelling
			// group_concat(x ORDER BY y SEPARATOR 'sep').
			end := matchForward(toks, i+1)
			inner := []token(nil)
			if end > i+1 {
				inner = toks[i+2 : end]
			}
			ob := topLevelOrderBy(inner)
			if ob < 2 || !inner[ob-2].isPunct(",") || inner[ob-1].kind != tkString {
				out = append(out, t)
				continue
			}
			arg, err := r.exprs(inner[:ob-2])
			if err != nil {
				return nil, err
			}
			order, err := r.exprs(inner[ob+2:])
			if err != nil {
				return nil, err
			}
			out = append(out, raw("group_concat", t.pos), toks[i+1])
			out = append(out, arg...)
			out = append(out, raw("order by", inner[ob].pos))
			out = append(out, order...)
			out = append(out, raw("separator", inner[ob-1].pos), inner[ob-1], toks[end])
			i = end
		case t.is("collate"):
			j := i + 1
			var name []string
			for j < len(toks) && (toks[j].kind == tkIdent || toks[j].kind == tkQIdent) {
				name = append(name, toks[j].val)
				j++
				if j < len(toks) && toks[j].isPunct(".") {
					j++
					continue
				}
				break
			}
			if len(name) == 0 {
				return nil, syntaxErr(r.sql, t.pos, "collation name expected")
			}
			switch strings.ToLower(name[len(name)-1]) {
			case "default", "c", "posix", "ucs_basic":
			default:
				return nil, unsupported(r.sql, t.pos, "collation %q is not supported", strings.Join(name, "."))
			}
			i = j - 1
		case t.is("all") && len(out) >= 2 && out[len(out)-1].isPunct("(") && out[len(out)-2].kind == tkIdent && !exprKeywords[out[len(out)-2].val]:
			// agg(ALL x) is agg(x): ALL is the default; vitess lacks it.
		case t.is("notnull") || t.is("isnull") || t.is("not") && i+1 < len(toks) && toks[i+1].is("null") && len(out) > 0 && out[len(out)-1].kind != tkRaw && isOperand(out[len(out)-1]):
			// Postfix x NOTNULL / x ISNULL (PostgreSQL) and x NOT NULL (SQLite).
			if t.is("isnull") {
				out = append(out, raw("is null", t.pos))
			} else {
				out = append(out, raw("is not null", t.pos))
			}
			if t.is("not") {
				i++
			}
		case t.is("is") && i+2 < len(toks) && toks[i+1].is("distinct") && toks[i+2].is("from"):
			out = append(out, raw("<=>", t.pos), raw("binary", t.pos))
			i += 2
		case t.is("is") && i+3 < len(toks) && toks[i+1].is("not") && toks[i+2].is("distinct") && toks[i+3].is("from"):
			out = append(out, raw("<=>", t.pos))
			i += 3
		default:
			out = append(out, t)
		}
	}
	return out, nil
}

// startsQuery reports whether t starts a subquery inside parentheses.
func startsQuery(t token) bool {
	return t.is("select") || t.is("values") || t.is("with") || t.is("table") || t.isPunct("(")
}

// vitessWords are unquoted words PostgreSQL accepts but vitess would
// read as MySQL syntax; kvsql refuses them rather than guess.
var vitessWords = map[string]bool{"regexp": true, "rlike": true, "binary": true, "div": true, "xor": true}

// emit renders tokens as vitess text, recording the position mapping.
func (r *rewriter) emit(toks []token) (string, error) {
	var b strings.Builder
	b.Grow(len(r.sql) + 64) // the rewritten text is about as long as the original
	r.outAt, r.origAt = r.outAt[:0], r.origAt[:0]
	for k, t := range toks {
		if k > 0 {
			b.WriteByte(' ')
		}
		r.outAt = append(r.outAt, b.Len())
		r.origAt = append(r.origAt, t.pos)
		switch t.kind {
		case tkRaw:
			b.WriteString(t.val)
		case tkIdent:
			if strings.HasPrefix(t.val, markerPrefix) || vitessWords[t.val] {
				return "", syntaxErr(r.sql, t.pos, "syntax error at or near %q", t.val)
			}
			if t.val == "ilike" {
				b.WriteString("regexp")
				continue
			}
			b.WriteString(t.val)
		case tkQIdent:
			b.WriteByte('`')
			b.WriteString(strings.ReplaceAll(t.val, "`", "``"))
			b.WriteByte('`')
		case tkString:
			writeVitessString(&b, t.val)
		case tkNumber:
			b.WriteString(strings.ReplaceAll(t.val, "_", ""))
		case tkParam:
			n, err := strconv.Atoi(t.val)
			if err != nil || n < 1 || n > 65535 {
				return "", syntaxErr(r.sql, t.pos, "there is no parameter $%s", t.val)
			}
			r.maxParam = max(r.maxParam, n)
			b.WriteString(":p")
			b.WriteString(t.val)
		case tkOp:
			switch t.val {
			case "||":
				b.WriteByte('|')
			case "~", "~*", "!~", "!~*", "->", "->>", "#>", "#>>", "@>", "<@", "&&":
				if t.val == "~" && (k == 0 || !isOperand(toks[k-1])) {
					b.WriteByte('~')
					continue
				}
				b.WriteString("| " + regexOps[t.val] + " |")
			case "=", "<", ">", "<=", ">=", "<>", "!=", "+", "-", "*", "/", "%", "<<", ">>", "^", "&":
				// ^ is exponentiation (vitess parses it at PostgreSQL's
				// precedence, above * and /; the binder calls power).
				b.WriteString(t.val)
			case "?":
				r.qmarks++
				b.WriteByte('?')
			case "::":
				return "", syntaxErr(r.sql, t.pos, `syntax error at or near "::"`)
			default:
				return "", unsupported(r.sql, t.pos, "operator %s is not supported", t.val)
			}
		case tkPunct:
			if t.val == "[" || t.val == "]" || t.val == ":" {
				return "", syntaxErr(r.sql, t.pos, "syntax error at or near %q", t.val)
			}
			b.WriteString(t.val)
		}
	}
	return b.String(), nil
}

// writeVitessString writes s as a MySQL string literal that vitess decodes
// back to exactly s.
func writeVitessString(b *strings.Builder, s string) {
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b.WriteString(`\\`)
		case '\'':
			b.WriteString(`''`)
		case 0:
			b.WriteString(`\0`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
}

// origPos maps a byte offset in the emitted text to a byte offset in the
// original text.
func (r *rewriter) origPos(out int) int {
	best := -1
	for k, at := range r.outAt {
		if at <= out {
			best = k
		} else {
			break
		}
	}
	if best < 0 {
		if len(r.origAt) > 0 {
			return r.origAt[0]
		}
		return 0
	}
	return r.origAt[best]
}

// topLevelOrderBy returns the index of an ORDER BY at parenthesis depth
// zero of toks, or -1.
func topLevelOrderBy(toks []token) int {
	depth := 0
	for i, t := range toks {
		switch {
		case t.isPunct("("):
			depth++
		case t.isPunct(")"):
			depth--
		case depth == 0 && t.is("order") && i+1 < len(toks) && toks[i+1].is("by"):
			return i
		}
	}
	return -1
}

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
		case (t.is("generate_series") || t.is("unnest")) && fromCtx[d] && i > 0 && i+1 < len(toks) && toks[i+1].isPunct("(") &&
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

// Array markers: ARRAY[e, ...] is MarkerArray(e, ...), ARRAY(subquery)
// MarkerArraySub((subquery)), x[i] MarkerSubscript(x, i), x[lo:hi]
// MarkerSlice(x, lo, hi) with NULL for a missing bound, and x op ANY|SOME
// (array) / x op ALL (array) compare x with MarkerAny(array) /
// MarkerAll(array).
const (
	MarkerArray     = "kvsql_array"
	MarkerArraySub  = "kvsql_array_sub"
	MarkerSubscript = "kvsql_subscript"
	MarkerSlice     = "kvsql_slice"
	MarkerAny       = "kvsql_any"
	// MarkerOrdinality is the second select item of a table function's
	// derived table WITH ORDINALITY.
	MarkerOrdinality = "kvsql_ordinality"
	MarkerAll        = "kvsql_all"
	// MarkerArrayAgg is the separator of the group_concat standing for
	// array_agg(x ORDER BY y), as vitess keeps it: an escaped NUL byte
	// (user text reaches vitess with its backslashes doubled, and holds
	// no NUL).
	MarkerArrayAgg = `\0kvsql_array_agg`
	// MarkerOrderedSet, followed by the aggregate's name, is the
	// separator of the group_concat standing for an ordered-set
	// aggregate: percentile_cont(f) WITHIN GROUP (ORDER BY x) is
	// group_concat(f, x ORDER BY x SEPARATOR '\0kvsql_os:percentile_cont').
	MarkerOrderedSet = `\0kvsql_os:`
)

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
	depth := 0
	for _, t := range toks {
		switch {
		case t.isPunct("(") || t.isPunct("["):
			depth++
		case t.isPunct(")") || t.isPunct("]"):
			depth--
		case t.isPunct(",") && depth == 0:
			return true
		}
	}
	return false
}

// MarkerArraySet names the call an array element assignment becomes:
// UPDATE t SET a[i] = v is UPDATE t SET a = kvsql_array_set(a, i, v).
const MarkerArraySet = "kvsql_array_set"

// arrayAssignments rewrites the SET items of an UPDATE that assign one
// element of an array column (a[i] = v) into assignments of the whole
// array through MarkerArraySet; a slice assignment is 0A000.
func (r *rewriter) arrayAssignments(toks []token) ([]token, error) {
	if len(toks) == 0 || !toks[0].is("update") {
		return toks, nil
	}
	set := -1
	for i, t := range toks {
		if t.is("set") {
			set = i
			break
		}
	}
	if set < 0 {
		return toks, nil
	}
	var out []token
	out = append(out, toks[:set+1]...)
	i := set + 1
	for i < len(toks) {
		// One SET item: up to a top-level comma or the end of the list.
		end := i
		depth := 0
		for end < len(toks) {
			t := toks[end]
			if t.isPunct("(") || t.isPunct("[") {
				depth++
			} else if t.isPunct(")") || t.isPunct("]") {
				depth--
			} else if depth == 0 && (t.isPunct(",") || t.is("where") || t.is("from") || t.is("returning")) {
				break
			}
			end++
		}
		item := toks[i:end]
		if len(item) > 3 && (item[0].kind == tkIdent || item[0].kind == tkQIdent) && item[1].isPunct("[") {
			close := matchForward(item, 1)
			if close > 1 && close+1 < len(item) && item[close+1].isOp("=") {
				idx := item[2:close]
				for _, x := range idx {
					if x.isPunct(":") {
						return nil, unsupported(r.sql, item[1].pos, "assigning an array slice is not supported")
					}
				}
				col := item[0]
				rw := []token{col, raw("=", col.pos), raw(MarkerArraySet, col.pos), {kind: tkPunct, val: "(", pos: col.pos}, col, raw(",", col.pos)}
				rw = append(rw, idx...)
				rw = append(rw, raw(",", col.pos))
				rw = append(rw, item[close+2:]...)
				rw = append(rw, token{kind: tkPunct, val: ")", pos: col.pos})
				item = rw
			}
		}
		out = append(out, item...)
		if end >= len(toks) || !toks[end].isPunct(",") {
			out = append(out, toks[end:]...)
			break
		}
		out = append(out, toks[end])
		i = end + 1
	}
	return out, nil
}
