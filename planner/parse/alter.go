package parse

import (
	"strconv"
	"strings"

	"github.com/kvsql/kvsql/pgerror"
)

// AlterColumnStmt is ALTER TABLE t ALTER [COLUMN] c SET NOT NULL, DROP
// NOT NULL or [SET DATA] TYPE: vitess's grammar (MySQL's, which changes a
// column with MODIFY) has no shape for them.
type AlterColumnStmt struct {
	Table, Column string
	NotNull       bool // SET NOT NULL; false: DROP NOT NULL
	// Type, when set, is ALTER ... TYPE: the type's name (words joined by
	// one space, lower case) and modifiers, and the USING expression's
	// text ("" for none).
	Type     string
	TypeArgs []int
	Using    string
	// Constraint, when set, makes this ALTER TABLE t ALTER CONSTRAINT
	// name ... instead (Column is then "").
	Constraint *AlterConstraint
}

// AlterConstraint is ALTER TABLE t ALTER CONSTRAINT name [NOT]
// DEFERRABLE [INITIALLY DEFERRED | IMMEDIATE]: a foreign key's timing.
type AlterConstraint struct {
	Name                          string
	Deferrable, InitiallyDeferred bool
}

// alterColumn parses the ALTER TABLE forms vitess cannot: ALTER [COLUMN] c
// {SET | DROP} NOT NULL, and ALTER [COLUMN] c [SET DATA] TYPE, which kvsql
// refuses by name. ok is false for every other ALTER TABLE, which goes to
// vitess (SET/DROP DEFAULT, RENAME, ADD and DROP COLUMN, ...).
func (r *rewriter) alterColumn(toks []token) (st Statement, ok bool, err error) {
	c := &cursor{r: r, toks: toks, i: 2}
	c.accept("only")
	if c.peek("if") {
		return st, false, nil
	}
	names, err := c.qualifiedName()
	if err != nil || !c.accept("alter") {
		return st, false, nil
	}
	if c.accept("constraint") {
		a, err := r.alterConstraint(c)
		st.AlterColumn = &AlterColumnStmt{Table: QualifiedRef(names), Constraint: a}
		return st, true, err
	}
	c.accept("column")
	col, err := c.name()
	if err != nil {
		return st, false, nil
	}
	at := func(words ...string) bool {
		for j, w := range words {
			if c.i+j >= len(toks) || !toks[c.i+j].is(w) {
				return false
			}
		}
		return true
	}
	switch {
	case at("set", "not", "null"), at("drop", "not", "null"):
		st.AlterColumn = &AlterColumnStmt{Table: QualifiedRef(names), Column: col, NotNull: at("set")}
		c.i += 3
		return st, true, c.end()
	case at("type"), at("set", "data", "type"):
		if at("set") {
			c.i += 2
		}
		c.i++
		a := &AlterColumnStmt{Table: QualifiedRef(names), Column: col}
		var words []string
		for !c.done() && toks[c.i].kind == tkIdent && !toks[c.i].is("using") && !toks[c.i].is("collate") {
			words = append(words, toks[c.i].val)
			c.i++
		}
		if len(words) == 0 {
			return st, true, c.errHere()
		}
		a.Type = strings.Join(words, " ")
		if !c.done() && toks[c.i].isPunct("(") {
			c.i++
			for !c.done() && !toks[c.i].isPunct(")") {
				if toks[c.i].kind != tkNumber {
					return st, true, c.errHere()
				}
				n, err := strconv.Atoi(toks[c.i].val)
				if err != nil {
					return st, true, c.errHere()
				}
				a.TypeArgs = append(a.TypeArgs, n)
				c.i++
				if !c.done() && toks[c.i].isPunct(",") {
					c.i++
				}
			}
			if c.done() {
				return st, true, c.errHere()
			}
			c.i++
		}
		if !c.done() && toks[c.i].isPunct("[") {
			return st, true, unsupported(r.sql, toks[c.i].pos, "arrays are not supported")
		}
		if c.accept("using") {
			if c.done() {
				return st, true, c.errHere()
			}
			a.Using = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(r.sql[toks[c.i].pos:]), ";"))
			c.i = len(toks)
		}
		st.AlterColumn = a
		return st, true, c.end()
	}
	return st, false, nil
}

// alterConstraint reads what follows ALTER CONSTRAINT: the name and the
// new timing. NO INHERIT and NOT VALID are PostgreSQL's 0A000 for a
// foreign key (the only constraint ALTER CONSTRAINT changes).
func (r *rewriter) alterConstraint(c *cursor) (*AlterConstraint, error) {
	name, err := c.name()
	if err != nil {
		return nil, err
	}
	a := &AlterConstraint{Name: name}
	seen := false
	for !c.done() {
		t := c.toks[c.i]
		switch {
		case c.accept("deferrable"):
			a.Deferrable = true
		case t.is("not") && c.i+1 < len(c.toks) && c.toks[c.i+1].is("deferrable"):
			c.i += 2
			a.Deferrable = false
		case c.accept("initially"):
			switch {
			case c.accept("deferred"):
				a.InitiallyDeferred = true
			case c.accept("immediate"):
			default:
				return nil, c.errHere()
			}
		case t.is("no") && c.i+1 < len(c.toks) && c.toks[c.i+1].is("inherit"):
			return nil, pgerror.New(pgerror.FeatureNotSupported, "FOREIGN KEY constraints cannot be marked NO INHERIT")
		case t.is("not") && c.i+1 < len(c.toks) && c.toks[c.i+1].is("valid"):
			return nil, pgerror.New(pgerror.FeatureNotSupported, "FOREIGN KEY constraints cannot be marked NOT VALID")
		default:
			return nil, c.errHere()
		}
		seen = true
	}
	if !seen {
		return nil, c.errHere()
	}
	if a.InitiallyDeferred && !a.Deferrable {
		return nil, syntaxErr(r.sql, c.toks[0].pos, "constraint declared INITIALLY DEFERRED must be DEFERRABLE")
	}
	return a, c.end()
}

// RenameIdentifier rewrites SQL text (a CHECK constraint's expression) so
// that every identifier old, other than a function's name, reads name;
// strings and comments are left alone.
func RenameIdentifier(sql, old, name string) (string, error) {
	toks, err := lex(sql)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	last := 0
	for i, t := range toks {
		if (t.kind != tkIdent && t.kind != tkQIdent) || t.val != old {
			continue
		}
		if i+1 < len(toks) && toks[i+1].isPunct("(") {
			continue
		}
		b.WriteString(sql[last:t.pos])
		b.WriteString(quoteIdentIfNeeded(name))
		last = t.end
	}
	b.WriteString(sql[last:])
	return b.String(), nil
}

// Mentions reports whether SQL text names any of the identifiers (in any
// role: kvsql keeps views, triggers and checks as text, so a change that
// could break one refuses rather than guess).
func Mentions(sql string, names ...string) bool {
	toks, err := lex(sql)
	if err != nil {
		return true
	}
	for _, t := range toks {
		if t.kind == tkIdent || t.kind == tkQIdent {
			for _, n := range names {
				if t.val == n {
					return true
				}
			}
		}
	}
	return false
}

// quoteIdentIfNeeded writes name bare when it reads back as itself
// (lower case letters, digits and underscores, not starting with a
// digit), else double-quoted.
func quoteIdentIfNeeded(name string) string {
	bare := name != ""
	for i, r := range name {
		switch {
		case r == '_' || r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			bare = false
		}
	}
	if bare {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}
