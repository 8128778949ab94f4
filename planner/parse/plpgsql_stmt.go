package parse

import (
	"strings"

	"github.com/kvsql/kvsql/pgerror"
)

// The statements of a PL/pgSQL body (plpgsql.go has the blocks).

// stmts reads statements until one of the keywords in end is next.
func (p *plParser) stmts(end ...string) ([]*PLStmt, error) {
	var out []*PLStmt
	for {
		if p.done() {
			return nil, p.errHere()
		}
		for _, e := range end {
			// END of a block, but not END IF / END LOOP / END CASE of
			// an enclosing statement: those are the callers' ends too.
			if p.peek(e) {
				return out, nil
			}
		}
		st, err := p.stmt()
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
}

// stmt reads one statement, with its ;.
func (p *plParser) stmt() (*PLStmt, error) {
	line := p.line()
	label, labelled, err := p.label()
	if err != nil {
		return nil, err
	}
	st := &PLStmt{Line: line, Label: label}
	if p.done() {
		return nil, p.errHere()
	}
	t := p.toks[p.i]
	switch {
	case t.is("declare") || t.is("begin"):
		st.Kind = PLBlockStmt
		if st.Block, err = p.block(label); err != nil {
			return nil, err
		}
		return st, p.expectPunct(";")
	case t.is("loop"), t.is("while"), t.is("for"), t.is("foreach"):
		return st, p.loop(st)
	case labelled:
		return nil, p.errHere()
	case t.is("if"):
		p.i++
		return st, p.ifStmt(st)
	case t.is("case"):
		p.i++
		return st, p.caseStmt(st)
	case t.is("exit"), t.is("continue"):
		p.i++
		st.Kind = PLExit
		if t.is("continue") {
			st.Kind = PLContinue
		}
		if !p.done() && (p.toks[p.i].kind == tkIdent && !p.peek("when") || p.toks[p.i].kind == tkQIdent) {
			st.Label = p.toks[p.i].val
			p.i++
		}
		if p.accept("when") {
			if st.Expr, err = p.exprTo(";"); err != nil {
				return nil, err
			}
		}
		return st, p.expectPunct(";")
	case t.is("return"):
		p.i++
		return st, p.returnStmt(st)
	case t.is("raise"):
		p.i++
		return st, p.raise(st)
	case t.is("perform"):
		p.i++
		st.Kind = PLPerform
		if st.Query, err = p.exprTo(";"); err != nil {
			return nil, err
		}
		return st, p.expectPunct(";")
	case t.is("null"):
		p.i++
		st.Kind = PLNull
		return st, p.expectPunct(";")
	case t.is("get"):
		p.i++
		return st, p.getDiag(st)
	case t.is("execute"):
		p.i++
		return st, p.execute(st)
	case t.is("open"), t.is("fetch"), t.is("close"), t.is("move"), t.is("commit"), t.is("rollback"), t.is("assert"), t.is("call"):
		return nil, unsupported(p.src, t.pos, "PL/pgSQL statement %s is not supported", strings.ToUpper(t.val))
	}
	if p.isAssign() {
		return st, p.assign(st)
	}
	return st, p.sqlStmt(st)
}

// isAssign reports whether the statement at p.i is target := expr:
// name, name.field or name[subscript], then := or =.
func (p *plParser) isAssign() bool {
	k := p.i
	if k >= len(p.toks) || p.toks[k].kind != tkIdent && p.toks[k].kind != tkQIdent {
		return false
	}
	k++
	if k+1 < len(p.toks) && p.toks[k].isPunct(".") && (p.toks[k+1].kind == tkIdent || p.toks[k+1].kind == tkQIdent) {
		k += 2
	}
	return k < len(p.toks) && (p.toks[k].isOp("=>") || p.toks[k].isOp("="))
}

func (p *plParser) assign(st *PLStmt) error {
	st.Kind = PLAssign
	name := p.toks[p.i].val
	p.i++
	if p.acceptPunct(".") {
		name += "." + p.toks[p.i].val
		p.i++
	}
	st.Target = []string{name}
	p.i++ // := or =
	var err error
	if st.Expr, err = p.exprTo(";"); err != nil {
		return err
	}
	return p.expectPunct(";")
}

func (p *plParser) ifStmt(st *PLStmt) error {
	st.Kind = PLIf
	for {
		cond, err := p.exprTo("then")
		if err != nil {
			return err
		}
		p.i++ // THEN
		body, err := p.stmts("elsif", "elseif", "else", "end")
		if err != nil {
			return err
		}
		st.Conds, st.Thens = append(st.Conds, cond), append(st.Thens, body)
		if p.accept("elsif") || p.accept("elseif") {
			continue
		}
		break
	}
	if p.accept("else") {
		body, err := p.stmts("end")
		if err != nil {
			return err
		}
		st.Else, st.HasElse = body, true
	}
	if err := p.expect("end"); err != nil {
		return err
	}
	if err := p.expect("if"); err != nil {
		return err
	}
	return p.expectPunct(";")
}

func (p *plParser) caseStmt(st *PLStmt) error {
	st.Kind = PLCase
	var err error
	if !p.peek("when") {
		if st.Expr, err = p.exprTo("when"); err != nil {
			return err
		}
	}
	for p.accept("when") {
		cond, err := p.exprTo("then")
		if err != nil {
			return err
		}
		p.i++
		body, err := p.stmts("when", "else", "end")
		if err != nil {
			return err
		}
		st.Conds, st.Thens = append(st.Conds, cond), append(st.Thens, body)
	}
	if len(st.Conds) == 0 {
		return p.errHere()
	}
	if p.accept("else") {
		if st.Else, err = p.stmts("end"); err != nil {
			return err
		}
		st.HasElse = true
	}
	if err := p.expect("end"); err != nil {
		return err
	}
	if err := p.expect("case"); err != nil {
		return err
	}
	return p.expectPunct(";")
}

// loop reads LOOP, WHILE, FOR and FOREACH up to END LOOP [label];.
func (p *plParser) loop(st *PLStmt) error {
	var err error
	switch {
	case p.accept("loop"):
		st.Kind = PLLoop
		return p.loopBody(st, false)
	case p.accept("while"):
		st.Kind = PLWhile
		if st.Expr, err = p.exprTo("loop"); err != nil {
			return err
		}
	case p.accept("foreach"):
		st.Kind = PLForEach
		if st.Target, err = p.targets(); err != nil {
			return err
		}
		if p.accept("slice") {
			return unsupported(p.src, p.toks[p.i-1].pos, "FOREACH ... SLICE is not supported")
		}
		if err := p.expect("in"); err != nil {
			return err
		}
		if err := p.expect("array"); err != nil {
			return err
		}
		if st.Expr, err = p.exprTo("loop"); err != nil {
			return err
		}
	default:
		p.i++ // FOR
		if st.Target, err = p.targets(); err != nil {
			return err
		}
		if err := p.expect("in"); err != nil {
			return err
		}
		st.Reverse = p.accept("reverse")
		if p.accept("execute") {
			st.Kind, st.Dynamic = PLForQuery, true
			if st.Query, err = p.exprTo("loop", "using"); err != nil {
				return err
			}
			if p.accept("using") {
				if st.Using, err = p.exprList("loop"); err != nil {
					return err
				}
			}
			break
		}
		// An integer range has .. at the top level before LOOP.
		end := p.scanTo("loop")
		dots := -1
		if k := p.scanTo(".."); k < end {
			dots = k
		}
		if dots < 0 {
			st.Kind = PLForQuery
			if st.Query, err = p.exprTo("loop"); err != nil {
				return err
			}
			break
		}
		st.Kind = PLForInt
		if len(st.Target) != 1 {
			return p.errHere()
		}
		if st.Lo, err = p.exprTo(".."); err != nil {
			return err
		}
		p.i += 2
		if st.Hi, err = p.exprTo("loop", "by"); err != nil {
			return err
		}
		if p.accept("by") {
			if st.By, err = p.exprTo("loop"); err != nil {
				return err
			}
		}
	}
	return p.loopBody(st, true)
}

func (p *plParser) loopBody(st *PLStmt, keyword bool) error {
	if keyword {
		if err := p.expect("loop"); err != nil {
			return err
		}
	}
	body, err := p.stmts("end")
	if err != nil {
		return err
	}
	st.Body = body
	p.i++ // END
	if err := p.expect("loop"); err != nil {
		return err
	}
	if !p.done() && (p.toks[p.i].kind == tkIdent || p.toks[p.i].kind == tkQIdent) {
		end := p.toks[p.i]
		if st.Label == "" || end.val != st.Label {
			return syntaxErr(p.src, end.pos, "end label \"%s\" differs from block's label \"%s\"", end.val, st.Label)
		}
		p.i++
	}
	return p.expectPunct(";")
}

// targets reads name[.field] [, ...].
func (p *plParser) targets() ([]string, error) {
	var out []string
	for {
		name, err := p.ident()
		if err != nil {
			return nil, err
		}
		if p.i+1 < len(p.toks) && p.toks[p.i].isPunct(".") && (p.toks[p.i+1].kind == tkIdent || p.toks[p.i+1].kind == tkQIdent) {
			name += "." + p.toks[p.i+1].val
			p.i += 2
		}
		out = append(out, name)
		if !p.acceptPunct(",") {
			return out, nil
		}
	}
}

// exprList reads expr [, expr ...] up to a stop.
func (p *plParser) exprList(stop ...string) ([]string, error) {
	var out []string
	for {
		e, err := p.exprTo(append([]string{","}, stop...)...)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
		if !p.acceptPunct(",") {
			return out, nil
		}
	}
}

func (p *plParser) returnStmt(st *PLStmt) error {
	var err error
	switch {
	case p.accept("next"):
		st.Kind = PLReturnNext
		if !p.done() && !p.toks[p.i].isPunct(";") {
			if st.Expr, err = p.exprTo(";"); err != nil {
				return err
			}
		}
	case p.accept("query"):
		st.Kind = PLReturnQry
		if p.accept("execute") {
			st.Dynamic = true
			if st.Query, err = p.exprTo(";", "using"); err != nil {
				return err
			}
			if p.accept("using") {
				if st.Using, err = p.exprList(";"); err != nil {
					return err
				}
			}
		} else if st.Query, err = p.exprTo(";"); err != nil {
			return err
		}
	default:
		st.Kind = PLReturn
		if !p.done() && !p.toks[p.i].isPunct(";") {
			if st.Expr, err = p.exprTo(";"); err != nil {
				return err
			}
		}
	}
	return p.expectPunct(";")
}

var raiseLevels = map[string]bool{"debug": true, "log": true, "info": true, "notice": true, "warning": true, "exception": true}

// raise reads RAISE [level] ['format' [, expr ...]] [USING opt = expr
// [, ...]]; or RAISE [level] condition_name | SQLSTATE 'xxxxx' [USING
// ...]; or a bare RAISE (re-raise in a handler).
func (p *plParser) raise(st *PLStmt) error {
	st.Kind = PLRaise
	st.Level = "exception"
	if !p.done() && p.toks[p.i].kind == tkIdent && raiseLevels[p.toks[p.i].val] {
		st.Level = p.toks[p.i].val
		p.i++
	}
	switch {
	case p.done():
		return p.errHere()
	case p.toks[p.i].kind == tkString:
		st.HasFormat, st.Format = true, p.toks[p.i].val
		p.i++
		for p.acceptPunct(",") {
			e, err := p.exprTo(",", ";", "using")
			if err != nil {
				return err
			}
			st.Args = append(st.Args, e)
		}
		if n := strings.Count(strings.ReplaceAll(st.Format, "%%", ""), "%"); n != len(st.Args) {
			if n > len(st.Args) {
				return pgerror.New(pgerror.SyntaxError, "too few parameters specified for RAISE")
			}
			return pgerror.New(pgerror.SyntaxError, "too many parameters specified for RAISE")
		}
	case p.accept("sqlstate"):
		if p.done() || p.toks[p.i].kind != tkString || !validSQLState(p.toks[p.i].val) {
			return p.errHere()
		}
		st.Cond = p.toks[p.i].val
		p.i++
	case p.toks[p.i].kind == tkIdent && !p.peek("using"):
		code, ok := conditionCodes[p.toks[p.i].val]
		if !ok {
			return pgerror.Newf(pgerror.UndefinedObject, "unrecognized exception condition \"%s\"", p.toks[p.i].val)
		}
		st.Cond = code
		p.i++
	}
	if p.accept("using") {
		for {
			name, err := p.ident()
			if err != nil {
				return err
			}
			switch name {
			case "errcode", "message", "detail", "hint", "column", "constraint", "datatype", "table", "schema":
			default:
				return syntaxErr(p.src, p.toks[p.i-1].pos, "unrecognized RAISE statement option \"%s\"", name)
			}
			if !p.acceptOp("=") && !p.acceptOp("=>") {
				return p.errHere()
			}
			e, err := p.exprTo(",", ";")
			if err != nil {
				return err
			}
			st.Options = append(st.Options, [2]string{name, e})
			if !p.acceptPunct(",") {
				break
			}
		}
	}
	return p.expectPunct(";")
}

// getDiag reads GET [CURRENT | STACKED] DIAGNOSTICS var {= | :=} item
// [, ...].
func (p *plParser) getDiag(st *PLStmt) error {
	st.Kind = PLGetDiag
	if p.accept("stacked") {
		st.Label = "stacked"
	} else {
		p.accept("current")
	}
	if err := p.expect("diagnostics"); err != nil {
		return err
	}
	for {
		name, err := p.ident()
		if err != nil {
			return err
		}
		if !p.acceptOp("=") && !p.acceptOp("=>") {
			return p.errHere()
		}
		item, err := p.ident()
		if err != nil {
			return err
		}
		st.Target, st.Items = append(st.Target, name), append(st.Items, item)
		if !p.acceptPunct(",") {
			break
		}
	}
	return p.expectPunct(";")
}

// execute reads EXECUTE expr [INTO [STRICT] targets] [USING expr, ...].
func (p *plParser) execute(st *PLStmt) error {
	st.Kind = PLExecute
	var err error
	if st.Query, err = p.exprTo(";", "into", "using"); err != nil {
		return err
	}
	for !p.done() && !p.toks[p.i].isPunct(";") {
		switch {
		case p.accept("into"):
			st.Strict = p.accept("strict")
			if st.Target, err = p.targets(); err != nil {
				return err
			}
		case p.accept("using"):
			if st.Using, err = p.exprList(";", "into"); err != nil {
				return err
			}
		default:
			return p.errHere()
		}
	}
	return p.expectPunct(";")
}

// sqlStmt reads a SQL statement up to its ;, taking out its INTO
// [STRICT] targets: a SELECT's first top-level INTO, or the INTO after
// RETURNING of INSERT, UPDATE and DELETE.
func (p *plParser) sqlStmt(st *PLStmt) error {
	st.Kind = PLSQL
	start := p.i
	end := p.scanTo(";")
	if end >= len(p.toks) {
		p.i = end
		return p.errHere()
	}
	first := p.toks[start]
	if first.kind != tkIdent {
		return p.errHere()
	}
	switch first.val {
	case "select", "with", "insert", "update", "delete", "values", "table", "merge", "lock", "set", "reset", "truncate",
		"create", "drop", "alter", "notify", "listen", "analyze", "vacuum", "comment", "refresh", "show", "grant", "revoke":
	default:
		return p.errHere()
	}
	into := -1
	dml := first.is("insert") || first.is("update") || first.is("delete")
	returning := !dml
	depth := 0
	for k := start; k < end; k++ {
		t := p.toks[k]
		switch {
		case t.isPunct("("):
			depth++
		case t.isPunct(")"):
			depth--
		case depth == 0 && t.is("returning"):
			returning = true
		case depth == 0 && returning && t.is("into") && into < 0 && !(k > start && p.toks[k-1].is("insert")):
			into = k
		}
	}
	if into < 0 {
		st.Query = p.src[first.pos:p.toks[end-1].end]
		p.i = end + 1
		return nil
	}
	p.i = into + 1
	st.Strict = p.accept("strict")
	var err error
	if st.Target, err = p.targets(); err != nil {
		return err
	}
	after := p.i
	text := strings.TrimSpace(p.src[first.pos:p.toks[into].pos])
	if after < end {
		text += " " + p.src[p.toks[after].pos:p.toks[end-1].end]
	}
	st.Query = strings.TrimSpace(text)
	p.i = end + 1
	return nil
}
