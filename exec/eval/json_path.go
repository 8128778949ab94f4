package eval

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// A subset of SQL/JSON path (jsonpath) for jsonb_path_exists,
// jsonb_path_match and jsonb_path_query_first: lax and strict modes, $,
// @, $variables, .key, ."key", .*, [n], [n to m], [last], [*],
// ?(filter), .type(), .size(), literals, comparisons (== != <> < <= >
// >=), && || !, exists(...) and parentheses. Arithmetic and the other
// item methods are 0A000.

// Error codes of SQL/JSON path evaluation.
const (
	codeJSONMemberNotFound  = "2203A"
	codeJSONArrayNotFound   = "22039"
	codeJSONSubscriptBounds = "22033"
	codeJSONSingleton       = "22038"
)

type jpKind uint8

const (
	jpRoot    jpKind = iota // $
	jpCurrent               // @
	jpVar                   // $name
	jpLiteral               // a JSON value
	jpParen                 // (expr) as a value: sub
)

// jpValue is a path: a start and accessors.
type jpValue struct {
	kind jpKind
	name string // jpVar
	lit  any    // jpLiteral
	sub  jpNode // jpParen
	acc  []jpAccessor
}

type jpAccessor struct {
	kind   byte // '.' key, '*' any member, '[' subscripts, 'a' [*], '?' filter, 'm' method
	key    string
	subs   []jpSubscript
	filter jpNode
}

type jpSubscript struct {
	from, to         int64
	fromLast, toLast bool // relative to last (value is the offset)
	isRange          bool
}

// jpPred is a predicate: op is a comparison, "&&", "||", "!", "exists".
type jpPred struct {
	op   string
	l, r jpNode
}

type jpNode interface{}

type jpParser struct {
	s   string
	pos int
}

func jpSyntaxError(s string) error {
	return pgerror.Newf(pgerror.SyntaxError, "syntax error in jsonpath input %q", s)
}

func (p *jpParser) skip() {
	for p.pos < len(p.s) && strings.IndexByte(" \t\n\r\f", p.s[p.pos]) >= 0 {
		p.pos++
	}
}

func (p *jpParser) peek(tok string) bool {
	p.skip()
	return strings.HasPrefix(p.s[p.pos:], tok)
}

func (p *jpParser) eat(tok string) bool {
	if p.peek(tok) {
		p.pos += len(tok)
		return true
	}
	return false
}

// word reads an identifier (letters, digits, _), or "".
func (p *jpParser) word() string {
	p.skip()
	i := p.pos
	for i < len(p.s) && (p.s[i] == '_' || p.s[i] >= 'a' && p.s[i] <= 'z' || p.s[i] >= 'A' && p.s[i] <= 'Z' || p.s[i] >= '0' && p.s[i] <= '9' || p.s[i] >= 0x80) {
		i++
	}
	w := p.s[p.pos:i]
	p.pos = i
	return w
}

func (p *jpParser) peekWord(w string) bool {
	save := p.pos
	got := p.word()
	p.pos = save
	return got == w
}

// parseJSONPath reads a jsonpath; strict reports its mode.
func parseJSONPath(s string) (n jpNode, strict bool, err error) {
	p := &jpParser{s: s}
	switch {
	case p.peekWord("strict"):
		p.word()
		strict = true
	case p.peekWord("lax"):
		p.word()
	}
	n, err = p.expr()
	if err != nil {
		return nil, false, err
	}
	p.skip()
	if p.pos != len(p.s) {
		return nil, false, jpSyntaxError(s)
	}
	return n, strict, nil
}

func (p *jpParser) expr() (jpNode, error) {
	l, err := p.and()
	for err == nil && p.eat("||") {
		var r jpNode
		if r, err = p.and(); err == nil {
			l = &jpPred{op: "||", l: l, r: r}
		}
	}
	return l, err
}

func (p *jpParser) and() (jpNode, error) {
	l, err := p.not()
	for err == nil && p.eat("&&") {
		var r jpNode
		if r, err = p.not(); err == nil {
			l = &jpPred{op: "&&", l: l, r: r}
		}
	}
	return l, err
}

func (p *jpParser) not() (jpNode, error) {
	if p.peek("!") && !p.peek("!=") {
		p.eat("!")
		x, err := p.not()
		if err != nil {
			return nil, err
		}
		return &jpPred{op: "!", l: x}, nil
	}
	return p.comparison()
}

