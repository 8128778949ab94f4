package parse

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
