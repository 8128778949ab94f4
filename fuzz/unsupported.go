package fuzz

import "strings"

// knownUnsupported lists what kvsql refuses on purpose or has not built
// yet, each matched by its SQLSTATE and a piece of its message. A kvsql
// error matching an entry, where PostgreSQL succeeded, is counted apart
// and is no finding. Keep it short: every entry is a gap a user can hit.
var knownUnsupported = []struct {
	code, contains, why string
}{
	{"42601", `near "FULL"`, "FULL [OUTER] JOIN"},
}

// unsupported returns the known-unsupported entry kvsql's failure r
// matches, or "".
func unsupported(r result) string {
	for _, u := range knownUnsupported {
		if r.code == u.code && strings.Contains(r.msg, u.contains) {
			return u.why
		}
	}
	return ""
}

// knownIssues are engine bugs the fuzzer found and that are not fixed
// yet. With Config.AvoidKnown the generator leaves out the constructs
// that hit them, so that a run (CI's, the package's test) reports what is
// new; without it, they are found again. Remove an entry, and its
// avoidance in gen.go, with the fix.
var knownIssues = []struct{ name, repro string }{
	{"correlated-outer", `CREATE TABLE t0 (c0 INT PRIMARY KEY, c3 BIGINT); CREATE TABLE t1 (c0 BIGINT);
INSERT INTO t0 VALUES (10, 1), (11, NULL); INSERT INTO t1 VALUES (0);
SELECT a1.c3, EXISTS (SELECT 1 FROM t1 a4 WHERE a1.c3 IS NOT NULL) FROM t0 a1 CROSS JOIN t1 a3;
-- kvsql: (1, t), (NULL, t); PostgreSQL: (1, t), (NULL, f): the outer column is read at
-- its position before the join was reordered; the same with a view as the outer table:
CREATE TABLE t1 (c0 INT PRIMARY KEY, c1 INT, c2 BOOLEAN); INSERT INTO t1 VALUES (20, -100, FALSE);
CREATE VIEW v0 AS SELECT b.c0 AS c0, b.c2 AS c1 FROM t1 AS b;
SELECT sum(CASE WHEN (SELECT count(*) FROM v0 a2 WHERE a2.c1 = a1.c1) > 0 THEN 1 ELSE 0 END) FROM v0 a1;
-- kvsql: 0 (other shapes: 42883 operator does not exist: bool = int); PostgreSQL: 1`},
	{"sum-bigint", `CREATE TABLE t (c BIGINT); INSERT INTO t VALUES (1), (9223372036854775807), (3000000000), (-9223372036854775807);
SELECT sum(c) FROM t WHERE c > 0;  -- kvsql: 22003 bigint out of range; PostgreSQL: 9223372039854775808 (numeric)
SELECT avg(c) FROM t WHERE c <> 1; -- kvsql: 1000000170.6666666; PostgreSQL: 1000000000.00000000`},
}
