package parse

import (
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"
)

// setOpWords are the set operators; tailWords start the clauses that
// apply to a whole set operation.
var (
	setOpWords = map[string]bool{"union": true, "intersect": true, "except": true}
	tailWords  = map[string]bool{"order": true, "limit": true, "offset": true, "fetch": true}
	leafEnd    = map[string]bool{"union": true, "intersect": true, "except": true, "order": true, "limit": true, "offset": true, "fetch": true}
)

// query handles SELECT / VALUES / WITH / parenthesised queries. Vitess has
// no INTERSECT or EXCEPT, so a query using them at the top level is split
// into its operands, each parsed by vitess, and assembled into a Compound
// with PostgreSQL's precedence (INTERSECT binds tighter than UNION and
// EXCEPT, which associate to the left). Queries without them go to vitess
// whole.
func (r *rewriter) query(toks []token) (Statement, error) {
	toks, err := r.hoistSetOps(toks)
	if err != nil {
		return Statement{}, err
	}
	if !hasSetOp(toks) {
		ast, err := r.vitessParse(toks)
		return Statement{AST: ast, NumParams: r.numParams()}, err
	}
	if toks[0].is("with") {
		return Statement{}, unsupported(r.sql, toks[0].pos, "WITH on INTERSECT or EXCEPT is not supported")
	}
	p := &setParser{r: r, toks: toks}
	st, err := p.full()
	if err != nil {
		return st, err
	}
	if p.i < len(toks) {
		t := toks[p.i]
		return st, syntaxErr(r.sql, t.pos, "syntax error at or near %q", tokText(r.sql, t))
	}
	st.NumParams = r.numParams()
	return st, nil
}

// hasSetOp reports whether INTERSECT or EXCEPT occurs at depth 0, or
// inside a parenthesised operand of the top-level query.
func hasSetOp(toks []token) bool {
	depth := 0
	for k, t := range toks {
		switch {
		case t.isPunct("("):
			depth++
		case t.isPunct(")"):
			depth--
		case t.is("intersect") || t.is("except"):
			if depth == 0 {
				return true
			}
			// A set operation inside parentheses that start an operand.
			if depth > 0 && parenStartsQuery(toks, k) {
				return true
			}
		}
	}
	return false
}

// parenStartsQuery reports whether the token at k sits in parentheses that
// are themselves at the top level of the statement (not a subquery in an
// expression or FROM), e.g. `(SELECT 1 INTERSECT SELECT 1) UNION ...`.
func parenStartsQuery(toks []token, k int) bool {
	depth := 0
	for j := k; j >= 0; j-- {
		switch {
		case toks[j].isPunct(")"):
			depth++
		case toks[j].isPunct("("):
			if depth == 0 {
				return j == 0 || toks[j-1].kind == tkIdent && setOpWords[toks[j-1].val] ||
					toks[j-1].isPunct("(") && parenStartsQuery(toks, j-1) ||
					(toks[j-1].is("all") || toks[j-1].is("distinct")) && j >= 2 && setOpWords[toks[j-2].val]
			}
			depth--
		}
	}
	return false
}

// setParser is a precedence-climbing parser over set operations.
type setParser struct {
	r    *rewriter
	toks []token
	i    int
}

// full parses operands joined by set operators followed by an optional
// ORDER BY / LIMIT / OFFSET / FETCH tail for the whole.
func (p *setParser) full() (Statement, error) {
	start := p.i
	st, err := p.union()
	if err != nil {
		return st, err
	}
	if p.i < len(p.toks) && p.toks[p.i].kind == tkIdent && tailWords[p.toks[p.i].val] {
		tailStart := p.i
		end := findEnd(p.toks, p.i, nil)
		tail := append([]token{raw("select 1 from dual", p.toks[p.i].pos)}, p.toks[p.i:end]...)
		ast, err := p.r.vitessParse(tail)
		if err != nil {
			return st, err
		}
		sel, ok := ast.(*sqlparser.Select)
		if !ok {
			return st, syntaxErr(p.r.sql, p.toks[tailStart].pos, "syntax error in ORDER BY / LIMIT")
		}
		p.i = end
		if st.Compound == nil {
			// One parenthesised operand with a tail: wrap as a leaf query.
			return st, unsupported(p.r.sql, p.toks[tailStart].pos, "ORDER BY / LIMIT after a parenthesised query is not supported")
		}
		if st.Compound.OrderBy != nil || st.Compound.Limit != nil {
			return st, unsupported(p.r.sql, p.toks[tailStart].pos, "multiple ORDER BY / LIMIT clauses on one set operation are not supported")
		}
		st.Compound.OrderBy, st.Compound.Limit = sel.OrderBy, sel.Limit
	}
	st.from, st.to = p.toks[start].pos, p.toks[max(p.i-1, start)].end
	st.SQL = p.r.sql[st.from:st.to]
	return st, nil
}

// union parses INTERSECT-terms joined by UNION / EXCEPT (left-assoc).
func (p *setParser) union() (Statement, error) {
	left, err := p.intersect()
	if err != nil {
		return left, err
	}
	for p.i < len(p.toks) && (p.toks[p.i].is("union") || p.toks[p.i].is("except")) {
		op := strings.ToUpper(p.toks[p.i].val)
		all := p.quantifier()
		right, err := p.intersect()
		if err != nil {
			return left, err
		}
		left = p.combine(op, all, left, right)
	}
	return left, nil
}

