package types

import "strings"

// JSONBKeyText returns the form of a jsonb value's normalised text s in
// which equal jsonb values are equal strings: every number with its
// trailing fractional zeros dropped (1.50 as 1.5, 2.0 as 2, -0.0 as 0),
// the only way two normalised texts of equal values differ (normalised
// numbers never have an exponent). Keys of jsonb columns and hashes use
// it. A text without '.' is returned as is.
func JSONBKeyText(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(s))
			b.WriteString(s[i:j])
			i = j
		case c == '-' || c >= '0' && c <= '9':
			j := i + 1
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
				j++
			}
			num := s[i:j]
			if strings.Contains(num, ".") {
				num = strings.TrimRight(num, "0")
				num = strings.TrimSuffix(num, ".")
				if num == "-0" {
					num = "0"
				}
			}
			b.WriteString(num)
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}
