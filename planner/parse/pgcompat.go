package parse

import (
	"regexp"
	"strings"
)

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

// psqlPatterns are psql queries recognised by a regular expression over
// their whitespace-normalised text, replaced by an equivalent query (the
// replacement may use the pattern's groups).
var psqlPatterns = []struct {
	re          *regexp.Regexp
	replacement string
}{
	// \d table (psql 15) on a table a foreign key references: the keys
	// referencing it or any partition ancestor. kvsql has no partitions
	// (the ancestors are the table alone), and regclass prints as the
	// relation's name.
	{
		regexp.MustCompile(`^SELECT conname , conrelid::pg_catalog\.regclass AS ontable , pg_catalog\.pg_get_constraintdef\(oid , true\) AS condef FROM pg_catalog\.pg_constraint c WHERE confrelid IN \(SELECT pg_catalog\.pg_partition_ancestors\('(\d+)'\) UNION ALL VALUES \('(\d+)'::pg_catalog\.regclass\)\) AND contype = 'f' AND conparentid = 0 ORDER BY conname ?;?$`),
		"SELECT conname, (SELECT relname FROM pg_catalog.pg_class WHERE oid = c.conrelid) AS ontable, pg_catalog.pg_get_constraintdef(oid, true) AS condef FROM pg_catalog.pg_constraint c WHERE confrelid = '$1' AND contype = 'f' AND conparentid = 0 ORDER BY conname",
	},
	// \d table (psql 15) on a table with relhastriggers (a foreign key's
	// either side): its triggers, with the partition ancestor a cloned
	// trigger comes from. kvsql has no partitions, so no trigger has a
	// parent (tgparentid is 0 and the CASE is NULL).
	{
		regexp.MustCompile(`^SELECT t\.tgname , pg_catalog\.pg_get_triggerdef\(t\.oid , true\) , t\.tgenabled , t\.tgisinternal , CASE WHEN t\.tgparentid != 0 THEN .* END AS parent FROM pg_catalog\.pg_trigger t WHERE t\.tgrelid = '(\d+)' AND (.*) ORDER BY 1 ?;?$`),
		"SELECT t.tgname, pg_catalog.pg_get_triggerdef(t.oid, true), t.tgenabled, t.tgisinternal, CAST(NULL AS text) AS parent FROM pg_catalog.pg_trigger t WHERE t.tgrelid = '$1' AND $2 ORDER BY 1",
	},
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
	for _, p := range psqlPatterns {
		if m := p.re.FindStringSubmatchIndex(norm); m != nil {
			return string(p.re.ExpandString(nil, p.replacement, norm, m)), true
		}
	}
	return "", false
}
