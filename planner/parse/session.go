package parse

import (
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"
)

// cursor walks the tokens of a statement kvsql parses itself.
type cursor struct {
	r    *rewriter
	toks []token
	i    int
}

func (c *cursor) done() bool { return c.i >= len(c.toks) }

// peek reports whether the next token is the keyword kw.
func (c *cursor) peek(kw string) bool { return c.i < len(c.toks) && c.toks[c.i].is(kw) }

// accept consumes the keyword kw if it is next.
func (c *cursor) accept(kw string) bool {
	if c.peek(kw) {
		c.i++
		return true
	}
	return false
}

// errHere is a syntax error at the current token (or the end of input).
func (c *cursor) errHere() error {
	if c.done() {
		end := 0
		if len(c.toks) > 0 {
			end = c.toks[len(c.toks)-1].end
		}
		return syntaxErr(c.r.sql, end, "syntax error at end of input")
	}
	t := c.toks[c.i]
	return syntaxErr(c.r.sql, t.pos, "syntax error at or near %q", tokText(c.r.sql, t))
}

func (c *cursor) expect(kw string) error {
	if !c.accept(kw) {
		return c.errHere()
	}
	return nil
}

// name reads an identifier (unquoted: lower-cased; quoted: as written).
func (c *cursor) name() (string, error) {
	if c.done() || c.toks[c.i].kind != tkIdent && c.toks[c.i].kind != tkQIdent {
		return "", c.errHere()
	}
	c.i++
	return c.toks[c.i-1].val, nil
}

// qualifiedName reads name[.name...] and returns its parts.
func (c *cursor) qualifiedName() ([]string, error) {
	var parts []string
	for {
		n, err := c.name()
		if err != nil {
			return nil, err
		}
		parts = append(parts, n)
		if c.i < len(c.toks) && c.toks[c.i].isPunct(".") {
			c.i++
			continue
		}
		return parts, nil
	}
}

// end fails unless all tokens were consumed.
func (c *cursor) end() error {
	if !c.done() {
		return c.errHere()
	}
	return nil
}

// transaction handles BEGIN / START TRANSACTION / COMMIT / END / ROLLBACK /
// ABORT / SAVEPOINT / RELEASE / ROLLBACK TO, building vitess's nodes.
func (r *rewriter) transaction(toks []token) (Statement, error) {
	c := &cursor{r: r, toks: toks}
	var st Statement
	switch {
	case c.accept("begin"):
		if !c.accept("transaction") {
			c.accept("work")
		}
		b := &sqlparser.Begin{Type: sqlparser.BeginStmt}
		if err := r.txModes(c, b, &st); err != nil {
			return st, err
		}
		st.AST = b
	case c.accept("start"):
		if err := c.expect("transaction"); err != nil {
			return st, err
		}
		b := &sqlparser.Begin{Type: sqlparser.StartTransactionStmt}
		if err := r.txModes(c, b, &st); err != nil {
			return st, err
		}
		st.AST = b
	case c.accept("commit") || c.accept("end"):
		if !c.accept("transaction") {
			c.accept("work")
		}
		st.AST = &sqlparser.Commit{}
		chain, err := andChain(c)
		if err != nil {
			return st, err
		}
		st.Chain = chain
	case c.accept("rollback") || c.accept("abort"):
		if !c.accept("transaction") {
			c.accept("work")
		}
		if c.accept("to") {
			c.accept("savepoint")
			n, err := c.name()
			if err != nil {
				return st, err
			}
			st.AST = &sqlparser.SRollback{Name: sqlparser.NewIdentifierCI(n)}
		} else {
			st.AST = &sqlparser.Rollback{}
			chain, err := andChain(c)
			if err != nil {
				return st, err
			}
			st.Chain = chain
		}
	case c.accept("savepoint"):
		n, err := c.name()
		if err != nil {
			return st, err
		}
		st.AST = &sqlparser.Savepoint{Name: sqlparser.NewIdentifierCI(n)}
	case c.accept("release"):
		c.accept("savepoint")
		n, err := c.name()
		if err != nil {
			return st, err
		}
		st.AST = &sqlparser.Release{Name: sqlparser.NewIdentifierCI(n)}
	}
	return st, c.end()
}

// setConstraints reads SET CONSTRAINTS {ALL | name [, ...]} {IMMEDIATE |
// DEFERRED} into s: Name "constraints", Value the mode and then the
// names (none for ALL).
func setConstraints(c *cursor, s *SetStmt) error {
	c.i++ // CONSTRAINTS
	s.Name = "constraints"
	var names []string
	if !c.accept("all") {
		for {
			parts, err := c.qualifiedName()
			if err != nil {
				return err
			}
			names = append(names, strings.Join(parts, "."))
			if c.done() || !c.toks[c.i].isPunct(",") {
				break
			}
			c.i++
		}
	}
	switch {
	case c.accept("immediate"):
		s.Value = []string{"immediate"}
	case c.accept("deferred"):
		s.Value = []string{"deferred"}
	default:
		return c.errHere()
	}
	s.Value = append(s.Value, names...)
	return c.end()
}

