package parse

import (
	"strconv"
	"strings"

	"github.com/kvsql/kvsql/pgerror"
	"vitess.io/vitess/go/vt/sqlparser"
)

// TriggerStmt is SQLite's
//
//	CREATE TRIGGER [IF NOT EXISTS] name [BEFORE | AFTER | INSTEAD OF]
//	    {DELETE | INSERT | UPDATE [OF column, ...]} ON table
//	    [FOR EACH ROW] [WHEN condition] BEGIN statement; ... END
//
// or DROP TRIGGER [IF EXISTS] name [ON table]. The body's statements and
// the condition are kept as written; TriggerStep parses them, with their
// NEW.column and OLD.column references, when the trigger is created and
// when it fires.
type TriggerStmt struct {
	Create      bool
	Name        string
	Table       string // CREATE, and DROP ... ON table ("" if absent)
	IfExists    bool   // DROP TRIGGER IF EXISTS
	IfNotExists bool   // CREATE TRIGGER IF NOT EXISTS
	Timing      string // "before" (SQLite's default), "after" or "instead of"
	Event       string // "insert", "update" or "delete"
	Columns     []string
	When        string   // the WHEN condition's text, "" for none
	Body        []string // the statements between BEGIN and END
	// PostgreSQL's form: EXECUTE {FUNCTION | PROCEDURE} Function(Args),
	// Events every event (INSERT OR UPDATE ...), Statement for FOR EACH
	// STATEMENT.
	Function  string
	Args      []string
	Events    []string
	Statement bool
	eachRow   bool // FOR EACH ROW was written
}

// trigger parses CREATE TRIGGER and DROP TRIGGER.
func (r *rewriter) trigger(toks []token) (Statement, error) {
	c := &cursor{r: r, toks: toks, i: 1}
	tr := &TriggerStmt{Create: toks[0].is("create")}
	if c.peek("temp") || c.peek("temporary") {
		return Statement{}, unsupported(r.sql, toks[c.i].pos, "temporary triggers are not supported")
	}
	if err := c.expect("trigger"); err != nil {
		return Statement{}, err
	}
	if c.accept("if") {
		if tr.Create {
			if err := c.expect("not"); err != nil {
				return Statement{}, err
			}
			tr.IfNotExists = true
		} else {
			tr.IfExists = true
		}
		if err := c.expect("exists"); err != nil {
			return Statement{}, err
		}
	}
	name, err := c.lastName()
	if err != nil {
		return Statement{}, err
	}
	tr.Name = name
	if !tr.Create {
		if c.accept("on") {
			if tr.Table, err = c.sequenceName(); err != nil {
				return Statement{}, err
			}
		}
		c.accept("cascade")
		c.accept("restrict")
		return Statement{Trigger: tr}, c.end()
	}
	if err := tr.header(c); err != nil {
		return Statement{}, err
	}
	if c.accept("execute") {
		// PostgreSQL's trigger is FOR EACH STATEMENT unless it says ROW.
		tr.Statement = !tr.eachRow
		if err := tr.execute(c); err != nil {
			return Statement{}, err
		}
		return Statement{Trigger: tr}, c.end()
	}
	if tr.Statement {
		return Statement{}, unsupported(r.sql, toks[0].pos, "FOR EACH STATEMENT triggers must execute a function")
	}
	if len(tr.Events) > 1 {
		return Statement{}, unsupported(r.sql, toks[0].pos, "a trigger with a BEGIN ... END body fires on one event: create one trigger per event")
	}
	if err := tr.body(c); err != nil {
		return Statement{}, err
	}
	return Statement{Trigger: tr}, nil
}

// lastName reads a possibly qualified name and returns its last part
// (kvsql has one schema per database).
func (c *cursor) lastName() (string, error) {
	parts, err := c.qualifiedName()
	if err != nil {
		return "", err
	}
	return parts[len(parts)-1], nil
}

// refName reads a possibly qualified relation name as QualifiedRef
// writes it, for the session to resolve through the search path.
func (c *cursor) refName() (string, error) {
	parts, err := c.qualifiedName()
	if err != nil {
		return "", err
	}
	return QualifiedRef(parts), nil
}

// header reads from the timing to the WHEN condition, up to BEGIN.
func (tr *TriggerStmt) header(c *cursor) error {
	switch {
	case c.accept("before"):
		tr.Timing = "before"
	case c.accept("after"):
		tr.Timing = "after"
	case c.accept("instead"):
		if err := c.expect("of"); err != nil {
			return err
		}
		tr.Timing = "instead of"
	default:
		tr.Timing = "before"
	}
	for {
		var ev string
		switch {
		case c.accept("insert"):
			ev = "insert"
		case c.accept("delete"):
			ev = "delete"
		case c.accept("truncate"):
			ev = "truncate"
		case c.accept("update"):
			ev = "update"
			if c.accept("of") {
				for {
					col, err := c.name()
					if err != nil {
						return err
					}
					tr.Columns = append(tr.Columns, col)
					if c.done() || !c.toks[c.i].isPunct(",") {
						break
					}
					c.i++
				}
			}
		default:
			return c.errHere()
		}
		tr.Events = append(tr.Events, ev)
		if !c.accept("or") {
			break
		}
	}
	tr.Event = tr.Events[0]
	if len(tr.Events) == 1 {
		tr.Events = nil // one event: Event says it
	}
	if err := c.expect("on"); err != nil {
		return err
	}
	table, err := c.sequenceName()
	if err != nil {
		return err
	}
	tr.Table = table
	if c.accept("for") {
		if err := c.expect("each"); err != nil {
			return err
		}
		if c.accept("statement") {
			tr.Statement = true
		} else if err := c.expect("row"); err != nil {
			return err
		}
		tr.eachRow = !tr.Statement
	}
	if c.accept("when") {
		from := c.i
		for !c.done() && !c.peek("begin") && !c.peek("execute") {
			c.i++
		}
		if c.i == from || c.done() {
			return c.errHere()
		}
		tr.When = c.r.sql[c.toks[from].pos:c.toks[c.i-1].end]
	}
	return nil
}

