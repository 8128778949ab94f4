package parse

// CommentStmt is COMMENT ON {TABLE | VIEW | INDEX | SEQUENCE} name IS text,
// COMMENT ON COLUMN table.column IS text and COMMENT ON CONSTRAINT name
// ON table IS text; Text nil is IS NULL (the comment removed).
type CommentStmt struct {
	Kind   string // "table", "view", "index", "sequence", "column", "constraint" or "domain constraint"
	Name   string // the object's name; for a column or a constraint, its table's (its domain's)
	Column string // the column's or the constraint's name
	Text   *string
	// Routine is the function or procedure of COMMENT ON FUNCTION /
	// PROCEDURE / ROUTINE name(argtypes) (Kind "function" or
	// "procedure").
	Routine *RoutineRef
}

// comment parses COMMENT ON. Object kinds kvsql keeps no comment for are
// 0A000, so a dump's comments never vanish silently.
func (r *rewriter) comment(toks []token) (st Statement, err error) {
	c := &cursor{r: r, toks: toks, i: 1}
	if err := c.expect("on"); err != nil {
		return st, err
	}
	if c.done() {
		return st, c.errHere()
	}
	kind := toks[c.i]
	cs := &CommentStmt{Kind: kind.val}
	c.i++
	switch {
	case kind.is("table"), kind.is("view"), kind.is("index"), kind.is("sequence"):
		names, err := c.qualifiedName()
		if err != nil {
			return st, err
		}
		cs.Name = QualifiedRef(names)
	case kind.is("schema"):
		if cs.Name, err = c.name(); err != nil {
			return st, err
		}
	case kind.is("column"):
		names, err := c.qualifiedName()
		if err != nil {
			return st, err
		}
		if len(names) < 2 {
			return st, syntaxErr(r.sql, kind.pos, "column name must be qualified")
		}
		cs.Name, cs.Column = QualifiedRef(names[:len(names)-1]), names[len(names)-1]
	case kind.is("function"), kind.is("procedure"), kind.is("routine"):
		ref, err := c.routineRef()
		if err != nil {
			return st, err
		}
		if kind.is("routine") {
			cs.Kind = "function"
		}
		cs.Name, cs.Routine = ref.Name, &ref
	case kind.is("constraint"):
		if c.done() || toks[c.i].kind != tkIdent && toks[c.i].kind != tkQIdent {
			return st, c.errHere()
		}
		cs.Column = toks[c.i].val
		c.i++
		if err := c.expect("on"); err != nil {
			return st, err
		}
		if c.accept("domain") {
			// The domain's name, spelled as DROP DOMAIN reads it.
			cs.Kind = "domain constraint"
			name, err := c.sequenceName()
			if err != nil {
				return st, err
			}
			cs.Name = name
			break
		}
		names, err := c.qualifiedName()
		if err != nil {
			return st, err
		}
		cs.Name = QualifiedRef(names)
	default:
		return st, unsupported(r.sql, kind.pos, "COMMENT ON %s is not supported", kind.val)
	}
	if err := c.expect("is"); err != nil {
		return st, err
	}
	switch {
	case c.accept("null"):
	case !c.done() && toks[c.i].kind == tkString:
		text := toks[c.i].val
		cs.Text = &text
		c.i++
	default:
		return st, c.errHere()
	}
	st.Comment = cs
	return st, c.end()
}
