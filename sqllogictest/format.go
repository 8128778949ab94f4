package sqllogictest

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/types"
)

// FormatValue renders one result value the way SQLite's reference runner
// prints it for a column of type typ ('I', 'R' or 'T'; anything else is
// treated as 'T').
//
// v is one of the values a Conn returns: nil, bool, int64, float64,
// string, []byte or time.Time (other Go integer and float kinds are
// accepted too). The rules:
//   - nil prints NULL in every column type.
//   - I prints a decimal integer. A float is truncated toward zero and
//     clamped to the int64 range, as sqlite3_column_int64 does; text is
//     read like SQLite reads it (its numeric prefix, 0 if none); a bool
//     prints 1 or 0.
//   - R prints the value with three decimals ("%.3f"); negative zero
//     prints 0.000 as SQLite's printf does; text is read by its numeric
//     prefix; a bool prints 1.000 or 0.000.
//   - T prints text with each byte below 0x20 or above 0x7e replaced by
//     '@', and the empty string as (empty). Numbers print as PostgreSQL
//     prints them (shortest round-trip form for floats), bools as
//     true/false.
func FormatValue(v any, typ byte) string {
	v = normalize(v)
	if v == nil {
		return "NULL"
	}
	switch typ {
	case 'I':
		return strconv.FormatInt(toInt(v), 10)
	case 'R':
		f := toFloat(v)
		if f == 0 {
			f = 0 // drops the sign of negative zero
		}
		return strconv.FormatFloat(f, 'f', 3, 64)
	}
	return printable(toText(v))
}

// normalize folds the Go numeric kinds a driver may return into int64 and
// float64.
func normalize(v any) any {
	switch x := v.(type) {
	case int:
		return int64(x)
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case uint8:
		return int64(x)
	case uint16:
		return int64(x)
	case uint32:
		return int64(x)
	case uint:
		if x > math.MaxInt64 {
			return float64(x)
		}
		return int64(x)
	case uint64:
		if x > math.MaxInt64 {
			return float64(x)
		}
		return int64(x)
	case float32:
		return float64(x)
	}
	return v
}

// floatToInt converts like SQLite: truncation toward zero, saturating at
// the int64 bounds, NaN as 0.
func floatToInt(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

func toInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case float64:
		return floatToInt(x)
	case bool:
		if x {
			return 1
		}
		return 0
	case string:
		return textToInt(x)
	case []byte:
		return textToInt(string(x))
	}
	return textToInt(toText(v))
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	case bool:
		if x {
			return 1
		}
		return 0
	case string:
		return textToFloat(x)
	case []byte:
		return textToFloat(string(x))
	}
	return textToFloat(toText(v))
}

// numericPrefix returns the longest prefix of s (after leading white
// space) that reads as a decimal number: sign, digits, fraction, exponent.
func numericPrefix(s string) string {
	s = strings.TrimLeft(s, " \t\n\r\f\v")
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	n := digits()
	if i < len(s) && s[i] == '.' {
		i++
		n += digits()
	}
	if n == 0 {
		return ""
	}
	end := i
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() > 0 {
			end = i
		}
	}
	return s[:end]
}

func textToInt(s string) int64 {
	p := numericPrefix(s)
	if p == "" {
		return 0
	}
	if n, err := strconv.ParseInt(p, 10, 64); err == nil {
		return n
	}
	f, _ := strconv.ParseFloat(p, 64) // out of range gives ±Inf, which clamps
	return floatToInt(f)
}

func textToFloat(s string) float64 {
	f, _ := strconv.ParseFloat(numericPrefix(s), 64)
	return f
}

// toText renders a value as PostgreSQL's text output would.
func toText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		switch {
		case math.IsInf(x, 1):
			return "Infinity"
		case math.IsInf(x, -1):
			return "-Infinity"
		case math.IsNaN(x):
			return "NaN"
		}
		// As PostgreSQL's float8out: exponent form only below 1e-4 or
		// from 1e15 on.
		return eval.FormatText(types.NewFloat(x), types.T{Family: types.Float8})
	case bool:
		if x {
			return "true"
		}
		return "false"
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			return x.Format("2006-01-02")
		}
		return x.Format("2006-01-02 15:04:05.999999")
	}
	return fmt.Sprint(v)
}

// printable applies the reference runner's text rules: (empty) for the
// empty string, '@' for every byte outside 0x20..0x7e.
func printable(s string) string {
	if s == "" {
		return "(empty)"
	}
	clean := true
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			b[i] = '@'
		}
	}
	return string(b)
}
