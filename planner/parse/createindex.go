package parse

// CREATE INDEX: the statement's column list, its expression items and
// operator classes, and its INCLUDE list (also read for the UNIQUE and
// PRIMARY KEY constraints' INCLUDE by refClause).

import (
	"slices"
	"strconv"
	"strings"

	"github.com/kvsql/kvsql/pgerror"
	"vitess.io/vitess/go/vt/sqlparser"
)

// createIndex handles CREATE [UNIQUE] INDEX [CONCURRENTLY] [IF NOT EXISTS]
// [name] ON [ONLY] table [USING method] (columns). The AST is vitess's
// CREATE INDEX tree (a *sqlparser.AlterTable with an AddIndexDefinition);
// a missing name is generated PostgreSQL's way: table_col1_col2_idx (or
// _key for UNIQUE).
func (r *rewriter) createIndex(toks []token) (Statement, error) {
	var st Statement
	c := &cursor{r: r, toks: toks, i: 1}
	unique := c.accept("unique")
	if err := c.expect("index"); err != nil {
		return st, err
	}
	c.accept("concurrently")
	if c.accept("if") {
		if err := c.expect("not"); err != nil {
			return st, err
		}
		if err := c.expect("exists"); err != nil {
			return st, err
		}
		st.IfNotExists = true
	}
	var name []token
	if !c.peek("on") {
		if c.done() || (toks[c.i].kind != tkIdent && toks[c.i].kind != tkQIdent) {
			return st, c.errHere()
		}
		name = []token{toks[c.i]}
		c.i++
	}
	if err := c.expect("on"); err != nil {
		return st, err
	}
	// ON ONLY a partitioned table: the index is the parent's alone;
	// pg_dump creates each partition's and attaches it (ALTER INDEX ...
	// ATTACH PARTITION).
	r.alterOnly = c.accept("only")
	tableStart := c.i
	tparts, err := c.qualifiedName()
	if err != nil {
		return st, err
	}
	table := toks[tableStart:c.i]
	if c.accept("using") {
		m, err := c.name()
		if err != nil {
			return st, err
		}
		st.IndexMethod = strings.ToLower(m)
	}
	if c.done() || !toks[c.i].isPunct("(") {
		return st, c.errHere()
	}
	end := matchForward(toks, c.i)
	if end < 0 {
		return st, syntaxErr(r.sql, toks[c.i].pos, "unterminated index column list")
	}
	rest := end + 1
	if rest < len(toks) && toks[rest].is("include") {
		inc, next, err := r.includeList(toks, rest)
		if err != nil {
			return st, err
		}
		st.IndexInclude, rest = inc, next
	}
	switch {
	case rest+1 < len(toks) && toks[rest].is("nulls") && toks[rest+1].is("distinct"):
		rest += 2 // the default
	case rest+2 < len(toks) && toks[rest].is("nulls") && toks[rest+1].is("not") && toks[rest+2].is("distinct"):
		st.IndexNullsNotDistinct = true
		rest += 3
	}
	if rest < len(toks) && toks[rest].is("with") {
		n, err := r.withParams(toks[rest:], indexParams, false)
		if err != nil {
			return st, err
		}
		rest += n
	}
	if rest < len(toks) {
		if !toks[rest].is("where") || rest+1 >= len(toks) {
			return st, syntaxErr(r.sql, toks[rest].pos, "syntax error at or near %q", toks[rest].val)
		}
		st.IndexWhere = r.sql[toks[rest+1].pos:toks[len(toks)-1].end]
	}
	items := splitTop(toks[c.i+1 : end])
	for k, item := range items {
		if cls, rest, ok := opclassOf(item); ok {
			if st.IndexOpclasses == nil {
				st.IndexOpclasses = map[int]string{}
			}
			st.IndexOpclasses[k] = cls
			items[k] = rest
		}
	}
	var colNames []string
	exprs := map[int]string{} // item → expression text
	for k, item := range items {
		if n := len(item); n >= 2 && item[n-2].is("nulls") {
			return st, unsupported(r.sql, item[n-2].pos, "NULLS FIRST/LAST in an index is not supported")
		}
		if len(item) == 0 {
			continue
		}
		// An expression is parenthesized, or a function call: its index
		// column is named "expr" or after the function, as PostgreSQL
		// names it.
		if close := exprItemEnd(item); close > 0 {
			if item[0].isPunct("(") {
				exprs[k] = r.sql[item[0].pos:item[close].end] // parenthesized, as PostgreSQL prints it
				colNames = append(colNames, "expr")
			} else {
				exprs[k] = r.sql[item[0].pos:item[close].end]
				colNames = append(colNames, item[0].val)
			}
			continue
		}
		colNames = append(colNames, item[0].val)
	}
	if name == nil {
		// PostgreSQL names the included columns too, a repeated name
		// numbered (ChooseIndexColumnNames): t_a_b_c_idx, t_a_b_a1_idx.
		var parts []string
		for _, n := range append(colNames, st.IndexInclude...) {
			c := n
			for i := 1; slices.Contains(parts, c); i++ {
				c = n + strconv.Itoa(i)
			}
			parts = append(parts, c)
		}
		gen := tparts[len(tparts)-1] + "_" + strings.Join(parts, "_") + "_idx"
		name = []token{{kind: tkQIdent, val: gen, pos: toks[0].pos}}
		st.IndexNameGenerated = true
	}
	var cols []token
	for k, item := range items {
		if k > 0 {
			cols = append(cols, raw(",", item0(item, toks[c.i]).pos))
		}
		if x, ok := exprs[k]; ok {
			// The expression's value lives in a hidden column of the
			// table; the AST names that column.
			hidden := name[0].val + ".expr" + strconv.Itoa(k)
			if st.IndexExprs == nil {
				st.IndexExprs = map[string]string{}
			}
			st.IndexExprs[hidden] = x
			cols = append(cols, token{kind: tkQIdent, val: hidden, pos: item[0].pos, end: item[0].end})
			cols = append(cols, item[exprItemEnd(item)+1:]...)
			continue
		}
		cols = append(cols, item...)
	}
	text := []token{raw("create", toks[0].pos)}
	if unique {
		text = append(text, raw("unique", toks[0].pos))
	}
	text = append(text, raw("index", toks[0].pos))
	text = append(text, name...)
	text = append(text, raw("on", toks[0].pos))
	text = append(text, table...)
	text = append(text, raw("(", toks[c.i].pos))
	text = append(text, cols...)
	text = append(text, raw(")", toks[end].pos))
	ast, err := r.vitessParse(text)
	if err != nil {
		return st, err
	}
	if _, ok := ast.(*sqlparser.AlterTable); !ok {
		return st, syntaxErr(r.sql, toks[0].pos, "syntax error in CREATE INDEX")
	}
	st.AST = ast
	return st, nil
}