var jpCmpOps = []string{"==", "!=", "<>", "<=", ">=", "<", ">"}

func (p *jpParser) comparison() (jpNode, error) {
	if p.peekWord("exists") {
		save := p.pos
		p.word()
		if p.eat("(") {
			x, err := p.expr()
			if err != nil {
				return nil, err
			}
			if !p.eat(")") {
				return nil, jpSyntaxError(p.s)
			}
			return &jpPred{op: "exists", l: x}, nil
		}
		p.pos = save
	}
	l, err := p.value()
	if err != nil {
		return nil, err
	}
	for _, op := range jpCmpOps {
		if p.eat(op) {
			r, err := p.value()
			if err != nil {
				return nil, err
			}
			if op == "<>" {
				op = "!="
			}
			return &jpPred{op: op, l: l, r: r}, nil
		}
	}
	p.skip()
	if p.pos < len(p.s) && strings.IndexByte("+-*/%", p.s[p.pos]) >= 0 {
		return nil, pgerror.New(pgerror.FeatureNotSupported, "jsonpath arithmetic is not supported")
	}
	return l, nil
}

func (p *jpParser) value() (jpNode, error) {
	p.skip()
	if p.pos >= len(p.s) {
		return nil, jpSyntaxError(p.s)
	}
	v := &jpValue{}
	c := p.s[p.pos]
	switch {
	case c == '$':
		p.pos++
		if w := p.word(); w != "" {
			v.kind, v.name = jpVar, w
		} else if p.peek("\"") {
			str, err := p.str()
			if err != nil {
				return nil, err
			}
			v.kind, v.name = jpVar, str
		}
	case c == '@':
		p.pos++
		v.kind = jpCurrent
	case c == '(':
		p.pos++
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		if !p.eat(")") {
			return nil, jpSyntaxError(p.s)
		}
		if _, isPred := x.(*jpPred); isPred {
			return x, nil
		}
		v.kind, v.sub = jpParen, x
	case c == '"':
		str, err := p.str()
		if err != nil {
			return nil, err
		}
		v.kind, v.lit = jpLiteral, str
	case c == '-' || c == '+' || c >= '0' && c <= '9' || c == '.':
		i := p.pos + 1
		for i < len(p.s) && (p.s[i] >= '0' && p.s[i] <= '9' || p.s[i] == '.' || p.s[i] == 'e' || p.s[i] == 'E' ||
			(p.s[i] == '-' || p.s[i] == '+') && (p.s[i-1] == 'e' || p.s[i-1] == 'E')) {
			i++
		}
		num := strings.TrimPrefix(p.s[p.pos:i], "+")
		var d apd.Decimal
		if !types.ParseDecimal(num, &d) || d.Form != apd.Finite {
			return nil, jpSyntaxError(p.s)
		}
		num = types.DecimalText(&d)
		p.pos = i
		v.kind, v.lit = jpLiteral, json.Number(num)
	default:
		switch w := p.word(); w {
		case "true", "false":
			v.kind, v.lit = jpLiteral, w == "true"
		case "null":
			v.kind, v.lit = jpLiteral, nil
		default:
			return nil, jpSyntaxError(p.s)
		}
	}
	for {
		switch {
		case p.peek(".") && !p.peek(".."):
			p.eat(".")
			switch {
			case p.eat("*"):
				v.acc = append(v.acc, jpAccessor{kind: '*'})
			case p.peek("\""):
				str, err := p.str()
				if err != nil {
					return nil, err
				}
				v.acc = append(v.acc, jpAccessor{kind: '.', key: str})
			default:
				w := p.word()
				if w == "" {
					return nil, jpSyntaxError(p.s)
				}
				if p.eat("(") {
					if !p.eat(")") {
						return nil, pgerror.Newf(pgerror.FeatureNotSupported, "jsonpath item method .%s() with arguments is not supported", w)
					}
					switch w {
					case "type", "size":
					default:
						return nil, pgerror.Newf(pgerror.FeatureNotSupported, "jsonpath item method .%s() is not supported", w)
					}
					v.acc = append(v.acc, jpAccessor{kind: 'm', key: w})
					continue
				}
				v.acc = append(v.acc, jpAccessor{kind: '.', key: w})
			}
		case p.peek("["):
			p.eat("[")
			if p.eat("*") {
				if !p.eat("]") {
					return nil, jpSyntaxError(p.s)
				}
				v.acc = append(v.acc, jpAccessor{kind: 'a'})
				continue
			}
			acc := jpAccessor{kind: '['}
			for {
				var sub jpSubscript
				var err error
				if sub.from, sub.fromLast, err = p.subscript(); err != nil {
					return nil, err
				}
				if p.peekWord("to") {
					p.word()
					sub.isRange = true
					if sub.to, sub.toLast, err = p.subscript(); err != nil {
						return nil, err
					}
				}
				acc.subs = append(acc.subs, sub)
				if !p.eat(",") {
					break
				}
			}
			if !p.eat("]") {
				return nil, jpSyntaxError(p.s)
			}
			v.acc = append(v.acc, acc)
		case p.peek("?") && v.kind != jpLiteral:
			p.eat("?")
			if !p.eat("(") {
				return nil, jpSyntaxError(p.s)
			}
			x, err := p.expr()
			if err != nil {
				return nil, err
			}
			if !p.eat(")") {
				return nil, jpSyntaxError(p.s)
			}
			v.acc = append(v.acc, jpAccessor{kind: '?', filter: x})
		default:
			return v, nil
		}
	}
}

