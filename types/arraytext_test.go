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
