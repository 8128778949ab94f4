package types

import (
	"math"
	"strconv"
	"strings"
)

// PostgreSQL's text form of an array: '{1,2,NULL}', elements separated
// by commas, an element double-quoted when it holds a comma, a brace, a
// quote, a backslash or white space, is empty, or is the word NULL;
// inside quotes (and outside) a backslash escapes the next character. A
// multidimensional array nests braces, '{{1,2},{3,4}}', every sub-array
// of one level as long as the others. An optional leading "[lo:hi]..."
// per dimension, then "=", gives the bounds ('[0:1]={7,8}'); without it
// every dimension starts at 1.

// ArrayText is an array's text form taken apart: the elements' texts in
// row-major order, Nulls[i] marking an unquoted NULL, and the shape.
type ArrayText struct {
	Elems []string
	Nulls []bool
	Shape ArrayShape
}

// ArrayTextError is why a text is not an array, in array_in's words:
// Code is the SQLSTATE; an empty Message means "malformed array literal"
// (22P02) with Detail saying why.
type ArrayTextError struct {
	Code, Message, Detail string
}

func (e *ArrayTextError) Error() string {
	if e.Message != "" {
		return e.Message
	}
	return "malformed array literal: " + e.Detail
}

func malformedArray(detail string) error {
	return &ArrayTextError{Code: "22P02", Detail: detail}
}

// ParseArrayText takes s, an array in PostgreSQL's text form, apart.
func ParseArrayText(s string) (ArrayText, error) {
	p := strings.TrimLeft(s, " \t\n\r\v\f")
	var given *ArrayShape
	if strings.HasPrefix(p, "[") {
		sh, rest, err := parseArrayBounds(p)
		if err != nil {
			return ArrayText{}, err
		}
		given, p = &sh, rest
	}
	if !strings.HasPrefix(p, "{") {
		return ArrayText{}, malformedArray(`Array value must start with "{" or dimension information.`)
	}
	r := arrayReader{p: p, leaf: -1}
	if err := r.level(0); err != nil {
		return ArrayText{}, err
	}
	r.skip()
	if r.i != len(p) {
		return ArrayText{}, malformedArray("Junk after closing right brace.")
	}
	out := ArrayText{Elems: r.elems, Nulls: r.nulls}
	if len(r.elems) > 0 {
		out.Shape = ArrayShape{Lens: append([]int(nil), r.lens[:r.leaf+1]...), Lower: make([]int, r.leaf+1)}
		for i := range out.Shape.Lower {
			out.Shape.Lower[i] = 1
		}
	}
	if given != nil {
		if !equalInts(given.Lens, out.Shape.Lens) {
			return ArrayText{}, malformedArray("Specified array dimensions do not match array contents.")
		}
		for i, lo := range given.Lower {
			if lo+given.Lens[i] > math.MaxInt32 { // the upper bound + 1 must fit an int4
				return ArrayText{}, &ArrayTextError{Code: "54000", Message: "array lower bound is too large: " + strconv.Itoa(lo)}
			}
		}
		out.Shape = *given
	}
	return out, nil
}

// parseArrayBounds reads "[lo:hi][hi]...=" from the start of p.
func parseArrayBounds(p string) (ArrayShape, string, error) {
	var sh ArrayShape
	for strings.HasPrefix(p, "[") {
		if len(sh.Lens) == MaxArrayDims {
			return sh, "", &ArrayTextError{Code: "54000", Message: "number of array dimensions (" + itoa(len(sh.Lens)+1) +
				") exceeds the maximum allowed (" + itoa(MaxArrayDims) + ")"}
		}
		p = strings.TrimLeft(p[1:], " \t\n\r\v\f")
		lo, rest, ok := leadingInt(p)
		if !ok {
			return sh, "", malformedArray(`"[" must introduce explicitly-specified array dimensions.`)
		}
		hi := lo
		lo, p = 1, strings.TrimLeft(rest, " \t\n\r\v\f")
		if strings.HasPrefix(p, ":") {
			lo = hi
			if hi, rest, ok = leadingInt(strings.TrimLeft(p[1:], " \t\n\r\v\f")); !ok {
				return sh, "", malformedArray("Missing array dimension value.")
			}
			p = strings.TrimLeft(rest, " \t\n\r\v\f")
		}
		if !strings.HasPrefix(p, "]") {
			return sh, "", malformedArray(`Missing "]" after array dimensions.`)
		}
		p = strings.TrimLeft(p[1:], " \t\n\r\v\f")
		if hi < lo {
			return sh, "", &ArrayTextError{Code: "2202E", Message: "upper bound cannot be less than lower bound"}
		}
		sh.Lens, sh.Lower = append(sh.Lens, hi-lo+1), append(sh.Lower, lo)
	}
	if !strings.HasPrefix(p, "=") {
		return sh, "", malformedArray(`Missing "=" after array dimensions.`)
	}
	return sh, strings.TrimLeft(p[1:], " \t\n\r\v\f"), nil
}