// execute reads PostgreSQL's action after EXECUTE: {FUNCTION |
// PROCEDURE} name ( [arg, ...] ), each argument a literal or a name kept
// as text (TG_ARGV).
func (tr *TriggerStmt) execute(c *cursor) error {
	if !c.accept("function") && !c.accept("procedure") {
		return c.errHere()
	}
	name, err := c.routineName()
	if err != nil {
		return err
	}
	tr.Function = name
	if c.done() || !c.toks[c.i].isPunct("(") {
		return c.errHere()
	}
	c.i++
	for !c.done() && !c.toks[c.i].isPunct(")") {
		t := c.toks[c.i]
		switch t.kind {
		case tkString, tkNumber, tkIdent, tkQIdent:
			tr.Args = append(tr.Args, t.val)
		case tkOp:
			if t.val != "-" || c.i+1 >= len(c.toks) || c.toks[c.i+1].kind != tkNumber {
				return c.errHere()
			}
			c.i++
			tr.Args = append(tr.Args, "-"+c.toks[c.i].val)
		default:
			return c.errHere()
		}
		c.i++
		if !c.done() && c.toks[c.i].isPunct(",") {
			c.i++
		}
	}
	if c.done() {
		return c.errHere()
	}
	c.i++
	return nil
}

// body reads BEGIN statement; ... END, splitting at the semicolons.
func (tr *TriggerStmt) body(c *cursor) error {
	if err := c.expect("begin"); err != nil {
		return err
	}
	last := len(c.toks) - 1
	if last < c.i || !c.toks[last].is("end") {
		return syntaxErr(c.r.sql, c.toks[last].pos, "syntax error: a trigger body must end with END")
	}
	from := c.i
	for k := c.i; k < last; k++ {
		if !c.toks[k].isPunct(";") {
			continue
		}
		if k == from {
			return syntaxErr(c.r.sql, c.toks[k].pos, "syntax error at or near \";\"")
		}
		tr.Body = append(tr.Body, c.r.sql[c.toks[from].pos:c.toks[k-1].end])
		from = k + 1
	}
	switch {
	case from < last:
		return syntaxErr(c.r.sql, c.toks[last].pos, "syntax error at or near \"end\": each of a trigger's statements ends with ;")
	case len(tr.Body) == 0:
		return syntaxErr(c.r.sql, c.toks[last].pos, "syntax error at or near \"end\": a trigger needs at least one statement")
	}
	return nil
}

// TriggerRef is a NEW.column or OLD.column reference in a trigger's
// statement or condition; TriggerStep turns the i-th distinct one into the
// parameter $(i+1).
type TriggerRef struct {
	Old    bool
	Column string
}

// TriggerStep parses one statement of a trigger's body (INSERT, UPDATE,
// DELETE or SELECT), replacing each NEW.column and OLD.column by a
// parameter; refs lists them in parameter order. The statement may not
// use parameters of its own.
func TriggerStep(sql string) (Statement, []TriggerRef, error) {
	toks, err := lex(sql)
	if err != nil {
		return Statement{}, nil, err
	}
	var b strings.Builder
	var refs []TriggerRef
	at := 0
	for k := 0; k < len(toks); k++ {
		t := toks[k]
		if t.kind == tkParam || t.isPunct("?") || t.isOp("?") {
			return Statement{}, nil, syntaxErr(sql, t.pos, "a trigger's statements cannot have parameters")
		}
		if (t.is("new") || t.is("old")) && k+2 < len(toks) && toks[k+1].isPunct(".") &&
			(toks[k+2].kind == tkIdent || toks[k+2].kind == tkQIdent) {
			ref := TriggerRef{Old: t.is("old"), Column: toks[k+2].val}
			n := len(refs)
			for i, r := range refs {
				if r == ref {
					n = i
					break
				}
			}
			if n == len(refs) {
				refs = append(refs, ref)
			}
			b.WriteString(sql[at:t.pos])
			b.WriteString("$" + strconv.Itoa(n+1))
			at = toks[k+2].end
			k += 2
		}
	}
	b.WriteString(sql[at:])
	st, err := ParseOne(b.String())
	if err != nil {
		return Statement{}, nil, err
	}
	switch st.AST.(type) {
	case *sqlparser.Insert, *sqlparser.Update, *sqlparser.Delete, sqlparser.TableStatement:
	default:
		if st.Compound == nil {
			return Statement{}, nil, pgerror.Newf(pgerror.FeatureNotSupported, "a trigger's statements are INSERT, UPDATE, DELETE or SELECT, not %q", sql)
		}
	}
	st.SQL = sql
	return st, refs, nil
}

// TriggerCondition parses a trigger's WHEN condition as a query that
// returns a row when the condition is true, with NEW/OLD references as in
// TriggerStep.
func TriggerCondition(cond string) (Statement, []TriggerRef, error) {
	return TriggerStep("SELECT 1 WHERE (" + cond + ")")
}
