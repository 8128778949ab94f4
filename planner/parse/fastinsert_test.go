package parse

import (
	"flag"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kvsql/kvsql/pgerror"
	"vitess.io/vitess/go/vt/sqlparser"
)

var fastSeed = flag.Int64("fastinsert.seed", 0, "seed of TestFastInsertDifferential (0: the time)")

// parseBoth parses sql with the INSERT fast path on and off.
func parseBoth(sql string) (fast, slow []Statement, fastErr, slowErr error) {
	fast, fastErr = Parse(sql)
	fastInsertOff = true
	defer func() { fastInsertOff = false }()
	slow, slowErr = Parse(sql)
	return fast, slow, fastErr, slowErr
}

// sameParse reports how the two paths' results differ, or "".
func sameParse(fast, slow []Statement, fastErr, slowErr error) string {
	if (fastErr == nil) != (slowErr == nil) {
		return fmt.Sprintf("errors differ: fast %v, generic %v", fastErr, slowErr)
	}
	if fastErr != nil {
		fe, ok1 := fastErr.(*pgerror.Error)
		se, ok2 := slowErr.(*pgerror.Error)
		if !ok1 || !ok2 || fe.Code != se.Code || fe.Message != se.Message || fe.Position != se.Position || fe.Detail != se.Detail {
			return fmt.Sprintf("errors differ: fast %#v, generic %#v", fastErr, slowErr)
		}
		return ""
	}
	if !reflect.DeepEqual(fast, slow) {
		var f, s string
		if len(fast) > 0 && fast[0].AST != nil {
			f = sqlparser.String(fast[0].AST)
		}
		if len(slow) > 0 && slow[0].AST != nil {
			s = sqlparser.String(slow[0].AST)
		}
		return fmt.Sprintf("statements differ:\nfast    %s\ngeneric %s", f, s)
	}
	return ""
}

// TestFastInsertCases pins the fast path on statements chosen by hand:
// the literal forms it reads, and the shapes it must leave to the
// generic path (with the errors the generic path gives).
func TestFastInsertCases(t *testing.T) {
	for _, sql := range []string{
		`INSERT INTO t VALUES (1), (2)`,
		`insert into s.t (a, "B") values (1, -2), (+3, - 4), (1.5, -1.5e3), (.5, 5.), (1E+5, 1e-5), (99999999999999999999, -0)`,
		`INSERT INTO t VALUES ('a', E'b\n\\'), ('x''y', $$d'$$), ($q$$$q$, U&'x'), (NULL, DEFAULT), (true, FALSE)`,
		`INSERT INTO t VALUES (1), (1_000)`,
		`INSERT INTO t VALUES (1), ('a' 'b')`,
		`INSERT INTO t VALUES (1), ('a'
'b')`,
		`INSERT INTO t VALUES (1), (1+2)`,
		`INSERT INTO t VALUES (1), ('1'::int)`,
		`INSERT INTO t VALUES (1), (date '2020-01-01')`,
		`INSERT INTO t VALUES (1), (now())`,
		`INSERT INTO t VALUES (1), ($1)`,
		`INSERT INTO t VALUES (1), ()`,
		`INSERT INTO t VALUES (1), (2,)`,
		`INSERT INTO t VALUES (1), (2`,
		`INSERT INTO t VALUES (1), (2),`,
		`INSERT INTO t VALUES (1), (2) ON CONFLICT DO NOTHING`,
		`INSERT INTO t VALUES (1), (2) RETURNING *`,
		`INSERT INTO t VALUES (1), (2) ; INSERT INTO u VALUES (3), (4)`,
		`INSERT INTO key VALUES (1), (2)`,
		`INSERT INTO kvsql_x VALUES (1), (2)`,
		`INSERT INTO t (div) VALUES (1), (2)`,
		`INSERT INTO t (a VALUES (1), (2)`,
		`INSERT INTO t AS x VALUES (1), (2)`,
		`INSERT OR REPLACE INTO t VALUES (1), (2)`,
		`INSERT OR IGNORE INTO t VALUES (1), (2)`,
		`INSERT OR FAIL INTO t VALUES (1), (2)`,
		`INSERT INTO t OVERRIDING SYSTEM VALUE VALUES (1), (2)`,
		`INSERT INTO t (a) OVERRIDING USER VALUE VALUES (1), (2)`,
		`INSERT INTO t DEFAULT VALUES`,
		`INSERT INTO t VALUES (1, 2), (3)`,
		`INSERT INTO t VALUES (1), (- -1), (-'1'), (+NULL)`,
		`INSERT INTO t VALUES ((1)), (2)`,
		`INSERT INTO t VALUES (ROW(1)), (2)`,
		`INSERT INTO t VALUES (1) , (2), (x)`,
		`INSERT INTO t SELECT 1 UNION VALUES (1), (2)`,
		`INSERT INTO t VALUES (1), (1e), (1e+)`,
		`INSERT INTO t VALUES (1), (0x1f)`,
	} {
		fast, slow, fe, se := parseBoth(sql)
		if d := sameParse(fast, slow, fe, se); d != "" {
			t.Errorf("%s\n%s", sql, d)
		}
	}
	// The fast path must have been taken where it applies.
	st, err := ParseOne(`INSERT INTO t (a, b) VALUES (1, 'x'), (-2, NULL), (3.5, true)`)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(st.AST.(*sqlparser.Insert).Rows.(sqlparser.Values)); got != 3 {
		t.Fatalf("%d rows, want 3", got)
	}
	var r rewriter
	toks, _ := lex(st.SQL)
	if _, ok := r.fastInsert(toks); !ok {
		t.Error("the fast path was not taken")
	}
}