// leadingInt reads an optionally signed decimal int4 from the start of p.
func leadingInt(p string) (int, string, bool) {
	i := 0
	if i < len(p) && (p[i] == '-' || p[i] == '+') {
		i++
	}
	j := i
	for j < len(p) && p[j] >= '0' && p[j] <= '9' {
		j++
	}
	if j == i {
		return 0, p, false
	}
	n, err := strconv.ParseInt(p[:j], 10, 32)
	if err != nil {
		return 0, p, false
	}
	return int(n), p[j:], true
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// arrayReader reads the braces of an array's text form.
type arrayReader struct {
	p     string
	i     int
	elems []string
	nulls []bool
	lens  [MaxArrayDims]int // the length of each level, once its first group ends
	leaf  int               // the depth of the elements, once the first is read (-1 before)
}

func (r *arrayReader) skip() {
	for r.i < len(r.p) && isArraySpace(r.p[r.i]) {
		r.i++
	}
}

// level reads one brace group at depth d (r.p[r.i] is its "{") and
// checks its length against the other groups at that depth.
func (r *arrayReader) level(d int) error {
	if d == MaxArrayDims {
		n := d + 1
		for k := r.i + 1; k < len(r.p) && r.p[k] == '{'; k++ {
			n++
		}
		return &ArrayTextError{Code: "54000", Message: "number of array dimensions (" + itoa(n) +
			") exceeds the maximum allowed (" + itoa(MaxArrayDims) + ")"}
	}
	r.i++
	r.skip()
	n := 0
	if r.i < len(r.p) && r.p[r.i] == '}' {
		if d > 0 {
			return malformedArray(`Unexpected "}" character.`)
		}
		r.i++
		return nil // {}: the empty array
	}
	for {
		r.skip()
		if r.i >= len(r.p) {
			return malformedArray("Unexpected end of input.")
		}
		switch c := r.p[r.i]; {
		case c == '{':
			if r.leaf >= 0 && r.leaf <= d {
				return malformedArray(`Unexpected "{" character.`)
			}
			if err := r.level(d + 1); err != nil {
				return err
			}
		case c == '}' || c == ',':
			return malformedArray(`Unexpected "` + string(c) + `" character.`)
		default:
			if r.leaf >= 0 && r.leaf != d {
				return malformedArray("Unexpected array element.")
			}
			r.leaf = d
			if err := r.element(); err != nil {
				return err
			}
		}
		n++
		r.skip()
		if r.i >= len(r.p) {
			return malformedArray("Unexpected end of input.")
		}
		if r.p[r.i] == '}' {
			r.i++
			break
		}
		if r.p[r.i] != ',' {
			return malformedArray(`Unexpected "` + string(r.p[r.i]) + `" character.`)
		}
		r.i++
	}
	switch r.lens[d] {
	case 0:
		r.lens[d] = n
	case n:
	default:
		return malformedArray("Multidimensional arrays must have sub-arrays with matching dimensions.")
	}
	return nil
}

// element reads one element, quoted or not, up to the comma or brace
// after it.
func (r *arrayReader) element() error {
	p := r.p
	var b strings.Builder
	quoted := false
	end := 0 // length of b after the last non-space or escaped/quoted character
	for r.i < len(p) {
		c := p[r.i]
		switch {
		case c == '\\':
			if r.i+1 >= len(p) {
				return malformedArray("Unexpected end of input.")
			}
			b.WriteByte(p[r.i+1])
			r.i += 2
			end = b.Len()
		case c == '"':
			if b.Len() > 0 {
				return malformedArray("Unexpected array element.")
			}
			r.i++
			for {
				if r.i >= len(p) {
					return malformedArray("Unexpected end of input.")
				}
				if p[r.i] == '\\' && r.i+1 < len(p) {
					b.WriteByte(p[r.i+1])
					r.i += 2
					continue
				}
				if p[r.i] == '"' {
					r.i++
					break
				}
				b.WriteByte(p[r.i])
				r.i++
			}
			quoted, end = true, b.Len()
		case c == ',' || c == '}':
			v := b.String()[:end]
			r.elems = append(r.elems, v)
			r.nulls = append(r.nulls, !quoted && strings.EqualFold(v, "NULL"))
			return nil
		case c == '{':
			return malformedArray(`Unexpected "{" character.`)
		case isArraySpace(c):
			if b.Len() > 0 {
				b.WriteByte(c)
			}
			r.i++
		default:
			if quoted {
				return malformedArray("Unexpected array element.")
			}
			b.WriteByte(c)
			r.i++
			end = b.Len()
		}
	}
	return malformedArray("Unexpected end of input.")
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

// AppendArrayText appends the text form of an array of shape s whose
// elements elem appends (the i-th in row-major order): the bounds first
// when some dimension does not start at 1, then the nested braces.
func AppendArrayText(b []byte, s ArrayShape, elem func(b []byte, i int) []byte) []byte {
	if len(s.Lens) == 0 {
		return append(b, "{}"...)
	}
	for _, lb := range s.Lower {
		if lb != 1 {
			b = AppendArrayDims(b, s)
			b = append(b, '=')
			break
		}
	}
	i := 0
	var nest func(b []byte, d int) []byte
	nest = func(b []byte, d int) []byte {
		b = append(b, '{')
		for k := 0; k < s.Lens[d]; k++ {
			if k > 0 {
				b = append(b, ',')
			}
			if d+1 < len(s.Lens) {
				b = nest(b, d+1)
				continue
			}
			b = elem(b, i)
			i++
		}
		return append(b, '}')
	}
	return nest(b, 0)
}

// AppendArrayDims appends array_dims's text of shape s: "[1:2][0:3]".
func AppendArrayDims(b []byte, s ArrayShape) []byte {
	for i, l := range s.Lens {
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(s.Lower[i]), 10)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(s.Lower[i]+l-1), 10)
		b = append(b, ']')
	}
	return b
}
