package parse

import "strings"

// psqlEmulated maps statements psql sends that use syntax kvsql lacks to
// equivalent statements it can run. Each entry is recognised by a prefix
// and a fragment of the (whitespace-normalised) text; the replacement must
// give the same answer on every kvsql database.
var psqlEmulated = []struct {
	prefix, contains, replacement string
}{
	// \d table (psql 15): the publications the table belongs to. The
	// query needs generate_series in FROM and array subscripts; every
	// branch of its UNION reads pg_publication, which kvsql keeps empty,
	// so its answer is always no rows.
	{
		prefix:      "SELECT pubname , NULL , NULL FROM pg_catalog.pg_publication p",
		contains:    "pg_catalog.pg_relation_is_publishable",
		replacement: "SELECT pubname, NULL, NULL FROM pg_catalog.pg_publication",
	},
}

// psqlFragments are pieces of psql's and pg_dump's catalog queries replaced wherever
// they occur, each by an expression with the same value on kvsql.
var psqlFragments = []struct{ fragment, replacement string }{
	// \d+ (psql 15): a relation's options followed by its TOAST table's.
	// kvsql relations have no TOAST table (reltoastrelid = 0), so the
	// unnest over the outer-joined tc.reloptions adds nothing.
	{"c.reloptions || array(select 'toast.' || x from pg_catalog.unnest(tc.reloptions) x)", "c.reloptions"},
	// pg_dump 15's type list: the first character of a type's name
	// (subscripting type name, which kvsql holds as text).
	{"typname[0] = '_'", "substr(typname, 1, 1) = '_'"},
}

// emulated returns the replacement text for sql when it is one of the
// psqlEmulated statements or holds a psqlFragments piece.
func emulated(sql string) (string, bool) {
	if !strings.Contains(sql, "pg_") {
		return "", false
	}
	for _, f := range psqlFragments {
		if strings.Contains(sql, f.fragment) {
			return strings.ReplaceAll(sql, f.fragment, f.replacement), true
		}
	}
	norm := strings.Join(strings.Fields(strings.ReplaceAll(sql, ",", " , ")), " ")
	for _, e := range psqlEmulated {
		if strings.HasPrefix(norm, e.prefix) && strings.Contains(norm, e.contains) {
			return e.replacement, true
		}
	}
	return "", false
}
