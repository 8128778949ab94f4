package pgregress

import (
	"os"
	"strings"
)

// token is one lexical token of a statement, as much as the scoring rules
// need: words (lower-cased), string literals (their raw content), quoted
// identifiers, numbers and single punctuation characters. Comments and
// whitespace are dropped; depth is the parenthesis depth it stands at.
type token struct {
	kind       tokenKind
	text       string
	depth      int
	start, end int // offsets in the statement
}

type tokenKind int

const (
	tWord tokenKind = iota
	tString
	tQuotedIdent
	tNumber
	tPunct
)

// tokenize splits one statement into tokens.
func tokenize(sql string) []token {
	var toks []token
	depth := 0
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '-' && strings.HasPrefix(sql[i:], "--"):
			e := strings.IndexByte(sql[i:], '\n')
			if e < 0 {
				return toks
			}
			i += e
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			i = blockCommentEnd(sql, i)
		case c == '\'':
			e := quoteEnd(sql, i, false)
			toks = append(toks, token{tString, strings.TrimSuffix(sql[i+1:e], "'"), depth, i, e})
			i = e
		case c == '"':
			e := identEnd(sql, i)
			toks = append(toks, token{tQuotedIdent, sql[i:e], depth, i, e})
			i = e
		case c == '$' && dollarTag(sql, i) != "":
			e := dollarEnd(sql, i)
			toks = append(toks, token{tString, sql[i:e], depth, i, e})
			i = e
		case isIdentStart(c):
			if n := prefixedQuote(sql, i); n > 0 {
				q := i + n
				if sql[q] == '"' {
					e := identEnd(sql, q)
					toks = append(toks, token{tQuotedIdent, sql[i:e], depth, i, e})
					i = e
					continue
				}
				e := quoteEnd(sql, q, c == 'e' || c == 'E')
				toks = append(toks, token{tString, strings.TrimSuffix(sql[q+1:e], "'"), depth, i, e})
				i = e
				continue
			}
			e := i + 1
			for e < len(sql) && isIdentCont(sql[e]) {
				e++
			}
			toks = append(toks, token{tWord, strings.ToLower(sql[i:e]), depth, i, e})
			i = e
		case c >= '0' && c <= '9':
			e := i + 1
			for e < len(sql) && (isIdentCont(sql[e]) || sql[e] == '.') {
				e++
			}
			toks = append(toks, token{tNumber, sql[i:e], depth, i, e})
			i = e
		default:
			if c == ')' && depth > 0 {
				depth--
			}
			toks = append(toks, token{tPunct, string(c), depth, i, i + 1})
			if c == '(' {
				depth++
			}
			i++
		}
	}
	return toks
}

// rowOrder says how a statement's rows are compared.
type rowOrder int

const (
	// multiset: the statement does not order its rows.
	multiset rowOrder = iota
	// ordered: ORDER BY at top level, or EXPLAIN.
	ordered
	// countOnly: LIMIT, OFFSET or FETCH FIRST at top level without ORDER
	// BY: which rows come back is up to the plan, only how many is not.
	countOnly
)

func (o rowOrder) String() string {
	return [...]string{"multiset", "ordered", "count only"}[o]
}

// orderOf applies the ordering rule to one statement.
func orderOf(sql string) rowOrder {
	toks := tokenize(sql)
	if len(toks) == 0 {
		return multiset
	}
	if toks[0].kind == tWord && toks[0].text == "explain" {
		return ordered
	}
	orderBy, limit := false, false
	for i, t := range toks {
		if t.depth != 0 || t.kind != tWord {
			continue
		}
		switch t.text {
		case "order":
			if i+1 < len(toks) && toks[i+1].kind == tWord && toks[i+1].text == "by" {
				orderBy = true
			}
		case "limit", "offset":
			limit = true
		case "fetch":
			if i > 0 { // FETCH FIRST/NEXT inside a query, not the cursor statement
				limit = true
			}
		}
	}
	switch {
	case orderBy:
		return ordered
	case limit:
		return countOnly
	}
	return multiset
}

// clockWords are functions and keywords whose value depends on the
// moment or the backend rather than on the data.
var clockWords = map[string]bool{
	"current_timestamp": true, "current_time": true, "current_date": true,
	"localtime": true, "localtimestamp": true, "setseed": true,
}

// clockCalls are functions (followed by a parenthesis) whose answer is
// nondeterministic on PostgreSQL itself.
var clockCalls = map[string]bool{
	"random": true, "now": true, "clock_timestamp": true, "statement_timestamp": true,
	"transaction_timestamp": true, "timeofday": true, "pg_backend_pid": true,
	"txid_current": true, "txid_current_if_assigned": true, "txid_current_snapshot": true,
	"pg_current_xact_id": true, "pg_current_xact_id_if_assigned": true, "pg_current_snapshot": true,
	"gen_random_uuid": true, "version": true, "pg_postmaster_start_time": true,
	"pg_conf_load_time": true, "random_normal": true, "inet_client_port": true,
}

// Nondeterministic reports whether a statement's answer can differ
// between two runs of PostgreSQL itself: it calls random(), setseed, now()
// or another clock function, reads 'now' (or 'today'...), a backend pid, a
// transaction id (txid_current(), xmin, xmax) or gen_random_uuid(), or
// asks version(). Such statements run on both sides but are not scored.
func Nondeterministic(sql string) bool {
	toks := tokenize(sql)
	for i, t := range toks {
		switch t.kind {
		case tWord:
			if clockWords[t.text] || t.text == "xmin" || t.text == "xmax" {
				return true
			}
			if clockCalls[t.text] && i+1 < len(toks) && toks[i+1].text == "(" {
				return true
			}
		case tString:
			if strings.EqualFold(strings.TrimSpace(t.text), "now") {
				return true
			}
		}
	}
	return false
}

