package parse

// clauseEnd are the reserved words that end an ORDER BY list or a
// LIMIT/OFFSET expression at the same parenthesis depth.
var clauseEnd = map[string]bool{
	"limit": true, "offset": true, "fetch": true, "union": true, "intersect": true,
	"except": true, "for": true, "rows": true, "range": true, "groups": true,
	"row": true, "returning": true, "window": true, "only": true,
}

// findEnd returns the index of the first token at or after i, at the
// parenthesis depth of toks[i], that is a closing parenthesis of an outer
// level, a semicolon, or a word in stop.
func findEnd(toks []token, i int, stop map[string]bool) int {
	depth := 0
	for k := i; k < len(toks); k++ {
		t := toks[k]
		switch {
		case t.isPunct("(") || t.isPunct("["):
			depth++
		case t.isPunct(")") || t.isPunct("]"):
			if depth == 0 {
				return k
			}
			depth--
		case depth == 0 && (t.isPunct(";") || t.kind == tkIdent && stop[t.val]):
			return k
		}
	}
	return len(toks)
}

// splitTop splits toks at commas of parenthesis depth 0.
func splitTop(toks []token) [][]token {
	var parts [][]token
	depth, start := 0, 0
	for k, t := range toks {
		switch {
		case t.isPunct("(") || t.isPunct("["):
			depth++
		case t.isPunct(")") || t.isPunct("]"):
			depth--
		case depth == 0 && t.isPunct(","):
			parts = append(parts, toks[start:k])
			start = k + 1
		}
	}
	return append(parts, toks[start:])
}

// clauses rewrites ORDER BY ... NULLS FIRST|LAST into equivalent sort keys
// and LIMIT / OFFSET / FETCH FIRST in any PostgreSQL spelling into vitess's
// `LIMIT count OFFSET skip`, at every nesting level.
func (r *rewriter) clauses(toks []token) ([]token, error) {
	out := make([]token, 0, len(toks))
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.is("order") && i+1 < len(toks) && toks[i+1].is("by"):
			end := findEnd(toks, i+2, clauseEnd)
			out = append(out, t, toks[i+1])
			for k, item := range splitTop(toks[i+2 : end]) {
				if k > 0 {
					out = append(out, raw(",", t.pos))
				}
				sub, err := r.clauses(item)
				if err != nil {
					return nil, err
				}
				if sub, err = r.sortUsing(sub); err != nil {
					return nil, err
				}
				sub, err = r.nullsOrder(sub)
				if err != nil {
					return nil, err
				}
				out = append(out, sub...)
			}
			i = end - 1
		case t.is("limit") || t.is("offset") || t.is("fetch"):
			next, lim, err := r.limitTail(toks, i)
			if err != nil {
				return nil, err
			}
			out = append(out, lim...)
			i = next - 1
		case t.is("as") && i+2 < len(toks) && toks[i+1].is("not") && toks[i+2].is("materialized") && i+3 < len(toks) && toks[i+3].isPunct("("):
			// WITH name AS NOT MATERIALIZED (query): the option goes to
			// Statement.CTEMaterialized, the text to vitess without it.
			if err := r.cteMaterialized(toks, i, false); err != nil {
				return nil, err
			}
			out = append(out, t)
			i += 2
		case t.is("as") && i+2 < len(toks) && toks[i+1].is("materialized") && toks[i+2].isPunct("("):
			if err := r.cteMaterialized(toks, i, true); err != nil {
				return nil, err
			}
			out = append(out, t)
			i++
		default:
			out = append(out, t)
		}
	}
	return out, nil
}

// sortUsing rewrites an ORDER BY item's USING < as ASC and USING > as
// DESC: the ordering operators of the btree families kvsql has, the
// only ones PostgreSQL sorts by. Any other operator makes the key a call
// of MarkerSortUsing('op', x), which the binder rejects as PostgreSQL
// does (42809).
func (r *rewriter) sortUsing(item []token) ([]token, error) {
	n := len(item)
	if n >= 2 && item[n-2].is("nulls") {
		n -= 2
	}
	if n < 3 || !item[n-2].is("using") {
		return item, nil
	}
	op := item[n-1]
	if dir := map[string]string{"<": "asc", ">": "desc"}[op.val]; op.kind == tkOp && dir != "" {
		out := append(append([]token{}, item[:n-2]...), token{kind: tkIdent, val: dir, pos: op.pos, end: op.end})
		return append(out, item[n:]...), nil
	}
	p := op.pos
	out := []token{raw(MarkerSortUsing, p), {kind: tkPunct, val: "(", pos: p, end: p},
		{kind: tkString, val: r.sql[op.pos:op.end], pos: p, end: p}, {kind: tkPunct, val: ",", pos: p, end: p}}
	out = append(append(out, item[:n-2]...), token{kind: tkPunct, val: ")", pos: p, end: p})
	return append(out, item[n:]...), nil
}

// MarkerSortUsing stands for a sort key ordered by an operator that is
// not < or >.
const MarkerSortUsing = "kvsql_sort_using"

