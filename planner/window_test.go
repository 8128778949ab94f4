package planner

import (
	"strings"
	"testing"

	"github.com/kvsql/kvsql/pgerror"
)

// TestWindowFrameExplain checks that EXPLAIN draws each window function
// with its frame when the frame is not the default one.
func TestWindowFrameExplain(t *testing.T) {
	cat := testCatalog(t)
	for _, c := range []struct{ sql, want string }{
		{"SELECT sum(b) OVER (ORDER BY a GROUPS BETWEEN 1 PRECEDING AND 2 FOLLOWING EXCLUDE TIES) FROM t",
			"sum(t.b) groups between 1 preceding and 2 following exclude ties"},
		{"SELECT count(*) FILTER (WHERE b > 1) OVER (ORDER BY a ROWS 3 PRECEDING) FROM t",
			"count_star() filter (where (t.b > 1)) rows between 3 preceding and current row"},
		{"SELECT last_value(c) OVER (ORDER BY b RANGE BETWEEN CURRENT ROW AND 5 FOLLOWING EXCLUDE GROUP) FROM t",
			"last_value(t.c) range between current row and 5 following exclude group"},
		{"SELECT rank() OVER (ORDER BY b ROWS 1 PRECEDING), sum(a) OVER (ORDER BY b) FROM t",
			": rank(), sum(t.a)\n"},
	} {
		n, err := plan(t, cat, c.sql)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if got := Explain(n, nil); !strings.Contains(got, c.want) {
			t.Errorf("%s:\n%s\nwant a line containing %q", c.sql, got, c.want)
		}
	}
}

// TestWindowErrors checks PostgreSQL's SQLSTATEs for windows and frames
// no query may have.
func TestWindowErrors(t *testing.T) {
	cat := testCatalog(t)
	for _, c := range []struct {
		sql  string
		code pgerror.Code
	}{
		{"SELECT sum(a) OVER (GROUPS 1 PRECEDING) FROM t", pgerror.WindowingError},
		{"SELECT sum(a) OVER (ORDER BY a ROWS b PRECEDING) FROM t", pgerror.InvalidColumnReference},
		{"SELECT sum(a) OVER (ORDER BY a, b RANGE 1 PRECEDING) FROM t", pgerror.WindowingError},
		{"SELECT sum(a) OVER (ORDER BY c RANGE 1 PRECEDING) FROM t", pgerror.FeatureNotSupported},
		{"SELECT sum(a) OVER (ORDER BY a RANGE 1.5 PRECEDING) FROM t", pgerror.FeatureNotSupported},
		{"SELECT sum(a) OVER (ORDER BY a ROWS BETWEEN 1 FOLLOWING AND CURRENT ROW) FROM t", pgerror.WindowingError},
		{"SELECT sum(a) OVER w FROM t WINDOW w AS (ORDER BY a), w AS (ORDER BY b)", pgerror.WindowingError},
		{"SELECT sum(a) OVER (w ORDER BY b) FROM t WINDOW w AS (ORDER BY a)", pgerror.WindowingError},
		{"SELECT sum(a) OVER (nosuch) FROM t", pgerror.UndefinedObject},
		{"SELECT rank(a) OVER () FROM t", pgerror.UndefinedFunction},
		{"SELECT lower(c) OVER () FROM t", pgerror.WrongObjectType},
		{"SELECT ntile(2) FILTER (WHERE b > 1) OVER () FROM t", pgerror.FeatureNotSupported},
		{"SELECT sum(sum(a) OVER ()) OVER () FROM t", pgerror.WindowingError},
	} {
		_, err := plan(t, cat, c.sql)
		if got := pgerror.CodeOf(err); err == nil || got != c.code {
			t.Errorf("%s: got %v (%s), want %s", c.sql, err, got, c.code)
		}
	}
}