// includeList reads INCLUDE (col, ...) at toks[at] (the word INCLUDE)
// and returns the column names and the position after the list. An
// included column is a plain column: an expression is 0A000, an
// ordering, collation or operator class 42P17, as in PostgreSQL.
func (r *rewriter) includeList(toks []token, at int) ([]string, int, error) {
	if at+1 >= len(toks) || !toks[at+1].isPunct("(") {
		pos := toks[at].end
		if at+1 < len(toks) {
			pos = toks[at+1].pos
			return nil, 0, syntaxErr(r.sql, pos, "syntax error at or near %q", toks[at+1].val)
		}
		return nil, 0, syntaxErr(r.sql, pos, "syntax error at end of input")
	}
	close := matchForward(toks, at+1)
	if close < 0 {
		return nil, 0, syntaxErr(r.sql, toks[at+1].pos, "unterminated INCLUDE column list")
	}
	if close == at+2 {
		return nil, 0, syntaxErr(r.sql, toks[close].pos, "syntax error at or near \")\"")
	}
	var names []string
	for _, item := range splitTop(toks[at+2 : close]) {
		if len(item) == 0 {
			return nil, 0, syntaxErr(r.sql, toks[close].pos, "syntax error at or near \",\"")
		}
		if exprItemEnd(item) > 0 || item[0].kind != tkIdent && item[0].kind != tkQIdent {
			return nil, 0, pgerror.New(pgerror.FeatureNotSupported, "expressions are not supported in included columns")
		}
		if len(item) > 1 {
			switch next := item[1]; {
			case next.is("asc") || next.is("desc") || next.is("nulls"):
				return nil, 0, pgerror.New(pgerror.InvalidObjectDefinition, "including column does not support ASC/DESC options")
			case next.is("collate"):
				return nil, 0, pgerror.New(pgerror.InvalidObjectDefinition, "including column does not support a collation")
			case next.kind == tkIdent:
				return nil, 0, pgerror.New(pgerror.InvalidObjectDefinition, "including column does not support an operator class")
			default:
				return nil, 0, pgerror.New(pgerror.FeatureNotSupported, "expressions are not supported in included columns")
			}
		}
		names = append(names, item[0].val)
	}
	return names, close + 1, nil
}

// opclassOf finds an operator class named after an index item's column
// or expression — col int4_ops [DESC] — and returns it with the item
// without it.
func opclassOf(item []token) (string, []token, bool) {
	n := len(item)
	if n > 0 && (item[n-1].is("asc") || item[n-1].is("desc")) {
		n--
	}
	if n < 2 || item[n-1].kind != tkIdent || !strings.HasSuffix(item[n-1].val, "_ops") {
		return "", item, false
	}
	rest := append(append([]token(nil), item[:n-1]...), item[n:]...)
	return item[n-1].val, rest, true
}

// exprItemEnd returns the position in item of the closing parenthesis of
// an index expression item — (expr) or f(args), optionally followed by
// ASC or DESC — or 0 when item names a column.
func exprItemEnd(item []token) int {
	at := 0
	if !item[0].isPunct("(") {
		if len(item) < 2 || !item[1].isPunct("(") || (item[0].kind != tkIdent && item[0].kind != tkQIdent) {
			return 0
		}
		at = 1
	}
	close := matchForward(item, at)
	if close < 0 {
		return 0
	}
	return close
}

func item0(item []token, def token) token {
	if len(item) > 0 {
		return item[0]
	}
	return def
}
