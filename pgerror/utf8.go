package pgerror

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// CheckUTF8 returns a 22021 error, worded as PostgreSQL words it, when s
// is not valid UTF-8 or holds a NUL byte (a server whose encoding is UTF8
// stores neither in text), else nil.
func CheckUTF8(s string) error {
	for i := 0; i < len(s); {
		c := s[i]
		if c != 0 && c < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if c != 0 && (r != utf8.RuneError || n > 1) {
			i += n
			continue
		}
		// Like PostgreSQL's report_invalid_encoding: as many bytes as the
		// lead byte announces, or as are left.
		want := 1
		switch {
		case c&0xe0 == 0xc0:
			want = 2
		case c&0xf0 == 0xe0:
			want = 3
		case c&0xf8 == 0xf0:
			want = 4
		}
		var hex []string
		for j := i; j < len(s) && j < i+want; j++ {
			hex = append(hex, fmt.Sprintf("0x%02x", s[j]))
		}
		return Newf(CharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\": %s", strings.Join(hex, " "))
	}
	return nil
}
