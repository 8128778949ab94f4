package parse

import (
	"strconv"
	"strings"

	"github.com/kvsql/kvsql/pgerror"
)

// Statements pg_dump sends, or writes into its scripts, that vitess's
// grammar has no shape for: LOCK TABLE, ALTER ... OWNER TO and ALTER
// COLUMN ... ADD GENERATED AS IDENTITY.

// LockStmt is LOCK [TABLE] [ONLY] name [, ...] [IN mode MODE] [NOWAIT].
type LockStmt struct {
	Tables []string // each a QualifiedRef
	Mode   string   // lower case, words joined by one space: "access share", ...
	NoWait bool
}

// OwnerStmt is ALTER {TABLE | SEQUENCE | VIEW | MATERIALIZED VIEW} [IF
// EXISTS] [ONLY] name OWNER TO role, or ALTER DATABASE name OWNER TO role;
// with Options it is ALTER {TABLE | INDEX} [IF EXISTS] [ONLY] name
// {SET | RESET} (storage parameters), which tune PostgreSQL's heap and
// index pages: kvsql checks the names and values as CREATE TABLE's WITH
// does and that the relation exists, and keeps nothing.
type OwnerStmt struct {
	Options bool
	// Column, with Options, is the column of ALTER TABLE t ALTER
	// [COLUMN] c SET STORAGE | STATISTICS | COMPRESSION | (options):
	// settings of PostgreSQL's heap and planner that kvsql accepts for
	// an existing column and keeps nothing of.
	Column   string
	Kind     string // "table", "sequence", "view", "materialized view", "database", "schema"
	Name     string // a QualifiedRef (a database's or schema's name as written)
	Role     string // lower-cased unless quoted; CURRENT_USER etc. as "current_user"
	IfExists bool
}

// AddIdentityStmt is ALTER TABLE [ONLY] t ALTER [COLUMN] c ADD GENERATED
// {ALWAYS | BY DEFAULT} AS IDENTITY [(sequence options)].
type AddIdentityStmt struct {
	Table, Column string
	Always        bool
	SeqName       string // SEQUENCE NAME as a QualifiedRef, "" when not given
	Options       SequenceOptions
}

// lockModes are LOCK's lock modes, by their first word(s).
var lockModes = []string{"access share", "row share", "row exclusive", "share update exclusive",
	"share row exclusive", "share", "exclusive", "access exclusive"}

// lock parses LOCK [TABLE] [ONLY] name [*] [, ...] [IN mode MODE] [NOWAIT].
func (r *rewriter) lock(toks []token) (Statement, error) {
	var st Statement
	c := &cursor{r: r, toks: toks, i: 1}
	c.accept("table")
	l := &LockStmt{Mode: "access exclusive"}
	for {
		c.accept("only")
		name, err := c.sequenceName()
		if err != nil {
			return st, err
		}
		if !c.done() && c.toks[c.i].isOp("*") {
			c.i++
		}
		l.Tables = append(l.Tables, name)
		if c.done() || !c.toks[c.i].isPunct(",") {
			break
		}
		c.i++
	}
	if c.accept("in") {
		mode := ""
		for _, m := range lockModes {
			words := strings.Fields(m)
			if c.i+len(words) >= len(toks) {
				continue
			}
			match := true
			for j, w := range words {
				if !toks[c.i+j].is(w) {
					match = false
					break
				}
			}
			if match && toks[c.i+len(words)].is("mode") {
				mode = m
				c.i += len(words) + 1
				break
			}
		}
		if mode == "" {
			return st, c.errHere()
		}
		l.Mode = mode
	}
	l.NoWait = c.accept("nowait")
	st.Lock = l
	return st, c.end()
}

// alterOwner parses ALTER {TABLE | SEQUENCE | VIEW | MATERIALIZED VIEW}
// ... OWNER TO role; ok is false when the statement is another ALTER.
func (r *rewriter) alterOwner(toks []token) (st Statement, ok bool, err error) {
	n := len(toks)
	if n < 5 || !toks[n-3].is("owner") || !toks[n-2].is("to") {
		return st, false, nil
	}
	c := &cursor{r: r, toks: toks[:n-3], i: 1}
	o := &OwnerStmt{}
	switch {
	case c.accept("table"), c.accept("sequence"), c.accept("view"), c.accept("database"), c.accept("schema"):
		o.Kind = toks[1].val
	case c.accept("materialized"):
		if !c.accept("view") {
			return st, false, nil
		}
		o.Kind = "materialized view"
	default:
		return st, false, nil
	}
	if c.accept("if") {
		if err := c.expect("exists"); err != nil {
			return st, true, err
		}
		o.IfExists = true
	}
	c.accept("only")
	if o.Kind == "database" || o.Kind == "schema" {
		o.Name, err = c.name()
	} else {
		o.Name, err = c.sequenceName()
	}
	if err != nil {
		return st, true, err
	}
	if err := c.end(); err != nil {
		return st, true, err
	}
	role := toks[n-1]
	if role.kind != tkIdent && role.kind != tkQIdent {
		return st, true, syntaxErr(r.sql, role.pos, "syntax error at or near %q", tokText(r.sql, role))
	}
	o.Role = role.val
	st.Owner = o
	return st, true, nil
}

