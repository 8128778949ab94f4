package parse

import "strings"

// ViewQuery returns the query text of CREATE [OR REPLACE] [TEMP] VIEW name
// [(columns)] AS query, exactly as written, so a view is stored in the
// user's own dialect and re-parsed by Parse when used (vitess's printer
// would write MySQL quoting). ok is false when sql is not such a
// statement. A trailing WITH [CASCADED | LOCAL] CHECK OPTION is not part
// of the query (vitess's CreateView.CheckOption carries it).
func ViewQuery(sql string) (query string, ok bool) {
	toks, err := lex(sql)
	if err != nil {
		return "", false
	}
	i := 0
	for i < len(toks) && !toks[i].is("view") {
		i++
	}
	i++ // the name, possibly qualified
	for i < len(toks) && (toks[i].kind == tkIdent || toks[i].kind == tkQIdent || toks[i].isPunct(".")) && !toks[i].is("as") {
		i++
	}
	if i < len(toks) && toks[i].isPunct("(") {
		if end := matchForward(toks, i); end > 0 {
			i = end + 1
		}
	}
	if i >= len(toks) || !toks[i].is("as") {
		return "", false
	}
	end := len(sql)
	rest := toks[i+1:]
	if n := len(rest); n > 0 && rest[n-1].isPunct(";") {
		end, rest = rest[n-1].pos, rest[:n-1]
	}
	if n := len(rest); n >= 3 && rest[n-1].is("option") && rest[n-2].is("check") {
		w := n - 3
		if rest[w].is("cascaded") || rest[w].is("local") {
			w--
		}
		if w >= 0 && rest[w].is("with") {
			end = rest[w].pos
		}
	}
	q := strings.TrimSpace(sql[toks[i].end:end])
	return strings.TrimSpace(strings.TrimSuffix(q, ";")), q != ""
}

// ViewDefaultStmt is ALTER VIEW [IF EXISTS] v ALTER [COLUMN] c {SET
// DEFAULT expr | DROP DEFAULT}: the value an INSERT or UPDATE through the
// view writes for c when it gives none or DEFAULT.
type ViewDefaultStmt struct {
	View     string // QualifiedRef form
	IfExists bool
	Column   string
	// Default is the expression's text as written; "" for DROP DEFAULT.
	Default string
}

// viewDefault parses ALTER VIEW ... ALTER COLUMN ... SET / DROP DEFAULT;
// ok is false for other ALTER VIEW statements.
func (r *rewriter) viewDefault(toks []token) (st Statement, ok bool, err error) {
	c := &cursor{r: r, toks: toks, i: 2}
	a := &ViewDefaultStmt{}
	if c.accept("if") {
		if !c.accept("exists") {
			return st, false, nil
		}
		a.IfExists = true
	}
	names, err := c.qualifiedName()
	if err != nil || !c.accept("alter") {
		return st, false, nil
	}
	c.accept("column")
	if a.Column, err = c.name(); err != nil {
		return st, true, err
	}
	a.View = QualifiedRef(names)
	switch {
	case c.accept("drop"):
		if err := c.expect("default"); err != nil {
			return st, true, err
		}
		st.ViewDefault = a
		return st, true, c.end()
	case c.accept("set"):
		if err := c.expect("default"); err != nil {
			return st, true, err
		}
		if c.done() {
			return st, true, c.errHere()
		}
		a.Default = strings.TrimSpace(r.sql[toks[c.i].pos:toks[len(toks)-1].end])
		st.ViewDefault = a
		return st, true, nil
	}
	return st, true, c.errHere()
}
