package parse

import (
	"strconv"
	"strings"
)

// MarkerField is field selection: (x).name is MarkerField((x), 'name')
// (rewrite.go's exprs writes it, the binder's fieldSelect reads it).
const MarkerField = "kvsql_field"

// MarkerFieldStar is (x).*: MarkerFieldStar((x)), every field of the
// record x, which the binder expands in a select list.
const MarkerFieldStar = "kvsql_fieldstar"

// TypeStmt is CREATE / DROP / ALTER of a composite type (CREATE TYPE
// name AS (...)) or a domain (CREATE DOMAIN).
type TypeStmt struct {
	Op     string // "create", "drop" or "alter"
	Domain bool   // DOMAIN rather than TYPE
	// Names holds the type (one for CREATE and ALTER; DROP may name
	// several), each a QualifiedRef.
	Names    []string
	IfExists bool // DROP ... IF EXISTS
	Cascade  bool // DROP ... CASCADE
	// Attrs are CREATE TYPE's fields.
	Attrs []TypeAttrDef
	// Base is CREATE DOMAIN's underlying type (as the binder spells
	// types: "integer[]"); NotNull, Default and Checks its constraints.
	Base    string
	NotNull bool
	Default string
	Checks  []DomainCheck
	// Alter is the ALTER DOMAIN action: "add constraint", "drop
	// constraint", "set not null", "drop not null", "set default",
	// "drop default"; or ALTER TYPE's "add attribute", "drop attribute".
	// Constraint names the constraint (or attribute) it drops, or the
	// one "validate constraint" checks.
	Alter      string
	Constraint string
	Attr       TypeAttrDef // ALTER TYPE ... ADD ATTRIBUTE
	IfExistsIn bool        // ... DROP CONSTRAINT / ATTRIBUTE IF EXISTS
	// Enum marks CREATE TYPE name AS ENUM (Labels...), the labels in
	// their declared order (none is allowed).
	Enum   bool
	Labels []string
	// ALTER TYPE's enum and naming actions: "add value" (Label, placed
	// BEFORE or AFTER Neighbor when Neighbor is set; IfNotExists),
	// "rename value" (Label to NewName), "rename" (the type to NewName).
	Label       string
	Neighbor    string
	Before      bool
	IfNotExists bool
	NewName     string
}

// TypeAttrDef is one field of CREATE TYPE name AS (...).
type TypeAttrDef struct {
	Name, Type string
}

// DomainCheck is a domain's CHECK (expr) constraint: its name ("" when
// not written) and the expression's text, which reads the value as
// VALUE.
type DomainCheck struct {
	Name, Expr string
	// NotValid (ALTER DOMAIN ... ADD CHECK (...) NOT VALID): the values
	// already stored need not pass it.
	NotValid bool
}