// subscript reads an integer or last [- n].
func (p *jpParser) subscript() (n int64, last bool, err error) {
	if p.peekWord("last") {
		p.word()
		if p.eat("-") {
			n, _, err = p.subscript()
			return -n, true, err
		}
		if p.eat("+") {
			n, _, err = p.subscript()
			return n, true, err
		}
		return 0, true, nil
	}
	p.skip()
	i := p.pos
	if i < len(p.s) && p.s[i] == '-' {
		i++
	}
	for i < len(p.s) && p.s[i] >= '0' && p.s[i] <= '9' {
		i++
	}
	n, err = strconv.ParseInt(p.s[p.pos:i], 10, 32)
	if err != nil {
		return 0, false, jpSyntaxError(p.s)
	}
	p.pos = i
	return n, false, nil
}

// str reads a double-quoted string with JSON's escapes.
func (p *jpParser) str() (string, error) {
	p.skip()
	i := p.pos + 1
	for i < len(p.s) && p.s[i] != '"' {
		if p.s[i] == '\\' {
			i++
		}
		i++
	}
	if i >= len(p.s) {
		return "", jpSyntaxError(p.s)
	}
	v, err := parseJSON(p.s[p.pos : i+1])
	if err != nil {
		return "", jpSyntaxError(p.s)
	}
	p.pos = i + 1
	return v.(string), nil
}

// jpEnv is one evaluation: the document, the variables, the mode.
type jpEnv struct {
	root   any
	vars   *jsonObject
	strict bool
}

// Three-valued predicate results.
const (
	jpFalse = iota
	jpTrue
	jpUnknown
)

func jpErr(code pgerror.Code, format string, args ...any) error {
	return pgerror.Newf(code, format, args...)
}

// items evaluates a value node to its sequence of items.
func (env *jpEnv) items(n jpNode, cur any) ([]any, error) {
	switch x := n.(type) {
	case *jpPred:
		r, err := env.pred(x, cur)
		if err != nil {
			return nil, err
		}
		switch r {
		case jpTrue:
			return []any{true}, nil
		case jpFalse:
			return []any{false}, nil
		}
		return []any{nil}, nil
	case *jpValue:
		var seq []any
		switch x.kind {
		case jpRoot:
			seq = []any{env.root}
		case jpCurrent:
			seq = []any{cur}
		case jpVar:
			var v any
			ok := false
			if env.vars != nil {
				v, ok = env.vars.get(x.name)
			}
			if !ok {
				return nil, jpErr(pgerror.UndefinedObject, "could not find jsonpath variable \"%s\"", x.name)
			}
			seq = []any{v}
		case jpLiteral:
			seq = []any{x.lit}
		case jpParen:
			var err error
			if seq, err = env.items(x.sub, cur); err != nil {
				return nil, err
			}
		}
		for _, a := range x.acc {
			var next []any
			for _, v := range seq {
				out, err := env.access(a, v, true)
				if err != nil {
					return nil, err
				}
				next = append(next, out...)
			}
			seq = next
		}
		return seq, nil
	}
	return nil, nil
}

