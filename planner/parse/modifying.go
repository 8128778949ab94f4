package parse

// ModifyingCTE is a data-modifying WITH query: WITH name [(cols)] AS
// (INSERT | UPDATE | DELETE ... [RETURNING ...]). The session runs it
// before the statement, once, and the statement reads its RETURNING rows
// under name (planner.Planner.Modifying).
type ModifyingCTE struct {
	Name    string
	Columns []string
	Stmt    Statement
}

// modifyingCTEs takes the data-modifying queries out of a statement's
// top-level WITH list: the statement is parsed without them (and without
// WITH when none is left) and they are parsed on their own.
func (r *rewriter) modifyingCTEs(toks []token) ([]token, []ModifyingCTE, error) {
	if len(toks) < 2 || !toks[0].is("with") {
		return toks, nil, nil
	}
	i := 1
	if toks[i].is("recursive") {
		i++
	}
	head := i // the first item
	type item struct {
		from, to int // the item's tokens, [from, to)
		mod      *ModifyingCTE
	}
	var items []item
	for i < len(toks) {
		start := i
		if toks[i].kind != tkIdent && toks[i].kind != tkQIdent {
			return toks, nil, nil // let the parser report it
		}
		name := toks[i].val
		i++
		var cols []string
		if i < len(toks) && toks[i].isPunct("(") {
			end := matchForward(toks, i)
			if end < 0 {
				return toks, nil, nil
			}
			for _, part := range splitTop(toks[i+1 : end]) {
				if len(part) != 1 {
					return toks, nil, nil
				}
				cols = append(cols, part[0].val)
			}
			i = end + 1
		}
		if i >= len(toks) || !toks[i].is("as") {
			return toks, nil, nil
		}
		i++
		if i < len(toks) && toks[i].is("not") {
			i++
		}
		if i < len(toks) && toks[i].is("materialized") {
			i++
		}
		if i >= len(toks) || !toks[i].isPunct("(") {
			return toks, nil, nil
		}
		end := matchForward(toks, i)
		if end < 0 {
			return toks, nil, nil
		}
		it := item{from: start, to: end + 1}
		if body := toks[i+1 : end]; len(body) > 0 && (body[0].is("insert") || body[0].is("update") || body[0].is("delete")) {
			st, err := parseTokens(r.sql, body)
			if err != nil {
				return nil, nil, err
			}
			it.mod = &ModifyingCTE{Name: name, Columns: cols, Stmt: st}
		}
		items = append(items, it)
		i = end + 1
		if i < len(toks) && toks[i].isPunct(",") {
			i++
			continue
		}
		break
	}
	var mods []ModifyingCTE
	for _, it := range items {
		if it.mod != nil {
			mods = append(mods, *it.mod)
		}
	}
	if mods == nil {
		return toks, nil, nil
	}
	// The statement's tokens without the modifying items.
	var out []token
	var kept []item
	for _, it := range items {
		if it.mod == nil {
			kept = append(kept, it)
		}
	}
	if len(kept) > 0 {
		out = append(out, toks[:head]...)
		for k, it := range kept {
			if k > 0 {
				out = append(out, token{kind: tkPunct, val: ",", pos: toks[it.from].pos, end: toks[it.from].pos})
			}
			out = append(out, toks[it.from:it.to]...)
		}
	}
	out = append(out, toks[i:]...)
	if len(out) == 0 {
		return nil, nil, syntaxErr(r.sql, toks[len(toks)-1].end, "syntax error at end of input")
	}
	return out, mods, nil
}
