package pgregress

import (
	"strings"
)

// Kind tells what a script Item is.
type Kind int

const (
	// Query is SQL text psql would send to the server as one query string
	// (several statements when joined with `\;`).
	Query Kind = iota
	// Meta is a psql backslash command: `\set`, `\d`, `\copy`, ...
	Meta
)

// Item is one unit of a script as psql reads it.
type Item struct {
	Kind Kind
	// Line is the 1-based line on which the item starts.
	Line int
	// Start and End delimit the item's source text, src[Start:End]: for a
	// Query from its first token through its terminating semicolon (or the
	// end of the file), for a Meta from the backslash to the end of line.
	Start, End int
	// Text is what psql would send for a Query: the source with psql
	// variables substituted and `\;` turned into `;`. For a Meta it is the
	// source line.
	Text string
	// Cmd is a Meta's command name without the backslash ("set", "d+",
	// "copy"); Args its arguments as psql parses them (quotes removed,
	// variables substituted). For `\copy` Args holds the rest of the line
	// as one string.
	Cmd  string
	Args []string
}

// Script reads a psql script item by item, the way psql's lexer
// (src/fe_utils/psqlscan.l) splits its input: a statement ends at a
// semicolon outside quotes (”, E”, "", dollar quotes), comments (--,
// nested /* */), parentheses, and a CREATE FUNCTION/PROCEDURE's BEGIN
// ATOMIC ... END block. `\;` puts a semicolon into the query without
// ending it. `:var`, `:'var'` and `:"var"` are replaced by the value of a
// variable set with `\set` or `\getenv` (left as written when the variable
// is not set). Next returns `\set` and `\getenv` as Meta items after
// applying them.
type Script struct {
	src     string
	pos     int
	line    int  // line of pos
	sqlOnly bool // no meta-commands, no variables: a server's view

	// st is the statement being read; it outlives a meta-command met
	// in its middle, as psql's query buffer does.
	st stmtState

	// Vars are the psql variables; Getenv answers `\getenv`.
	Vars   map[string]string
	Getenv func(name string) (string, bool)
}

// stmtState is the lexer's state within one statement.
type stmtState struct {
	buf        strings.Builder
	started    bool
	tokens     bool // buf holds more than comments and whitespace
	start      int
	startLine  int
	parenDepth int
	beginDepth int
	idents     [4]byte // first letters of create/or/replace/function/procedure
	identCount int
}

// NewScript returns a Script over src with no variables set.
func NewScript(src string) *Script {
	return &Script{src: src, line: 1, Vars: map[string]string{}}
}