// access applies one accessor to an item; unwrap says whether lax mode
// may still unwrap an array item.
func (env *jpEnv) access(a jpAccessor, v any, unwrap bool) ([]any, error) {
	arr, isArr := v.([]any)
	if isArr && unwrap && !env.strict && (a.kind == '.' || a.kind == '*' || a.kind == '?') {
		var out []any
		for _, e := range arr {
			r, err := env.access(a, e, false)
			if err != nil {
				return nil, err
			}
			out = append(out, r...)
		}
		return out, nil
	}
	switch a.kind {
	case '.':
		if o, ok := v.(*jsonObject); ok {
			if m, ok := o.get(a.key); ok {
				return []any{m}, nil
			}
			if env.strict {
				return nil, jpErr(codeJSONMemberNotFound, "JSON object does not contain key \"%s\"", a.key)
			}
			return nil, nil
		}
		if env.strict {
			return nil, jpErr(codeJSONMemberNotFound, "jsonpath member accessor can only be applied to an object")
		}
		return nil, nil
	case '*':
		if o, ok := v.(*jsonObject); ok {
			return append([]any(nil), o.vals...), nil
		}
		if env.strict {
			return nil, jpErr(codeJSONMemberNotFound, "jsonpath wildcard member accessor can only be applied to an object")
		}
		return nil, nil
	case 'a':
		if isArr {
			return append([]any(nil), arr...), nil
		}
		if env.strict {
			return nil, jpErr(codeJSONArrayNotFound, "jsonpath wildcard array accessor can only be applied to an array")
		}
		return []any{v}, nil
	case '[':
		if !isArr {
			if env.strict {
				return nil, jpErr(codeJSONArrayNotFound, "jsonpath array accessor can only be applied to an array")
			}
			arr = []any{v}
		}
		n := int64(len(arr))
		var out []any
		for _, s := range a.subs {
			from := s.from
			if s.fromLast {
				from = n - 1 + s.from
			}
			to := from
			if s.isRange {
				to = s.to
				if s.toLast {
					to = n - 1 + s.to
				}
			}
			if env.strict && (from < 0 || from > to || to >= n) {
				return nil, jpErr(codeJSONSubscriptBounds, "jsonpath array subscript is out of bounds")
			}
			for i := max(from, 0); i <= to && i < n; i++ {
				out = append(out, arr[i])
			}
		}
		return out, nil
	case '?':
		r, err := env.pred(a.filter, v)
		if err != nil {
			return nil, err
		}
		if r == jpTrue {
			return []any{v}, nil
		}
		return nil, nil
	case 'm':
		switch a.key {
		case "type":
			t := jsonTypeof(v)
			return []any{t}, nil
		case "size":
			if isArr {
				return []any{json.Number(strconv.Itoa(len(arr)))}, nil
			}
			if env.strict {
				return nil, jpErr(codeJSONArrayNotFound, "jsonpath item method .size() can only be applied to an array")
			}
			return []any{json.Number("1")}, nil
		}
	}
	return nil, nil
}

// pred evaluates a predicate over the current item.
func (env *jpEnv) pred(n jpNode, cur any) (int, error) {
	x, ok := n.(*jpPred)
	if !ok {
		// A path used as a predicate: true if it yields an item (PostgreSQL
		// reads a bare path in a filter as a boolean-valued item).
		seq, err := env.items(n, cur)
		if err != nil {
			return jpUnknown, nil
		}
		if len(seq) == 1 {
			if b, ok := seq[0].(bool); ok {
				if b {
					return jpTrue, nil
				}
				return jpFalse, nil
			}
		}
		return jpUnknown, nil
	}
	switch x.op {
	case "&&", "||":
		l, err := env.pred(x.l, cur)
		if err != nil {
			return 0, err
		}
		if x.op == "&&" && l == jpFalse || x.op == "||" && l == jpTrue {
			return l, nil
		}
		r, err := env.pred(x.r, cur)
		if err != nil {
			return 0, err
		}
		switch {
		case l == r:
			return l, nil
		case x.op == "&&" && r == jpFalse, x.op == "||" && r == jpTrue:
			return r, nil
		}
		return jpUnknown, nil
	case "!":
		r, err := env.pred(x.l, cur)
		switch r {
		case jpTrue:
			return jpFalse, err
		case jpFalse:
			return jpTrue, err
		}
		return r, err
	case "exists":
		seq, err := env.items(x.l, cur)
		if err != nil {
			return jpUnknown, nil
		}
		if len(seq) > 0 {
			return jpTrue, nil
		}
		return jpFalse, nil
	}
	ls, err := env.items(x.l, cur)
	if err != nil {
		return jpUnknown, nil
	}
	rs, err := env.items(x.r, cur)
	if err != nil {
		return jpUnknown, nil
	}
	ls, rs = env.unwrap(ls), env.unwrap(rs)
	found, unknown := false, false
	for _, l := range ls {
		for _, r := range rs {
			switch jpCompare(x.op, l, r) {
			case jpTrue:
				if !env.strict {
					return jpTrue, nil
				}
				found = true
			case jpUnknown:
				if env.strict {
					return jpUnknown, nil
				}
				unknown = true
			}
		}
	}
	switch {
	case found:
		return jpTrue, nil
	case unknown:
		return jpUnknown, nil
	}
	return jpFalse, nil
}