// andChain reads COMMIT's and ROLLBACK's optional AND [NO] CHAIN.
func andChain(c *cursor) (bool, error) {
	if !c.accept("and") {
		return false, nil
	}
	no := c.accept("no")
	if err := c.expect("chain"); err != nil {
		return false, err
	}
	return !no, nil
}

// txModes reads ISOLATION LEVEL ..., READ ONLY / READ WRITE and [NOT]
// DEFERRABLE, separated by optional commas.
func (r *rewriter) txModes(c *cursor, b *sqlparser.Begin, st *Statement) error {
	for !c.done() {
		switch {
		case c.accept(","):
		case c.toks[c.i].isPunct(","):
			c.i++
		case c.accept("isolation"):
			if err := c.expect("level"); err != nil {
				return err
			}
			switch {
			case c.accept("serializable"):
				st.Isolation = "serializable"
			case c.accept("repeatable"):
				if err := c.expect("read"); err != nil {
					return err
				}
				st.Isolation = "repeatable read"
			case c.accept("read"):
				switch {
				case c.accept("committed"):
					st.Isolation = "read committed"
				case c.accept("uncommitted"):
					st.Isolation = "read uncommitted"
				default:
					return c.errHere()
				}
			default:
				return c.errHere()
			}
		case c.accept("read"):
			switch {
			case c.accept("only"):
				b.TxAccessModes = append(b.TxAccessModes, sqlparser.ReadOnly)
			case c.accept("write"):
				b.TxAccessModes = append(b.TxAccessModes, sqlparser.ReadWrite)
			default:
				return c.errHere()
			}
		case c.accept("not"):
			if err := c.expect("deferrable"); err != nil {
				return err
			}
			st.Deferrable = "off"
		case c.accept("deferrable"):
			st.Deferrable = "on"
		default:
			return c.errHere()
		}
	}
	return nil
}

// set handles SET and RESET.
func (r *rewriter) set(toks []token) (Statement, error) {
	c := &cursor{r: r, toks: toks}
	s := &SetStmt{}
	st := Statement{Set: s}
	if c.accept("reset") {
		s.Reset = true
		if c.accept("all") {
			s.Name = "all"
			return st, c.end()
		}
		if c.accept("session") {
			if err := c.expect("authorization"); err != nil {
				return st, err
			}
			s.Name = "session_authorization"
			return st, c.end()
		}
		parts, err := c.qualifiedName()
		if err != nil {
			return st, err
		}
		s.Name = strings.Join(parts, ".")
		return st, c.end()
	}
	c.i++ // SET
	if c.accept("local") {
		s.Local = true
		if c.peek("session") && c.i+1 < len(toks) && toks[c.i+1].is("authorization") {
			c.i++ // SET LOCAL SESSION AUTHORIZATION
		}
	} else {
		c.accept("session")
	}
	switch {
	case c.peek("time") && c.i+1 < len(toks) && toks[c.i+1].is("zone"):
		c.i += 2
		s.Name = "timezone"
		if c.accept("local") || c.accept("default") {
			s.Value = []string{"default"}
			return st, c.end()
		}
		if c.accept("interval") {
			return st, unsupported(r.sql, toks[c.i-1].pos, "SET TIME ZONE INTERVAL is not supported")
		}
		v, err := setValue(c)
		if err != nil {
			return st, err
		}
		s.Value = []string{v}
		return st, c.end()
	case c.peek("role") && c.i+1 < len(toks) && !toks[c.i+1].is("to") && !toks[c.i+1].isOp("="),
		c.peek("authorization") && c.i > 1 && toks[c.i-1].is("session"):
		// SET ROLE name | NONE and SET SESSION AUTHORIZATION name |
		// DEFAULT: a role name (or string), no TO.
		s.Name = "role"
		if toks[c.i].is("authorization") {
			s.Name = "session_authorization"
		}
		c.i++
		if c.done() || c.toks[c.i].kind != tkIdent && c.toks[c.i].kind != tkQIdent && c.toks[c.i].kind != tkString {
			return st, c.errHere()
		}
		v := c.toks[c.i].val
		if c.toks[c.i].kind != tkIdent && (v == "none" || v == "default") {
			v = "\"" + v + "\"" // a quoted role of that name
		}
		s.Value = []string{v}
		c.i++
		return st, c.end()
	case c.peek("names"):
		c.i++
		s.Name = "client_encoding"
	case c.peek("constraints") && !s.Local:
		return st, setConstraints(c, s)
	case c.peek("transaction") || c.peek("characteristics") || c.peek("session") && c.i+1 < len(toks) && toks[c.i+1].is("characteristics"):
		// SET TRANSACTION ... is kept as words for the planner.
		s.Name = "transaction"
		for _, t := range toks[c.i+1:] {
			s.Value = append(s.Value, t.val)
		}
		return st, nil
	default:
		parts, err := c.qualifiedName()
		if err != nil {
			return st, err
		}
		s.Name = strings.Join(parts, ".")
		if !c.accept("to") {
			if c.done() || !c.toks[c.i].isOp("=") {
				return st, c.errHere()
			}
			c.i++
		}
	}
	for {
		v, err := setValue(c)
		if err != nil {
			return st, err
		}
		s.Value = append(s.Value, v)
		if c.i < len(toks) && toks[c.i].isPunct(",") {
			c.i++
			continue
		}
		return st, c.end()
	}
}

