package parse

import (
	"testing"

	"github.com/kvsql/kvsql/pgerror"
	"vitess.io/vitess/go/vt/sqlparser"
)

// FuzzParse checks that Parse never panics, that every error is a
// *pgerror.Error with a code the dialect layer may give (42601, 0A000,
// 22021 for a NUL byte in a string, 22023 for an unknown storage
// parameter), and that every statement it
// returns can be formatted by vitess. Seeds are in testdata/fuzz/FuzzParse.
var parseErrorCodes = map[pgerror.Code]bool{
	pgerror.SyntaxError: true, pgerror.FeatureNotSupported: true, "22021": true, "22023": true,
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`SELECT "a" || 'b' FROM t WHERE x::int = $1 ORDER BY a NULLS FIRST OFFSET 2`,
		`SELECT a FROM t INTERSECT (SELECT b FROM u EXCEPT ALL SELECT c FROM v) LIMIT 1`,
		`CREATE TABLE t (a serial PRIMARY KEY, b text DEFAULT 'x' || 'y')`,
		`COPY t (a) FROM STDIN WITH (FORMAT csv)`,
		`INSERT INTO t VALUES (E'\x41', $$q$$) RETURNING *`,
		`CREATE TRIGGER r AFTER UPDATE OF a ON t WHEN NEW.a > OLD.a BEGIN INSERT INTO l VALUES (NEW.a); END`,
		`SELECT sum(x) FILTER (WHERE y) OVER (w GROUPS BETWEEN 1 PRECEDING AND x::int FOLLOWING EXCLUDE TIES), lag(a, b) OVER w2 FROM t WINDOW w AS (ORDER BY x USING >), w2 AS (w)`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		stmts, err := Parse(sql)
		if err != nil {
			c := pgerror.CodeOf(err)
			if !errIs(err) || !parseErrorCodes[c] {
				t.Fatalf("%q: error %v has code %s", sql, err, c)
			}
			return
		}
		for _, st := range stmts {
			if tr := st.Trigger; tr != nil {
				// Every statement of a trigger parses (or fails cleanly)
				// with its NEW/OLD references made parameters.
				for _, body := range tr.Body {
					if _, _, err := TriggerStep(body); err != nil && !errIs(err) {
						t.Fatalf("%q: TriggerStep(%q): %v", sql, body, err)
					}
				}
			}
			if st.AST != nil {
				_ = show(st.AST)
			}
			if st.Compound != nil {
				_ = render(&st)
			}
		}
		_ = sqlparser.String
	})
}