// addIdentity parses ALTER TABLE [ONLY] t ALTER [COLUMN] c ADD GENERATED
// {ALWAYS | BY DEFAULT} AS IDENTITY [( options )], the form pg_dump writes
// for identity columns; ok is false for any other ALTER TABLE.
func (r *rewriter) addIdentity(toks []token) (st Statement, ok bool, err error) {
	c := &cursor{r: r, toks: toks, i: 2}
	c.accept("only")
	table, err := c.sequenceName()
	if err != nil || !c.accept("alter") {
		return st, false, nil
	}
	c.accept("column")
	col, err := c.name()
	if err != nil || !c.peek("add") || c.i+1 >= len(toks) || !toks[c.i+1].is("generated") {
		return st, false, nil
	}
	c.i += 2
	a := &AddIdentityStmt{Table: table, Column: col}
	switch {
	case c.accept("always"):
		a.Always = true
	case c.accept("by"):
		if err := c.expect("default"); err != nil {
			return st, true, err
		}
	default:
		return st, true, c.errHere()
	}
	if err := c.expect("as"); err != nil {
		return st, true, err
	}
	if err := c.expect("identity"); err != nil {
		return st, true, err
	}
	if !c.done() && c.toks[c.i].isPunct("(") {
		end := len(toks) - 1
		if !toks[end].isPunct(")") {
			return st, true, syntaxErr(r.sql, toks[end].pos, "syntax error at or near %q", tokText(r.sql, toks[end]))
		}
		inner := &cursor{r: r, toks: toks[c.i+1 : end]}
		if inner.accept("sequence") {
			if err := inner.expect("name"); err != nil {
				return st, true, err
			}
			if a.SeqName, err = inner.sequenceName(); err != nil {
				return st, true, err
			}
		}
		if err := inner.sequenceOptions(&a.Options, false); err != nil {
			return st, true, err
		}
		if a.Options.OwnedBySpecified {
			return st, true, pgerror.New(pgerror.SyntaxError, "invalid sequence option OWNED BY")
		}
		c.i = len(toks)
	}
	st.AddIdentity = a
	return st, true, c.end()
}

// fromFuncs prepares function calls for the rewrites after it: a
// pg_catalog. qualifier before a function name is dropped (every kvsql
// function is a pg_catalog one; seriesInFrom and the array_agg rewrite
// know the names unqualified), and pg_options_to_table(options) (the
// option_name and option_value of a "name=value" text array, as pg_dump
// reads them) becomes a derived table over unnest.
func fromFuncs(toks []token) []token {
	out := make([]token, 0, len(toks)+4)
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.is("pg_catalog") && i+3 < len(toks) && toks[i+1].isPunct(".") && toks[i+2].kind == tkIdent && toks[i+3].isPunct("(") {
			i++ // the qualifier and its dot; the name follows
			continue
		}
		if t.is("pg_options_to_table") && i+1 < len(toks) && toks[i+1].isPunct("(") && len(out) > 0 &&
			(out[len(out)-1].is("from") || out[len(out)-1].is("join") || out[len(out)-1].isPunct(",")) {
			end := matchForward(toks, i+1)
			if end < 0 {
				out = append(out, t)
				continue
			}
			head, _ := lex("( select split_part(o, '=', 1) as option_name, substr(o, strpos(o, '=') + 1) as option_value from unnest(")
			tail, _ := lex(") as o )")
			for k, part := range [][]token{head, toks[i+2 : end], tail} {
				for _, x := range part {
					if k != 1 { // lexed from the template: point errors at the call
						x.pos, x.end = t.pos, t.pos
					}
					out = append(out, x)
				}
			}
			next := end + 1
			if !(next < len(toks) && (toks[next].is("as") || toks[next].kind == tkQIdent ||
				toks[next].kind == tkIdent && !fromEnds[toks[next].val] && !joinWords[toks[next].val])) {
				out = append(out, raw("as pg_options_to_table", t.pos))
			}
			i = end
			continue
		}
		out = append(out, t)
	}
	return out
}

