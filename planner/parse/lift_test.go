package parse

import (
	"fmt"
	"testing"
)

func TestLiftLiterals(t *testing.T) {
	for _, c := range []struct {
		sql, want string // want: the template and the values, or "-" for not lifted
	}{
		{"SELECT abalance FROM pgbench_accounts WHERE aid = 12345;", "SELECT abalance FROM pgbench_accounts WHERE aid = $1; [12345]"},
		{"select a from t where a=5 and b <> 7 or c>=0", "select a from t where a=$1 and b <> $2 or c>=$3 [5 7 0]"},
		{`SELECT * FROM t WHERE (t."A" < 2147483647)`, `SELECT * FROM t WHERE (t."A" < $1) [2147483647]`},
		{"SELECT a FROM t WHERE a = 007", "SELECT a FROM t WHERE a = $1 [7]"},
		{"SELECT a = 5 FROM t", "-"},                    // followed by FROM
		{"SELECT a FROM t WHERE a = 2147483648", "-"},   // int8, not int4
		{"SELECT a FROM t WHERE a = 1.0", "-"},          // numeric
		{"SELECT a FROM t WHERE a = 1e3", "-"},          // numeric
		{"SELECT a FROM t WHERE a = '1'", "-"},          // unknown-typed string
		{"SELECT a FROM t WHERE a = 1_000", "-"},        // not a plain decimal
		{"SELECT a FROM t WHERE a = -5", "-"},           // a unary minus
		{"SELECT a FROM t WHERE a = 5 / 0", "-"},        // part of an expression
		{"SELECT a FROM t WHERE a = 5::int8", "-"},      // cast
		{"SELECT a FROM t WHERE 5 = a", "-"},            // left operand
		{"SELECT a FROM t WHERE a + 1 = 5", "-"},        // left operand not a name
		{"SELECT a FROM t WHERE true = 5", "-"},         // a constant keyword
		{"SELECT a FROM t WHERE a = $1 AND b = 5", "-"}, // has parameters
		{"SELECT a FROM t WHERE a = 5; SELECT 1", "-"},  // two statements
		{"SELECT a FROM t WHERE a IN (SELECT b FROM u WHERE b = 5)", "-"},
		{"SELECT a FROM t WHERE a = 5 UNION SELECT 1", "-"},
		{"SELECT a FROM t WHERE a = 5 FOR UPDATE", "-"},
		{"SELECT a INTO u FROM t WHERE a = 5", "-"},
		{"SELECT a FROM t ORDER BY 1 LIMIT 10", "-"}, // positions and counts
		{"UPDATE t SET a = 1 WHERE b = 5", "-"},      // writes
		{"SELECT a FROM t WHERE a = 'x", "-"},        // does not lex
		{"", "-"},
	} {
		tmpl, args, ok := LiftLiterals(c.sql)
		got := "-"
		if ok {
			got = fmt.Sprintf("%s %v", tmpl, args)
		}
		if got != c.want {
			t.Errorf("LiftLiterals(%q) = %s, want %s", c.sql, got, c.want)
		}
	}
}
