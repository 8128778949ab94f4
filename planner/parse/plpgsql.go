package parse

import (
	"strings"

	"github.com/kvsql/kvsql/pgerror"
)

// PL/pgSQL bodies. ParsePL reads the text of a LANGUAGE plpgsql function
// or a DO block once, at CREATE (or DO), into a small tree of PLStmt;
// session's interpreter walks it. The SQL inside the body (expressions,
// queries, DML) stays text: the interpreter plans each piece as a query
// whose parameters are the variables in scope, as PostgreSQL's SPI does.

// PLBlock is [<<label>>] [DECLARE decls] BEGIN body [EXCEPTION handlers]
// END [label].
type PLBlock struct {
	Label    string
	Decls    []PLVar
	Body     []*PLStmt
	Handlers []PLHandler
}

// PLVar is one declaration: name [CONSTANT] type [NOT NULL] [{DEFAULT |
// := | =} expr], or name ALIAS FOR $n.
type PLVar struct {
	Name     string
	Type     string // as the dialect layer spells types; "record" for RECORD
	Constant bool
	NotNull  bool
	Default  string // expression text, or ""
	Alias    int    // ALIAS FOR $n: n (1-based), else 0
	AliasOf  string // ALIAS FOR name
}

// PLHandler is WHEN cond [OR cond ...] THEN stmts: each condition a
// SQLSTATE, "others", or a class ("xx000" with the last three zero).
type PLHandler struct {
	Codes []string
	Body  []*PLStmt
}

// PLStmt kinds.
const (
	PLBlockStmt  = "block"
	PLAssign     = "assign"
	PLIf         = "if"
	PLCase       = "case"
	PLLoop       = "loop"
	PLWhile      = "while"
	PLForInt     = "fori"
	PLForQuery   = "forq"
	PLForEach    = "foreach"
	PLExit       = "exit"
	PLContinue   = "continue"
	PLReturn     = "return"
	PLReturnNext = "returnnext"
	PLReturnQry  = "returnquery"
	PLRaise      = "raise"
	PLSQL        = "sql"
	PLPerform    = "perform"
	PLGetDiag    = "getdiag"
	PLNull       = "null"
	PLExecute    = "execute"
)

// PLStmt is one statement of a body. Which fields are set depends on
// Kind; SQL pieces are text, expressions without their SELECT.
type PLStmt struct {
	Kind  string
	Line  int    // line in the body, for CONTEXT
	Label string // a loop's or block's <<label>>; EXIT's / CONTINUE's target
	Block *PLBlock

	// Target is an assignment's variable (name or rec.field), a loop's
	// variable(s), or INTO's targets.
	Target []string
	Expr   string // assignment's value, a condition, RETURN's value, CASE's subject
	Strict bool   // INTO STRICT

	// IF: Conds[i] guards Thens[i]; Else runs when none holds. CASE: Conds
	// are the WHEN values (a comma list stays one text).
	Conds []string
	Thens [][]*PLStmt
	Else  []*PLStmt
	// HasElse: CASE has an ELSE (without one, no match is 20000).
	HasElse bool

	Body    []*PLStmt // a loop's body
	Reverse bool      // FOR i IN REVERSE
	Lo, Hi  string    // FOR i IN lo..hi
	By      string    // BY step, or ""
	Query   string    // SQL text: a statement, FOR's or RETURN QUERY's query, PERFORM's select list
	Dynamic bool      // FOR ... IN EXECUTE / RETURN QUERY EXECUTE: Query is an expression
	Using   []string  // EXECUTE ... USING

	// RAISE: Level (debug, log, info, notice, warning, exception), the
	// format (Format set: HasFormat) or condition (Cond, a SQLSTATE), its
	// arguments, and USING options as name and expression text.
	Level     string
	HasFormat bool
	Format    string
	Cond      string
	Args      []string
	Options   [][2]string

	// GET DIAGNOSTICS: Target[i] = Items[i] (row_count, ...).
	Items []string
}