// QualifyRelations rewrites a query's text (a view's definition) so that
// each unqualified relation named in a FROM clause or JOIN that is one of
// names reads public.name: pg_get_viewdef's answer must not depend on the
// search path (pg_dump restores with an empty one). Strings, comments,
// column references and CTE names (not in names) are left alone. Text
// that does not lex is returned as it is.
func QualifyRelations(sql string, names map[string]bool) string {
	toks, err := lex(sql)
	if err != nil {
		return sql
	}
	var b strings.Builder
	last := 0
	for _, t := range relationRefs(toks, names) {
		b.WriteString(sql[last:t.pos])
		b.WriteString("public.")
		last = t.pos
	}
	b.WriteString(sql[last:])
	return b.String()
}

// ReferencedRelations returns the relations among names that a query's
// text reads in FROM clauses and JOINs (a view's dependencies), each once,
// in order of appearance.
func ReferencedRelations(sql string, names map[string]bool) []string {
	toks, err := lex(sql)
	if err != nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, t := range relationRefs(toks, names) {
		if !seen[t.val] {
			seen[t.val] = true
			out = append(out, t.val)
		}
	}
	for i := 0; i+2 < len(toks); i++ { // public.name
		if n := toks[i+2]; toks[i].is("public") && toks[i+1].isPunct(".") && names[n.val] && !seen[n.val] {
			seen[n.val] = true
			out = append(out, n.val)
		}
	}
	return out
}

