package eval

import (
	"math"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
)

const codeInvalidParameterValue pgerror.Code = "22023"

// textFunc runs split_part, translate, chr, ascii, starts_with, the
// regexp_ functions and gcd/lcm on non-NULL arguments; ok is false for
// other names.
func textFunc(env *Env, e *planner.Func, args []types.Datum) (d types.Datum, ok bool, err error) {
	text := func(s string) (types.Datum, bool, error) { return types.NewText(s), true, nil }
	switch e.Name {
	case "split_part":
		n := args[2].I
		if n == 0 {
			return types.Null, true, pgerror.New(codeInvalidParameterValue, "field position must not be zero")
		}
		var parts []string
		if args[1].S == "" {
			parts = []string{args[0].S}
		} else {
			parts = strings.Split(args[0].S, args[1].S)
		}
		if args[0].S == "" {
			return text("")
		}
		if n < 0 {
			n += int64(len(parts)) + 1
		}
		if n < 1 || n > int64(len(parts)) {
			return text("")
		}
		return text(parts[n-1])
	case "translate":
		from, to := []rune(args[1].S), []rune(args[2].S)
		var b strings.Builder
		for _, r := range args[0].S {
			i := indexRune(from, r)
			switch {
			case i < 0:
				b.WriteRune(r)
			case i < len(to):
				b.WriteRune(to[i])
			}
		}
		return text(b.String())
	case "chr":
		c := args[0].I
		if c == 0 {
			return types.Null, true, pgerror.New(pgerror.ProgramLimitExceeded, "null character not permitted")
		}
		if c < 0 || c > utf8.MaxRune || (c >= 0xD800 && c <= 0xDFFF) {
			return types.Null, true, pgerror.New(pgerror.ProgramLimitExceeded, "requested character too large for encoding: "+itoa64(c))
		}
		return text(string(rune(c)))
	case "ascii":
		r, _ := utf8.DecodeRuneInString(args[0].S)
		if args[0].S == "" {
			r = 0
		}
		return types.NewInt(int64(r)), true, nil
	case "starts_with":
		return types.NewBool(strings.HasPrefix(args[0].S, args[1].S)), true, nil
	case "gcd", "lcm":
		if args[0].Kind == types.KindDecimal || args[1].Kind == types.KindDecimal {
			d, err := decimalGCDLCM(e.Name, args[0], args[1])
			return d, true, err
		}
		a, b := args[0].I, args[1].I
		g := gcd(a, b)
		if e.Name == "gcd" {
			if g < 0 { // gcd(minint, minint) or (minint, 0)
				return types.Null, true, intOutOfRange(e.T.Family)
			}
			d, err := checkIntRange(g, e.T.Family)
			return d, true, err
		}
		if a == 0 || b == 0 {
			return types.NewInt(0), true, nil
		}
		l := a / g * b
		if l/b != a/g || l == -l {
			return types.Null, true, intOutOfRange(e.T.Family)
		}
		if l < 0 {
			l = -l
		}
		d, err := checkIntRange(l, e.T.Family)
		return d, true, err
	case "regexp_replace", "regexp_like", "regexp_count", "regexp_substr", "regexp_match", "regexp_split_to_array":
		return regexpFunc(env, e, args)
	}
	return types.Null, false, nil
}

func indexRune(rs []rune, r rune) int {
	for i, x := range rs {
		if x == r {
			return i
		}
	}
	return -1
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	if a < 0 {
		a = -a
	}
	return a
}

func itoa64(v int64) string {
	return types.NewInt(v).String()
}