// setValue reads one SET value: a string, a word, or a signed number.
func setValue(c *cursor) (string, error) {
	if c.done() {
		return "", c.errHere()
	}
	t := c.toks[c.i]
	switch t.kind {
	case tkString, tkIdent, tkQIdent, tkNumber:
		c.i++
		return t.val, nil
	case tkOp:
		if (t.val == "-" || t.val == "+") && c.i+1 < len(c.toks) && c.toks[c.i+1].kind == tkNumber {
			c.i += 2
			if t.val == "-" {
				return "-" + c.toks[c.i-1].val, nil
			}
			return c.toks[c.i-1].val, nil
		}
	}
	return "", c.errHere()
}

// show handles SHOW name, SHOW ALL, SHOW TIME ZONE and SHOW TRANSACTION
// ISOLATION LEVEL.
func (r *rewriter) show(toks []token) (Statement, error) {
	c := &cursor{r: r, toks: toks, i: 1}
	s := &ShowStmt{}
	st := Statement{Show: s}
	switch {
	case c.peek("time") && c.i+1 < len(toks) && toks[c.i+1].is("zone"):
		c.i += 2
		s.Name = "timezone"
	case c.accept("transaction"):
		if err := c.expect("isolation"); err != nil {
			return st, err
		}
		if err := c.expect("level"); err != nil {
			return st, err
		}
		s.Name = "transaction_isolation"
	default:
		parts, err := c.qualifiedName()
		if err != nil {
			return st, err
		}
		s.Name = strings.Join(parts, ".")
	}
	return st, c.end()
}

// analyze handles ANALYZE [VERBOSE] [table[, ...]].
func (r *rewriter) analyze(toks []token) (Statement, error) {
	c := &cursor{r: r, toks: toks, i: 1}
	a := &AnalyzeStmt{}
	c.accept("verbose")
	for !c.done() {
		parts, err := c.qualifiedName()
		if err != nil {
			return Statement{}, err
		}
		a.Tables = append(a.Tables, QualifiedRef(parts))
		if c.i < len(toks) && toks[c.i].isPunct("(") {
			return Statement{}, unsupported(r.sql, toks[c.i].pos, "ANALYZE of columns is not supported")
		}
		if !c.done() {
			if !toks[c.i].isPunct(",") {
				return Statement{}, c.errHere()
			}
			c.i++
		}
	}
	return Statement{Analyze: a}, nil
}

// truncate handles TRUNCATE [TABLE] [ONLY] name [*] [, ...]
// [RESTART IDENTITY | CONTINUE IDENTITY] [CASCADE | RESTRICT].
func (r *rewriter) truncate(toks []token) (Statement, error) {
	c := &cursor{r: r, toks: toks, i: 1}
	tr := &TruncateStmt{}
	if c.i < len(toks) && toks[c.i].is("table") {
		c.i++
	}
	for {
		only := c.accept("only")
		if c.done() {
			return Statement{}, c.errHere()
		}
		parts, err := c.qualifiedName()
		if err != nil {
			return Statement{}, err
		}
		tr.Tables = append(tr.Tables, QualifiedRef(parts))
		tr.Only = append(tr.Only, only)
		if c.i < len(toks) && toks[c.i].isOp("*") {
			c.i++
		}
		if c.done() || !toks[c.i].isPunct(",") {
			break
		}
		c.i++
	}
	for !c.done() {
		switch t := toks[c.i]; {
		case (t.is("restart") || t.is("continue")) && c.i+1 < len(toks) && toks[c.i+1].is("identity"):
			tr.RestartIdentity = t.is("restart")
			c.i += 2
		case t.is("cascade") || t.is("restrict"):
			c.i++
		default:
			return Statement{}, c.errHere()
		}
	}
	return Statement{Truncate: tr}, nil
}

