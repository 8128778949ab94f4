package parse

import "vitess.io/vitess/go/vt/sqlparser"

// PrepareStmt is PREPARE name [(types)] AS statement: the statement's
// text, parsed when the session prepares it.
type PrepareStmt struct {
	Name  string
	Types []TypeRef
	Body  string
}

// TypeRef is a type name as written: the canonical name and modifiers.
type TypeRef struct {
	Name          string
	Length, Scale *int
}

// ExecuteStmt is EXECUTE name [(args)].
type ExecuteStmt struct {
	Name string
	Args []sqlparser.Expr
}

// DeallocateStmt is DEALLOCATE [PREPARE] {name | ALL} (Name "" for ALL).
type DeallocateStmt struct{ Name string }

// prepared parses PREPARE, EXECUTE and DEALLOCATE.
func (r *rewriter) prepared(toks []token) (Statement, error) {
	var st Statement
	c := &cursor{r: r, toks: toks, i: 1}
	switch toks[0].val {
	case "deallocate":
		c.accept("prepare")
		d := &DeallocateStmt{}
		if !c.accept("all") {
			name, err := c.name()
			if err != nil {
				return st, err
			}
			d.Name = name
		}
		st.Deallocate = d
		return st, c.end()
	case "execute":
		name, err := c.name()
		if err != nil {
			return st, err
		}
		e := &ExecuteStmt{Name: name}
		if !c.done() {
			if !toks[c.i].isPunct("(") {
				return st, c.errHere()
			}
			end := matchForward(toks, c.i)
			if end < 0 || end != len(toks)-1 {
				return st, c.errHere()
			}
			if end > c.i+1 {
				sel := append([]token{raw("select", toks[c.i].pos)}, toks[c.i+1:end]...)
				ast, err := r.vitessParse(sel)
				if err != nil {
					return st, err
				}
				s, ok := ast.(*sqlparser.Select)
				if !ok {
					return st, c.errHere()
				}
				for _, se := range s.SelectExprs.Exprs {
					ae, ok := se.(*sqlparser.AliasedExpr)
					if !ok {
						return st, c.errHere()
					}
					e.Args = append(e.Args, ae.Expr)
				}
			}
		}
		st.Execute = e
		st.NumParams = r.numParams()
		return st, nil
	}
	// PREPARE name [(type, ...)] AS statement
	name, err := c.name()
	if err != nil {
		return st, err
	}
	p := &PrepareStmt{Name: name}
	if !c.done() && toks[c.i].isPunct("(") {
		end := matchForward(toks, c.i)
		if end < 0 {
			return st, c.errHere()
		}
		for _, part := range splitTop(toks[c.i+1 : end]) {
			tn, next, ok, err := parseType(r.sql, part, 0)
			if err != nil {
				return st, err
			}
			if !ok || next != len(part) {
				return st, syntaxErr(r.sql, part[0].pos, "type name expected in PREPARE")
			}
			p.Types = append(p.Types, TypeRef{Name: tn.spelled(), Length: tn.Length, Scale: tn.Scale})
		}
		c.i = end + 1
	}
	if err := c.expect("as"); err != nil {
		return st, err
	}
	if c.done() {
		return st, c.errHere()
	}
	p.Body = r.sql[toks[c.i].pos:toks[len(toks)-1].end]
	st.Prepare = p
	return st, nil
}