// regexpFunc runs regexp_replace(s, pattern, replacement [, flags]),
// regexp_like(s, pattern [, flags]), regexp_count(s, pattern [, start
// [, flags]]) and regexp_substr(s, pattern [, start [, n [, flags]]]) with
// Go's RE2, whose syntax agrees with PostgreSQL's for common patterns;
// flags g (all matches) and i (case-insensitive) are understood, the
// others are 0A000.
func regexpFunc(env *Env, e *planner.Func, args []types.Datum) (types.Datum, bool, error) {
	flags := ""
	switch {
	case e.Name == "regexp_replace" && len(args) == 4,
		e.Name == "regexp_like" && len(args) == 3,
		e.Name == "regexp_count" && len(args) == 4,
		e.Name == "regexp_substr" && len(args) == 5,
		e.Name == "regexp_match" && len(args) == 3,
		e.Name == "regexp_split_to_array" && len(args) == 3:
		flags = args[len(args)-1].S
	}
	global, fold := false, false
	for _, f := range flags {
		switch f {
		case 'g':
			global = true
		case 'i':
			fold = true
		case 'c':
			fold = false
		default:
			return types.Null, true, pgerror.Newf(pgerror.FeatureNotSupported, "regular expression flag %q is not supported", string(f))
		}
	}
	if global && e.Name != "regexp_replace" {
		err := pgerror.Newf(codeInvalidParameterValue, "%s() does not support the \"global\" option", e.Name)
		if e.Name == "regexp_match" {
			err.Hint = "Use the regexp_matches function instead."
		}
		return types.Null, true, err
	}
	re, err := env.regexp(args[1].S, fold)
	if err != nil {
		return types.Null, true, err
	}
	s := args[0].S
	start := int64(1)
	if (e.Name == "regexp_count" || e.Name == "regexp_substr") && len(args) > 2 {
		if start = args[2].I; start < 1 {
			return types.Null, true, pgerror.Newf(codeInvalidParameterValue, "invalid value for parameter \"start\": %d", start)
		}
	}
	from := byteOffset(s, start-1)
	switch e.Name {
	case "regexp_replace":
		repl := pgReplacement(args[2].S)
		if global {
			return types.NewText(re.ReplaceAllString(s, repl)), true, nil
		}
		loc := re.FindStringSubmatchIndex(s)
		if loc == nil {
			return types.NewText(s), true, nil
		}
		out := re.ExpandString(nil, repl, s, loc)
		return types.NewText(s[:loc[0]] + string(out) + s[loc[1]:]), true, nil
	case "regexp_like":
		return types.NewBool(re.MatchString(s)), true, nil
	case "regexp_count":
		return types.NewInt(int64(len(re.FindAllStringIndex(s[from:], -1)))), true, nil
	case "regexp_match":
		// The first match: its capture groups (a group that did not take
		// part is NULL), or the whole match when there are none.
		m := re.FindStringSubmatchIndex(s)
		if m == nil {
			return types.Null, true, nil
		}
		if len(m) == 2 {
			return types.NewArray([]types.Datum{types.NewText(s[m[0]:m[1]])}), true, nil
		}
		groups := make([]types.Datum, 0, len(m)/2-1)
		for g := 2; g < len(m); g += 2 {
			if m[g] < 0 {
				groups = append(groups, types.Null)
				continue
			}
			groups = append(groups, types.NewText(s[m[g]:m[g+1]]))
		}
		return types.NewArray(groups), true, nil
	case "regexp_split_to_array":
		return types.NewArray(regexpSplit(re, s)), true, nil
	}
	n := int64(1)
	if len(args) > 3 {
		if n = args[3].I; n < 1 {
			return types.Null, true, pgerror.Newf(codeInvalidParameterValue, "invalid value for parameter \"n\": %d", n)
		}
	}
	all := re.FindAllString(s[from:], int(min(n, 1<<20)))
	if int64(len(all)) < n {
		return types.Null, true, nil
	}
	return types.NewText(all[n-1]), true, nil
}

