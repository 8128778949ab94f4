package parse

import (
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"
)

// PostgreSQL array forms that catalog queries (psql's \d and \du) use,
// rewritten narrowly. kvsql has no array type: an array value is text in
// PostgreSQL's output form ("{a,b}").
//
//   - ARRAY(subquery) becomes a scalar subquery aggregating the rows into
//     that text: (SELECT concat('{', coalesce(string_agg(CAST(e AS text),
//     ','), ''), '}') FROM (subquery) AS kvsql_arr (e)). Elements are not
//     quoted, so ones holding commas, braces, quotes or blanks are
//     ambiguous.
//   - x = ANY(array) (not a subquery) becomes the FuncExpr "= any"(x,
//     array); other operators before ANY/SOME/ALL stay errors.

// markerAny is the function name standing for `= ANY(` until fixup.
const markerAny = "kvsql_any"

// arrayForms rewrites ARRAY(subquery) and `= ANY(expr)`; see above.
func (r *rewriter) arrayForms(toks []token) ([]token, error) {
	if !hasArrayForm(toks) {
		return toks, nil
	}
	out := make([]token, 0, len(toks)+16)
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.is("array") && i+2 < len(toks) && toks[i+1].isPunct("(") && toks[i+2].is("select"):
			end := matchForward(toks, i+1)
			if end < 0 {
				return nil, syntaxErr(r.sql, t.pos, "syntax error in ARRAY()")
			}
			inner, err := r.arrayForms(toks[i+1 : end+1])
			if err != nil {
				return nil, err
			}
			p := t.pos
			out = append(out, raw("( select concat ( '{' , coalesce ( string_agg (", p),
				token{kind: tkIdent, val: "cast", pos: p}, token{kind: tkPunct, val: "(", pos: p},
				raw("kvsql_arr.kvsql_elem", p), token{kind: tkIdent, val: "as", pos: p},
				token{kind: tkIdent, val: "text", pos: p}, token{kind: tkPunct, val: ")", pos: p},
				raw(", ',' ) , '' ) , '}' ) from", p))
			out = append(out, inner...)
			out = append(out, raw("as kvsql_arr ( kvsql_elem ) )", p))
			i = end
		case (t.is("any") || t.is("some")) && i+1 < len(toks) && toks[i+1].isPunct("(") &&
			!(i+2 < len(toks) && (toks[i+2].is("select") || toks[i+2].is("with") || toks[i+2].isPunct("("))) &&
			len(out) > 0 && out[len(out)-1].isOp("="):
			out = append(out, raw(markerAny, t.pos))
		default:
			out = append(out, t)
		}
	}
	return out, nil
}

// hasArrayForm is a quick check that toks hold ARRAY( or ANY( / SOME(.
func hasArrayForm(toks []token) bool {
	for i := 0; i+1 < len(toks); i++ {
		if (toks[i].is("array") || toks[i].is("any") || toks[i].is("some")) && toks[i+1].isPunct("(") {
			return true
		}
	}
	return false
}

// anyFixup turns x = kvsql_any(arr) into the FuncExpr "= any"(x, arr).
func anyFixup(n sqlparser.SQLNode) (sqlparser.Expr, bool) {
	cmp, ok := n.(*sqlparser.ComparisonExpr)
	if !ok || cmp.Operator != sqlparser.EqualOp {
		return nil, false
	}
	f, ok := cmp.Right.(*sqlparser.FuncExpr)
	if !ok || f.Name.Lowered() != markerAny || len(f.Exprs) != 1 {
		return nil, false
	}
	return &sqlparser.FuncExpr{Name: sqlparser.NewIdentifierCI("= any"), Exprs: []sqlparser.Expr{cmp.Left, f.Exprs[0]}}, true
}

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

// psqlFragments are pieces of psql's catalog queries replaced wherever
// they occur, each by an expression with the same value on kvsql.
var psqlFragments = []struct{ fragment, replacement string }{
	// \d+ (psql 15): a relation's options followed by its TOAST table's.
	// kvsql relations have no TOAST table (reltoastrelid = 0), so the
	// unnest over the outer-joined tc.reloptions adds nothing.
	{"c.reloptions || array(select 'toast.' || x from pg_catalog.unnest(tc.reloptions) x)", "c.reloptions"},
}

// emulated returns the replacement text for sql when it is one of the
// psqlEmulated statements or holds a psqlFragments piece.
func emulated(sql string) (string, bool) {
	if !strings.Contains(sql, "pg_catalog") {
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
