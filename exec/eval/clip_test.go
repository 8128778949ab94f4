package eval

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestClip: Clip keeps a string of up to max bytes, and cuts a longer
// one at the last character boundary at or before max, with "...".
func TestClip(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"", 4, ""},
		{"abcd", 4, "abcd"},
		{"abcde", 4, "abcd..."},
		{"aé", 2, "a..."},   // é is two bytes: cut before it
		{"aéb", 3, "aé..."}, // after it
		{strings.Repeat("é", 60), 64, strings.Repeat("é", 32) + "..."},
	} {
		got := Clip(c.in, c.max)
		if got != c.want || !utf8.ValidString(got) {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}
