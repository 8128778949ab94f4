package types

import "testing"

func TestJSONBKeyText(t *testing.T) {
	for in, want := range map[string]string{
		`[1, 2]`:                      `[1, 2]`,
		`[1.50, -0.0, 2.000, 0.001]`:  `[1.5, 0, 2, 0.001]`,
		`{"a.0": "1.50", "b": 10.10}`: `{"a.0": "1.50", "b": 10.1}`,
		`"x\"1.0" `:                   `"x\"1.0" `,
		`[-12.300, {"k": [100.0]}]`:   `[-12.3, {"k": [100]}]`,
		`{"a": "\\", "b": 1.0}`:       `{"a": "\\", "b": 1}`,
	} {
		if got := JSONBKeyText(in); got != want {
			t.Errorf("JSONBKeyText(%s) = %s, want %s", in, got, want)
		}
	}
}