// ParsePL parses a PL/pgSQL body: a block, optionally followed by ;.
// Errors are 42601 with PostgreSQL's messages where practical.
func ParsePL(body string) (*PLBlock, error) {
	toks, err := lex(body)
	if err != nil {
		return nil, err
	}
	p := &plParser{src: body, toks: splitDots(toks)}
	label, _, err := p.label()
	if err != nil {
		return nil, err
	}
	b, err := p.block(label)
	if err != nil {
		return nil, err
	}
	p.acceptPunct(";")
	if !p.done() {
		return nil, p.errHere()
	}
	return b, nil
}

// splitDots undoes the lexer's reading of 1..10 as 1, ., .10: a FOR
// range's .. is two dots before the number.
func splitDots(toks []token) []token {
	var out []token
	for k, t := range toks {
		if t.kind == tkNumber && strings.HasPrefix(t.val, ".") && k > 0 && toks[k-1].isPunct(".") && toks[k-1].end == t.pos {
			out = append(out, token{kind: tkPunct, val: ".", pos: t.pos, end: t.pos + 1},
				token{kind: tkNumber, val: t.val[1:], pos: t.pos + 1, end: t.end})
			continue
		}
		out = append(out, t)
	}
	return out
}

type plParser struct {
	src  string
	toks []token
	i    int
}

func (p *plParser) done() bool { return p.i >= len(p.toks) }

func (p *plParser) peek(kw string) bool { return p.i < len(p.toks) && p.toks[p.i].is(kw) }

func (p *plParser) accept(kw string) bool {
	if p.peek(kw) {
		p.i++
		return true
	}
	return false
}

func (p *plParser) acceptPunct(s string) bool {
	if p.i < len(p.toks) && p.toks[p.i].isPunct(s) {
		p.i++
		return true
	}
	return false
}

func (p *plParser) errHere() error {
	if p.done() {
		return syntaxErr(p.src, len(p.src), "syntax error at end of input")
	}
	t := p.toks[p.i]
	return syntaxErr(p.src, t.pos, "syntax error at or near %q", tokText(p.src, t))
}

func (p *plParser) expect(kw string) error {
	if !p.accept(kw) {
		return p.errHere()
	}
	return nil
}

func (p *plParser) expectPunct(s string) error {
	if !p.acceptPunct(s) {
		return p.errHere()
	}
	return nil
}

func (p *plParser) line() int {
	if p.done() {
		return strings.Count(p.src, "\n") + 1
	}
	return strings.Count(p.src[:p.toks[p.i].pos], "\n") + 1
}

// ident reads one identifier.
func (p *plParser) ident() (string, error) {
	if p.done() || p.toks[p.i].kind != tkIdent && p.toks[p.i].kind != tkQIdent {
		return "", p.errHere()
	}
	p.i++
	return p.toks[p.i-1].val, nil
}

// label reads <<name>> if it is next.
func (p *plParser) label() (string, bool, error) {
	if p.done() || !p.toks[p.i].isOp("<<") {
		return "", false, nil
	}
	p.i++
	name, err := p.ident()
	if err != nil {
		return "", false, err
	}
	if p.done() || !p.toks[p.i].isOp(">>") {
		return "", false, p.errHere()
	}
	p.i++
	return name, true, nil
}