// TestFastInsertDifferential parses random multi-row INSERTs, most of
// them of literals and some not (expressions, casts, syntax errors,
// clauses after the rows), with the fast path on and off: the
// statements, or the errors, must be the same.
func TestFastInsertDifferential(t *testing.T) {
	seed := *fastSeed
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("seed %d (-fastinsert.seed to repeat)", seed)
	rng := rand.New(rand.NewSource(seed))
	n := 3000
	if testing.Short() {
		n = 300
	}
	deadline := time.Now().Add(20 * time.Second)
	tried, took := 0, 0
	for i := 0; i < n && time.Now().Before(deadline); i++ {
		sql := randomInsert(rng)
		fast, slow, fe, se := parseBoth(sql)
		if d := sameParse(fast, slow, fe, se); d != "" {
			t.Fatalf("seed %d, statement %d: %s\n%s", seed, i, sql, d)
		}
		tried++
		if toks, err := lex(sql); err == nil {
			var r rewriter
			if _, ok := r.fastInsert(toks); ok {
				took++
			}
		}
	}
	// The generator is meant to exercise both paths.
	t.Logf("%d of %d statements took the fast path", took, tried)
	if took < tried/10 || took > tried*9/10 {
		t.Errorf("%d of %d statements took the fast path: the generator tests one path only", took, tried)
	}
}

