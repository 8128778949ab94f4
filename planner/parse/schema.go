package parse

import (
	"strings"

	"github.com/kvsql/kvsql/catalog"
)

// SchemaStmt is CREATE SCHEMA, DROP SCHEMA or ALTER SCHEMA ... RENAME TO.
type SchemaStmt struct {
	Op          string   // "create", "drop" or "rename"
	Names       []string // the schema (several for DROP)
	IfExists    bool     // DROP SCHEMA IF EXISTS
	IfNotExists bool     // CREATE SCHEMA IF NOT EXISTS
	Cascade     bool     // DROP SCHEMA ... CASCADE
	// Owner is CREATE SCHEMA's AUTHORIZATION role, or "".
	Owner   string
	NewName string // RENAME TO's name
	// Elements are CREATE SCHEMA's schema elements (CREATE TABLE, VIEW,
	// INDEX, SEQUENCE ... written after the name), run in the new
	// schema.
	Elements []Statement
}

// SetSchemaStmt is ALTER TABLE [IF EXISTS] name SET SCHEMA schema.
type SetSchemaStmt struct {
	Table    string // a QualifiedRef
	Schema   string
	IfExists bool
}

// setSchema parses ALTER TABLE ... SET SCHEMA; ok is false for any other
// ALTER TABLE.
func (r *rewriter) setSchema(toks []token) (st Statement, ok bool, err error) {
	n := len(toks)
	if n < 6 || !toks[n-3].is("set") || !toks[n-2].is("schema") {
		return st, false, nil
	}
	c := &cursor{r: r, toks: toks[:n-3], i: 2}
	s := &SetSchemaStmt{}
	if c.accept("if") {
		if err := c.expect("exists"); err != nil {
			return st, true, err
		}
		s.IfExists = true
	}
	c.accept("only")
	if s.Table, err = c.sequenceName(); err != nil {
		return st, true, err
	}
	if err := c.end(); err != nil {
		return st, true, err
	}
	c = &cursor{r: r, toks: toks, i: n - 1}
	if s.Schema, err = c.name(); err != nil {
		return st, true, err
	}
	return Statement{SetSchema: s}, true, nil
}

// QualifiedRef is how the dialect layer writes a possibly qualified name
// ([db.][schema.]name) into its own statement structs: the parts joined
// by catalog.KeySep, resolved later against the search path
// (planner.LookupRef, CreateRef).
func QualifiedRef(parts []string) string { return strings.Join(parts, catalog.KeySep) }

// schema parses CREATE SCHEMA [IF NOT EXISTS] [name] [AUTHORIZATION role]
// [element ...], DROP SCHEMA [IF EXISTS] name [, ...] [CASCADE |
// RESTRICT] and ALTER SCHEMA name RENAME TO name.
func (r *rewriter) schema(toks []token) (Statement, error) {
	c := &cursor{r: r, toks: toks, i: 2}
	ss := &SchemaStmt{Op: toks[0].val}
	switch {
	case toks[0].is("create"):
		if c.accept("if") {
			if err := c.expect("not"); err != nil {
				return Statement{}, err
			}
			if err := c.expect("exists"); err != nil {
				return Statement{}, err
			}
			ss.IfNotExists = true
		}
		if !c.peek("authorization") {
			n, err := c.name()
			if err != nil {
				return Statement{}, err
			}
			ss.Names = []string{n}
		}
		if c.accept("authorization") {
			n, err := c.name()
			if err != nil {
				return Statement{}, err
			}
			ss.Owner = n
			if len(ss.Names) == 0 {
				ss.Names = []string{n} // CREATE SCHEMA AUTHORIZATION role names it after the role
			}
		}
		for !c.done() && c.peek("create") {
			end := findEnd(toks, c.i+1, map[string]bool{"create": true})
			el, err := parseTokens(r.sql, toks[c.i:end])
			if err != nil {
				return Statement{}, err
			}
			ss.Elements = append(ss.Elements, el)
			c.i = end
		}
	case toks[0].is("drop"):
		if c.accept("if") {
			if err := c.expect("exists"); err != nil {
				return Statement{}, err
			}
			ss.IfExists = true
		}
		for {
			n, err := c.name()
			if err != nil {
				return Statement{}, err
			}
			ss.Names = append(ss.Names, n)
			if c.i < len(toks) && toks[c.i].isPunct(",") {
				c.i++
				continue
			}
			break
		}
		if c.accept("cascade") {
			ss.Cascade = true
		} else {
			c.accept("restrict")
		}
	default: // alter
		n, err := c.name()
		if err != nil {
			return Statement{}, err
		}
		ss.Names, ss.Op = []string{n}, "rename"
		if err := c.expect("rename"); err != nil {
			return Statement{}, err
		}
		if err := c.expect("to"); err != nil {
			return Statement{}, err
		}
		if ss.NewName, err = c.name(); err != nil {
			return Statement{}, err
		}
	}
	return Statement{Schema: ss}, c.end()
}