// block reads [DECLARE ...] BEGIN ... [EXCEPTION ...] END [label].
func (p *plParser) block(label string) (*PLBlock, error) {
	b := &PLBlock{Label: label}
	if p.accept("declare") {
		for !p.peek("begin") {
			if p.done() {
				return nil, p.errHere()
			}
			if p.accept("declare") {
				continue // DECLARE may be repeated
			}
			v, err := p.decl()
			if err != nil {
				return nil, err
			}
			b.Decls = append(b.Decls, v)
		}
	}
	if err := p.expect("begin"); err != nil {
		return nil, err
	}
	body, err := p.stmts("end", "exception")
	if err != nil {
		return nil, err
	}
	b.Body = body
	if p.accept("exception") {
		for p.accept("when") {
			var h PLHandler
			for {
				code, err := p.condition()
				if err != nil {
					return nil, err
				}
				h.Codes = append(h.Codes, code)
				if !p.accept("or") {
					break
				}
			}
			if err := p.expect("then"); err != nil {
				return nil, err
			}
			if h.Body, err = p.stmts("when", "end"); err != nil {
				return nil, err
			}
			b.Handlers = append(b.Handlers, h)
		}
		if len(b.Handlers) == 0 {
			return nil, p.errHere()
		}
	}
	if err := p.expect("end"); err != nil {
		return nil, err
	}
	if !p.done() && (p.toks[p.i].kind == tkIdent || p.toks[p.i].kind == tkQIdent) {
		end := p.toks[p.i]
		if label == "" || end.val != label {
			return nil, syntaxErr(p.src, end.pos, "end label \"%s\" differs from block's label \"%s\"", end.val, label)
		}
		p.i++
	}
	return b, nil
}

// condition reads one exception condition: a name, SQLSTATE 'xxxxx'.
func (p *plParser) condition() (string, error) {
	if p.accept("sqlstate") {
		if p.done() || p.toks[p.i].kind != tkString {
			return "", p.errHere()
		}
		code := p.toks[p.i].val
		if !validSQLState(code) {
			return "", pgerror.Newf(pgerror.SyntaxError, "invalid SQLSTATE code")
		}
		p.i++
		return code, nil
	}
	name, err := p.ident()
	if err != nil {
		return "", err
	}
	if name == "others" {
		return name, nil
	}
	code, ok := conditionCodes[name]
	if !ok {
		return "", pgerror.Newf(pgerror.UndefinedObject, "unrecognized exception condition \"%s\"", name)
	}
	return code, nil
}

// ConditionCode returns the SQLSTATE of a condition name.
func ConditionCode(name string) (string, bool) {
	c, ok := conditionCodes[strings.ToLower(name)]
	return c, ok
}

