package planner

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"vitess.io/vitess/go/vt/sqlparser"
)

// literalTable is a table with a column of each type literalConst knows.
func literalTable(t testing.TB) *catalog.Catalog {
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
	if cat, err = cat.CreateTable(e, "db", catalog.TableDef{Name: "lit", Columns: []catalog.Column{
		{Name: "i2", Type: tInt2}, {Name: "i4", Type: tInt4, NotNull: true}, {Name: "i8", Type: tInt8},
		{Name: "f4", Type: types.T{Family: types.Float4}}, {Name: "f8", Type: tFloat8},
		{Name: "n", Type: types.T{Family: types.Numeric}}, {Name: "n52", Type: types.T{Family: types.Numeric, Width: 5, Scale: 2}},
		{Name: "s", Type: tText}, {Name: "vc", Type: types.T{Family: types.Varchar, Width: 5}},
		{Name: "ch", Type: types.T{Family: types.Char, Width: 3}}, {Name: "b", Type: tBool},
		{Name: "d", Type: tDate}, {Name: "ts", Type: tTS}, {Name: "tz", Type: tTSTZ},
		{Name: "u", Type: types.T{Family: types.UUID}}, {Name: "iv", Type: types.T{Family: types.Interval}},
	}}); err != nil {
		t.Fatal(err)
	}
	return cat
}

// literalPool holds literals, good and bad, for each column of
// literalTable (the first two of each bind without error), with the edge cases: NULL, the integer limits and one
// past them, overlong strings, NUMERIC scale rounding, dates that are
// not, relative dates and times.
var literalPool = [][]string{
	{"0", "-32768", "32767", "32768", "-32769", "'12'", "' 7 '", "'x'", "NULL", "1.5"},
	{"1", "-2147483648", "2147483647", "2147483648", "'-2147483649'", "''", "'2147483647'", "NULL", "-0"},
	{"9223372036854775807", "-9223372036854775808", "9223372036854775808", "'9223372036854775808'", "42", "NULL", "'abc'"},
	{"1", "3.4e38", "1e39", "'1e-50'", "'nan'", "'-Infinity'", "1.25", "NULL", "'0'"},
	{"1", "1e308", "'1e309'", "'inf'", "-2.5", "'4.9e-324'", "NULL", "'x1'", "7",
		"0.1", "33333.333333333336", "1.7976931348623157e308", "1.8e308", "-1e400", "4.9e-324", "2.2250738585072014e-308",
		"1e-400", "0.0", "-0.0", "123456789012345678901234567890.5", "0.30000000000000004", "1E5", "-.5"},
	{"1.005", "-0.5", "12345678901234567890123", "'1e3'", "'NaN'", "NULL", "'1.2.3'", "5"},
	{"1.005", "999.995", "999.994", "1000", "'-1.235'", "NULL", "12"},
	{"'hello'", "''", "'it''s'", "NULL", "12", "'日本語'", "true"},
	{"'abcde'", "'abcdef'", "'abc  '", "'abcde   '", "NULL", "'日本語日本'", "123"},
	{"'ab'", "'abcd'", "'abc '", "NULL", "'x'"},
	{"true", "false", "'yes'", "'off'", "'maybe'", "NULL", "1", "'1'"},
	{"'2024-02-29'", "'2023-02-29'", "'today'", "'epoch'", "'4714-11-24 BC'", "'5874897-12-31'", "NULL", "'x'", "'infinity'"},
	{"'2024-02-29 12:34:56.789'", "'2024-01-01'", "'now'", "'2024-02-30 00:00'", "NULL", "'-infinity'"},
	{"'2024-02-29 12:34:56+02'", "'2024-02-29 12:34:56'", "NULL", "'bad'"},
	{"'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'", "NULL", "'a0eebc99'"},
	{"'1 day'", "'1 fortnight'", "'2 hours 3 minutes'", "NULL"},
}

// exprKey spells an expression of a bound VALUES row for comparison:
// constants by type and value, casts by their target and operand.
func exprKey(x Expr) string {
	switch x := x.(type) {
	case *Const:
		return fmt.Sprintf("const %s %d %s", x.T, x.Value.Kind, x.Value)
	case *Cast:
		return fmt.Sprintf("cast(%s, %s)", x.T, exprKey(x.X))
	}
	return fmt.Sprintf("%T", x)
}

