package eval

import (
	"hash/maphash"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/types"
)

// FuzzJSONB: whatever parses, its jsonb text parses again to the same
// text (normalising is idempotent), and never panics.
func FuzzJSONB(f *testing.F) {
	for _, s := range []string{`{"b": 2, "a": [1, 2.50, "x"], "a": null}`, `[1e3, -0, "\u00e9\n"]`, `"s"`, `true`, `{}`, `[[[]]]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parseJSON(s)
		if err != nil {
			return
		}
		once := jsonbText(normalize(v))
		w, err := parseJSON(once)
		if err != nil {
			t.Fatalf("%q normalised to %q, which does not parse: %v", s, once, err)
		}
		if twice := jsonbText(normalize(w)); twice != once {
			t.Fatalf("%q: %q then %q", s, once, twice)
		}
	})
}

// TestJSONBOrder: Compare orders jsonb datums as PostgreSQL 15 does
// (the list is PostgreSQL's ORDER BY of these values), equal values
// compare 0 and hash alike, and a jsonb datum that lost its mark (read
// from a key) still compares as jsonb.
func TestJSONBOrder(t *testing.T) {
	sorted := []string{`[]`, `null`, `""`, `"a"`, `"b"`, `-1`, `1.5`, `9`, `10`, `false`, `true`,
		`[3]`, `[null, 1]`, `[1, 2]`, `{}`, `{"a": 0.5}`, `{"a": 1}`, `{"b": 1}`, `{"a": 2, "b": 1}`}
	for i, a := range sorted {
		for j, b := range sorted {
			want := cmpInt(int64(i), int64(j))
			if got := Compare(types.NewJSONB(a), types.NewJSONB(b)); got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", a, b, got, want)
			}
			if got := Compare(types.NewJSONB(a), types.NewText(b)); got != want {
				t.Errorf("Compare(%s, unmarked %s) = %d, want %d", a, b, got, want)
			}
		}
	}
	equal := [][2]string{{`1`, `1.0`}, {`[1.50, {"a": 2.000}]`, `[1.5, {"a": 2}]`}, {`0`, `0.00`}, {`{"a": "1.0"}`, `{"a": "1.0"}`}}
	for _, p := range equal {
		a, b := types.NewJSONB(p[0]), types.NewJSONB(p[1])
		if Compare(a, b) != 0 {
			t.Errorf("%s and %s should be equal", p[0], p[1])
		}
		var h1, h2 maphash.Hash
		h2.SetSeed(h1.Seed())
		Hash(&h1, a)
		Hash(&h2, b)
		if h1.Sum64() != h2.Sum64() {
			t.Errorf("%s and %s hash differently", p[0], p[1])
		}
	}
	if Compare(types.NewJSONB(`{"a": "1.0"}`), types.NewJSONB(`{"a": "1"}`)) == 0 {
		t.Error(`strings "1.0" and "1" compared equal`)
	}
	// Plain text keeps its byte order.
	if Compare(types.NewText(`[10]`), types.NewText(`[9]`)) >= 0 {
		t.Error("text [10] should sort before text [9]")
	}
}

// TestJSONPath: the jsonpath subset against answers from PostgreSQL 15.
func TestJSONPath(t *testing.T) {
	doc := `{"a": [1, 2, {"b": "x"}], "c": {"d": null}, "n": 5}`
	for _, c := range []struct {
		path string
		want string // the items' jsonb texts, joined by "|"; "error" for an error
	}{
		{`$.a[*]`, `1|2|{"b": "x"}`},
		{`$.a[0 to 1]`, `1|2`},
		{`$.a[last]`, `{"b": "x"}`},
		{`lax $.a.b`, `"x"`},
		{`strict $.a.b`, `error`},
		{`$.a[*] ? (@ > 1)`, `2`},
		{`$.* ? (@ == 5)`, `5`},
		{`$.c.d`, `null`},
		{`$.c.* ? (@ == null)`, `null`},
		{`$.n == 5`, `true`},
		{`$.a == "x"`, `null`},
		{`exists($.c.d)`, `true`},
		{`$.a.size()`, `3`},
		{`$.a[2].b.type()`, `"string"`},
		{`$.x`, ``},
		{`strict $.x`, `error`},
		{`$ ? (@.n > 4 && !(@.n > 6))`, `{"a": [1, 2, {"b": "x"}], "c": {"d": null}, "n": 5}`},
	} {
		got := ""
		path, strict, err := parseJSONPath(c.path)
		if err == nil {
			v, _ := parseJSON(doc)
			var seq []any
			seq, err = (&jpEnv{root: v, strict: strict}).items(path, nil)
			for i, it := range seq {
				if i > 0 {
					got += "|"
				}
				got += jsonbText(it)
			}
		}
		if err != nil {
			got = "error"
		}
		if got != c.want {
			t.Errorf("%s: got %s, want %s", c.path, got, c.want)
		}
	}
}

// TestJSONPathArithmetic: jsonpath arithmetic is refused (0A000), not
// misread.
func TestJSONPathArithmetic(t *testing.T) {
	if _, _, err := parseJSONPath(`$.n + 1`); err == nil || !strings.Contains(err.Error(), "not supported") {
		t.Fatalf("got %v", err)
	}
}

// TestJSONRawParts: json's parts keep their source text.
func TestJSONRawParts(t *testing.T) {
	obj, keys, vals, ok := jsonRawParts(` { "a" : [1,  2] , "b\"" :"x,y", "c": {"d": [ ]}, "e": -1.5e3 } `)
	if !ok || !obj || strings.Join(keys, "|") != `a|b"|c|e` || strings.Join(vals, "|") != `[1,  2]|"x,y"|{"d": [ ]}|-1.5e3` {
		t.Fatalf("got %v %v %q %q", ok, obj, keys, vals)
	}
	if _, _, _, ok := jsonRawParts(`"s"`); ok {
		t.Error("a scalar split")
	}
}

// FuzzJSONPath: any path text parses or fails with an error, and a
// parsed path evaluates (lax and strict) without panicking.
func FuzzJSONPath(f *testing.F) {
	for _, s := range []string{`$.a[*] ? (@ > 1)`, `strict $.a[last - 1 to last]`, `$."x y".size()`, `exists($.a) && !($.b == "s")`, `$[`, `$ ? (`, `$.a[0,2 to 3]`, `$v.k`} {
		f.Add(s)
	}
	doc, _ := parseJSON(`{"a": [1, "x", {"b": null}], "b": "s"}`)
	vars, _ := parseJSON(`{"v": {"k": 1}}`)
	f.Fuzz(func(t *testing.T, s string) {
		path, strict, err := parseJSONPath(s)
		if err != nil {
			return
		}
		for _, st := range []bool{strict, !strict} {
			_, _ = (&jpEnv{root: doc, vars: vars.(*jsonObject), strict: st}).items(path, nil)
		}
	})
}

// FuzzJSONRawParts: splitting any valid json text never panics and, for
// a container, gives parts that are each valid JSON.
func FuzzJSONRawParts(f *testing.F) {
	for _, s := range []string{`{"a" : [1,  2] , "b":"x"}`, `[ 1 , "\"]" , {} ]`, `[]`, ` {} `, `"s"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if _, err := parseJSON(s); err != nil {
			return
		}
		_, _, vals, ok := jsonRawParts(s)
		if !ok {
			return
		}
		for _, v := range vals {
			if _, err := parseJSON(v); err != nil {
				t.Fatalf("%q: part %q does not parse", s, v)
			}
		}
	})
}
