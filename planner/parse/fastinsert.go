package parse

import "vitess.io/vitess/go/vt/sqlparser"

// The fast path for multi-row INSERT ... VALUES of literals.
//
// A bulk load sends INSERT INTO t (cols) VALUES (...), (...), ... with a
// thousand rows of constants. The generic path runs every rewrite pass
// over every token, writes vitess text for the whole statement and has
// vitess parse it again: for such a statement that was three quarters of
// the server's CPU. Only the statement's head needs any of it; the rows
// are constants whose syntax trees can be built straight from the tokens.
//
// So insertRows splits the statement after its first row: the head
// (everything up to and including the first row) goes through the
// generic path, which checks the table, the column list, OVERRIDING,
// INSERT OR REPLACE and so on exactly as before, and the remaining rows
// are appended to its VALUES list as the literals vitess itself builds
// for them (the same *sqlparser.Literal, UnaryExpr, NullVal, BoolVal and
// Default nodes). The planner then types every literal by PostgreSQL's
// rules as it always has: the tree it receives is the same.
//
// The fast path is taken only when every row after the first is a
// parenthesised list of plain literals and nothing follows the last row
// (no ON CONFLICT, RETURNING, ...). Anything else — an expression, a
// cast, a typed literal, a syntax error, a head the generic path refuses
// — goes through the generic path whole, so errors are reported as
// before. TestFastInsertDifferential compares both paths on random
// statements.

// fastInsertOff turns the fast path off (tests compare both paths).
var fastInsertOff = false

// fastInsertMinRows is the fewest rows worth the fast path: below it the
// generic path costs little.
const fastInsertMinRows = 2

// fastInsert parses an INSERT ... VALUES statement by the fast path and
// reports whether it could; when it could not, r is as it was and the
// caller takes the generic path.
func (r *rewriter) fastInsert(toks []token) (Statement, bool) {
	if fastInsertOff || len(toks) < 8 || !toks[0].is("insert") {
		return Statement{}, false
	}
	v := fastInsertHead(toks)
	if v < 0 {
		return Statement{}, false
	}
	first, rows, ok := literalRows(toks[v+1:])
	if !ok || 1+len(rows) < fastInsertMinRows {
		return Statement{}, false
	}
	saved := *r
	st, err := r.dml(toks[:v+1+first])
	if err != nil {
		*r = saved
		return Statement{}, false
	}
	ins, isIns := st.AST.(*sqlparser.Insert)
	var vals sqlparser.Values
	if isIns {
		vals, isIns = ins.Rows.(sqlparser.Values)
	}
	if !isIns || len(vals) != 1 || st.OnConflict != nil || st.Returning != nil {
		*r = saved
		return Statement{}, false
	}
	all := make(sqlparser.Values, 0, 1+len(rows))
	ins.Rows = append(append(all, vals[0]), rows...)
	return st, true
}

// fastInsertHead returns the index of the VALUES keyword that ends an
// INSERT's head made only of words, quoted names, dots, commas and
// balanced parentheses (INSERT [OR x] INTO name [AS a] [(cols)]
// [OVERRIDING ... VALUE]), or -1.
func fastInsertHead(toks []token) int {
	depth := 0
	for k := 1; k < len(toks); k++ {
		t := toks[k]
		switch {
		case t.kind == tkIdent && t.val == "values" && depth == 0:
			return k
		case t.kind == tkIdent:
			if t.val == "select" || t.val == "values" || t.val == "default" {
				return -1
			}
		case t.kind == tkQIdent:
		case t.isPunct("."), t.isPunct(","):
		case t.isPunct("("):
			depth++
		case t.isPunct(")"):
			if depth--; depth < 0 {
				return -1
			}
		default:
			return -1
		}
	}
	return -1
}

