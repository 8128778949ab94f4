package parse

import "strings"

// ViewQuery returns the query text of CREATE [OR REPLACE] [TEMP] VIEW name
// [(columns)] AS query, exactly as written, so a view is stored in the
// user's own dialect and re-parsed by Parse when used (vitess's printer
// would write MySQL quoting). ok is false when sql is not such a
// statement.
func ViewQuery(sql string) (query string, ok bool) {
	toks, err := lex(sql)
	if err != nil {
		return "", false
	}
	i := 0
	for i < len(toks) && !toks[i].is("view") {
		i++
	}
	i++ // the name, possibly qualified
	for i < len(toks) && (toks[i].kind == tkIdent || toks[i].kind == tkQIdent || toks[i].isPunct(".")) && !toks[i].is("as") {
		i++
	}
	if i < len(toks) && toks[i].isPunct("(") {
		if end := matchForward(toks, i); end > 0 {
			i = end + 1
		}
	}
	if i >= len(toks) || !toks[i].is("as") {
		return "", false
	}
	q := strings.TrimSpace(sql[toks[i].end:])
	return strings.TrimSpace(strings.TrimSuffix(q, ";")), q != ""
}