// unwrap replaces arrays in a lax sequence by their elements.
func (env *jpEnv) unwrap(seq []any) []any {
	if env.strict {
		return seq
	}
	var out []any
	for _, v := range seq {
		if a, ok := v.([]any); ok {
			out = append(out, a...)
		} else {
			out = append(out, v)
		}
	}
	return out
}

// jpCompare compares two items as jsonpath does: a null equals only
// null (and differs from anything else); other values of different types,
// and arrays and objects, are unknown.
func jpCompare(op string, l, r any) int {
	lr, rr := jsonbRank(l), jsonbRank(r)
	if lr >= 4 || rr >= 4 {
		return jpUnknown
	}
	var c int
	if lr != rr {
		if l != nil && r != nil {
			return jpUnknown
		}
		if op == "!=" {
			return jpTrue
		}
		return jpFalse
	}
	c = compareJSONB(l, r)
	var ok bool
	switch op {
	case "==":
		ok = c == 0
	case "!=":
		ok = c != 0
	case "<":
		ok = c < 0
	case "<=":
		ok = c <= 0
	case ">":
		ok = c > 0
	case ">=":
		ok = c >= 0
	}
	if ok {
		return jpTrue
	}
	return jpFalse
}

// jsonPathItems evaluates args (target, path [, vars [, silent]]) to the
// path's items; a silent evaluation error gives nil items and no error.
func jsonPathItems(args []types.Datum) ([]any, error) {
	silent := len(args) == 4 && args[3].Bool()
	doc, err := parseJSON(args[0].S)
	if err != nil {
		return nil, err
	}
	path, strict, err := parseJSONPath(args[1].S)
	if err != nil {
		return nil, err
	}
	env := &jpEnv{root: doc, strict: strict}
	if len(args) > 2 {
		v, err := parseJSON(args[2].S)
		if err != nil {
			return nil, err
		}
		o, ok := v.(*jsonObject)
		if !ok {
			return nil, pgerror.New(pgerror.InvalidParameterValue, "\"vars\" argument is not an object")
		}
		env.vars = o
	}
	seq, err := env.items(path, nil)
	if err != nil {
		if silent {
			return nil, nil
		}
		return nil, err
	}
	if seq == nil {
		seq = []any{}
	}
	return seq, nil
}

// jsonPathFunc runs jsonb_path_exists, jsonb_path_match and
// jsonb_path_query_first (args: target, path [, vars [, silent]]).
func jsonPathFunc(e *planner.Func, args []types.Datum) (types.Datum, bool, error) {
	silent := len(args) == 4 && args[3].Bool()
	seq, err := jsonPathItems(args)
	if err != nil {
		return types.Null, true, err
	}
	if e.Name == "jsonb_path_query_array" {
		if seq == nil {
			seq = []any{} // a silenced error: no items
		}
		return types.NewJSONB(jsonbText(seq)), true, nil
	}
	if seq == nil && silent {
		return types.Null, true, nil
	}
	switch e.Name {
	case "jsonb_path_exists":
		return types.NewBool(len(seq) > 0), true, nil
	case "jsonb_path_match":
		if len(seq) == 1 {
			switch b := seq[0].(type) {
			case bool:
				return types.NewBool(b), true, nil
			case nil:
				return types.Null, true, nil
			}
		}
		if silent {
			return types.Null, true, nil
		}
		return types.Null, true, pgerror.New(codeJSONSingleton, "single boolean result is expected")
	}
	if len(seq) == 0 {
		return types.Null, true, nil
	}
	return types.NewJSONB(jsonbText(seq[0])), true, nil
}
