package parse

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kvsql/kvsql/pgerror"
)

// tokKind classifies a token produced by lex.
type tokKind uint8

const (
	tkIdent  tokKind = iota // unquoted identifier or keyword; val is lower-cased
	tkQIdent                // "quoted identifier"; val is the unescaped name, case kept
	tkString                // '...', E'...' or $tag$...$tag$; val is the decoded value
	tkNumber                // numeric literal; val is its text
	tkParam                 // $n; val is the digits
	tkOp                    // operator (+, ||, ::, <=, ~*, ...); val is its text
	tkPunct                 // one of ( ) [ ] , ; .
	tkRaw                   // synthetic: val is emitted to vitess verbatim
)

// token is one lexical unit of PostgreSQL text. pos and end are byte offsets
// into the original text; synthetic tokens carry the position of the
// original token they stand for.
type token struct {
	kind tokKind
	val  string
	pos  int
	end  int
}

// is reports whether t is the unquoted keyword kw (kw in lower case).
func (t token) is(kw string) bool { return t.kind == tkIdent && t.val == kw }

// isPunct reports whether t is the punctuation p.
func (t token) isPunct(p string) bool { return t.kind == tkPunct && t.val == p }

// isOp reports whether t is the operator op.
func (t token) isOp(op string) bool { return t.kind == tkOp && t.val == op }

// opChars are the characters PostgreSQL operators are made of.
const opChars = "+-*/<>=~!@#%^&|`?"

// syntaxErr returns a 42601 error positioned at byte offset pos of sql.
func syntaxErr(sql string, pos int, format string, args ...any) *pgerror.Error {
	e := pgerror.Newf(pgerror.SyntaxError, format, args...)
	e.Position = charPos(sql, pos)
	return e
}

// unsupported returns a 0A000 error positioned at byte offset pos of sql.
func unsupported(sql string, pos int, format string, args ...any) *pgerror.Error {
	e := pgerror.Newf(pgerror.FeatureNotSupported, format, args...)
	e.Position = charPos(sql, pos)
	return e
}

// charPos converts byte offset pos of sql to PostgreSQL's 1-based
// character position.
func charPos(sql string, pos int) int {
	if pos < 0 {
		return 0
	}
	if pos > len(sql) {
		pos = len(sql)
	}
	return utf8.RuneCountInString(sql[:pos]) + 1
}

// lex splits sql into tokens following PostgreSQL's lexical rules with
// standard_conforming_strings on. Comments and white space are dropped.
func lex(sql string) ([]token, error) {
	// A guess at the token count, capped: a text that is one huge
	// literal must not cost a token per four bytes.
	toks := make([]token, 0, min(len(sql)/4+1, 1<<14))
	i := 0
	for i < len(sql) {
		c := sql[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '-' && strings.HasPrefix(sql[i:], "--"):
			for i < len(sql) && sql[i] != '\n' {
				i++
			}
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			end, err := skipBlockComment(sql, i)
			if err != nil {
				return nil, err
			}
			i = end
		case c == '\'':
			val, end, err := lexString(sql, i+1, false)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{tkString, val, i, end})
			i = end
		case (c == 'e' || c == 'E') && i+1 < len(sql) && sql[i+1] == '\'':
			val, end, err := lexString(sql, i+2, true)
			if err != nil {
				return nil, err
			}
			// \xff or \0 can spell bytes that are not UTF-8 text.
			if err := pgerror.CheckUTF8(val); err != nil {
				return nil, err
			}
			toks = append(toks, token{tkString, val, i, end})
			i = end
		case (c == 'n' || c == 'N') && i+1 < len(sql) && sql[i+1] == '\'':
			// N'...' is a national character literal: a plain string.
			val, end, err := lexString(sql, i+2, false)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{tkString, val, i, end})
			i = end
		case (c == 'x' || c == 'X') && i+1 < len(sql) && sql[i+1] == '\'':
			// X'hex' is a blob (bytea) literal, as in SQLite; vitess
			// reads the same spelling.
			end := i + 2
			for end < len(sql) && isHexDigit(sql[end]) {
				end++
			}
			if end >= len(sql) || sql[end] != '\'' || (end-i-2)%2 != 0 {
				return nil, syntaxErr(sql, i, "invalid hexadecimal literal")
			}
			toks = append(toks, token{tkRaw, sql[i : end+1], i, end + 1})
			i = end + 1
		case (c == 'b' || c == 'B') && i+1 < len(sql) && sql[i+1] == '\'' ||
			(c == 'u' || c == 'U') && strings.HasPrefix(sql[i+1:], "&'"):
			return nil, unsupported(sql, i, "bit-string and Unicode-escape literals are not supported")
		case c == '"':
			val, end, err := lexQuotedIdent(sql, i)
			if err != nil {
				return nil, err
			}
			val, _ = truncateIdent(val)
			toks = append(toks, token{tkQIdent, val, i, end})
			i = end
		case c == '$':
			tok, end, err := lexDollar(sql, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, tok)
			i = end
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(sql) && sql[i+1] >= '0' && sql[i+1] <= '9':
			end := lexNumber(sql, i)
			toks = append(toks, token{tkNumber, sql[i:end], i, end})
			i = end
		case isIdentStart(sql, i):
			end := lexWord(sql, i)
			val, _ := truncateIdent(strings.ToLower(sql[i:end]))
			toks = append(toks, token{tkIdent, val, i, end})
			i = end
		case strings.IndexByte("()[],;.", c) >= 0:
			toks = append(toks, token{tkPunct, sql[i : i+1], i, i + 1})
			i++
		case c == ':':
			if i+1 < len(sql) && sql[i+1] == ':' {
				toks = append(toks, token{tkOp, "::", i, i + 2})
				i += 2
				continue
			}
			if i+1 < len(sql) && sql[i+1] == '=' {
				// name := value, the older spelling of named notation.
				toks = append(toks, token{tkOp, "=>", i, i + 2})
				i += 2
				continue
			}
			// A lone colon separates an array slice's bounds (a[1:2]);
			// the rewriter refuses it anywhere else.
			toks = append(toks, token{tkPunct, ":", i, i + 1})
			i++
		case strings.IndexByte(opChars, c) >= 0:
			end := lexOp(sql, i)
			toks = append(toks, token{tkOp, sql[i:end], i, end})
			i = end
		default:
			r, _ := utf8.DecodeRuneInString(sql[i:])
			return nil, syntaxErr(sql, i, "syntax error at or near %q", string(r))
		}
	}
	return toks, nil
}