// intersect parses operands joined by INTERSECT (left-assoc).
func (p *setParser) intersect() (Statement, error) {
	left, err := p.operand()
	if err != nil {
		return left, err
	}
	for p.i < len(p.toks) && p.toks[p.i].is("intersect") {
		all := p.quantifier()
		right, err := p.operand()
		if err != nil {
			return left, err
		}
		left = p.combine("INTERSECT", all, left, right)
	}
	return left, nil
}

// quantifier consumes the set operator and ALL / DISTINCT after it.
func (p *setParser) quantifier() bool {
	p.i++
	if p.i < len(p.toks) && p.toks[p.i].is("all") {
		p.i++
		return true
	}
	if p.i < len(p.toks) && p.toks[p.i].is("distinct") {
		p.i++
	}
	return false
}

func (p *setParser) combine(op string, all bool, left, right Statement) Statement {
	l, r := left, right
	return Statement{
		SQL:      p.r.sql[left.from:right.to],
		Compound: &Compound{Op: op, All: all, Left: &l, Right: &r},
		from:     left.from,
		to:       right.to,
	}
}

// operand parses a parenthesised query or a plain SELECT / VALUES that
// runs to the next set operator or tail clause.
func (p *setParser) operand() (Statement, error) {
	if p.i >= len(p.toks) {
		end := p.toks[len(p.toks)-1].end
		return Statement{}, syntaxErr(p.r.sql, end, "syntax error at end of input")
	}
	t := p.toks[p.i]
	if t.isPunct("(") {
		end := matchForward(p.toks, p.i)
		if end < 0 {
			return Statement{}, syntaxErr(p.r.sql, t.pos, "unterminated parenthesis")
		}
		inner := &setParser{r: p.r, toks: p.toks[p.i+1 : end]}
		if len(inner.toks) == 0 {
			return Statement{}, syntaxErr(p.r.sql, t.pos, "empty query in parentheses")
		}
		var st Statement
		var err error
		if hasSetOp(inner.toks) {
			st, err = inner.full()
			if err == nil && inner.i < len(inner.toks) {
				err = syntaxErr(p.r.sql, inner.toks[inner.i].pos, "syntax error")
			}
		} else {
			st.AST, err = p.r.vitessParse(inner.toks)
			st.SQL = p.r.sql[inner.toks[0].pos:inner.toks[len(inner.toks)-1].end]
		}
		st.from, st.to = t.pos, p.toks[end].end
		p.i = end + 1
		return st, err
	}
	if !(t.is("select") || t.is("values") || t.is("table")) {
		return Statement{}, syntaxErr(p.r.sql, t.pos, "syntax error at or near %q", tokText(p.r.sql, t))
	}
	end := findEnd(p.toks, p.i, leafEnd)
	leaf := p.toks[p.i:end]
	p.i = end
	ast, err := p.r.vitessParse(leaf)
	if err != nil {
		return Statement{}, err
	}
	from, to := leaf[0].pos, leaf[len(leaf)-1].end
	return Statement{AST: ast, SQL: p.r.sql[from:to], from: from, to: to}, nil
}

// MarkerSetOp, followed by a number i, names Statement.SetOps[i] as a
// table: hoistSetOps writes (SELECT * FROM kvsql_setop_i) for a
// parenthesised query with INTERSECT or EXCEPT inside a statement, which
// vitess cannot read there.
const MarkerSetOp = "kvsql_setop_"

// setOpContext are the words after which a parenthesised query is a
// subquery, a derived table or a parenthesised operand inside another
// (the statement's own operands at its top level are query's).
var setOpContext = map[string]bool{"from": true, "join": true, "lateral": true, "in": true,
	"exists": true, "any": true, "some": true, "as": true, "array": true, "select": true}

// hoistSetOps parses each parenthesised query with INTERSECT or EXCEPT in
// a subquery position into r.setOps and leaves (SELECT * FROM
// kvsql_setop_i) in its place.
func (r *rewriter) hoistSetOps(toks []token) ([]token, error) {
	var out []token
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		out = append(out, t)
		if !t.isPunct("(") || i == 0 {
			continue
		}
		prev := toks[i-1]
		if !(prev.kind == tkIdent && setOpContext[prev.val] || prev.isPunct(",") || prev.isPunct("(") || prev.kind == tkOp) {
			continue
		}
		end := matchForward(toks, i)
		if end < 0 || end == i+1 || !startsQuery(toks[i+1]) || !hasSetOp(toks[i+1:end]) || !topLevelSetOp(toks[i+1:end]) {
			continue
		}
		st, err := r.query(toks[i+1 : end])
		if err != nil {
			return nil, err
		}
		pos := toks[i+1].pos
		out = append(out, raw("select * from "+MarkerSetOp+strconv.Itoa(len(r.setOps)), pos), toks[end])
		r.setOps = append(r.setOps, &st)
		i = end
	}
	return out, nil
}

// topLevelSetOp reports whether INTERSECT or EXCEPT occurs in toks
// outside parentheses (a nested one is hoisted on its own).
func topLevelSetOp(toks []token) bool {
	return topLevel(toks, func(t token) bool { return t.is("intersect") || t.is("except") }) >= 0
}
