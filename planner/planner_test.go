package planner

import (
	"strings"
	"testing"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
)

// testCatalog makes a catalog with t(a INT PRIMARY KEY, b INT, c TEXT),
// an index on b and a unique index on c, and u(x INT, y TEXT) without a
// primary key.
func testCatalog(t testing.TB) *catalog.Catalog {
	t.Helper()
	e := kv.NewMemory()
	t.Cleanup(func() { e.Close() })
	cat, err := catalog.Open(e)
	if err != nil {
		t.Fatal(err)
	}
	if cat, err = cat.CreateDatabase(e, "db"); err != nil {
		t.Fatal(err)
	}
	if cat, err = cat.CreateTable(e, "db", catalog.TableDef{Name: "t", PrimaryKey: []string{"a"}, Columns: []catalog.Column{
		{Name: "a", Type: tInt4, NotNull: true}, {Name: "b", Type: tInt4}, {Name: "c", Type: tText},
	}}); err != nil {
		t.Fatal(err)
	}
	if cat, err = cat.CreateIndex(e, "db", catalog.IndexDef{Name: "t_b", Table: "t", Columns: []string{"b"}}); err != nil {
		t.Fatal(err)
	}
	if cat, err = cat.CreateIndex(e, "db", catalog.IndexDef{Name: "t_c", Table: "t", Columns: []string{"c"}, Unique: true}); err != nil {
		t.Fatal(err)
	}
	if cat, err = cat.CreateTable(e, "db", catalog.TableDef{Name: "u", Columns: []catalog.Column{
		{Name: "x", Type: tInt4}, {Name: "y", Type: tText},
	}}); err != nil {
		t.Fatal(err)
	}
	return cat
}

func plan(t *testing.T, cat *catalog.Catalog, sql string, disabled ...string) (Node, error) {
	t.Helper()
	st, err := parse.ParseOne(sql)
	if err != nil {
		t.Fatalf("parse %q: %v", sql, err)
	}
	p := &Planner{Catalog: cat, DB: "db", Disabled: map[string]bool{},
		RowCount: func(*catalog.Table) float64 { return 100000 }}
	for _, r := range disabled {
		p.Disabled[r] = true
	}
	n, _, err := p.Plan(&st, nil)
	return n, err
}

