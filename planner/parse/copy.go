package parse

// copyStmt handles COPY table [(cols)] FROM STDIN | TO STDOUT with both
// the parenthesised option list and the pre-9.0 keyword options, and COPY
// (query) TO STDOUT.
func (r *rewriter) copyStmt(toks []token) (Statement, error) {
	c := &cursor{r: r, toks: toks, i: 1}
	cp := &CopyStmt{Format: "text"}
	st := Statement{Copy: cp}
	if c.i < len(toks) && toks[c.i].isPunct("(") {
		end := matchForward(toks, c.i)
		if end < 0 {
			return st, syntaxErr(r.sql, toks[c.i].pos, "unterminated COPY query")
		}
		q, err := r.nested(toks[c.i+1 : end])
		if err != nil {
			return st, err
		}
		q.SQL = r.sql[toks[c.i+1].pos:toks[end-1].end]
		cp.Query = &q
		st.NumParams = q.NumParams
		c.i = end + 1
	} else {
		parts, err := c.qualifiedName()
		if err != nil {
			return st, err
		}
		cp.Table = parts[len(parts)-1]
		if len(parts) > 1 {
			cp.Schema = parts[len(parts)-2]
		}
		if c.i < len(toks) && toks[c.i].isPunct("(") {
			c.i++
			for {
				n, err := c.name()
				if err != nil {
					return st, err
				}
				cp.Columns = append(cp.Columns, n)
				if c.i < len(toks) && toks[c.i].isPunct(",") {
					c.i++
					continue
				}
				if c.i < len(toks) && toks[c.i].isPunct(")") {
					c.i++
					break
				}
				return st, c.errHere()
			}
		}
	}
	switch {
	case c.accept("from"):
		cp.From = true
		if !c.accept("stdin") {
			return st, r.copyTarget(c)
		}
	case c.accept("to"):
		if !c.accept("stdout") {
			return st, r.copyTarget(c)
		}
	default:
		return st, c.errHere()
	}
	if cp.From && cp.Query != nil {
		return st, syntaxErr(r.sql, toks[0].pos, "COPY (query) FROM is not allowed")
	}
	if k := findEnd(toks, c.i, map[string]bool{"where": true}); k < len(toks) && toks[k].is("where") {
		if err := r.copyWhere(cp, toks[k:]); err != nil {
			return st, err
		}
		c.toks = toks[:k]
	}
	seen := map[string]bool{}
	c.accept("with")
	if !c.done() && c.toks[c.i].isPunct("(") {
		end := matchForward(c.toks, c.i)
		if end < 0 || end != len(c.toks)-1 {
			return st, c.errHere()
		}
		for _, opt := range splitTop(c.toks[c.i+1 : end]) {
			if err := r.copyOption(cp, seen, opt); err != nil {
				return st, err
			}
		}
		return st, nil
	}
	return st, r.copyLegacyOptions(c, cp, seen)
}

// copyWhere reads COPY FROM's WHERE condition (toks starts at WHERE).
// The condition is kept as text: the session plans it over the rows the
// COPY reads.
func (r *rewriter) copyWhere(cp *CopyStmt, toks []token) error {
	if !cp.From {
		return syntaxErr(r.sql, toks[0].pos, "WHERE clause not allowed with COPY TO")
	}
	if len(toks) < 2 {
		return syntaxErr(r.sql, toks[0].end, "syntax error at end of input")
	}
	for _, t := range toks[1:] {
		if t.is("select") {
			return unsupported(r.sql, t.pos, "cannot use subquery in COPY FROM WHERE condition")
		}
	}
	cp.Where = r.sql[toks[1].pos:toks[len(toks)-1].end]
	return nil
}

func (r *rewriter) copyTarget(c *cursor) error {
	if c.done() {
		return c.errHere()
	}
	return unsupported(r.sql, c.toks[c.i].pos, "COPY to or from a file or program is not supported; use STDIN or STDOUT")
}

// copyOption applies one option of the parenthesised syntax: NAME
// [value], or NAME (column, ...) / NAME * for the FORCE options.
func (r *rewriter) copyOption(cp *CopyStmt, seen map[string]bool, opt []token) error {
	if len(opt) == 0 {
		return syntaxErr(r.sql, 0, "empty COPY option")
	}
	if opt[0].kind != tkIdent {
		return syntaxErr(r.sql, opt[0].pos, "COPY option name expected")
	}
	arg := copyArg{pos: opt[0].pos}
	switch {
	case len(opt) == 1:
	case len(opt) == 2 && opt[1].isOp("*"):
		arg.star = true
	case len(opt) == 2:
		arg.val, arg.given = opt[1].val, true
	case opt[1].isPunct("(") && matchForward(opt, 1) == len(opt)-1:
		for _, part := range splitTop(opt[2 : len(opt)-1]) {
			if len(part) != 1 || part[0].kind != tkIdent && part[0].kind != tkQIdent {
				return syntaxErr(r.sql, opt[1].pos, "syntax error in COPY option")
			}
			arg.cols = append(arg.cols, part[0].val)
		}
	default:
		return syntaxErr(r.sql, opt[2].pos, "syntax error in COPY option")
	}
	return r.setCopyOption(cp, seen, opt[0].val, arg)
}