// boundRows plans sql and spells the rows its VALUES list bound to, or
// its error's SQLSTATE and message.
func boundRows(cat *catalog.Catalog, sql string) string {
	st, err := parse.ParseOne(sql)
	if err != nil {
		return "parse: " + err.Error()
	}
	p := &Planner{Catalog: cat, DB: "db"}
	n, _, err := p.Plan(&st, nil)
	if err != nil {
		return fmt.Sprintf("error %s: %v", pgerror.CodeOf(err), err)
	}
	ins, ok := n.(*Insert)
	if !ok {
		return fmt.Sprintf("plan %T", n)
	}
	in := ins.Input
	if pr, ok := in.(*Project); ok {
		in = pr.Input
	}
	v, ok := in.(*Values)
	if !ok {
		return fmt.Sprintf("input %T", in)
	}
	var sb strings.Builder
	for _, r := range v.Rows {
		for _, x := range r {
			sb.WriteString(exprKey(x))
			sb.WriteString("; ")
		}
		sb.WriteString("\n")
	}
	return sb.String()
}

// TestInsertLiteralDifferential binds random INSERTs of literals with the
// fast path and without it: the rows (so the stored rows) and the errors
// must be the same.
func TestInsertLiteralDifferential(t *testing.T) {
	cat := literalTable(t)
	rng := rand.New(rand.NewSource(17))
	defer func() { literalFastOff = false }()
	errs, oks := 0, 0
	for range 3000 {
		var sb strings.Builder
		sb.WriteString("INSERT INTO lit VALUES ")
		rows := 1 + rng.Intn(3)
		for r := range rows {
			if r > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString("(")
			for c, pool := range literalPool {
				if c > 0 {
					sb.WriteString(", ")
				}
				switch k := rng.Intn(40); {
				case k == 0: // a literal meant for another column
					pool = literalPool[rng.Intn(len(literalPool))]
					sb.WriteString(pool[rng.Intn(len(pool))])
				case k < 6:
					sb.WriteString(pool[rng.Intn(len(pool))])
				default:
					sb.WriteString(pool[rng.Intn(2)])
				}
			}
			sb.WriteString(")")
		}
		sql := sb.String()
		literalFastOff = false
		fast := boundRows(cat, sql)
		literalFastOff = true
		slow := boundRows(cat, sql)
		if fast != slow {
			t.Fatalf("%s\nfast path: %s\ngeneral path: %s", sql, fast, slow)
		}
		if strings.HasPrefix(fast, "error") {
			errs++
		} else {
			oks++
		}
	}
	// Both outcomes must be exercised, or the comparison proves little.
	if errs < 100 || oks < 100 {
		t.Fatalf("%d statements bound and %d failed: too few of one", oks, errs)
	}
}

// TestLiteralConst checks which literals take the fast path.
func TestLiteralConst(t *testing.T) {
	for _, c := range []struct {
		e    sqlparser.Expr
		t    types.T
		want string // "" when the general path must bind it
	}{
		{sqlparser.NewIntLiteral("7"), tInt8, "const bigint"},
		{sqlparser.NewIntLiteral("7"), tInt4, "const integer"},
		{sqlparser.NewIntLiteral("70000"), tInt2, ""}, // 22003 from the general path
		{sqlparser.NewStrLiteral("x"), types.T{Family: types.Varchar, Width: 2}, "const character varying"},
		{sqlparser.NewStrLiteral("12"), tInt4, "const integer"},
		{sqlparser.NewStrLiteral("x"), tInt4, ""},
		{sqlparser.NewStrLiteral("2024-01-02"), tDate, "const date"},
		{sqlparser.NewStrLiteral("today"), tDate, ""},
		{&sqlparser.NullVal{}, tText, "const text"},
		{sqlparser.BoolVal(true), tBool, "const boolean"},
		{sqlparser.BoolVal(true), tText, ""},
		{sqlparser.NewIntLiteral("1"), types.T{Family: types.Numeric, Width: 5, Scale: 2}, ""},
		{sqlparser.NewDecimalLiteral("1.5"), tFloat8, "const double precision"},
		{sqlparser.NewFloatLiteral("1e3"), tFloat8, "const double precision"},
		{sqlparser.NewDecimalLiteral("1.5"), types.T{Family: types.Float4}, ""},
		{sqlparser.NewDecimalLiteral("1.5"), types.T{Family: types.Numeric}, ""},
		{sqlparser.NewFloatLiteral("1e400"), tFloat8, ""}, // 22003 from the general path
		{sqlparser.NewFloatLiteral("1e-400"), tFloat8, ""},
		{sqlparser.NewDecimalLiteral("0.0"), tFloat8, ""},
	} {
		got := ""
		if lc, ok := literalConst(c.e, c.t); ok {
			got = "const " + lc.T.String()
		}
		if got != c.want {
			t.Errorf("%s as %s: got %q, want %q", sqlparser.String(c.e), c.t, got, c.want)
		}
	}
}
