package eval

import (
	"crypto/md5"
	"encoding/hex"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// maxStringBytes bounds the strings repeat, lpad and rpad build, as
// PostgreSQL bounds a value to 1 GB; Env.MaxValueSize (checkBuildSize)
// is usually the tighter bound.
const maxStringBytes = 1 << 30

// tooLarge is PostgreSQL's error for a value past the size limit (54000).
func tooLarge() error {
	return pgerror.New(pgerror.ProgramLimitExceeded, "requested length too large")
}

// checkBuildSize refuses, before it is built, a value that repeat, lpad or
// rpad would make larger than the session's value cap. Other functions'
// results are checked once built (Eval): they can outgrow their inputs by
// a bounded factor only.
func checkBuildSize(env *Env, name string, args []types.Datum) error {
	switch name {
	case "repeat":
		if len(args) == 2 && len(args[0].S) > 0 && args[1].I > env.maxValueSize()/int64(len(args[0].S)) {
			return tooLarge()
		}
	case "lpad", "rpad":
		// n counts characters of at least one byte each.
		if len(args) >= 2 && args[1].I > env.maxValueSize() {
			return tooLarge()
		}
	}
	return nil
}

// stringFunc runs the string functions on non-NULL arguments. Lengths and
// positions count characters (UTF-8 runes), except octet_length and the
// length of bytea. ok is false when name is not one of them.
func stringFunc(e *planner.Func, args []types.Datum) (d types.Datum, ok bool, err error) {
	text := func(s string) (types.Datum, bool, error) { return types.NewText(s), true, nil }
	integer := func(n int) (types.Datum, bool, error) { return types.NewInt(int64(n)), true, nil }
	s := args[0].S
	if args[0].Kind != types.KindText && args[0].Kind != types.KindBytes {
		s = FormatText(args[0], e.Args[0].Type())
	}
	switch e.Name {
	case "length", "char_length", "character_length":
		if args[0].Kind == types.KindBytes {
			return integer(len(s))
		}
		if e.Args[0].Type().Family == types.Char {
			s = strings.TrimRight(s, " ")
		}
		return integer(charLen(s))
	case "octet_length":
		return integer(len(s))
	case "lower":
		return text(strings.ToLower(s))
	case "upper":
		return text(strings.ToUpper(s))
	case "initcap":
		return text(initcap(s))
	case "reverse":
		r := []rune(s)
		for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
			r[i], r[j] = r[j], r[i]
		}
		return text(string(r))
	case "md5":
		sum := md5.Sum([]byte(s))
		return text(hex.EncodeToString(sum[:]))
	case "substr", "substring":
		count := int64(math.MaxInt64)
		if len(args) == 3 {
			if count = args[2].I; count < 0 {
				return types.Null, true, pgerror.New(codeSubstringError, "negative substring length not allowed")
			}
		}
		if args[0].Kind == types.KindBytes {
			// bytea: positions count bytes.
			return types.NewBytes([]byte(substrBytes(s, args[1].I, count))), true, nil
		}
		return text(substr(s, args[1].I, count))
	case "trim", "btrim", "ltrim", "rtrim":
		cut := " "
		if len(args) == 2 {
			cut = args[1].S
		}
		switch e.Name {
		case "ltrim":
			return text(strings.TrimLeft(s, cut))
		case "rtrim":
			return text(strings.TrimRight(s, cut))
		}
		return text(strings.Trim(s, cut))
	case "replace":
		if args[1].S == "" {
			return text(s)
		}
		return text(strings.ReplaceAll(s, args[1].S, args[2].S))
	case "left", "right":
		return text(leftRight(s, args[1].I, e.Name == "left"))
	case "position", "strpos":
		i := strings.Index(s, args[1].S)
		if i < 0 {
			return integer(0)
		}
		return integer(charLen(s[:i]) + 1)
	case "repeat":
		n := args[1].I
		if n <= 0 || s == "" {
			return text("")
		}
		if n > maxStringBytes/int64(len(s)) {
			return types.Null, true, tooLarge()
		}
		return text(strings.Repeat(s, int(n)))
	case "lpad", "rpad":
		fill := " "
		if len(args) == 3 {
			fill = args[2].S
		}
		r, err := pad(s, args[1].I, fill, e.Name == "lpad")
		return types.NewText(r), true, err
	}
	return types.Null, false, nil
}

// substr is PostgreSQL's substring(s from start for count) on characters:
// positions before 1 still use up count.
func substr(s string, start, count int64) string {
	end := int64(math.MaxInt64)
	if start <= 0 || count <= math.MaxInt64-start {
		end = start + count
	}
	if start < 1 {
		start = 1
	}
	if end <= start {
		return ""
	}
	from, to := -1, len(s)
	pos := int64(1)
	for i := range s {
		if pos == start {
			from = i
		}
		if pos == end {
			to = i
			break
		}
		pos++
	}
	if from < 0 {
		return ""
	}
	return s[from:to]
}

// leftRight is left(s, n) / right(s, n): the first or last n characters;
// a negative n means all but the last or first |n|.
func leftRight(s string, n int64, left bool) string {
	total := int64(charLen(s))
	keep := n
	if n < 0 {
		keep = total + n
	}
	if keep <= 0 {
		return ""
	}
	if keep >= total {
		return s
	}
	if left {
		return s[:byteOffset(s, keep)]
	}
	return s[byteOffset(s, total-keep):]
}

// byteOffset is the byte index of character n (0-based) of s.
func byteOffset(s string, n int64) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// pad is lpad/rpad: fill s to n characters with repetitions of fill, or
// truncate it to n characters.
func pad(s string, n int64, fill string, left bool) (string, error) {
	if n <= 0 {
		return "", nil
	}
	if n > maxStringBytes/utf8.UTFMax {
		return "", tooLarge()
	}
	have := int64(charLen(s))
	if have >= n {
		return s[:byteOffset(s, n)], nil
	}
	if fill == "" {
		return s, nil
	}
	var b strings.Builder
	need := n - have
	if !left {
		b.WriteString(s)
	}
	for need > 0 {
		for _, r := range fill {
			if need == 0 {
				break
			}
			b.WriteRune(r)
			need--
		}
	}
	if left {
		b.WriteString(s)
	}
	return b.String(), nil
}

// initcap upper-cases the first letter of each word and lower-cases the
// rest; words are runs of letters and digits.
func initcap(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	inWord := false
	for _, r := range s {
		if inWord {
			b.WriteRune(unicode.ToLower(r))
		} else {
			b.WriteRune(unicode.ToUpper(r))
		}
		inWord = unicode.IsLetter(r) || unicode.IsDigit(r)
	}
	return b.String()
}

// substrBytes is substr over bytes (bytea): from 1-based position start,
// count bytes, clamped as PostgreSQL's bytea_substr does.
func substrBytes(s string, start, count int64) string {
	end := int64(math.MaxInt64)
	if count < math.MaxInt64-start {
		end = start + count
	}
	start = max(start, 1)
	if end <= start || start > int64(len(s)) {
		return ""
	}
	return s[start-1 : min(end-1, int64(len(s)))]
}