// Next returns the next item, or false at the end of the script.
func (s *Script) Next() (Item, bool) {
	st := &s.st
	begin := func() {
		if !st.started {
			st.started, st.start, st.startLine = true, s.pos, s.line
		}
	}
	emit := func() (Item, bool) {
		it := Item{Kind: Query, Line: st.startLine, Start: st.start, End: s.pos, Text: st.buf.String()}
		*st = stmtState{}
		return it, true
	}
	src := s.src
	for s.pos < len(src) {
		c := src[s.pos]
		switch {
		case c == '\n':
			s.line++
			fallthrough
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			if st.started {
				st.buf.WriteByte(c)
			}
			s.pos++
		case c == '-' && strings.HasPrefix(src[s.pos:], "--"):
			end := strings.IndexByte(src[s.pos:], '\n')
			if end < 0 {
				end = len(src) - s.pos
			}
			if st.started {
				st.buf.WriteString(src[s.pos : s.pos+end])
			}
			s.pos += end
		case c == '/' && strings.HasPrefix(src[s.pos:], "/*"):
			begin()
			s.copySpan(&st.buf, blockCommentEnd(src, s.pos))
		case c == '\'':
			begin()
			st.tokens = true
			s.copySpan(&st.buf, quoteEnd(src, s.pos, false))
		case c == '"':
			begin()
			st.tokens = true
			s.copySpan(&st.buf, identEnd(src, s.pos))
		case c == '$' && dollarTag(src, s.pos) != "":
			begin()
			st.tokens = true
			s.copySpan(&st.buf, dollarEnd(src, s.pos))
		case c == '(':
			begin()
			st.tokens = true
			st.parenDepth++
			st.buf.WriteByte(c)
			s.pos++
		case c == ')':
			begin()
			st.tokens = true
			if st.parenDepth > 0 {
				st.parenDepth--
			}
			st.buf.WriteByte(c)
			s.pos++
		case c == ';':
			begin()
			st.buf.WriteByte(c)
			s.pos++
			if st.parenDepth == 0 && st.beginDepth == 0 {
				return emit()
			}
		case c == '\\' && !s.sqlOnly:
			if s.pos+1 < len(src) && (src[s.pos+1] == ';' || src[s.pos+1] == ':') {
				begin()
				st.tokens = true
				st.buf.WriteByte(src[s.pos+1])
				s.pos += 2
				continue
			}
			// A meta-command. psql runs it where it stands; a query
			// begun before it goes on after it (none of the suite's
			// files does that, but the state is kept right regardless).
			if st.started && !st.tokens {
				// Only comments so far: they carry no statement.
				*st = stmtState{}
			}
			return s.meta(), true
		case c == ':' && !s.sqlOnly:
			begin()
			st.tokens = true
			s.variable(&st.buf)
		case isIdentStart(c):
			begin()
			st.tokens = true
			if n := prefixedQuote(src, s.pos); n > 0 {
				// E'...', B'...', X'...', N'...', U&'...', U&"...".
				q := s.pos + n
				var end int
				switch {
				case src[q] == '"':
					end = identEnd(src, q)
				default:
					end = quoteEnd(src, q, c == 'e' || c == 'E')
				}
				s.copySpan(&st.buf, end)
				continue
			}
			end := s.pos + 1
			for end < len(src) && isIdentCont(src[end]) {
				end++
			}
			word := strings.ToLower(src[s.pos:end])
			// psql's heuristic for BEGIN ATOMIC bodies: only in a
			// statement that starts CREATE [OR REPLACE] FUNCTION|PROCEDURE.
			switch word {
			case "create", "function", "procedure", "or", "replace":
				if st.identCount < len(st.idents) {
					st.idents[st.identCount] = word[0]
				}
			}
			st.identCount++
			if st.idents[0] == 'c' && (st.idents[1] == 'f' || st.idents[1] == 'p' ||
				(st.idents[1] == 'o' && st.idents[2] == 'r' && (st.idents[3] == 'f' || st.idents[3] == 'p'))) && st.parenDepth == 0 {
				switch word {
				case "begin":
					st.beginDepth++
				case "case":
					if st.beginDepth >= 1 {
						st.beginDepth++
					}
				case "end":
					if st.beginDepth > 0 {
						st.beginDepth--
					}
				}
			}
			s.copySpan(&st.buf, end)
		case c >= '0' && c <= '9':
			begin()
			st.tokens = true
			end := s.pos + 1
			for end < len(src) && (isIdentCont(src[end]) || src[end] == '.') {
				end++
			}
			s.copySpan(&st.buf, end)
		default:
			begin()
			st.tokens = true
			st.buf.WriteByte(c)
			s.pos++
		}
	}
	if st.tokens {
		// psql sends what is left at the end of a file.
		return emit()
	}
	*st = stmtState{}
	return Item{}, false
}

// copySpan appends src[s.pos:end] to buf and moves past it, counting lines.
func (s *Script) copySpan(buf *strings.Builder, end int) {
	text := s.src[s.pos:end]
	buf.WriteString(text)
	s.line += strings.Count(text, "\n")
	s.pos = end
}

// variable handles a colon at s.pos: `::` (a cast), or a psql variable
// reference replaced by its value when the variable is set.
func (s *Script) variable(buf *strings.Builder) {
	src := s.src
	p := s.pos + 1
	if p < len(src) && src[p] == ':' {
		buf.WriteString("::")
		s.pos += 2
		return
	}
	if p < len(src) && (src[p] == '\'' || src[p] == '"') {
		q := src[p]
		e := p + 1
		for e < len(src) && isVarChar(src[e]) {
			e++
		}
		if e > p+1 && e < len(src) && src[e] == q {
			if v, ok := s.Vars[src[p+1:e]]; ok {
				if q == '\'' {
					buf.WriteString(QuoteLiteral(v))
				} else {
					buf.WriteString(QuoteIdent(v))
				}
				s.pos = e + 1
				return
			}
		}
		buf.WriteByte(':')
		s.pos++
		return
	}
	e := p
	for e < len(src) && isVarChar(src[e]) {
		e++
	}
	if v, ok := s.Vars[src[p:e]]; ok && e > p {
		buf.WriteString(v)
		s.pos = e
		return
	}
	buf.WriteString(src[s.pos:e])
	s.pos = e
}