// TestAccessPaths checks the access path chosen for each kind of
// predicate, by the first line of EXPLAIN that names the scan.
func TestAccessPaths(t *testing.T) {
	cat := testCatalog(t)
	for _, c := range []struct{ sql, want string }{
		{"SELECT * FROM t WHERE a = 5", "master get (space"},
		{"SELECT * FROM t WHERE a IN (3, 1, 2)", "master get (space"},
		{"SELECT * FROM t WHERE a > 5 AND a < 9", "master range scan"},
		{"SELECT * FROM t WHERE c = 'x'", "unique index get t_c"},
		{"SELECT * FROM t WHERE b = 7", "key+id index range scan t_b"},
		{"SELECT a, b FROM t WHERE b BETWEEN 1 AND 2", "key+id index only scan t_b"},
		{"SELECT * FROM t WHERE b + 1 = 7", "master full scan"},
		{"SELECT * FROM u WHERE x = 1", "master full scan"},
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

// TestRulesCanBeDisabled checks that disabling index_select leaves only
// full scans.
func TestRulesCanBeDisabled(t *testing.T) {
	cat := testCatalog(t)
	n, err := plan(t, cat, "SELECT * FROM t WHERE a = 5", "index_select")
	if err != nil {
		t.Fatal(err)
	}
	if got := Explain(n, nil); !strings.Contains(got, "master full scan") {
		t.Errorf("with index_select disabled:\n%s", got)
	}
	for _, r := range Rules {
		if _, err := plan(t, cat, "SELECT t.a, count(*) FROM t, u WHERE t.a = u.x GROUP BY t.a ORDER BY 1 LIMIT 3", r); err != nil {
			t.Errorf("without %s: %v", r, err)
		}
	}
}

// TestErrors checks the SQLSTATE of planning errors.
func TestErrors(t *testing.T) {
	cat := testCatalog(t)
	for _, c := range []struct {
		sql  string
		code pgerror.Code
	}{
		{"SELECT * FROM nosuch", pgerror.UndefinedTable},
		{"SELECT nosuch FROM t", pgerror.UndefinedColumn},
		{"SELECT a FROM t, t", pgerror.DuplicateObject},
		{"SELECT x FROM t a, u b, u c", pgerror.AmbiguousColumn},
		{"SELECT * FROM t WHERE b", pgerror.DatatypeMismatch},
		{"SELECT c + 1 FROM t", pgerror.UndefinedFunction},
		{"SELECT a, count(*) FROM t", pgerror.GroupingError},
		{"SELECT * FROM t WHERE count(*) > 1", pgerror.GroupingError},
		{"SELECT nosuchfunc(a) FROM t", pgerror.UndefinedFunction},
		{"SELECT CAST(a AS nosuchtype) FROM t", pgerror.UndefinedObject},
		{"INSERT INTO t (a, a) VALUES (1, 2)", pgerror.DuplicateColumn},
		{"SELECT a FROM t ORDER BY 5", pgerror.InvalidColumnReference},
		{"SELECT 'x'::int", pgerror.InvalidTextRepresentation},
		{"SELECT 2147483648::int", pgerror.NumericValueOutOfRange},
	} {
		_, err := plan(t, cat, c.sql)
		if got := pgerror.CodeOf(err); err == nil || got != c.code {
			t.Errorf("%s: got %v (%s), want %s", c.sql, err, got, c.code)
		}
	}
}

// TestFolding checks constant folding of NULL-strict operators and
// AND/OR, and that an always-false WHERE becomes an empty input.
func TestFolding(t *testing.T) {
	cat := testCatalog(t)
	n, err := plan(t, cat, "SELECT a FROM t WHERE b / 0 = NULL")
	if err != nil {
		t.Fatal(err)
	}
	if got := Explain(n, nil); !strings.Contains(got, "Values (0 rows)") {
		t.Errorf("always-false WHERE:\n%s", got)
	}
	n, err = plan(t, cat, "SELECT a FROM t WHERE TRUE AND b = 1 OR FALSE")
	if err != nil {
		t.Fatal(err)
	}
	if got := Explain(n, nil); strings.Contains(got, "true") || strings.Contains(got, "false") {
		t.Errorf("AND/OR with constants not simplified:\n%s", got)
	}
}

// TestCommonType checks PostgreSQL's promotion rules.
func TestCommonType(t *testing.T) {
	for _, c := range []struct{ a, b, want types.T }{
		{tInt4, tInt8, tInt8},
		{tInt2, tInt4, tInt4},
		{tInt8, tFloat8, tFloat8},
		{tUnk, tText, tText},
		{types.T{Family: types.Varchar, Width: 5}, tText, tText},
		{tDate, tTS, tTS},
		{tInt4, tText, types.T{}},
	} {
		if got := commonType(c.a, c.b); got != c.want {
			t.Errorf("commonType(%s, %s) = %s, want %s", c.a, c.b, got, c.want)
		}
	}
}

// TestJoinOrder checks that a chain of equalities written in the worst
// order is joined without a cross product.
func TestJoinOrder(t *testing.T) {
	cat := testCatalog(t)
	n, err := plan(t, cat, "SELECT * FROM u, t WHERE t.b = u.x AND t.a = 3")
	if err != nil {
		t.Fatal(err)
	}
	got := Explain(n, nil)
	if strings.Contains(got, "NestedLoopJoin") {
		t.Errorf("a nested-loop join where an equality connects the tables:\n%s", got)
	}
	if !strings.Contains(got, "master get") {
		t.Errorf("the filtered table should be read by its key:\n%s", got)
	}
}

// TestNoPanicRegressions plans statements that once panicked the binder.
func TestNoPanicRegressions(t *testing.T) {
	cat := testCatalog(t)
	for _, c := range []struct{ sql, code string }{
		// A fraction that is no float8.
		{"SELECT percentile_cont('{a}'::text[]) WITHIN GROUP (ORDER BY b) FROM t", "42883"},
		{"SELECT percentile_disc(true) WITHIN GROUP (ORDER BY c) FROM t", "42883"},
		// A star after a column: no table function call.
		{"SELECT b, x.* FROM t, LATERAL (SELECT * FROM u WHERE u.x = t.a) x", ""},
	} {
		_, err := plan(t, cat, c.sql)
		if got := string(pgerror.CodeOf(err)); err != nil && got != c.code || err == nil && c.code != "" {
			t.Errorf("%s: got %v, want SQLSTATE %q", c.sql, err, c.code)
		}
	}
}