// userType parses CREATE TYPE name AS (field type, ...), CREATE DOMAIN
// name [AS] type [DEFAULT expr] [[CONSTRAINT n] {NOT NULL | NULL |
// CHECK (expr)}]..., DROP TYPE / DOMAIN [IF EXISTS] name [, ...]
// [CASCADE | RESTRICT] and ALTER DOMAIN / TYPE's constraint and
// attribute actions, CREATE TYPE name AS ENUM ('label', ...) and ALTER
// TYPE's enum actions (ADD VALUE, RENAME VALUE) and RENAME TO. Other
// CREATE TYPE forms (RANGE, base types) are refused with 0A000.
func (r *rewriter) userType(toks []token) (Statement, error) {
	var st Statement
	c := &cursor{r: r, toks: toks, i: 1}
	ts := &TypeStmt{Op: toks[0].val, Domain: toks[1].is("domain")}
	st.UserType = ts
	c.i = 2
	if ts.Op == "drop" {
		var err error
		ts.IfExists, ts.Cascade, err = c.dropList(func() error {
			name, err := c.sequenceName()
			ts.Names = append(ts.Names, name)
			return err
		})
		return st, err
	}
	name, err := c.sequenceName()
	if err != nil {
		return st, err
	}
	ts.Names = []string{name}
	switch {
	case ts.Op == "alter":
		return st, c.alterUserType(ts)
	case ts.Domain:
		return st, c.createDomain(ts)
	}
	if !c.accept("as") {
		return st, unsupported(r.sql, toks[0].pos, "CREATE TYPE is supported only for composite types (CREATE TYPE name AS (...))")
	}
	if c.accept("enum") {
		return st, c.enumLabels(ts)
	}
	if c.peek("range") {
		return st, unsupported(r.sql, c.toks[c.i].pos, "%s types are not supported", strings.ToUpper(c.toks[c.i].val))
	}
	if c.done() || !c.toks[c.i].isPunct("(") {
		return st, c.errHere()
	}
	end := matchForward(c.toks, c.i)
	if end < 0 {
		return st, c.errHere()
	}
	inner := c.toks[c.i+1 : end]
	c.i = end + 1
	if len(inner) > 0 {
		for _, part := range splitTop(inner) {
			a, err := c.typeAttr(part)
			if err != nil {
				return st, err
			}
			ts.Attrs = append(ts.Attrs, a)
		}
	}
	return st, c.end()
}

// enumLabels reads an enum's ('label', ...) list.
func (c *cursor) enumLabels(ts *TypeStmt) error {
	ts.Enum = true
	if c.done() || !c.toks[c.i].isPunct("(") {
		return c.errHere()
	}
	c.i++
	for !c.done() && !c.toks[c.i].isPunct(")") {
		if len(ts.Labels) > 0 {
			if !c.toks[c.i].isPunct(",") {
				return c.errHere()
			}
			c.i++
		}
		l, err := c.stringLit()
		if err != nil {
			return err
		}
		ts.Labels = append(ts.Labels, l)
	}
	if c.done() {
		return c.errHere()
	}
	c.i++
	return c.end()
}

// stringLit reads a string literal.
func (c *cursor) stringLit() (string, error) {
	if c.done() || c.toks[c.i].kind != tkString {
		return "", c.errHere()
	}
	c.i++
	return c.toks[c.i-1].val, nil
}

// alterEnumOrName reads ALTER TYPE's ADD VALUE [IF NOT EXISTS] 'x'
// [{BEFORE | AFTER} 'y'], RENAME VALUE 'a' TO 'b' and RENAME TO name;
// ok is false when the action is none of them.
func (c *cursor) alterEnumOrName(ts *TypeStmt) (ok bool, err error) {
	switch {
	case c.peek("add") && c.i+1 < len(c.toks) && c.toks[c.i+1].is("value"):
		c.i += 2
		if c.accept("if") {
			if err := c.words("not", "exists"); err != nil {
				return true, err
			}
			ts.IfNotExists = true
		}
		if ts.Label, err = c.stringLit(); err != nil {
			return true, err
		}
		ts.Alter = "add value"
		if c.accept("before") {
			ts.Before = true
		} else if !c.accept("after") {
			return true, c.end()
		}
		if ts.Neighbor, err = c.stringLit(); err != nil {
			return true, err
		}
	case c.peek("rename") && c.i+1 < len(c.toks) && c.toks[c.i+1].is("value"):
		c.i += 2
		if ts.Label, err = c.stringLit(); err != nil {
			return true, err
		}
		if err := c.expect("to"); err != nil {
			return true, err
		}
		if ts.NewName, err = c.stringLit(); err != nil {
			return true, err
		}
		ts.Alter = "rename value"
	case c.peek("owner") && c.i+1 < len(c.toks) && c.toks[c.i+1].is("to"):
		// pg_dump's ALTER TYPE ... OWNER TO: kvsql has one owner.
		c.i += 2
		if _, err := c.name(); err != nil {
			return true, err
		}
		ts.Alter = "owner"
	case c.peek("rename") && c.i+1 < len(c.toks) && c.toks[c.i+1].is("to"):
		c.i += 2
		if ts.NewName, err = c.name(); err != nil {
			return true, err
		}
		ts.Alter = "rename"
	default:
		return false, nil
	}
	return true, c.end()
}