// copyArg is an option's argument: a value, a column list or *.
type copyArg struct {
	pos   int
	val   string
	given bool
	cols  []string
	star  bool
}

// setCopyOption applies option name, refusing one given twice as
// PostgreSQL does (42601 conflicting or redundant options).
func (r *rewriter) setCopyOption(cp *CopyStmt, seen map[string]bool, name string, a copyArg) error {
	if seen[name] {
		return syntaxErr(r.sql, a.pos, "conflicting or redundant options")
	}
	seen[name] = true
	switch name {
	case "format":
		switch a.val {
		case "text", "csv", "binary":
			cp.Format = a.val
		default:
			return syntaxErr(r.sql, a.pos, "COPY format %q not recognized", a.val)
		}
	case "header":
		switch {
		case !a.given || isTrue(a.val):
			cp.Header = true
		case a.val == "match":
			cp.Header, cp.HeaderMatch = true, true
		case !isFalse(a.val):
			return syntaxErr(r.sql, a.pos, "header requires a Boolean value or \"match\"")
		}
	case "delimiter":
		cp.Delimiter = a.val
	case "null":
		cp.Null, cp.NullSet = a.val, true
	case "quote":
		cp.Quote = a.val
	case "escape":
		cp.Escape = a.val
	case "force_quote", "force_not_null", "force_null":
		if len(a.cols) == 0 && !(a.star && name == "force_quote") {
			return syntaxErr(r.sql, a.pos, "argument to option %q must be a list of column names", name)
		}
		switch name {
		case "force_quote":
			cp.ForceQuote, cp.ForceQuoteAll = a.cols, a.star
		case "force_not_null":
			cp.ForceNotNull = a.cols
		default:
			cp.ForceNull = a.cols
		}
	case "encoding":
		cp.Encoding = a.val
	case "freeze":
		cp.Freeze = !a.given || isTrue(a.val)
	default:
		return unsupported(r.sql, a.pos, "COPY option %q is not supported", name)
	}
	return nil
}

func isTrue(v string) bool {
	switch v {
	case "true", "on", "1", "yes", "t", "y":
		return true
	}
	return false
}

func isFalse(v string) bool {
	switch v {
	case "false", "off", "0", "no", "f", "n":
		return true
	}
	return false
}

// copyLegacyOptions reads the pre-9.0 options: BINARY, CSV, HEADER,
// FREEZE, DELIMITER [AS] 'x', NULL [AS] 'x', QUOTE [AS] 'x', ESCAPE [AS]
// 'x', ENCODING 'x', FORCE QUOTE {columns | *}, FORCE NOT NULL columns
// and FORCE NULL columns.
func (r *rewriter) copyLegacyOptions(c *cursor, cp *CopyStmt, seen map[string]bool) error {
	str := func(a *copyArg) error {
		c.accept("as")
		if c.done() || c.toks[c.i].kind != tkString {
			return c.errHere()
		}
		a.val, a.given = c.toks[c.i].val, true
		c.i++
		return nil
	}
	cols := func(a *copyArg) error {
		for {
			n, err := c.name()
			if err != nil {
				return err
			}
			a.cols = append(a.cols, n)
			if c.done() || !c.toks[c.i].isPunct(",") {
				return nil
			}
			c.i++
		}
	}
	for !c.done() {
		a := copyArg{pos: c.toks[c.i].pos}
		var name string
		var err error
		switch {
		case c.accept("binary"):
			name, a.val = "format", "binary"
		case c.accept("csv"):
			name, a.val = "format", "csv"
		case c.accept("header"):
			name = "header"
		case c.accept("freeze"):
			name = "freeze"
		case c.accept("delimiter"), c.accept("null"), c.accept("quote"), c.accept("escape"), c.accept("encoding"):
			name = c.toks[c.i-1].val
			err = str(&a)
		case c.accept("force"):
			switch {
			case c.accept("quote"):
				name = "force_quote"
				if !c.done() && c.toks[c.i].isOp("*") {
					c.i++
					a.star = true
				} else {
					err = cols(&a)
				}
			case c.accept("not"):
				name = "force_not_null"
				if err = c.expect("null"); err == nil {
					err = cols(&a)
				}
			case c.accept("null"):
				name = "force_null"
				err = cols(&a)
			default:
				return c.errHere()
			}
		default:
			return c.errHere()
		}
		if err != nil {
			return err
		}
		if err := r.setCopyOption(cp, seen, name, a); err != nil {
			return err
		}
	}
	return nil
}