// nullsOrder rewrites one ORDER BY item. `x [ASC] NULLS FIRST` becomes
// `(x) IS NULL DESC, x ASC` and `x DESC NULLS LAST` becomes
// `(x) IS NULL ASC, x DESC`; a NULLS clause equal to the default order
// (ASC NULLS LAST, DESC NULLS FIRST) is dropped.
func (r *rewriter) nullsOrder(item []token) ([]token, error) {
	n := len(item)
	if n < 3 || !item[n-2].is("nulls") {
		return item, nil
	}
	first := item[n-1].is("first")
	if !first && !item[n-1].is("last") {
		return nil, syntaxErr(r.sql, item[n-1].pos, "FIRST or LAST expected after NULLS")
	}
	expr := item[:n-2]
	desc := false
	if len(expr) > 0 && (expr[len(expr)-1].is("asc") || expr[len(expr)-1].is("desc")) {
		desc = expr[len(expr)-1].is("desc")
		expr = expr[:len(expr)-1]
	}
	if len(expr) == 0 {
		return nil, syntaxErr(r.sql, item[0].pos, "sort expression expected")
	}
	if first != desc { // ASC NULLS FIRST or DESC NULLS LAST
		pos := item[n-2].pos
		dir, nullDir := "asc", "desc"
		if desc {
			dir, nullDir = "desc", "asc"
		}
		var res []token
		res = append(res, raw("(", pos))
		res = append(res, expr...)
		res = append(res, raw(") is null "+nullDir+" ,", pos))
		res = append(res, expr...)
		return append(res, raw(dir, pos)), nil
	}
	return item[:n-2], nil
}

// limitTail reads the LIMIT / OFFSET / FETCH clauses starting at toks[i]
// in any order and returns the index after them and the vitess spelling.
func (r *rewriter) limitTail(toks []token, i int) (int, []token, error) {
	var count, skip []token
	all := false
	pos := toks[i].pos
	for i < len(toks) {
		t := toks[i]
		switch {
		case t.is("limit"):
			end := findEnd(toks, i+1, clauseEnd)
			count = toks[i+1 : end]
			if len(count) == 1 && count[0].is("all") {
				count, all = nil, true
			}
			if len(count) == 0 && !all {
				return 0, nil, syntaxErr(r.sql, t.pos, "syntax error at end of LIMIT")
			}
			i = end
		case t.is("offset"):
			end := findEnd(toks, i+1, clauseEnd)
			skip = toks[i+1 : end]
			if len(skip) == 0 {
				return 0, nil, syntaxErr(r.sql, t.pos, "syntax error at end of OFFSET")
			}
			i = end
			if i < len(toks) && (toks[i].is("row") || toks[i].is("rows")) {
				i++
			}
		case t.is("fetch"):
			// FETCH {FIRST|NEXT} [n] {ROW|ROWS} ONLY
			j := i + 1
			if j < len(toks) && (toks[j].is("first") || toks[j].is("next")) {
				j++
			} else {
				return 0, nil, syntaxErr(r.sql, t.pos, "FIRST or NEXT expected after FETCH")
			}
			end := findEnd(toks, j, clauseEnd)
			count = toks[j:end]
			if len(count) == 0 {
				count = []token{raw("1", t.pos)}
			}
			j = end
			if j < len(toks) && (toks[j].is("row") || toks[j].is("rows")) {
				j++
			} else {
				return 0, nil, syntaxErr(r.sql, t.pos, "ROW or ROWS expected in FETCH")
			}
			switch {
			case j < len(toks) && toks[j].is("only"):
				j++
			case j+1 < len(toks) && toks[j].is("with") && toks[j+1].is("ties"):
				// WITH TIES: the count wrapped in MarkerWithTies.
				j += 2
				count = append(append([]token{raw(MarkerWithTies, t.pos), {kind: tkPunct, val: "(", pos: t.pos}}, count...),
					token{kind: tkPunct, val: ")", pos: t.pos})
			default:
				return 0, nil, syntaxErr(r.sql, t.pos, "ONLY or WITH TIES expected in FETCH")
			}
			i = j
		default:
			goto done
		}
	}
done:
	if count == nil && skip == nil {
		return i, nil, nil // LIMIT ALL alone: no limit at all
	}
	res := []token{raw("limit", pos)}
	if count == nil {
		res = append(res, raw(markerNoLimit, pos))
	} else {
		res = append(res, count...)
	}
	if skip != nil {
		res = append(res, raw("offset", pos))
		res = append(res, skip...)
	}
	return i, res, nil
}

// MarkerWithTies wraps the count of FETCH FIRST n ROWS WITH TIES in the
// LIMIT clause vitess reads: LIMIT kvsql_with_ties(n).
const MarkerWithTies = "kvsql_with_ties"

// cteMaterialized records the [NOT] MATERIALIZED option of the WITH query
// whose AS is toks[as]: its name is the token before AS, or before the
// parenthesised column list there. The binder reads the options by name
// (Statement.CTEMaterialized); two WITH queries of one name in a
// statement with different options are refused rather than guessed at.
func (r *rewriter) cteMaterialized(toks []token, as int, materialized bool) error {
	i := as - 1
	if i >= 0 && toks[i].isPunct(")") {
		for depth := 0; i >= 0; i-- {
			if toks[i].isPunct(")") {
				depth++
			} else if toks[i].isPunct("(") {
				if depth--; depth == 0 {
					break
				}
			}
		}
		i--
	}
	if i < 0 || (toks[i].kind != tkIdent && toks[i].kind != tkQIdent) {
		return unsupported(r.sql, toks[as].pos, "[NOT] MATERIALIZED here is not supported")
	}
	name := toks[i].val
	if r.cteMat == nil {
		r.cteMat = map[string]bool{}
	}
	if was, ok := r.cteMat[name]; ok && was != materialized {
		return unsupported(r.sql, toks[as].pos, "WITH queries named %q with different MATERIALIZED options are not supported", name)
	}
	r.cteMat[name] = materialized
	return nil
}