// typeAttr reads one "name type" of a composite type's field list.
func (c *cursor) typeAttr(toks []token) (TypeAttrDef, error) {
	sub := &cursor{r: c.r, toks: toks}
	name, err := sub.name()
	if err != nil {
		return TypeAttrDef{}, err
	}
	t, err := sub.typeSpelling()
	if err != nil {
		return TypeAttrDef{}, err
	}
	if !sub.done() && sub.peek("collate") {
		return TypeAttrDef{}, unsupported(c.r.sql, sub.toks[sub.i].pos, "COLLATE is not supported")
	}
	return TypeAttrDef{Name: name, Type: t}, sub.end()
}

// typeSpelling reads a type name and returns it as the binder spells
// types: "numeric(10,2)", "integer[]", "schema.name".
func (c *cursor) typeSpelling() (string, error) {
	if c.i+2 < len(c.toks) && (c.toks[c.i].kind == tkIdent || c.toks[c.i].kind == tkQIdent) &&
		c.toks[c.i+1].isPunct(".") && !c.toks[c.i].is("pg_catalog") {
		// schema.type: a user type in a schema.
		schema := c.toks[c.i].val
		c.i += 2
		t, err := c.typeSpelling()
		return schema + "." + t, err
	}
	tn, next, ok, err := parseType(c.r.sql, c.toks, c.i)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", c.errHere()
	}
	c.i = next
	s := tn.Name
	if tn.Length != nil {
		s += "(" + strconv.Itoa(*tn.Length)
		if tn.Scale != nil {
			s += "," + strconv.Itoa(*tn.Scale)
		}
		s += ")"
	}
	if tn.Array {
		s += "[]"
	}
	return s, nil
}

// createDomain reads CREATE DOMAIN's [AS] type and constraints.
func (c *cursor) createDomain(ts *TypeStmt) error {
	c.accept("as")
	base, err := c.typeSpelling()
	if err != nil {
		return err
	}
	ts.Base = base
	for !c.done() {
		name := ""
		if c.accept("constraint") {
			if name, err = c.name(); err != nil {
				return err
			}
		}
		switch {
		case c.accept("not"):
			if err := c.expect("null"); err != nil {
				return err
			}
			ts.NotNull = true
		case c.accept("null"):
			ts.NotNull = false
		case c.peek("check"):
			ck, err := c.domainCheck(name)
			if err != nil {
				return err
			}
			ts.Checks = append(ts.Checks, ck)
		case name == "" && c.accept("default"):
			start := c.i
			for !c.done() && !c.peek("constraint") && !c.peek("not") && !c.peek("null") && !c.peek("check") {
				if c.toks[c.i].isPunct("(") {
					if e := matchForward(c.toks, c.i); e > 0 {
						c.i = e
					}
				}
				c.i++
			}
			if c.i == start {
				return c.errHere()
			}
			ts.Default = c.r.sql[c.toks[start].pos:c.toks[c.i-1].end]
		case name == "" && c.peek("collate"):
			return unsupported(c.r.sql, c.toks[c.i].pos, "COLLATE is not supported")
		default:
			return c.errHere()
		}
	}
	return nil
}

// domainCheck reads CHECK (expr) [NOT VALID].
func (c *cursor) domainCheck(name string) (DomainCheck, error) {
	if err := c.expect("check"); err != nil {
		return DomainCheck{}, err
	}
	if c.done() || !c.toks[c.i].isPunct("(") {
		return DomainCheck{}, c.errHere()
	}
	end := matchForward(c.toks, c.i)
	if end < 0 || end == c.i+1 {
		return DomainCheck{}, c.errHere()
	}
	// The text keeps no parentheses around the whole expression, so
	// that pg_dump's CHECK ((VALUE > 0)) reads back as CHECK (VALUE > 0).
	lo, hi := c.i+1, end-1
	for c.toks[lo].isPunct("(") && matchForward(c.toks, lo) == hi && hi > lo+1 {
		lo, hi = lo+1, hi-1
	}
	expr := c.r.sql[c.toks[lo].pos:c.toks[hi].end]
	c.i = end + 1
	ck := DomainCheck{Name: name, Expr: expr}
	if c.accept("not") {
		if err := c.expect("valid"); err != nil {
			return DomainCheck{}, err
		}
		ck.NotValid = true
	}
	return ck, nil
}

