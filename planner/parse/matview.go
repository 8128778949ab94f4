package parse

import "strings"

// MatViewStmt is CREATE MATERIALIZED VIEW [IF NOT EXISTS] name AS query
// [WITH [NO] DATA], REFRESH MATERIALIZED VIEW [CONCURRENTLY] name [WITH
// [NO] DATA] or DROP MATERIALIZED VIEW [IF EXISTS] name, ... [CASCADE |
// RESTRICT]. kvsql keeps a materialized view as a table that remembers
// its query.
type MatViewStmt struct {
	Op          string   // "create", "refresh" or "drop"
	Names       []string // one name, except for drop
	IfNotExists bool
	IfExists    bool
	Query       string // create: the query's text
	NoData      bool   // WITH NO DATA
}

// matView parses the three statements; toks starts with CREATE, REFRESH
// or DROP.
func (r *rewriter) matView(toks []token) (st Statement, err error) {
	c := &cursor{r: r, toks: toks, i: 3}
	m := &MatViewStmt{Op: toks[0].val}
	switch m.Op {
	case "create":
		if c.accept("if") {
			if err := c.expect("not"); err != nil {
				return st, err
			}
			if err := c.expect("exists"); err != nil {
				return st, err
			}
			m.IfNotExists = true
		}
		name, err := c.sequenceName()
		if err != nil {
			return st, err
		}
		m.Names = []string{name}
		if !c.done() && toks[c.i].isPunct("(") {
			return st, unsupported(r.sql, toks[c.i].pos, "CREATE MATERIALIZED VIEW with a column list is not supported")
		}
		if c.accept("with") && !c.done() && toks[c.i].isPunct("(") {
			return st, unsupported(r.sql, toks[c.i].pos, "storage parameters of materialized views are not supported")
		}
		if err := c.expect("as"); err != nil {
			return st, err
		}
		if c.done() {
			return st, c.errHere()
		}
		end := len(toks)
		if n := len(toks); n >= 2 && toks[n-2].is("with") && toks[n-1].is("data") {
			end = n - 2
		} else if n >= 3 && toks[n-3].is("with") && toks[n-2].is("no") && toks[n-1].is("data") {
			end, m.NoData = n-3, true
		}
		if end <= c.i {
			return st, c.errHere()
		}
		m.Query = strings.TrimSpace(r.sql[toks[c.i].pos:toks[end-1].end])
		c.i = len(toks)
	case "refresh":
		c.accept("concurrently")
		name, err := c.sequenceName()
		if err != nil {
			return st, err
		}
		m.Names = []string{name}
		if c.accept("with") {
			m.NoData = c.accept("no")
			if err := c.expect("data"); err != nil {
				return st, err
			}
		}
	case "drop":
		if c.accept("if") {
			if err := c.expect("exists"); err != nil {
				return st, err
			}
			m.IfExists = true
		}
		for {
			name, err := c.sequenceName()
			if err != nil {
				return st, err
			}
			m.Names = append(m.Names, name)
			if c.done() || !toks[c.i].isPunct(",") {
				break
			}
			c.i++
		}
		// Nothing depends on a materialized view in kvsql.
		_ = c.accept("cascade") || c.accept("restrict")
	}
	st.MatView = m
	return st, c.end()
}
