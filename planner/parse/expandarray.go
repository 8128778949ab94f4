package parse

// expandArray spells information_schema._pg_expandarray(a), the
// set-returning function whose rows are records (x, n) — an element and
// its position from 1 — that pgjdbc's DatabaseMetaData queries call, in
// terms kvsql plans: (information_schema._pg_expandarray(a)).n becomes
// kvsql_expandarray_n(a) (MarkerExpandN: the planner reads it as unnest's
// ordinality), (information_schema._pg_expandarray(a)).x
// and a bare information_schema._pg_expandarray(a) (the whole record,
// read later as (alias.keys).x) become unnest(a), and (q.keys).x becomes
// q.keys. Statements that do not call _pg_expandarray are left alone.
func expandArray(toks []token) []token {
	found := false
	for _, t := range toks {
		if t.is("_pg_expandarray") {
			found = true
			break
		}
	}
	if !found {
		return toks
	}
	// call reports whether toks[i:] starts information_schema .
	// _pg_expandarray ( ... ), and the index of its closing parenthesis.
	call := func(i int) (int, bool) {
		if i+3 >= len(toks) || !toks[i].is("information_schema") || !toks[i+1].isPunct(".") ||
			!toks[i+2].is("_pg_expandarray") || !toks[i+3].isPunct("(") {
			return 0, false
		}
		end := matchForward(toks, i+3)
		return end, end > 0
	}
	field := func(i int) string {
		if i+1 < len(toks) && toks[i].isPunct(".") && (toks[i+1].is("x") || toks[i+1].is("n")) {
			return toks[i+1].val
		}
		return ""
	}
	out := make([]token, 0, len(toks)+4)
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.isPunct("(") {
			// ( information_schema._pg_expandarray(a) ) . x|n
			if end, ok := call(i + 1); ok && end+1 < len(toks) && toks[end+1].isPunct(")") {
				if f := field(end + 2); f != "" {
					args := toks[i+5 : end]
					if f == "n" {
						out = append(out, raw(MarkerExpandN, t.pos), raw("(", t.pos))
						out = append(out, args...)
						out = append(out, raw(")", t.pos))
					} else {
						out = append(out, raw("unnest", t.pos), raw("(", t.pos))
						out = append(out, args...)
						out = append(out, raw(")", t.pos))
					}
					i = end + 3
					continue
				}
			}
			// ( q . keys ) . x
			if i+5 < len(toks) && toks[i+1].kind == tkIdent && toks[i+2].isPunct(".") && toks[i+3].kind == tkIdent &&
				toks[i+4].isPunct(")") && field(i+5) == "x" {
				out = append(out, toks[i+1:i+4]...)
				i += 6
				continue
			}
		}
		if end, ok := call(i); ok {
			out = append(out, raw("unnest", t.pos))
			out = append(out, toks[i+3:end+1]...)
			i = end
			continue
		}
		out = append(out, t)
	}
	return out
}

// MarkerExpandN stands for the n field of _pg_expandarray's rows (see
// expandArray).
const MarkerExpandN = "kvsql_expandarray_n"