// alterUserType reads ALTER DOMAIN name {ADD [CONSTRAINT n] CHECK (...) |
// DROP CONSTRAINT [IF EXISTS] n | SET NOT NULL | DROP NOT NULL | SET
// DEFAULT expr | DROP DEFAULT} and ALTER TYPE name {ADD ATTRIBUTE n t |
// DROP ATTRIBUTE [IF EXISTS] n}.
func (c *cursor) alterUserType(ts *TypeStmt) error {
	if ok, err := c.alterEnumOrName(ts); ok {
		return err
	}
	switch {
	case !ts.Domain && c.accept("add"):
		if err := c.expect("attribute"); err != nil {
			return err
		}
		name, err := c.name()
		if err != nil {
			return err
		}
		t, err := c.typeSpelling()
		if err != nil {
			return err
		}
		ts.Alter, ts.Attr = "add attribute", TypeAttrDef{Name: name, Type: t}
	case !ts.Domain && c.accept("drop"):
		if err := c.expect("attribute"); err != nil {
			return err
		}
		if c.accept("if") {
			if err := c.expect("exists"); err != nil {
				return err
			}
			ts.IfExistsIn = true
		}
		name, err := c.name()
		if err != nil {
			return err
		}
		ts.Alter, ts.Constraint = "drop attribute", name
	case !ts.Domain:
		return unsupported(c.r.sql, c.toks[0].pos, "this form of ALTER TYPE is not supported")
	case c.accept("add"):
		name := ""
		if c.accept("constraint") {
			var err error
			if name, err = c.name(); err != nil {
				return err
			}
		}
		if c.accept("not") {
			if err := c.expect("null"); err != nil {
				return err
			}
			ts.Alter = "set not null"
			break
		}
		ck, err := c.domainCheck(name)
		if err != nil {
			return err
		}
		ts.Alter, ts.Checks = "add constraint", []DomainCheck{ck}
	case c.accept("validate"):
		if err := c.expect("constraint"); err != nil {
			return err
		}
		name, err := c.name()
		if err != nil {
			return err
		}
		ts.Alter, ts.Constraint = "validate constraint", name
	case c.accept("drop"):
		switch {
		case c.accept("constraint"):
			if c.accept("if") {
				if err := c.expect("exists"); err != nil {
					return err
				}
				ts.IfExistsIn = true
			}
			name, err := c.name()
			if err != nil {
				return err
			}
			ts.Alter, ts.Constraint = "drop constraint", name
			if c.accept("cascade") || c.accept("restrict") {
				break
			}
		case c.accept("not"):
			if err := c.expect("null"); err != nil {
				return err
			}
			ts.Alter = "drop not null"
		case c.accept("default"):
			ts.Alter = "drop default"
		default:
			return c.errHere()
		}
	case c.accept("set"):
		switch {
		case c.accept("not"):
			if err := c.expect("null"); err != nil {
				return err
			}
			ts.Alter = "set not null"
		case c.accept("default"):
			if c.done() {
				return c.errHere()
			}
			ts.Alter, ts.Default = "set default", c.r.sql[c.toks[c.i].pos:c.toks[len(c.toks)-1].end]
			c.i = len(c.toks)
		default:
			return c.errHere()
		}
	default:
		return unsupported(c.r.sql, c.toks[0].pos, "this form of ALTER DOMAIN is not supported")
	}
	return c.end()
}