// meta reads the backslash command at s.pos through the end of its line.
func (s *Script) meta() Item {
	src := s.src
	start, line := s.pos, s.line
	end := strings.IndexByte(src[s.pos:], '\n')
	if end < 0 {
		end = len(src)
	} else {
		end += s.pos
	}
	text := src[start:end]
	s.pos = end
	it := Item{Kind: Meta, Line: line, Start: start, End: end, Text: text}
	name := text[1:]
	rest := ""
	if i := strings.IndexAny(name, " \t\r"); i >= 0 {
		name, rest = name[:i], name[i:]
	}
	it.Cmd = name
	if name == "copy" {
		it.Args = []string{strings.TrimSpace(rest)}
		return it
	}
	it.Args = s.metaArgs(rest)
	switch name {
	case "set":
		if len(it.Args) >= 1 {
			s.Vars[it.Args[0]] = strings.Join(it.Args[1:], "")
		}
	case "unset":
		if len(it.Args) >= 1 {
			delete(s.Vars, it.Args[0])
		}
	case "getenv":
		if len(it.Args) == 2 && s.Getenv != nil {
			if v, ok := s.Getenv(it.Args[1]); ok {
				s.Vars[it.Args[0]] = v
			}
		}
	}
	return it
}

// metaArgs splits a meta-command's arguments as psql does for ordinary
// arguments: whitespace separates them; 'quoted' text may hold spaces
// (” is a quote, backslash escapes as in E”); :var, :'var' and :"var"
// are substituted; "double quotes" are kept as written.
func (s *Script) metaArgs(rest string) []string {
	var args []string
	i := 0
	for {
		for i < len(rest) && strings.IndexByte(" \t\r", rest[i]) >= 0 {
			i++
		}
		if i >= len(rest) {
			return args
		}
		var arg strings.Builder
		for i < len(rest) && strings.IndexByte(" \t\r", rest[i]) < 0 {
			switch c := rest[i]; {
			case c == '\'':
				i++
				for i < len(rest) {
					if rest[i] == '\'' {
						if i+1 < len(rest) && rest[i+1] == '\'' {
							arg.WriteByte('\'')
							i += 2
							continue
						}
						i++
						break
					}
					if rest[i] == '\\' && i+1 < len(rest) {
						arg.WriteByte(unescape(rest[i+1]))
						i += 2
						continue
					}
					arg.WriteByte(rest[i])
					i++
				}
			case c == '"':
				e := identEnd(rest, i)
				arg.WriteString(rest[i:e])
				i = e
			case c == ':' && i+1 < len(rest):
				q := rest[i+1]
				if q == '\'' || q == '"' {
					e := i + 2
					for e < len(rest) && isVarChar(rest[e]) {
						e++
					}
					if v, ok := s.Vars[rest[i+2:e]]; ok && e < len(rest) && rest[e] == q {
						if q == '\'' {
							arg.WriteString(QuoteLiteral(v))
						} else {
							arg.WriteString(QuoteIdent(v))
						}
						i = e + 1
						continue
					}
				}
				e := i + 1
				for e < len(rest) && isVarChar(rest[e]) {
					e++
				}
				if v, ok := s.Vars[rest[i+1:e]]; ok && e > i+1 {
					arg.WriteString(v)
				} else {
					arg.WriteString(rest[i:e])
				}
				i = e
			default:
				arg.WriteByte(c)
				i++
			}
		}
		args = append(args, arg.String())
	}
}

