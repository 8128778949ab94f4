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
		shape ArrayShape
	}{
		{"{}", nil, nil, ArrayShape{}},
		{" { } ", nil, nil, ArrayShape{}},
		{"{1,2,3}", []string{"1", "2", "3"}, []bool{false, false, false}, Vector(3)},
		{"{ a b , NULL,\"NULL\", \"x,\\\"y\" ,\\,}", []string{"a b", "NULL", "NULL", `x,"y`, ","}, []bool{false, true, false, false, false}, Vector(5)},
		{`{""}`, []string{""}, []bool{false}, Vector(1)},
		{"[1:2]={7,8}", []string{"7", "8"}, []bool{false, false}, Vector(2)},
		{"[0:1]={7,8}", []string{"7", "8"}, []bool{false, false}, ArrayShape{[]int{2}, []int{0}}},
		{"[2]={7,8}", []string{"7", "8"}, []bool{false, false}, Vector(2)},
		{" { {1,2} , {3,4} } ", []string{"1", "2", "3", "4"}, []bool{false, false, false, false}, ArrayShape{[]int{2, 2}, []int{1, 1}}},
		{"[-1:0][3:3]={{a},{b}}", []string{"a", "b"}, []bool{false, false}, ArrayShape{[]int{2, 1}, []int{-1, 3}}},
		{"{{{x}}}", []string{"x"}, []bool{false}, ArrayShape{[]int{1, 1, 1}, []int{1, 1, 1}}},
	}
	for _, c := range cases {
		at, err := ParseArrayText(c.in)
		if err != nil || !reflect.DeepEqual(at.Elems, c.elems) || !reflect.DeepEqual(at.Nulls, c.nulls) || !reflect.DeepEqual(at.Shape, c.shape) {
			t.Errorf("%q: %+v %v", c.in, at, err)
		}
	}
	for in, detail := range map[string]string{
		"":                      `Array value must start with "{" or dimension information.`,
		"1,2":                   `Array value must start with "{" or dimension information.`,
		"{1,2":                  "Unexpected end of input.",
		"{1,,2}":                `Unexpected "," character.`,
		"{1}x":                  "Junk after closing right brace.",
		`{a"b"}`:                "Unexpected array element.",
		`{"a"b}`:                "Unexpected array element.",
		"{,}":                   `Unexpected "," character.`,
		"[0:1]={1,2,3}":         "Specified array dimensions do not match array contents.",
		"[1:3]={1,2}":           "Specified array dimensions do not match array contents.",
		"{{1,2},{3}}":           "Multidimensional arrays must have sub-arrays with matching dimensions.",
		"{{1,2},3}":             "Unexpected array element.",
		"{1,{2}}":               `Unexpected "{" character.`,
		"{{}}":                  `Unexpected "}" character.`,
		"[1:2]{1,2}":            `Missing "=" after array dimensions.`,
		"[a:2]={1,2}":           `"[" must introduce explicitly-specified array dimensions.`,
		"[1:2":                  `Missing "]" after array dimensions.`,
		"[1:2]={{1},{2}}":       "Specified array dimensions do not match array contents.",
		"[2:1]={1}":             "",
		"{{{{{{{1}}}}}}}":       "",
		"[1][1][1][1][1][1][1]": "",
	} {
		_, err := ParseArrayText(in)
		te, ok := err.(*ArrayTextError)
		if !ok || te.Detail != detail {
			t.Errorf("%q: %v, want detail %q", in, err, detail)
		}
	}
}

// TestArrayElemTextRoundTrip checks that what AppendArrayElemText writes
// reads back as the same element.
func TestArrayElemTextRoundTrip(t *testing.T) {
	for _, s := range []string{"", "a", "NULL", "null", "a b", " x", "x,y", `q"q`, `b\s`, "{}", "é"} {
		text := "{" + string(AppendArrayElemText(nil, s)) + "}"
		at, err := ParseArrayText(text)
		if err != nil || len(at.Elems) != 1 || at.Elems[0] != s || at.Nulls[0] {
			t.Errorf("%q -> %s -> %+v %v", s, text, at, err)
		}
	}
}

// TestArrayTextShapeRoundTrip checks that AppendArrayText's form of every
// shape reads back as that shape and those elements.
func TestArrayTextShapeRoundTrip(t *testing.T) {
	shapes := []ArrayShape{{}, Vector(1), Vector(4), {[]int{3}, []int{0}}, {[]int{2, 3}, []int{1, 1}},
		{[]int{1, 2, 2}, []int{-5, 1, 7}}, {[]int{1, 1, 1, 1, 1, 1}, []int{1, 1, 1, 1, 1, 2}}}
	for _, sh := range shapes {
		text := string(AppendArrayText(nil, sh, func(b []byte, i int) []byte { return append(b, itoa(i)...) }))
		at, err := ParseArrayText(text)
		if err != nil || !reflect.DeepEqual(at.Shape, sh) || len(at.Elems) != sh.Count() {
			t.Errorf("%+v -> %s -> %+v %v", sh, text, at, err)
		}
		for i, e := range at.Elems {
			if e != itoa(i) {
				t.Errorf("%s: element %d is %q", text, i, e)
			}
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