// vacuum handles VACUUM [FULL] [FREEZE] [VERBOSE] [ANALYZE] [table, ...]
// and VACUUM (option, ...) [table, ...].
func (r *rewriter) vacuum(toks []token) (Statement, error) {
	c := &cursor{r: r, toks: toks, i: 1}
	v := &VacuumStmt{}
	if c.i < len(toks) && toks[c.i].isPunct("(") {
		end := matchForward(toks, c.i)
		if end < 0 {
			return Statement{}, c.errHere()
		}
		for _, t := range toks[c.i+1 : end] {
			switch {
			case t.is("analyze") || t.is("analyse"):
				v.Analyze = true
			case t.is("full"):
				v.Full = true
			}
		}
		c.i = end + 1
	}
	for c.i < len(toks) {
		t := toks[c.i]
		if t.is("full") || t.is("freeze") || t.is("verbose") {
			v.Full = v.Full || t.is("full")
			c.i++
			continue
		}
		if t.is("analyze") || t.is("analyse") {
			v.Analyze = true
			c.i++
			continue
		}
		break
	}
	for !c.done() {
		parts, err := c.qualifiedName()
		if err != nil {
			return Statement{}, err
		}
		v.Tables = append(v.Tables, QualifiedRef(parts))
		if !c.done() {
			if !toks[c.i].isPunct(",") {
				return Statement{}, c.errHere()
			}
			c.i++
		}
	}
	return Statement{Vacuum: v}, nil
}

// reindex handles REINDEX [INDEX | TABLE] name (PostgreSQL) and SQLite's
// REINDEX name, where name is an index or a table.
func (r *rewriter) reindex(toks []token) (Statement, error) {
	c := &cursor{r: r, toks: toks, i: 1}
	ri := &ReindexStmt{}
	switch {
	case c.accept("index"):
		ri.Kind = "index"
	case c.accept("table"):
		ri.Kind = "table"
	}
	parts, err := c.qualifiedName()
	if err != nil {
		return Statement{}, err
	}
	ri.Name = QualifiedRef(parts)
	return Statement{Reindex: ri}, c.end()
}

// database handles CREATE DATABASE name [options] and DROP DATABASE [IF
// EXISTS] name [[WITH] (FORCE)]; options are ignored.
func (r *rewriter) database(toks []token) (Statement, error) {
	c := &cursor{r: r, toks: toks}
	d := &DatabaseStmt{Create: toks[0].is("create")}
	c.i = 2
	if d.Create {
		if c.accept("if") {
			if err := c.expect("not"); err != nil {
				return Statement{}, err
			}
			if err := c.expect("exists"); err != nil {
				return Statement{}, err
			}
			d.IfNotExists = true
		}
	} else if c.accept("if") {
		if err := c.expect("exists"); err != nil {
			return Statement{}, err
		}
		d.IfExists = true
	}
	n, err := c.name()
	if err != nil {
		return Statement{}, err
	}
	d.Name = n
	return Statement{Database: d}, nil
}

// dropIndex handles DROP INDEX [CONCURRENTLY] [IF EXISTS] name[, ...]
// [CASCADE|RESTRICT].
func (r *rewriter) dropIndex(toks []token) (Statement, error) {
	c := &cursor{r: r, toks: toks, i: 2}
	d := &DropIndexStmt{}
	c.accept("concurrently")
	if c.accept("if") {
		if err := c.expect("exists"); err != nil {
			return Statement{}, err
		}
		d.IfExists = true
	}
	for {
		parts, err := c.qualifiedName()
		if err != nil {
			return Statement{}, err
		}
		d.Names = append(d.Names, QualifiedRef(parts))
		if c.i < len(toks) && toks[c.i].isPunct(",") {
			c.i++
			continue
		}
		break
	}
	if c.accept("cascade") {
		d.Cascade = true
	} else {
		c.accept("restrict")
	}
	if c.accept("on") {
		return Statement{}, unsupported(r.sql, toks[c.i-1].pos, "DROP INDEX ... ON table is MySQL syntax; use DROP INDEX name")
	}
	return Statement{DropIndex: d}, c.end()
}

// dropList reads the rest of a DROP: [IF EXISTS] item [, ...] [CASCADE |
// RESTRICT] to the end of the statement, item reading each one.
func (c *cursor) dropList(item func() error) (ifExists, cascade bool, err error) {
	if c.accept("if") {
		if err := c.expect("exists"); err != nil {
			return false, false, err
		}
		ifExists = true
	}
	for {
		if err := item(); err != nil {
			return false, false, err
		}
		if c.done() || !c.toks[c.i].isPunct(",") {
			break
		}
		c.i++
	}
	if cascade = c.accept("cascade"); !cascade {
		c.accept("restrict")
	}
	return ifExists, cascade, c.end()
}
