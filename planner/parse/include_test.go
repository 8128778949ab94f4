package parse

import (
	"slices"
	"strings"
	"testing"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/kvsql/kvsql/pgerror"
)

// TestInclude: INCLUDE lists of CREATE INDEX and of UNIQUE / PRIMARY KEY
// constraints, and PostgreSQL 15's errors for what an included column
// cannot be (each checked against the reference server).
func TestInclude(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want []string // IndexInclude, or the constraint's FKAttrs.Include
		name string   // the generated index name, if any
	}{
		{"CREATE INDEX i ON t (a) INCLUDE (b, c)", []string{"b", "c"}, ""},
		{"CREATE UNIQUE INDEX i ON t (a) INCLUDE (\"B\") WHERE a > 0", []string{"B"}, ""},
		{"CREATE INDEX ON t (a) INCLUDE (b, c)", []string{"b", "c"}, "t_a_b_c_idx"},
		{"CREATE INDEX ON t (a, b) INCLUDE (a, c)", []string{"a", "c"}, "t_a_b_a1_c_idx"},
		{"CREATE UNIQUE INDEX i ON t (a) INCLUDE (b) NULLS NOT DISTINCT", []string{"b"}, ""},
		{"CREATE TABLE t (a INT, b INT, UNIQUE (a) INCLUDE (b))", []string{"b"}, ""},
		{"CREATE TABLE t (a INT, b INT, PRIMARY KEY (a) INCLUDE (b))", []string{"b"}, ""},
		{"ALTER TABLE t ADD CONSTRAINT k UNIQUE (a) INCLUDE (b, c)", []string{"b", "c"}, ""},
	} {
		sts, err := Parse(c.sql)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		st := sts[0]
		got := st.IndexInclude
		if got == nil && len(st.FKAttrs) == 1 {
			got = st.FKAttrs[0].Include
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: include %q, want %q", c.sql, got, c.want)
		}
		if c.name != "" && (!st.IndexNameGenerated || !strings.Contains(sqlparser.String(st.AST), c.name)) {
			t.Errorf("%s: generated name is not %s: %s", c.sql, c.name, sqlparser.String(st.AST))
		}
	}
	for _, c := range []struct {
		sql  string
		code pgerror.Code
	}{
		{"CREATE INDEX i ON t (a) INCLUDE ((b + 1))", pgerror.FeatureNotSupported},
		{"CREATE INDEX i ON t (a) INCLUDE (upper(c))", pgerror.FeatureNotSupported},
		{"CREATE INDEX i ON t (a) INCLUDE (b DESC)", pgerror.InvalidObjectDefinition},
		{"CREATE INDEX i ON t (a) INCLUDE (b COLLATE \"C\")", pgerror.InvalidObjectDefinition},
		{"CREATE INDEX i ON t (a) INCLUDE (b int4_ops)", pgerror.InvalidObjectDefinition},
		{"CREATE INDEX i ON t (a) INCLUDE ()", pgerror.SyntaxError},
		{"CREATE INDEX i ON t (a) INCLUDE b", pgerror.SyntaxError},
		{"CREATE INDEX i ON t (a) FOO", pgerror.SyntaxError},
		{"CREATE TABLE t (a INT, b INT, UNIQUE (a) INCLUDE ((b)))", pgerror.FeatureNotSupported},
	} {
		_, err := Parse(c.sql)
		if !pgerror.HasCode(err, c.code) {
			t.Errorf("%s: %v, want %s", c.sql, err, c.code)
		}
	}
}