// pgReplacement turns PostgreSQL's replacement text (\1..\9 for groups,
// \& for the match, \\ for a backslash) into Go's template syntax.
func pgReplacement(r string) string {
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		c := r[i]
		switch {
		case c == '$':
			b.WriteString("$$")
		case c == '\\' && i+1 < len(r) && r[i+1] >= '1' && r[i+1] <= '9':
			b.WriteString("${" + string(r[i+1]) + "}")
			i++
		case c == '\\' && i+1 < len(r) && r[i+1] == '&':
			b.WriteString("${0}")
			i++
		case c == '\\' && i+1 < len(r) && r[i+1] == '\\':
			b.WriteByte('\\')
			i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// formatFunc is format(fmt, args...), as PostgreSQL's text_format reads
// fmt: %[position$][-][width | * | *position$] followed by s, I or L,
// the width counted in characters and padding on the left (on the right
// with - or a negative width argument). A VARIADIC array's elements are
// the arguments.
func formatFunc(e *planner.Func, args []types.Datum) (types.Datum, error) {
	if args[0].IsNull() {
		return types.Null, nil
	}
	vals, argTypes, _, err := variadicArgs(e, args)
	if err != nil {
		return types.Null, err
	}
	f := args[0].S
	var b strings.Builder
	next := 1 // the argument a specifier without a position takes
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			b.WriteByte(f[i])
			continue
		}
		if i++; i >= len(f) {
			return types.Null, errUnterminatedFormat()
		}
		if f[i] == '%' {
			b.WriteByte('%')
			continue
		}
		spec, err := parseFormatSpec(f, i)
		if err != nil {
			return types.Null, err
		}
		i = spec.end
		if c := f[i]; c != 's' && c != 'I' && c != 'L' {
			_, size := utf8.DecodeRuneInString(f[i:])
			e := pgerror.Newf(codeInvalidParameterValue, "unrecognized format() type specifier \"%s\"", f[i:i+size])
			e.Hint = `For a single "%" use "%%".`
			return types.Null, e
		}
		width, left := spec.width, spec.left
		if spec.widthArg >= 0 {
			if spec.widthArg > 0 {
				next = spec.widthArg
			}
			if next >= len(vals) {
				return types.Null, pgerror.New(codeInvalidParameterValue, "too few arguments for format()")
			}
			w, err := formatWidth(vals[next], argTypes[next])
			if err != nil {
				return types.Null, err
			}
			next++
			if w < 0 {
				if w == math.MinInt32 {
					return types.Null, pgerror.New(pgerror.NumericValueOutOfRange, "number is out of range")
				}
				w, left = -w, true
			}
			width = int(w)
		}
		if spec.arg > 0 {
			next = spec.arg
		}
		if next >= len(vals) {
			return types.Null, pgerror.New(codeInvalidParameterValue, "too few arguments for format()")
		}
		d, t := vals[next], argTypes[next]
		next++
		var s string
		if !d.IsNull() {
			s = textOut(d, t)
		}
		switch f[i] {
		case 'I':
			if d.IsNull() {
				return types.Null, pgerror.New(pgerror.NullValueNotAllowed, "null values cannot be formatted as an SQL identifier")
			}
			s = quoteIdent(s)
		case 'L':
			if d.IsNull() {
				s = "NULL"
			} else {
				s = quoteLiteral(s)
			}
		}
		pad := strings.Repeat(" ", max(width-utf8.RuneCountInString(s), 0))
		if left {
			b.WriteString(s + pad)
		} else {
			b.WriteString(pad + s)
		}
	}
	return types.NewText(b.String()), nil
}

// variadicArgs returns a call's arguments with their types: a VARIADIC
// array (the last argument) stands for its elements, and null reports
// that it is NULL (then standing for none).
func variadicArgs(e *planner.Func, args []types.Datum) (vals []types.Datum, ts []types.T, null bool, err error) {
	ts = make([]types.T, len(args))
	for i, a := range e.Args {
		ts[i] = a.Type()
	}
	last := len(e.Args) - 1
	if last < 0 {
		return args, ts, false, nil
	}
	if v, ok := e.Args[last].(*planner.Func); !ok || v.Name != parse.MarkerVariadic {
		return args, ts, false, nil
	}
	if !ts[last].IsArray() {
		return nil, nil, false, pgerror.New(pgerror.DatatypeMismatch, "VARIADIC argument must be an array")
	}
	vals, elemTypes := append([]types.Datum{}, args[:last]...), ts[:last:last]
	if args[last].IsNull() {
		return vals, elemTypes, true, nil
	}
	elems, err := types.ArrayElems(nil, args[last])
	if err != nil {
		return nil, nil, false, err
	}
	for _, el := range elems {
		vals, elemTypes = append(vals, el), append(elemTypes, ts[last].ElemType())
	}
	return vals, elemTypes, false, nil
}

// textOut is d's text output, as PostgreSQL's %s and concat write it
// (a boolean as t or f).
func textOut(d types.Datum, t types.T) string {
	if d.Kind == types.KindBool {
		return "ft"[d.I&1 : d.I&1+1]
	}
	return FormatText(d, t)
}

// formatSpec is what a format() specifier says before its conversion
// character, which is at end: the argument (0: the next one), the
// width's argument (-1: none; 0: the next one), the width, and whether
// the value is padded on the right.
type formatSpec struct {
	arg, widthArg, width int
	left                 bool
	end                  int
}