// copyFromFile recognises COPY ... FROM 'file' and returns the statement
// with the file name replaced by STDIN, and the file's bytes. ok is false
// for any other statement, or when the file cannot be read (then the
// statement runs as written).
func copyFromFile(sql string) (rewritten string, data []byte, ok bool) {
	toks := tokenize(sql)
	if len(toks) < 4 || toks[0].kind != tWord || toks[0].text != "copy" {
		return "", nil, false
	}
	for i := 1; i+1 < len(toks); i++ {
		t := toks[i]
		if t.depth == 0 && t.kind == tWord && t.text == "from" && toks[i+1].kind == tString {
			lit := toks[i+1]
			name := strings.ReplaceAll(lit.text, "''", "'")
			b, err := os.ReadFile(name)
			if err != nil {
				return "", nil, false
			}
			return sql[:lit.start] + "STDIN" + sql[lit.end:], b, true
		}
	}
	return "", nil, false
}

// Feature is a part of PostgreSQL kvsql does not plan to have soon;
// statements using it directly are counted apart in the report.
type Feature struct {
	Name  string
	match func(toks []token) bool
}

// Features are the features out of reach, matched on a statement's words.
var Features = []Feature{
	{"PL/pgSQL (LANGUAGE plpgsql, DO)", func(t []token) bool {
		return first(t, "do") || seq(t, "language", "plpgsql") || seqString(t, "language", "plpgsql")
	}},
	{"triggers", func(t []token) bool { return has(t, "trigger") }},
	{"user-defined types (CREATE/ALTER/DROP TYPE, DOMAIN)", func(t []token) bool {
		return (first(t, "create") || first(t, "alter") || first(t, "drop")) && (has(t, "type") || has(t, "domain")) && !has(t, "table")
	}},
	{"user-defined operators (CREATE OPERATOR [CLASS|FAMILY])", func(t []token) bool {
		return (first(t, "create") || first(t, "alter") || first(t, "drop")) && has(t, "operator")
	}},
	{"user-defined aggregates (CREATE AGGREGATE)", func(t []token) bool {
		return (first(t, "create") || first(t, "drop") || first(t, "alter")) && has(t, "aggregate")
	}},
	{"inheritance (INHERITS, ONLY)", func(t []token) bool {
		return has(t, "inherits") || has(t, "inherit") || seq(t, "from", "only") || seq(t, "update", "only") || seq(t, "table", "only")
	}},
	{"roles and privileges (ROLE, USER, GRANT, REVOKE, SESSION AUTHORIZATION)", func(t []token) bool {
		return first(t, "grant") || first(t, "revoke") || seq(t, "create", "role") || seq(t, "drop", "role") ||
			seq(t, "alter", "role") || seq(t, "create", "user") || seq(t, "drop", "user") || seq(t, "set", "role") ||
			seq(t, "reset", "role") || seq(t, "session", "authorization") || seq(t, "owner", "to")
	}},
	{"partitioning (PARTITION BY/OF)", func(t []token) bool {
		return seq(t, "partition", "of") || (first(t, "create") && seqTop(t, "partition", "by")) || seq(t, "attach", "partition") || seq(t, "detach", "partition")
	}},
}

// FeaturesOf names the features out of reach a statement uses.
func FeaturesOf(sql string) []string {
	toks := tokenize(sql)
	var names []string
	for _, f := range Features {
		if f.match(toks) {
			names = append(names, f.Name)
		}
	}
	return names
}

func first(t []token, w string) bool { return len(t) > 0 && t[0].kind == tWord && t[0].text == w }

func has(t []token, w string) bool {
	for _, x := range t {
		if x.kind == tWord && x.text == w {
			return true
		}
	}
	return false
}

func seq(t []token, a, b string) bool {
	for i := 0; i+1 < len(t); i++ {
		if t[i].kind == tWord && t[i].text == a && t[i+1].kind == tWord && t[i+1].text == b {
			return true
		}
	}
	return false
}

// seqTop is seq outside parentheses (PARTITION BY of a table, not of a
// window).
func seqTop(t []token, a, b string) bool {
	for i := 0; i+1 < len(t); i++ {
		if t[i].depth == 0 && t[i].kind == tWord && t[i].text == a && t[i+1].kind == tWord && t[i+1].text == b {
			return true
		}
	}
	return false
}

func seqString(t []token, a, b string) bool {
	for i := 0; i+1 < len(t); i++ {
		if t[i].kind == tWord && t[i].text == a && t[i+1].kind == tString && strings.EqualFold(t[i+1].text, b) {
			return true
		}
	}
	return false
}

// createdRelation returns the relation a CREATE TABLE/VIEW/SEQUENCE/
// MATERIALIZED VIEW statement creates (lower-cased, unqualified), or "".
func createdRelation(sql string) string {
	t := tokenize(sql)
	if !first(t, "create") {
		return ""
	}
	for i := 1; i < len(t); i++ {
		if t[i].kind != tWord {
			return ""
		}
		switch t[i].text {
		case "or", "replace", "temp", "temporary", "unlogged", "global", "local", "materialized", "recursive":
			continue
		case "table", "view", "sequence":
			j := i + 1
			if j+2 < len(t) && t[j].text == "if" && t[j+1].text == "not" && t[j+2].text == "exists" {
				j += 3
			}
			for j+2 < len(t) && t[j+1].text == "." { // schema.name
				j += 2
			}
			if j < len(t) {
				return identName(t[j])
			}
		}
		return ""
	}
	return ""
}

func identName(t token) string {
	if t.kind == tQuotedIdent {
		return strings.ReplaceAll(strings.Trim(t.text, `"`), `""`, `"`)
	}
	return t.text
}