// relationRefs are the tokens of toks that name, unqualified, one of names
// as a FROM or JOIN item.
func relationRefs(toks []token, names map[string]bool) []token {
	var out []token
	fromCtx := []bool{false}
	for i, t := range toks {
		d := len(fromCtx) - 1
		switch {
		case t.isPunct("("):
			fromCtx = append(fromCtx, false)
			continue
		case t.isPunct(")"):
			if d > 0 {
				fromCtx = fromCtx[:d]
			}
			continue
		case t.is("from") || t.is("join"):
			fromCtx[d] = true
			continue
		case t.kind == tkIdent && fromEnds[t.val]:
			fromCtx[d] = false
			continue
		}
		if !fromCtx[d] || (t.kind != tkIdent && t.kind != tkQIdent) || !names[t.val] || i == 0 {
			continue
		}
		prev := toks[i-1]
		if !(prev.is("from") || prev.is("join") || prev.isPunct(",") || prev.is("only")) {
			continue
		}
		if i+1 < len(toks) && (toks[i+1].isPunct(".") || toks[i+1].isPunct("(")) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// alterOptions parses ALTER {TABLE | INDEX} [IF EXISTS] [ONLY] name
// {SET | RESET} (storage parameters); ok is false when the statement is
// another ALTER.
func (r *rewriter) alterOptions(toks []token) (st Statement, ok bool, err error) {
	n := len(toks)
	if n < 6 || !toks[n-1].isPunct(")") {
		return st, false, nil
	}
	open := matchBack(toks, n-1)
	if open < 4 || !(toks[open-1].is("set") || toks[open-1].is("reset")) {
		return st, false, nil
	}
	c := &cursor{r: r, toks: toks[:open-1], i: 1}
	o := &OwnerStmt{Options: true}
	known := storageParams
	switch {
	case c.accept("table"):
		o.Kind = "table"
	case c.accept("index"):
		o.Kind, known = "index", indexParams
	default:
		return st, false, nil
	}
	if c.accept("if") {
		if err := c.expect("exists"); err != nil {
			return st, true, err
		}
		o.IfExists = true
	}
	c.accept("only")
	if o.Name, err = c.sequenceName(); err != nil {
		return st, true, err
	}
	if err := c.end(); err != nil {
		return st, true, err
	}
	if _, err := r.withParams(toks[open-1:], known, o.Kind == "table"); err != nil {
		return st, true, err
	}
	return Statement{Owner: o}, true, nil
}

// columnStorage are SET STORAGE's strategies.
var columnStorage = map[string]bool{"plain": true, "external": true, "extended": true, "main": true, "default": true}

// alterColumnOptions parses ALTER TABLE [IF EXISTS] [ONLY] name ALTER
// [COLUMN] col followed by SET STORAGE strategy, SET STATISTICS n, SET
// COMPRESSION method or {SET | RESET} (attribute options), as pg_dump
// writes them for columns whose settings differ from the type's; ok is
// false when the statement is another ALTER TABLE.
func (r *rewriter) alterColumnOptions(toks []token) (st Statement, ok bool, err error) {
	c := &cursor{r: r, toks: toks, i: 2}
	o := &OwnerStmt{Options: true, Kind: "table"}
	if c.accept("if") {
		if !c.accept("exists") {
			return st, false, nil
		}
		o.IfExists = true
	}
	c.accept("only")
	if o.Name, err = c.sequenceName(); err != nil || !c.accept("alter") {
		return st, false, nil
	}
	c.accept("column")
	if o.Column, err = c.name(); err != nil {
		return st, false, nil
	}
	switch {
	case c.peek("set") && c.i+1 < len(c.toks) && c.toks[c.i+1].is("storage"):
		c.i += 2
		if c.done() || !columnStorage[c.toks[c.i].val] {
			return st, true, c.errHere()
		}
		c.i++
	case c.peek("set") && c.i+1 < len(c.toks) && c.toks[c.i+1].is("statistics"):
		c.i += 2
		neg := c.i < len(c.toks) && c.toks[c.i].isOp("-")
		if neg {
			c.i++
		}
		if c.done() || c.toks[c.i].kind != tkNumber {
			return st, true, c.errHere()
		}
		v, convErr := strconv.Atoi(c.toks[c.i].val)
		if convErr != nil {
			return st, true, c.errHere() // an integer, as PostgreSQL's grammar wants
		}
		if neg && v != 1 {
			return st, true, pgerror.Newf(invalidParameterValue, "statistics target -%s is too low", tokText(r.sql, c.toks[c.i]))
		}
		c.i++ // PostgreSQL lowers a target past 10000; nothing is kept here
	case c.peek("set") && c.i+1 < len(c.toks) && c.toks[c.i+1].is("compression"):
		c.i += 2
		if _, err := c.name(); err != nil {
			return st, true, err
		}
	case (c.peek("set") || c.peek("reset")) && c.i+1 < len(c.toks) && c.toks[c.i+1].isPunct("("):
		end := matchForward(c.toks, c.i+1)
		if end < 0 {
			return st, true, syntaxErr(r.sql, c.toks[c.i+1].pos, "syntax error at end of input")
		}
		for _, p := range splitTop(c.toks[c.i+2 : end]) {
			if len(p) == 0 || p[0].kind != tkIdent || !attributeOptions[p[0].val] {
				name := ""
				if len(p) > 0 {
					name = p[0].val
				}
				return st, true, pgerror.Newf(invalidParameterValue, "unrecognized parameter %q", name)
			}
		}
		c.i = end + 1
	default:
		return st, false, nil
	}
	if err := c.end(); err != nil {
		return st, true, err
	}
	return Statement{Owner: o}, true, nil
}

// attributeOptions are the per-column options of ALTER COLUMN SET (...).
var attributeOptions = map[string]bool{"n_distinct": true, "n_distinct_inherited": true}

// AttachIndexStmt is ALTER INDEX parent ATTACH PARTITION child, as
// pg_dump writes it after CREATE INDEX ... ON ONLY a partitioned table
// and CREATE INDEX on each partition. Both are QualifiedRefs.
type AttachIndexStmt struct {
	Parent, Child string
}

// attachIndex parses ALTER INDEX [IF EXISTS] name ATTACH PARTITION name;
// ok is false when the statement is another ALTER INDEX.
func (r *rewriter) attachIndex(toks []token) (st Statement, ok bool, err error) {
	c := &cursor{r: r, toks: toks, i: 2}
	a := &AttachIndexStmt{}
	if a.Parent, err = c.sequenceName(); err != nil || !c.accept("attach") {
		return st, false, nil
	}
	if err := c.expect("partition"); err != nil {
		return st, true, err
	}
	if a.Child, err = c.sequenceName(); err != nil {
		return st, true, err
	}
	if err := c.end(); err != nil {
		return st, true, err
	}
	return Statement{AttachIndex: a}, true, nil
}

// DropConstraintStmt is ALTER TABLE [IF EXISTS] [ONLY] table DROP
// CONSTRAINT [IF EXISTS] name [CASCADE | RESTRICT].
type DropConstraintStmt struct {
	Table, Name             string // Table is a QualifiedRef
	TableIfExists, IfExists bool
	Only, Cascade           bool
}

// dropConstraint parses ALTER TABLE ... DROP CONSTRAINT; ok is false when
// the statement is another ALTER TABLE.
func (r *rewriter) dropConstraint(toks []token) (st Statement, ok bool, err error) {
	c := &cursor{r: r, toks: toks, i: 2}
	d := &DropConstraintStmt{}
	if c.accept("if") {
		if !c.accept("exists") {
			return st, false, nil
		}
		d.TableIfExists = true
	}
	d.Only = c.accept("only")
	start := c.i
	if d.Table, err = c.sequenceName(); err != nil {
		return st, false, nil
	}
	if !c.accept("drop") || !c.accept("constraint") {
		c.i = start
		return st, false, nil
	}
	if c.accept("if") {
		if err := c.expect("exists"); err != nil {
			return st, true, err
		}
		d.IfExists = true
	}
	if d.Name, err = c.name(); err != nil {
		return st, true, err
	}
	switch {
	case c.accept("cascade"):
		d.Cascade = true
	case c.accept("restrict"):
	}
	if err := c.end(); err != nil {
		return st, true, err
	}
	return Statement{DropConstraint: d}, true, nil
}