// parseFormatSpec reads the specifier starting at f[i], after its %, as
// PostgreSQL's text_format_parse_format does.
func parseFormatSpec(f string, i int) (formatSpec, error) {
	spec := formatSpec{widthArg: -1}
	n, found, i, err := formatDigits(f, i)
	if err != nil {
		return spec, err
	}
	if found {
		if f[i] != '$' {
			spec.width, spec.end = n, i // a width and the conversion
			return spec, nil
		}
		if n == 0 {
			return spec, errFormatArgZero()
		}
		spec.arg = n
		if i++; i >= len(f) {
			return spec, errUnterminatedFormat()
		}
	}
	for f[i] == '-' {
		spec.left = true
		if i++; i >= len(f) {
			return spec, errUnterminatedFormat()
		}
	}
	if f[i] == '*' {
		if i++; i >= len(f) {
			return spec, errUnterminatedFormat()
		}
		spec.widthArg = 0
		if n, found, i, err = formatDigits(f, i); err != nil {
			return spec, err
		}
		if found {
			if f[i] != '$' {
				return spec, pgerror.New(codeInvalidParameterValue, `width argument position must be ended by "$"`)
			}
			if n == 0 {
				return spec, errFormatArgZero()
			}
			spec.widthArg = n
			if i++; i >= len(f) {
				return spec, errUnterminatedFormat()
			}
		}
	} else if n, found, i, err = formatDigits(f, i); err != nil {
		return spec, err
	} else if found {
		spec.width = n
	}
	spec.end = i
	return spec, nil
}

// formatDigits reads the digits at f[i], if any; the text must go on
// after them.
func formatDigits(f string, i int) (n int, found bool, next int, err error) {
	for i < len(f) && f[i] >= '0' && f[i] <= '9' {
		n = n*10 + int(f[i]-'0')
		if n > math.MaxInt32 {
			return 0, false, i, pgerror.New(pgerror.NumericValueOutOfRange, "number is out of range")
		}
		found = true
		if i++; i >= len(f) {
			return 0, false, i, errUnterminatedFormat()
		}
	}
	return n, found, i, nil
}

// formatWidth is a width argument's value (NULL is no width).
func formatWidth(d types.Datum, t types.T) (int64, error) {
	if d.IsNull() {
		return 0, nil
	}
	w, err := Cast(types.NewText(textOut(d, t)), types.T{Family: types.Int4})
	if err != nil {
		return 0, err
	}
	return w.I, nil
}

func errUnterminatedFormat() error {
	e := pgerror.New(codeInvalidParameterValue, "unterminated format() type specifier")
	e.Hint = `For a single "%" use "%%".`
	return e
}

func errFormatArgZero() error {
	return pgerror.New(codeInvalidParameterValue, "format specifies argument 0, but arguments are numbered from 1")
}

// quoteIdent quotes s as PostgreSQL's quote_ident does: only when needed.
func quoteIdent(s string) string {
	plain := s != ""
	for i, c := range s {
		if !(c >= 'a' && c <= 'z' || c == '_' || i > 0 && (c >= '0' && c <= '9' || c == '$')) {
			plain = false
		}
	}
	if plain {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// regexpSplit is regexp_split_to_array's splitting: the text between
// matches, where a zero-length match at the start or end of s or right
// after the previous match is ignored (PostgreSQL's ignore_degenerate).
func regexpSplit(re *regexp.Regexp, s string) []types.Datum {
	var out []types.Datum
	prevEnd, search := 0, 0
	for search <= len(s) {
		loc := re.FindStringIndex(s[search:])
		if loc == nil {
			break
		}
		a, b := search+loc[0], search+loc[1]
		if a == b && (a == 0 || a == len(s) || a == prevEnd) {
			if a >= len(s) {
				break
			}
			_, w := utf8.DecodeRuneInString(s[a:])
			search = a + w
			continue
		}
		out = append(out, types.NewText(s[prevEnd:a]))
		prevEnd = b
		if b > a {
			search = b
		} else {
			_, w := utf8.DecodeRuneInString(s[a:])
			search = a + w
		}
	}
	return append(out, types.NewText(s[prevEnd:]))
}