// maxIdentLen is the longest identifier in bytes: PostgreSQL's
// NAMEDATALEN-1.
const maxIdentLen = 63

// truncateIdent cuts an identifier longer than maxIdentLen bytes at the
// last UTF-8 character boundary within it, as PostgreSQL's
// truncate_identifier does; ok reports that it was cut.
func truncateIdent(s string) (string, bool) {
	if len(s) <= maxIdentLen {
		return s, false
	}
	n := maxIdentLen
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

// identNotices returns PostgreSQL's NOTICE (42622) for each identifier
// among toks that lex truncated, in the order they appear.
func identNotices(sql string, toks []token) []*pgerror.Error {
	var out []*pgerror.Error
	for _, t := range toks {
		if t.end-t.pos <= maxIdentLen {
			continue // too short to have been cut (quotes only add bytes)
		}
		var full string
		switch t.kind {
		case tkIdent:
			full = strings.ToLower(sql[t.pos:t.end])
		case tkQIdent:
			full, _, _ = lexQuotedIdent(sql, t.pos)
		default:
			continue
		}
		if len(full) > maxIdentLen {
			out = append(out, pgerror.New(pgerror.NameTooLong, `identifier "`+full+`" will be truncated to "`+t.val+`"`))
		}
	}
	return out
}

func isIdentStart(sql string, i int) bool {
	c := sql[i]
	if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
		return true
	}
	if c < utf8.RuneSelf {
		return false
	}
	r, _ := utf8.DecodeRuneInString(sql[i:])
	return unicode.IsLetter(r)
}

// lexWord returns the end of the identifier starting at i.
func lexWord(sql string, i int) int {
	for i < len(sql) {
		c := sql[i]
		if c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(sql[i:])
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				i += n
				continue
			}
		}
		break
	}
	return i
}

func skipBlockComment(sql string, start int) (int, error) {
	depth := 0
	i := start
	for i < len(sql) {
		switch {
		case strings.HasPrefix(sql[i:], "/*"):
			depth++
			i += 2
		case strings.HasPrefix(sql[i:], "*/"):
			depth--
			i += 2
			if depth == 0 {
				return i, nil
			}
		default:
			i++
		}
	}
	return 0, syntaxErr(sql, start, "unterminated /* comment")
}

// lexString decodes a string body starting at i (just after the opening
// quote). Two adjacent quotes stand for one; with escapes, backslash
// sequences are decoded as in PostgreSQL's E” strings.
func lexString(sql string, i int, escapes bool) (string, int, error) {
	start := i - 1
	// The common case, a string without doubled quotes or escapes, is a
	// substring of sql: no copy (a large literal is not copied here).
	if j := strings.IndexByte(sql[i:], '\''); j >= 0 && (i+j+1 >= len(sql) || sql[i+j+1] != '\'') &&
		!(escapes && strings.IndexByte(sql[i:i+j], '\\') >= 0) {
		return sql[i : i+j], i + j + 1, nil
	}
	var b strings.Builder
	for i < len(sql) {
		c := sql[i]
		switch {
		case c == '\'':
			if i+1 < len(sql) && sql[i+1] == '\'' {
				b.WriteByte('\'')
				i += 2
				continue
			}
			return b.String(), i + 1, nil
		case c == '\\' && escapes:
			n, err := decodeEscape(sql, i, &b)
			if err != nil {
				return "", 0, err
			}
			i = n
		default:
			b.WriteByte(c)
			i++
		}
	}
	return "", 0, syntaxErr(sql, start, "unterminated quoted string")
}

