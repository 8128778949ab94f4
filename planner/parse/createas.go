package parse

// CreateAsStmt is CREATE [TEMP | UNLOGGED] TABLE [IF NOT EXISTS] name
// [(column, ...)] AS query [WITH [NO] DATA], and SELECT ... INTO [TEMP |
// UNLOGGED] [TABLE] name FROM ..., which PostgreSQL reads as the same
// statement. (kvsql keeps temporary and unlogged tables as ordinary
// tables, as CREATE TEMP TABLE does.)
type CreateAsStmt struct {
	Name        string
	Columns     []string // names for the query's first columns
	IfNotExists bool
	NoData      bool
	Query       *Statement
}

// createAs parses CREATE TABLE ... AS when toks is one (ok), with a
// column-name list or WITH [NO] DATA; other forms of CREATE TABLE ... AS
// are left to vitess's grammar.
func (r *rewriter) createAs(toks []token) (st Statement, ok bool, err error) {
	c := &cursor{r: r, toks: toks, i: 1}
	for c.accept("temp") || c.accept("temporary") || c.accept("unlogged") {
	}
	if !c.accept("table") {
		return st, false, nil
	}
	ca := &CreateAsStmt{}
	if c.peek("if") && c.i+2 < len(toks) && toks[c.i+1].is("not") && toks[c.i+2].is("exists") {
		c.i += 3
		ca.IfNotExists = true
	}
	name, err := c.refName()
	if err != nil {
		return st, false, nil
	}
	ca.Name = name
	if !c.done() && toks[c.i].isPunct("(") {
		closing := matchForward(toks, c.i)
		if closing < 0 || closing+1 >= len(toks) || !toks[closing+1].is("as") {
			return st, false, nil // column definitions: CREATE TABLE proper
		}
		for _, elem := range splitTop(toks[c.i+1 : closing]) {
			if len(elem) != 1 || elem[0].kind != tkIdent && elem[0].kind != tkQIdent {
				return st, false, nil
			}
			ca.Columns = append(ca.Columns, elem[0].val)
		}
		c.i = closing + 1
	}
	if !c.accept("as") || c.done() {
		return st, false, nil
	}
	query := toks[c.i:]
	if n := len(query); n >= 2 && query[n-2].is("with") && query[n-1].is("data") {
		query = query[:n-2]
	} else if n >= 3 && query[n-3].is("with") && query[n-2].is("no") && query[n-1].is("data") {
		query, ca.NoData = query[:n-3], true
	}
	if len(ca.Columns) == 0 && len(query) == len(toks)-c.i {
		return st, false, nil // the plain form: vitess's CREATE TABLE ... AS
	}
	if len(query) == 0 || !(query[0].is("select") || query[0].is("values") || query[0].is("with") || query[0].isPunct("(") || query[0].is("table")) {
		if len(query) > 0 && query[0].is("execute") {
			return st, true, unsupported(r.sql, query[0].pos, "CREATE TABLE ... AS EXECUTE is not supported")
		}
		return st, true, syntaxErr(r.sql, toks[c.i].pos, "syntax error at or near %q", tokText(r.sql, toks[c.i]))
	}
	q, err := r.query(query)
	if err != nil {
		return st, true, err
	}
	ca.Query = &q
	st.CreateAs = ca
	return st, true, nil
}

// selectInto parses SELECT ... INTO [TEMPORARY | TEMP | UNLOGGED] [TABLE]
// name ... as CREATE TABLE name AS the SELECT without its INTO clause.
// The INTO clause is the first INTO at the statement's top level; ok is
// false when there is none.
func (r *rewriter) selectInto(toks []token) (st Statement, ok bool, err error) {
	at := -1
	depth := 0
	for k, t := range toks {
		switch {
		case t.isPunct("("):
			depth++
		case t.isPunct(")"):
			depth--
		case depth == 0 && t.is("into"):
			at = k
		}
		if at >= 0 {
			break
		}
	}
	if at < 0 {
		return st, false, nil
	}
	c := &cursor{r: r, toks: toks, i: at + 1}
	for c.accept("temp") || c.accept("temporary") || c.accept("unlogged") {
	}
	c.accept("table")
	name, err := c.refName()
	if err != nil {
		return st, true, err
	}
	query := append(append([]token{}, toks[:at]...), toks[c.i:]...)
	q, err := r.query(query)
	if err != nil {
		return st, true, err
	}
	st.CreateAs = &CreateAsStmt{Name: name, Query: &q}
	return st, true, nil
}