func validSQLState(s string) bool {
	if len(s) != 5 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// decl reads one declaration up to its ;.
func (p *plParser) decl() (PLVar, error) {
	var v PLVar
	var err error
	if v.Name, err = p.ident(); err != nil {
		return v, err
	}
	if p.accept("alias") {
		if err := p.expect("for"); err != nil {
			return v, err
		}
		if p.done() {
			return v, p.errHere()
		}
		t := p.toks[p.i]
		switch t.kind {
		case tkParam:
			n := 0
			for _, c := range t.val {
				n = n*10 + int(c-'0')
			}
			v.Alias = n
		case tkIdent, tkQIdent:
			v.AliasOf = t.val
		default:
			return v, p.errHere()
		}
		p.i++
		return v, p.expectPunct(";")
	}
	v.Constant = p.accept("constant")
	// The type runs to NOT NULL, DEFAULT, :=, = or ;.
	start := p.i
	end := p.i
	for end < len(p.toks) {
		t := p.toks[end]
		if t.isPunct(";") || t.is("default") || t.isOp("=>") || t.isOp("=") || t.is("not") && end+1 < len(p.toks) && p.toks[end+1].is("null") ||
			t.is("collate") {
			break
		}
		end++
	}
	if end == start {
		return v, p.errHere()
	}
	if v.Type, err = plTypeName(p.src, p.toks[start:end]); err != nil {
		return v, err
	}
	p.i = end
	if p.accept("collate") {
		if _, err := p.ident(); err != nil {
			return v, err
		}
	}
	if p.accept("not") {
		if err := p.expect("null"); err != nil {
			return v, err
		}
		v.NotNull = true
	}
	if p.accept("default") || p.acceptOp("=>") || p.acceptOp("=") {
		if v.Default, err = p.exprTo(";"); err != nil {
			return v, err
		}
	}
	if v.NotNull && v.Default == "" {
		return v, syntaxErr(p.src, p.toks[p.i-1].pos, "variable \"%s\" must have a default value, since it's declared NOT NULL", v.Name)
	}
	if v.Constant && v.Default == "" {
		return v, syntaxErr(p.src, p.toks[p.i-1].pos, "variable \"%s\" must have a default value, since it's declared CONSTANT", v.Name)
	}
	return v, p.expectPunct(";")
}

// plTypeName spells a declaration's type: a type name as the dialect
// layer spells it, RECORD, or name%TYPE / name%ROWTYPE kept as written
// (lower case) for the interpreter to resolve.
func plTypeName(src string, toks []token) (string, error) {
	n := len(toks)
	if n >= 2 && toks[n-2].isOp("%") && (toks[n-1].is("type") || toks[n-1].is("rowtype")) {
		var parts []string
		for _, t := range toks[:n-2] {
			if t.kind == tkIdent || t.kind == tkQIdent {
				parts = append(parts, t.val)
			}
		}
		return strings.Join(parts, ".") + "%" + toks[n-1].val, nil
	}
	if n == 1 && toks[0].is("record") {
		return "record", nil
	}
	tn, next, ok, err := parseType(src, toks, 0)
	if err != nil {
		return "", err
	}
	if !ok || next < n {
		k := min(next, n-1)
		return "", syntaxErr(src, toks[k].pos, "syntax error at or near %q", tokText(src, toks[k]))
	}
	return tn.spelled(), nil
}

func (p *plParser) acceptOp(op string) bool {
	if p.i < len(p.toks) && p.toks[p.i].isOp(op) {
		p.i++
		return true
	}
	return false
}

// scanTo returns the index of the first token from p.i on that ends an
// expression: a keyword of stop (or ; when stop holds ";") outside
// parentheses, brackets and CASE ... END.
func (p *plParser) scanTo(stop ...string) int {
	depth, cases := 0, 0
	for k := p.i; k < len(p.toks); k++ {
		t := p.toks[k]
		switch {
		case t.isPunct("(") || t.isPunct("["):
			depth++
			continue
		case t.isPunct(")") || t.isPunct("]"):
			depth--
			continue
		case t.is("case") && depth == 0:
			cases++
			continue
		case t.is("end") && depth == 0 && cases > 0:
			cases--
			continue
		}
		if depth > 0 || cases > 0 {
			continue
		}
		for _, s := range stop {
			if s == ";" && t.isPunct(";") || s == ".." && t.isPunct(".") && k+1 < len(p.toks) && p.toks[k+1].isPunct(".") ||
				s == "," && t.isPunct(",") || t.is(s) {
				return k
			}
		}
	}
	return len(p.toks)
}

// exprTo reads an expression's text up to (not including) a stop.
func (p *plParser) exprTo(stop ...string) (string, error) {
	end := p.scanTo(stop...)
	if end == p.i {
		return "", p.errHere()
	}
	if end >= len(p.toks) {
		p.i = end
		return "", p.errHere()
	}
	text := p.src[p.toks[p.i].pos:p.toks[end-1].end]
	p.i = end
	return text, nil
}

// ConditionName returns the condition name of a SQLSTATE.
func ConditionName(code string) (string, bool) {
	for name, c := range conditionCodes {
		if c == code && !strings.HasSuffix(name, "_exception") || c == code && code[2:] == "000" {
			return name, true
		}
	}
	return "", false
}

// QuoteWords returns text with each unquoted identifier in words
// double-quoted, so a variable that is a keyword to the parser (SQLSTATE
// in an exception handler) reads as a name.
func QuoteWords(text string, words map[string]bool) string {
	toks, err := lex(text)
	if err != nil {
		return text
	}
	var b strings.Builder
	last := 0
	for _, t := range toks {
		if t.kind == tkIdent && words[t.val] {
			b.WriteString(text[last:t.pos])
			b.WriteString(`"` + t.val + `"`)
			last = t.end
		}
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}
