package pgregress

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// items reads a whole script.
func items(t *testing.T, src string, vars map[string]string) []Item {
	t.Helper()
	s := NewScript(src)
	for k, v := range vars {
		s.Vars[k] = v
	}
	var out []Item
	for {
		it, ok := s.Next()
		if !ok {
			return out
		}
		out = append(out, it)
	}
}

func texts(its []Item) []string {
	var out []string
	for _, it := range its {
		out = append(out, it.Text)
	}
	return out
}

func TestSplitTricky(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want []string
	}{
		{"plain", "SELECT 1; SELECT 2;", []string{"SELECT 1;", "SELECT 2;"}},
		{"leading comments dropped", "-- c\n\n  SELECT 1;\n-- trailing\n", []string{"SELECT 1;"}},
		{"inner comment kept", "SELECT 1 -- one;\n + 2;", []string{"SELECT 1 -- one;\n + 2;"}},
		{"string", "SELECT 'a;b''c;';", []string{"SELECT 'a;b''c;';"}},
		{"E string", `SELECT E'a\';b';`, []string{`SELECT E'a\';b';`}},
		{"plain backslash", `SELECT 'a\'; SELECT 2;`, []string{`SELECT 'a\';`, "SELECT 2;"}},
		{"identifier", `SELECT 1 AS "x;""y";`, []string{`SELECT 1 AS "x;""y";`}},
		{"dollar", "SELECT $$a;$b$;$$; SELECT $f$x;$$;$f$;", []string{"SELECT $$a;$b$;$$;", "SELECT $f$x;$$;$f$;"}},
		{"param is not dollar", "SELECT $1; SELECT 2;", []string{"SELECT $1;", "SELECT 2;"}},
		{"nested comment", "SELECT /* a /* b; */ c; */ 1; SELECT 2;", []string{"SELECT /* a /* b; */ c; */ 1;", "SELECT 2;"}},
		{"parens", "CREATE RULE r AS ON INSERT TO t DO (INSERT INTO u VALUES (1); INSERT INTO u VALUES (2)); SELECT 1;",
			[]string{"CREATE RULE r AS ON INSERT TO t DO (INSERT INTO u VALUES (1); INSERT INTO u VALUES (2));", "SELECT 1;"}},
		{"begin atomic", "CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; SELECT CASE WHEN true THEN 2 END; END; SELECT 3;",
			[]string{"CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; SELECT CASE WHEN true THEN 2 END; END;", "SELECT 3;"}},
		{"begin transaction", "BEGIN; SELECT 1; END;", []string{"BEGIN;", "SELECT 1;", "END;"}},
		{"joined", `SELECT 1 \; SELECT 2; SELECT 3;`, []string{"SELECT 1 ; SELECT 2;", "SELECT 3;"}},
		{"cast", "SELECT 1::int;", []string{"SELECT 1::int;"}},
		{"no semicolon at end", "SELECT 1;\nSELECT 2\n", []string{"SELECT 1;", "SELECT 2\n"}},
		{"jsonb colon in string", `SELECT '{"a":1}'::jsonb;`, []string{`SELECT '{"a":1}'::jsonb;`}},
		{"U& string", `SELECT U&'d\0061t;' ; SELECT 2;`, []string{`SELECT U&'d\0061t;' ;`, "SELECT 2;"}},
		{"identifier ending in e", "SELECT tablee'x;';", []string{"SELECT tablee'x;';"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := texts(items(t, tc.src, nil)); !slices.Equal(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestMetaAndVariables(t *testing.T) {
	src := `\getenv abs_srcdir PG_ABS_SRCDIR
\set filename :abs_srcdir '/data/x.data'
COPY t FROM :'filename';
SELECT :'missing', :nothing, a::text FROM t WHERE b = ':filename';
\set v 'it''s'
SELECT :'v', :"v";
\d+ t
\copy t TO stdout (FORMAT CSV)
SELECT 1 \: 2;
`
	s := NewScript(src)
	s.Getenv = func(n string) (string, bool) { return "/src", n == "PG_ABS_SRCDIR" }
	var got []string
	for {
		it, ok := s.Next()
		if !ok {
			break
		}
		if it.Kind == Meta {
			got = append(got, "META "+it.Cmd+" "+strings.Join(it.Args, "|"))
		} else {
			got = append(got, it.Text)
		}
	}
	want := []string{
		"META getenv abs_srcdir|PG_ABS_SRCDIR",
		"META set filename|/src|/data/x.data",
		"COPY t FROM '/src/data/x.data';",
		"SELECT :'missing', :nothing, a::text FROM t WHERE b = ':filename';",
		"META set v|it's",
		`SELECT 'it''s', "it's";`,
		"META d+ t",
		"META copy t TO stdout (FORMAT CSV)",
		"SELECT 1 : 2;",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCopyData(t *testing.T) {
	src := "COPY x FROM stdin;\n1\ta\n\\N\t\\\\N\n\\.\nSELECT 1;\n"
	s := NewScript(src)
	it, _ := s.Next()
	if it.Text != "COPY x FROM stdin;" {
		t.Fatalf("first item %q", it.Text)
	}
	if got, want := string(s.CopyData()), "1\ta\n\\N\t\\\\N\n"; got != want {
		t.Errorf("copy data %q, want %q", got, want)
	}
	it, ok := s.Next()
	if !ok || it.Text != "SELECT 1;" || it.Line != 5 {
		t.Errorf("after the data: %+v", it)
	}
	// Without a COPY mode the same lines are SQL and meta-commands, and
	// the query begun before a meta-command goes on after it, as in psql.
	got := texts(items(t, src, nil))
	want := []string{"COPY x FROM stdin;", "\\N\t\\\\N", `\.`, "1\ta\n\n\nSELECT 1;"}
	if !slices.Equal(got, want) {
		t.Errorf("without COPY: %q, want %q", got, want)
	}
}

// pieces are statements with every kind of quoting; the round-trip
// property joins random ones with random separators and expects each back.
var pieces = []string{
	"SELECT 1;",
	"SELECT 'a;''b' AS x;",
	`SELECT E'\\;\'' ;`,
	`SELECT "a;""b" FROM t;`,
	"SELECT $$;$x$;$$;",
	"SELECT $q$ $$ ; $q$;",
	"SELECT /* x; /* y; */ */ 2;",
	"SELECT (1;2);",
	"SELECT 1 -- c;\n + 1;",
	"CREATE PROCEDURE p() BEGIN ATOMIC INSERT INTO t VALUES (1); END;",
	"SELECT a::int FROM t;",
	"SELECT x'1f', b'01', n'x;';",
	"END;",
}

var separators = []string{"\n", " ", "\n\n", "\t", "\n-- comment; with semicolon\n", "  -- c\n"}

func TestSplitRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 500 {
		var src strings.Builder
		var want []string
		for range 1 + rng.IntN(8) {
			p := pieces[rng.IntN(len(pieces))]
			src.WriteString(separators[rng.IntN(len(separators))])
			src.WriteString(p)
			want = append(want, p)
		}
		got := items(t, src.String(), nil)
		if !slices.Equal(texts(got), want) {
			t.Fatalf("iteration %d: %q\ngot  %q\nwant %q", iter, src.String(), texts(got), want)
		}
		// Without variables, an item's text is its source span.
		for _, it := range got {
			if src.String()[it.Start:it.End] != it.Text {
				t.Fatalf("span %d:%d is %q, text %q", it.Start, it.End, src.String()[it.Start:it.End], it.Text)
			}
		}
	}
}

// TestSplitCorpus reads every file of the regression corpus when present:
// each item's span lies after the last, and what lies between items is
// whitespace, comments or COPY data.
func TestSplitCorpus(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(corpusDir(), "sql", "*.sql"))
	if len(paths) == 0 {
		t.Skip("no regression corpus at " + corpusDir())
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		src := string(b)
		last := 0
		for _, it := range items(t, src, nil) {
			if it.End < last || it.End < it.Start {
				t.Fatalf("%s:%d: span %d:%d after %d", p, it.Line, it.Start, it.End, last)
			}
			if it.Line != 1+strings.Count(src[:it.Start], "\n") {
				t.Fatalf("%s: item at line %d starts on line %d", p, it.Line, 1+strings.Count(src[:it.Start], "\n"))
			}
			last = it.End
		}
	}
}

func TestSplitStatements(t *testing.T) {
	got := SplitStatements("SELECT 1 ; SELECT 'a;b' ORDER BY 1; SELECT 3")
	want := []string{"SELECT 1 ;", "SELECT 'a;b' ORDER BY 1;", "SELECT 3"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q", got)
	}
}

func corpusDir() string {
	if d := os.Getenv("KVSQL_PGREGRESS"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared", "pgregress")
}
