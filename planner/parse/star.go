package parse

// markerStar qualifies a bare `*` that follows other select items
// (SELECT tableoid, * FROM t): vitess, as MySQL, takes a bare `*` only
// first in the list, so the dialect layer writes it as markerStar.* and
// the binder reads that as the unqualified star (IsStarMarker).
const markerStar = "kvsql_star"

// IsStarMarker reports whether a star's qualifier is markerStar.
func IsStarMarker(qualifier string) bool { return qualifier == markerStar }

// laterStars qualifies each bare `*` that follows a comma and ends a
// select item (a comma, FROM, or the end follows it) with markerStar.
func laterStars(toks []token) []token {
	var out []token
	for i, t := range toks {
		if t.isOp("*") && i > 0 && toks[i-1].isPunct(",") &&
			(i+1 == len(toks) || toks[i+1].isPunct(",") || toks[i+1].is("from") || toks[i+1].isPunct(")")) {
			out = append(out, token{kind: tkQIdent, val: markerStar, pos: t.pos, end: t.pos}, raw(".", t.pos))
		}
		out = append(out, t)
	}
	return out
}