// randomInsert writes one INSERT statement for the differential test.
func randomInsert(rng *rand.Rand) string {
	pick := func(xs ...string) string { return xs[rng.Intn(len(xs))] }
	var b strings.Builder
	b.WriteString(pick("INSERT INTO ", "insert into ", "INSERT OR REPLACE INTO ", "INSERT OR IGNORE INTO "))
	b.WriteString(pick("t", "T", `"Tab"`, "s.t", `"s"."t t"`, "key", "kvsql_t", "values", "select"))
	width := 1 + rng.Intn(4)
	if rng.Intn(3) > 0 {
		cols := []string{"a", `"B"`, "c_1", "div", "key", `"x""y"`}
		b.WriteString(" (")
		for j := range width {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(cols[rng.Intn(len(cols))])
		}
		b.WriteString(")")
	}
	if rng.Intn(10) == 0 {
		b.WriteString(pick(" OVERRIDING SYSTEM VALUE", " OVERRIDING USER VALUE", " AS x"))
	}
	b.WriteString(pick(" VALUES ", " values", " VALUES\n"))
	rows := 1 + rng.Intn(6)
	for r := range rows {
		if r > 0 {
			b.WriteString(pick(", ", ",", " ,\n"))
		}
		b.WriteString("(")
		w := width
		if rng.Intn(15) == 0 {
			w = 1 + rng.Intn(4) // a row of another width
		}
		for j := range w {
			if j > 0 {
				b.WriteString(pick(", ", ","))
			}
			b.WriteString(randomValue(rng))
		}
		b.WriteString(")")
	}
	if rng.Intn(8) == 0 {
		b.WriteString(pick(" ON CONFLICT DO NOTHING", " RETURNING *", ",", " (1)", ";", "; SELECT 1", " -- end", " /* c */"))
	}
	return b.String()
}

// randomValue is a literal of any form, now and then something else.
func randomValue(rng *rand.Rand) string {
	pick := func(xs ...string) string { return xs[rng.Intn(len(xs))] }
	if rng.Intn(40) == 0 {
		switch rng.Intn(3) {
		case 0:
			return pick("1+2", "-x", "now()", "'1'::int", "CAST(1 AS text)", "date '2020-01-01'", "(1)", "ARRAY[1]", "- -1", "$1", "?", "1_000", "1e", "0x1F", "1e+")
		case 1:
			return pick("", " ", "'unterminated", "(", ")", ",")
		}
		return pick("'a' 'b'", "'a'\n'b'", "1 2", "x")
	}
	switch rng.Intn(10) {
	case 0, 1:
		return fmt.Sprint(rng.Int63n(1<<40) - 1<<39)
	case 2:
		return pick("-", "+", "- ", "") + fmt.Sprint(rng.Uint64())
	case 3:
		return fmt.Sprint(rng.NormFloat64() * 1e6)
	case 4:
		return pick("", "-", "+") + pick("1.5", ".5", "5.", "1e5", "1E-5", "2.5e+10", "0", "00", "0.0", "12345678901234567890.5")
	case 5, 6:
		return "'" + strings.ReplaceAll(randomText(rng), "'", "''") + "'"
	case 7:
		return pick(`E'a\nb'`, `E'\\'`, `E'\''`, `e'\x41'`, `$$x$$`, `$t$a'b$t$`, `N'n'`, `X'0a'`, `U&'d'`)
	case 8:
		return pick("NULL", "null", "TRUE", "false", "DEFAULT", "default")
	}
	return fmt.Sprint(rng.Intn(1000))
}

// randomText is a string of characters a literal may hold, quotes and
// backslashes among them.
func randomText(rng *rand.Rand) string {
	const chars = "ab Z09'\\\"$%_-\n\tμ字😀"
	rs := []rune(chars)
	n := rng.Intn(12)
	out := make([]rune, n)
	for i := range out {
		out[i] = rs[rng.Intn(len(rs))]
	}
	return string(out)
}

// FuzzFastInsert parses any text with the INSERT fast path on and off:
// the statements, or the errors, must be the same.
func FuzzFastInsert(f *testing.F) {
	for _, s := range []string{
		"INSERT INTO t VALUES (1, 'a'), (2, 'b')",
		"insert into s.t (a, b) values (-1, E'\\n'), (1.5e3, NULL), (.5, DEFAULT)",
		"INSERT INTO t VALUES (1), (2) RETURNING *",
		"INSERT OR REPLACE INTO t VALUES (1), ($$x$$)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		fast, slow, fe, se := parseBoth(sql)
		if d := sameParse(fast, slow, fe, se); d != "" {
			t.Fatalf("%q\n%s", sql, d)
		}
	})
}