// CopyData consumes the lines that follow the last item up to a line
// `\.` (or the end of the script) and returns them, each with its
// newline, as psql sends a script's COPY FROM STDIN data. Call it only
// when the server asked for COPY data.
func (s *Script) CopyData() []byte {
	src := s.src
	// The data starts on the line after the COPY statement.
	if i := strings.IndexByte(src[s.pos:], '\n'); i >= 0 {
		s.pos += i + 1
		s.line++
	} else {
		s.pos = len(src)
		return nil
	}
	var data strings.Builder
	for s.pos < len(src) {
		end := strings.IndexByte(src[s.pos:], '\n')
		next := s.pos + end + 1
		if end < 0 {
			end, next = len(src)-s.pos, len(src)
		}
		line := src[s.pos : s.pos+end]
		s.pos = next
		s.line++
		if strings.TrimRight(line, "\r") == `\.` {
			break
		}
		data.WriteString(line)
		data.WriteByte('\n')
	}
	return []byte(data.String())
}

// Pos is the byte offset the script has been read up to.
func (s *Script) Pos() int { return s.pos }

// SplitStatements splits one query string into its statements at
// semicolons outside quotes, comments and parentheses (how a server
// reads a multi-statement simple query). Each piece keeps its text;
// empty pieces are dropped.
func SplitStatements(sql string) []string {
	s := &Script{src: sql, line: 1, sqlOnly: true}
	var parts []string
	for {
		it, ok := s.Next()
		if !ok {
			return parts
		}
		if it.Kind == Query {
			parts = append(parts, sql[it.Start:it.End])
		}
	}
}

func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'r':
		return '\r'
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	}
	return c
}

// QuoteLiteral quotes s as an SQL string literal, as psql's :'var' does.
func QuoteLiteral(s string) string {
	if strings.Contains(s, `\`) {
		return "E'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", "''") + "'"
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// QuoteIdent quotes s as an SQL identifier, as psql's :"var" does.
func QuoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isIdentCont(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' || c == '$' }

func isVarChar(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// prefixedQuote returns the length of a string prefix at i (E', B', X',
// N', U&' or U&") up to the quote, or 0.
func prefixedQuote(src string, i int) int {
	if i+1 >= len(src) {
		return 0
	}
	switch src[i] {
	case 'e', 'E', 'b', 'B', 'x', 'X', 'n', 'N':
		if src[i+1] == '\'' {
			return 1
		}
	case 'u', 'U':
		if src[i+1] == '&' && i+2 < len(src) && (src[i+2] == '\'' || src[i+2] == '"') {
			return 2
		}
	}
	return 0
}

// quoteEnd returns the offset just past the string literal opening at i;
// backslashes escape when escapes is set (E”). An unterminated literal
// runs to the end.
func quoteEnd(src string, i int, escapes bool) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			if escapes {
				j++
			}
		case '\'':
			if j+1 < len(src) && src[j+1] == '\'' {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(src)
}

// identEnd returns the offset just past the quoted identifier at i.
func identEnd(src string, i int) int {
	for j := i + 1; j < len(src); j++ {
		if src[j] == '"' {
			if j+1 < len(src) && src[j+1] == '"' {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(src)
}

// blockCommentEnd returns the offset just past the (nested) comment at i.
func blockCommentEnd(src string, i int) int {
	depth := 0
	for j := i; j+1 < len(src); j++ {
		switch {
		case src[j] == '/' && src[j+1] == '*':
			depth++
			j++
		case src[j] == '*' && src[j+1] == '/':
			depth--
			j++
			if depth == 0 {
				return j + 1
			}
		}
	}
	return len(src)
}

// dollarTag returns the opening delimiter ($$ or $tag$) at i, or "".
// PostgreSQL's tag is an identifier without '$'; $1 is a parameter.
func dollarTag(src string, i int) string {
	j := i + 1
	if j < len(src) && isIdentStart(src[j]) {
		j++
		for j < len(src) && isVarChar(src[j]) {
			j++
		}
	}
	if j < len(src) && src[j] == '$' {
		return src[i : j+1]
	}
	return ""
}

// dollarEnd returns the offset just past the dollar-quoted string at i.
func dollarEnd(src string, i int) int {
	tag := dollarTag(src, i)
	if e := strings.Index(src[i+len(tag):], tag); e >= 0 {
		return i + len(tag) + e + len(tag)
	}
	return len(src)
}
