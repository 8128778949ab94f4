package types

import "strings"

// PostgreSQL's text form of a one-dimensional array: '{1,2,NULL}',
// elements separated by commas, an element double-quoted when it holds
// a comma, a brace, a quote, a backslash or white space, is empty, or is
// the word NULL; inside quotes (and outside) a backslash escapes the next
// character. An optional leading "[1:n]=" gives the bounds.

// ParseArrayText splits s, an array in PostgreSQL's text form, into its
// elements' texts; nulls[i] marks an unquoted NULL. On malformed input
// ok is false and detail says why, in array_in's words (the caller
// reports 22P02 "malformed array literal"); multi is true for an array
// of more than one dimension (which kvsql does not support).
func ParseArrayText(s string) (elems []string, nulls []bool, detail string, multi, ok bool) {
	p := strings.TrimLeft(s, " \t\n\r\v\f")
	if strings.HasPrefix(p, "[") {
		// Explicit bounds: only [1:n]= with n the element count.
		eq := strings.Index(p, "=")
		if eq < 0 {
			return nil, nil, `Missing "=" after array dimensions.`, false, false
		}
		dims := strings.TrimSpace(p[:eq])
		p = strings.TrimLeft(p[eq+1:], " \t\n\r\v\f")
		defer func() {
			if ok && dims != "[1:"+itoa(len(elems))+"]" {
				if strings.Count(dims, "[") > 1 {
					multi = true
				}
				elems, nulls, detail, ok = nil, nil, "Specified array dimensions do not match array contents.", false
				if !strings.HasPrefix(dims, "[1:") {
					detail = "kvsql supports arrays whose lower bound is 1."
				}
			}
		}()
	}
	if !strings.HasPrefix(p, "{") {
		return nil, nil, `Array value must start with "{" or dimension information.`, false, false
	}
	i := 1
	skip := func() {
		for i < len(p) && isArraySpace(p[i]) {
			i++
		}
	}
	skip()
	if i < len(p) && p[i] == '}' {
		i++
		skip()
		if i != len(p) {
			return nil, nil, "Junk after closing right brace.", false, false
		}
		return nil, nil, "", false, true
	}
	for {
		skip()
		if i >= len(p) {
			return nil, nil, "Unexpected end of input.", false, false
		}
		if p[i] == '{' {
			return nil, nil, "", true, false
		}
		var b strings.Builder
		quoted, any := false, false
		end := -1 // length of b after the last non-space or escaped/quoted character
	elem:
		for i < len(p) {
			c := p[i]
			switch {
			case c == '\\':
				if i+1 >= len(p) {
					return nil, nil, "Unexpected end of input.", false, false
				}
				b.WriteByte(p[i+1])
				i += 2
				end, any = b.Len(), true
			case c == '"':
				if any {
					return nil, nil, `Unexpected array element.`, false, false
				}
				i++
				for {
					if i >= len(p) {
						return nil, nil, "Unexpected end of input.", false, false
					}
					if p[i] == '\\' && i+1 < len(p) {
						b.WriteByte(p[i+1])
						i += 2
						continue
					}
					if p[i] == '"' {
						i++
						break
					}
					b.WriteByte(p[i])
					i++
				}
				quoted, any, end = true, true, b.Len()
			case c == ',' || c == '}':
				break elem
			case c == '{':
				return nil, nil, `Unexpected "{" character.`, false, false
			case isArraySpace(c):
				if any {
					b.WriteByte(c)
				}
				i++
			default:
				if quoted {
					return nil, nil, "Unexpected array element.", false, false
				}
				b.WriteByte(c)
				i++
				end, any = b.Len(), true
			}
		}
		if i >= len(p) {
			return nil, nil, "Unexpected end of input.", false, false
		}
		if !any {
			return nil, nil, `Unexpected "` + string(p[i]) + `" character.`, false, false
		}
		v := b.String()[:end]
		elems = append(elems, v)
		nulls = append(nulls, !quoted && strings.EqualFold(v, "NULL"))
		if p[i] == '}' {
			i++
			skip()
			if i != len(p) {
				return nil, nil, "Junk after closing right brace.", false, false
			}
			return elems, nulls, "", false, true
		}
		i++ // the comma
	}
}

func isArraySpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// AppendArrayElemText appends one element's text to an array's text form,
// quoted and escaped where array_out would: when it is empty, is the word
// NULL, or holds a brace, comma, quote, backslash or white space.
func AppendArrayElemText(b []byte, s string) []byte {
	need := s == "" || strings.EqualFold(s, "NULL")
	for i := 0; i < len(s) && !need; i++ {
		switch c := s[i]; c {
		case '{', '}', ',', '"', '\\':
			need = true
		default:
			need = isArraySpace(c)
		}
	}
	if !need {
		return append(b, s...)
	}
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			b = append(b, '\\')
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}