// decodeEscape decodes the backslash escape at sql[i] into b and returns
// the offset after it.
func decodeEscape(sql string, i int, b *strings.Builder) (int, error) {
	if i+1 >= len(sql) {
		return 0, syntaxErr(sql, i, "unterminated quoted string")
	}
	c := sql[i+1]
	switch c {
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case '0', '1', '2', '3', '4', '5', '6', '7':
		j := i + 1
		for j < len(sql) && j < i+4 && sql[j] >= '0' && sql[j] <= '7' {
			j++
		}
		v, _ := strconv.ParseUint(sql[i+1:j], 8, 8)
		b.WriteByte(byte(v))
		return j, nil
	case 'x':
		j := i + 2
		for j < len(sql) && j < i+4 && isHex(sql[j]) {
			j++
		}
		if j == i+2 {
			b.WriteByte('x')
			return j, nil
		}
		v, _ := strconv.ParseUint(sql[i+2:j], 16, 8)
		b.WriteByte(byte(v))
		return j, nil
	case 'u', 'U':
		n := 4
		if c == 'U' {
			n = 8
		}
		if i+2+n > len(sql) {
			return 0, syntaxErr(sql, i, "invalid Unicode escape")
		}
		v, err := strconv.ParseUint(sql[i+2:i+2+n], 16, 32)
		if err != nil || !utf8.ValidRune(rune(v)) {
			return 0, syntaxErr(sql, i, "invalid Unicode escape")
		}
		b.WriteRune(rune(v))
		return i + 2 + n, nil
	default:
		b.WriteByte(c)
	}
	return i + 2, nil
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func lexQuotedIdent(sql string, start int) (string, int, error) {
	var b strings.Builder
	i := start + 1
	for i < len(sql) {
		if sql[i] == '"' {
			if i+1 < len(sql) && sql[i+1] == '"' {
				b.WriteByte('"')
				i += 2
				continue
			}
			if b.Len() == 0 {
				return "", 0, syntaxErr(sql, start, "zero-length delimited identifier")
			}
			return b.String(), i + 1, nil
		}
		b.WriteByte(sql[i])
		i++
	}
	return "", 0, syntaxErr(sql, start, "unterminated quoted identifier")
}

// lexDollar lexes $n parameters and $tag$...$tag$ strings.
func lexDollar(sql string, i int) (token, int, error) {
	j := i + 1
	if j < len(sql) && sql[j] >= '0' && sql[j] <= '9' {
		for j < len(sql) && sql[j] >= '0' && sql[j] <= '9' {
			j++
		}
		return token{tkParam, sql[i+1 : j], i, j}, j, nil
	}
	for j < len(sql) && sql[j] != '$' {
		c := sql[j]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= utf8.RuneSelf) {
			return token{}, 0, syntaxErr(sql, i, `syntax error at or near "$"`)
		}
		j++
	}
	if j >= len(sql) {
		return token{}, 0, syntaxErr(sql, i, `syntax error at or near "$"`)
	}
	tag := sql[i : j+1]
	body := j + 1
	k := strings.Index(sql[body:], tag)
	if k < 0 {
		return token{}, 0, syntaxErr(sql, i, "unterminated dollar-quoted string")
	}
	end := body + k + len(tag)
	return token{tkString, sql[body : body+k], i, end}, end, nil
}

func lexNumber(sql string, i int) int {
	digits := func() {
		for i < len(sql) && (sql[i] >= '0' && sql[i] <= '9' || sql[i] == '_') {
			i++
		}
	}
	digits()
	if i < len(sql) && sql[i] == '.' && !strings.HasPrefix(sql[i:], "..") {
		i++
		digits()
	}
	if i < len(sql) && (sql[i] == 'e' || sql[i] == 'E') {
		j := i + 1
		if j < len(sql) && (sql[j] == '+' || sql[j] == '-') {
			j++
		}
		if j < len(sql) && sql[j] >= '0' && sql[j] <= '9' {
			i = j
			digits()
		}
	}
	return i
}

// lexOp returns the end of the operator starting at i using PostgreSQL's
// rules: the longest run of operator characters, cut before any comment
// start, and a multi-character operator may not end in + or - unless it
// contains one of ~ ! @ # % ^ & | ` ?.
func lexOp(sql string, i int) int {
	j := i
	for j < len(sql) && strings.IndexByte(opChars, sql[j]) >= 0 {
		if j > i && (strings.HasPrefix(sql[j:], "--") || strings.HasPrefix(sql[j:], "/*")) {
			break
		}
		j++
	}
	op := sql[i:j]
	if len(op) > 1 && !strings.ContainsAny(op, "~!@#%^&|`?") {
		for len(op) > 1 && (op[len(op)-1] == '+' || op[len(op)-1] == '-') {
			op = op[:len(op)-1]
		}
	}
	return i + len(op)
}

// tokText returns the original text of t, or its value for a synthetic
// token.
func tokText(sql string, t token) string {
	if t.end <= t.pos || t.end > len(sql) {
		return t.val
	}
	return sql[t.pos:t.end]
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
