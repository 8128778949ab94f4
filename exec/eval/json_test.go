package eval

import "testing"

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
