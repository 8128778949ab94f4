package parse

// MarkerWholeRow(t) stands for t.* written inside an expression: a
// function's argument, a parenthesised expression, a row constructor
// (count(t.*), row_to_json(t.*), ROW(t.*)). There PostgreSQL reads it as
// t's whole row, one value, where at the top of a select list it is t's
// columns. The binder makes it the record wholeRow makes of t, and
// spreads it into fields inside ROW(...).
const MarkerWholeRow = "kvsql_whole_row"

// wholeRowStars writes MarkerWholeRow(t) for t.* where the innermost open
// parenthesis holds an expression rather than a subquery.
func wholeRowStars(toks []token) []token {
	var inExpr []bool // per open parenthesis: whether it holds an expression
	out := make([]token, 0, len(toks))
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.isPunct("("):
			sub := i+1 < len(toks) && (toks[i+1].is("select") || toks[i+1].is("with") || toks[i+1].is("values"))
			inExpr = append(inExpr, !sub)
		case t.isPunct(")"):
			if len(inExpr) > 0 {
				inExpr = inExpr[:len(inExpr)-1]
			}
		case (t.kind == tkIdent || t.kind == tkQIdent) && i+2 < len(toks) && toks[i+1].isPunct(".") && toks[i+2].isOp("*") &&
			len(inExpr) > 0 && inExpr[len(inExpr)-1] && (i == 0 || !toks[i-1].isPunct(".")):
			out = append(out, raw(MarkerWholeRow, t.pos), token{kind: tkPunct, val: "(", pos: t.pos}, t, token{kind: tkPunct, val: ")", pos: t.pos})
			i += 2
			continue
		}
		out = append(out, t)
	}
	return out
}
