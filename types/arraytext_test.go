package types

import (
	"reflect"
	"testing"
)

func TestParseArrayText(t *testing.T) {
	cases := []struct {
		in    string
		elems []string
		nulls []bool
	}{
		{"{}", nil, nil},
		{" { } ", nil, nil},
		{"{1,2,3}", []string{"1", "2", "3"}, []bool{false, false, false}},
		{"{ a b , NULL,\"NULL\", \"x,\\\"y\" ,\\,}", []string{"a b", "NULL", "NULL", `x,"y`, ","}, []bool{false, true, false, false, false}},
		{`{""}`, []string{""}, []bool{false}},
		{"[1:2]={7,8}", []string{"7", "8"}, []bool{false, false}},
	}
	for _, c := range cases {
		elems, nulls, detail, multi, ok := ParseArrayText(c.in)
		if !ok || multi || !reflect.DeepEqual(elems, c.elems) || !reflect.DeepEqual(nulls, c.nulls) {
			t.Errorf("%q: %q %v %q %v %v", c.in, elems, nulls, detail, multi, ok)
		}
	}
	for _, in := range []string{"", "1,2", "{1,2", "{1,,2}", "{1}x", `{a"b"}`, `{"a"b}`, "{,}", "[0:1]={1,2}", "[1:3]={1,2}"} {
		if _, _, detail, _, ok := ParseArrayText(in); ok || detail == "" {
			t.Errorf("%q: accepted (%q)", in, detail)
		}
	}
	if _, _, _, multi, ok := ParseArrayText("{{1,2},{3,4}}"); ok || !multi {
		t.Errorf("two dimensions: multi=%v ok=%v", multi, ok)
	}
}

// TestArrayElemTextRoundTrip checks that what AppendArrayElemText writes
// reads back as the same element.
func TestArrayElemTextRoundTrip(t *testing.T) {
	for _, s := range []string{"", "a", "NULL", "null", "a b", " x", "x,y", `q"q`, `b\s`, "{}", "é"} {
		text := "{" + string(AppendArrayElemText(nil, s)) + "}"
		elems, nulls, _, _, ok := ParseArrayText(text)
		if !ok || len(elems) != 1 || elems[0] != s || nulls[0] {
			t.Errorf("%q -> %s -> %q %v %v", s, text, elems, nulls, ok)
		}
	}
}

func TestJSONLeaves(t *testing.T) {
	leaves := func(doc string) []string {
		l, ok := JSONLeaves(doc)
		if !ok {
			t.Fatalf("%s: not JSON", doc)
		}
		return l
	}
	// Containment implies the leaves are a subset.
	for _, c := range []struct{ doc, sub string }{
		{`{"a": 1, "b": {"c": [1, 2, "x"]}}`, `{"b": {"c": ["x"]}}`},
		{`{"a": 1.0}`, `{"a": 1}`},
		{`[1, [2, 3]]`, `[[3]]`},
		{`[1]`, `1`},
		{`{"t": true, "n": null, "z": 0}`, `{"n": null, "z": -0.0}`},
	} {
		have := map[string]bool{}
		for _, l := range leaves(c.doc) {
			have[l] = true
		}
		for _, l := range leaves(c.sub) {
			if !have[l] {
				t.Errorf("%s contains %s but lacks its leaf %q", c.doc, c.sub, l)
			}
		}
	}
	if got := leaves(`{"a": {}, "b": []}`); len(got) != 0 {
		t.Errorf("empty containers have leaves %q", got)
	}
	if len(leaves(`{"a": 1}`)) != 1 || leaves(`{"a": 1}`)[0] == leaves(`{"a": "1"}`)[0] {
		t.Errorf("a number and a string must differ")
	}
	if _, ok := JSONLeaves(`{bad`); ok {
		t.Errorf("bad JSON accepted")
	}
}
