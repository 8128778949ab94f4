package parse

import "slices"

// MarkerInsertTarget names the call that stands for a subscripted INSERT
// target's value before the assignment: a NULL of the column's type (the
// planner binds it in an INSERT's VALUES row).
const MarkerInsertTarget = "kvsql_insert_target"

// insertSubscripts rewrites an INSERT whose column list subscripts a
// column, INSERT INTO t (a[1:2], b[3], c) VALUES (x, y, z), as PostgreSQL
// reads it: the column a gets the array a NULL array becomes when its
// slice [1:2] is set to x, b the one whose element 3 is y. Each VALUES
// row's item becomes the assignment call (MarkerSliceAssign or
// MarkerSubscriptAssign on MarkerInsertTarget()), and a column named
// again (a[1], a[2]) assigns into the result of its earlier items.
// Other statements pass unchanged; INSERT ... SELECT into a subscripted
// column is 0A000.
func (r *rewriter) insertSubscripts(toks []token) ([]token, error) {
	if len(toks) < 4 || !toks[0].is("insert") || !toks[1].is("into") {
		return toks, nil
	}
	open := 2
	for open < len(toks) && !toks[open].isPunct("(") && !toks[open].is("values") && !toks[open].is("select") {
		open++
	}
	if open == len(toks) || !toks[open].isPunct("(") {
		return toks, nil
	}
	end := matchForward(toks, open)
	if end < 0 || !slices.ContainsFunc(toks[open+1:end], func(t token) bool { return t.isPunct("[") }) {
		return toks, nil
	}
	// The column list: each item a name and its subscripts; first[k] is
	// the item a column's later items assign into.
	type target struct {
		name  token
		subs  [][]token
		first int // the first item naming the same column
	}
	var targets []target
	seen := map[string]int{}
	for _, item := range splitTop(toks[open+1 : end]) {
		if len(item) == 0 || item[0].kind != tkIdent && item[0].kind != tkQIdent {
			return toks, nil // not a column list vitess would take either
		}
		tg := target{name: item[0], first: len(targets)}
		for k := 1; k < len(item); {
			m := -1
			if item[k].isPunct("[") {
				m = matchForward(item, k)
			}
			if m < 0 {
				return nil, syntaxErr(r.sql, item[k].pos, "syntax error at or near %q", item[k].val)
			}
			tg.subs = append(tg.subs, item[k+1:m])
			k = m + 1
		}
		if f, ok := seen[tg.name.val]; ok && len(tg.subs) > 0 {
			tg.first = f
		}
		seen[tg.name.val] = tg.first
		targets = append(targets, tg)
	}
	vals := end + 1
	if vals >= len(toks) || !toks[vals].is("values") {
		return nil, unsupported(r.sql, toks[open].pos, "INSERT ... SELECT into a subscripted column is not supported")
	}
	out := append([]token(nil), toks[:open+1]...)
	for k, tg := range targets {
		if tg.first != k {
			continue
		}
		if len(out) > open+1 {
			out = append(out, raw(",", tg.name.pos))
		}
		out = append(out, tg.name)
	}
	out = append(out, toks[end], toks[vals])
	i := vals + 1
	for i < len(toks) && toks[i].isPunct("(") {
		rowEnd := matchForward(toks, i)
		if rowEnd < 0 {
			return toks, nil
		}
		items := splitTop(toks[i+1 : rowEnd])
		exprs := make([][]token, len(targets))
		for k, tg := range targets {
			if k >= len(items) {
				break
			}
			v := items[k]
			if len(tg.subs) == 0 {
				exprs[k] = v
				continue
			}
			if len(v) == 1 && v[0].is("default") {
				return nil, unsupported(r.sql, v[0].pos, "DEFAULT for a subscripted INSERT target is not supported")
			}
			pos := tg.name.pos
			base := []token{raw(MarkerInsertTarget, pos), raw("(", pos), raw(")", pos)}
			if tg.first != k {
				base, exprs[tg.first] = exprs[tg.first], nil
			}
			name, args := MarkerSubscriptAssign, tg.subs
			if sliced := sliceBounds(tg.subs, pos); sliced != nil {
				name, args = MarkerSliceAssign, sliced
			}
			call := append([]token{raw(name, pos), raw("(", pos)}, base...)
			call = append(append(call, raw(",", pos)), v...)
			for _, a := range args {
				call = append(append(call, raw(",", pos)), a...)
			}
			exprs[tg.first] = append(call, raw(")", pos))
		}
		out = append(out, toks[i])
		n := 0
		for k, e := range exprs {
			if e == nil || targets[k].first != k {
				continue
			}
			if n > 0 {
				out = append(out, raw(",", toks[i].pos))
			}
			out = append(out, e...)
			n++
		}
		out = append(out, toks[rowEnd])
		i = rowEnd + 1
		if i < len(toks) && toks[i].isPunct(",") {
			out = append(out, toks[i])
			i++
		}
	}
	return append(out, toks[i:]...), nil
}
