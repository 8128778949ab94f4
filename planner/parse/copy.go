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
	c.accept("with")
	if c.i < len(toks) && toks[c.i].isPunct("(") {
		end := matchForward(toks, c.i)
		if end < 0 || end != len(toks)-1 {
			return st, c.errHere()
		}
		for _, opt := range splitTop(toks[c.i+1 : end]) {
			if err := r.copyOption(cp, opt); err != nil {
				return st, err
			}
		}
		return st, nil
	}
	return st, r.copyLegacyOptions(c, cp)
}

func (r *rewriter) copyTarget(c *cursor) error {
	if c.done() {
		return c.errHere()
	}
	return unsupported(r.sql, c.toks[c.i].pos, "COPY to or from a file or program is not supported; use STDIN or STDOUT")
}

// copyOption applies one (NAME value) option of the modern syntax.
func (r *rewriter) copyOption(cp *CopyStmt, opt []token) error {
	if len(opt) == 0 || opt[0].kind != tkIdent {
		if len(opt) == 0 {
			return syntaxErr(r.sql, 0, "empty COPY option")
		}
		return syntaxErr(r.sql, opt[0].pos, "COPY option name expected")
	}
	val := ""
	hasVal := len(opt) > 1
	if len(opt) > 2 {
		return syntaxErr(r.sql, opt[2].pos, "syntax error in COPY option")
	}
	if hasVal {
		val = opt[1].val
	}
	switch opt[0].val {
	case "format":
		switch val {
		case "text", "csv", "binary":
			cp.Format = val
		default:
			return syntaxErr(r.sql, opt[0].pos, "COPY format %q not recognized", val)
		}
	case "header":
		cp.Header = !hasVal || isTrue(val)
	case "delimiter":
		cp.Delimiter = val
	case "null":
		cp.Null, cp.NullSet = val, true
	case "quote":
		cp.Quote = val
	case "escape":
		cp.Escape = val
	case "encoding", "freeze":
	default:
		return unsupported(r.sql, opt[0].pos, "COPY option %q is not supported", opt[0].val)
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

// copyLegacyOptions reads BINARY, DELIMITER [AS] 'x', NULL [AS] 'x', CSV,
// HEADER, QUOTE [AS] 'x', ESCAPE [AS] 'x'.
func (r *rewriter) copyLegacyOptions(c *cursor, cp *CopyStmt) error {
	str := func() (string, error) {
		c.accept("as")
		if c.done() || c.toks[c.i].kind != tkString {
			return "", c.errHere()
		}
		c.i++
		return c.toks[c.i-1].val, nil
	}
	var err error
	for !c.done() {
		switch {
		case c.accept("binary"):
			cp.Format = "binary"
		case c.accept("csv"):
			cp.Format = "csv"
		case c.accept("header"):
			cp.Header = true
		case c.accept("delimiter"):
			cp.Delimiter, err = str()
		case c.accept("null"):
			cp.Null, err = str()
			cp.NullSet = true
		case c.accept("quote"):
			cp.Quote, err = str()
		case c.accept("escape"):
			cp.Escape, err = str()
		default:
			return c.errHere()
		}
		if err != nil {
			return err
		}
	}
	return nil
}