// literalRows reads toks, the tokens after VALUES, as a list of
// parenthesised rows of literals that runs to the end. It returns the
// number of tokens of the first row (the generic path parses it) and the
// trees of the others; ok is false when toks are anything else.
func literalRows(toks []token) (first int, rows []sqlparser.ValTuple, ok bool) {
	k, width := 0, 0
	var lits literalSlab
	for n := 0; ; n++ {
		if k >= len(toks) || !toks[k].isPunct("(") {
			return 0, nil, false
		}
		k++
		var row sqlparser.ValTuple
		if n > 0 {
			row = make(sqlparser.ValTuple, 0, width) // rows are usually as wide as the first
		}
		for {
			e, used := lits.expr(toks[k:])
			if used == 0 {
				return 0, nil, false
			}
			k += used
			if n == 0 {
				width++
			} else {
				row = append(row, e)
			}
			if toks[k].isPunct(")") { // literalExpr saw a , or ) after it
				k++
				break
			}
			k++
		}
		if n == 0 {
			// The first row's tokens tell how many rows there may be.
			first = k
			rows = make([]sqlparser.ValTuple, 0, len(toks)/k)
		} else {
			rows = append(rows, row)
		}
		if k == len(toks) {
			return first, rows, true
		}
		if !toks[k].isPunct(",") {
			return 0, nil, false
		}
		k++
	}
}

// literalSlab hands out the rows' *sqlparser.Literal nodes from chunks
// allocated a few hundred at a time, not one allocation each.
type literalSlab struct {
	chunk []sqlparser.Literal
}

// literalChunk is how many literals one allocation of a literalSlab holds.
const literalChunk = 512

// literal returns a new literal of type typ spelled val.
func (s *literalSlab) literal(typ sqlparser.ValType, val string) *sqlparser.Literal {
	if len(s.chunk) == cap(s.chunk) {
		s.chunk = make([]sqlparser.Literal, 0, literalChunk)
	}
	s.chunk = append(s.chunk, sqlparser.Literal{Type: typ, Val: val})
	return &s.chunk[len(s.chunk)-1]
}

// expr returns the vitess tree of the literal that toks start with and
// the number of tokens it took, or 0 tokens when toks do not start with
// one: a string, a number with an optional sign, NULL, TRUE, FALSE or
// DEFAULT, followed by a comma or a closing parenthesis.
func (s *literalSlab) expr(toks []token) (sqlparser.Expr, int) {
	if len(toks) < 2 {
		return nil, 0
	}
	t := toks[0]
	var e sqlparser.Expr
	used := 1
	switch t.kind {
	case tkString:
		e = s.literal(sqlparser.StrVal, t.val) // as sqlparser.NewStrLiteral
	case tkNumber:
		typ, ok := numberType(t.val)
		if !ok {
			return nil, 0
		}
		e = s.literal(typ, t.val)
	case tkOp:
		if t.val != "-" && t.val != "+" || toks[1].kind != tkNumber {
			return nil, 0
		}
		typ, ok := numberType(toks[1].val)
		if !ok {
			return nil, 0
		}
		lit := s.literal(typ, toks[1].val)
		e, used = lit, 2
		if t.val == "-" {
			e = &sqlparser.UnaryExpr{Operator: sqlparser.UMinusOp, Expr: lit}
		}
	case tkIdent:
		switch t.val {
		case "null":
			e = &sqlparser.NullVal{}
		case "true":
			e = sqlparser.BoolVal(true)
		case "false":
			e = sqlparser.BoolVal(false)
		case "default":
			e = &sqlparser.Default{}
		default:
			return nil, 0
		}
	default:
		return nil, 0
	}
	if used >= len(toks) || !toks[used].isPunct(",") && !toks[used].isPunct(")") {
		return nil, 0
	}
	return e, used
}

// numberType is the type of vitess literal a number token is as vitess
// reads it: digits are an integer, digits with a point a decimal, and a number
// with an exponent a float. Other spellings (PostgreSQL 16's
// underscores, a bare point) are left to the generic path.
func numberType(s string) (sqlparser.ValType, bool) {
	digits, point, exp := 0, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !point && !exp:
			point = true
		case (c == 'e' || c == 'E') && !exp && digits > 0:
			exp = true
			if i+1 < len(s) && (s[i+1] == '+' || s[i+1] == '-') {
				i++
			}
			if i+1 >= len(s) {
				return 0, false
			}
		default:
			return 0, false
		}
	}
	switch {
	case digits == 0:
		return 0, false
	case exp:
		return sqlparser.FloatVal, true
	case point:
		return sqlparser.DecimalVal, true
	}
	return sqlparser.IntVal, true
}
