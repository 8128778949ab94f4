package sqllogictest

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// Render turns rows into the flat list of printed values the reference
// runner compares, row by row and column by column, formatting column i
// with types[i]. Every row must have len(types) values.
func Render(rows [][]any, types string) ([]string, error) {
	vals := make([]string, 0, len(rows)*len(types))
	for i, row := range rows {
		if len(row) != len(types) {
			return nil, fmt.Errorf("row %d has %d columns, the query record declares %d (%q)",
				i+1, len(row), len(types), types)
		}
		for j, v := range row {
			vals = append(vals, FormatValue(v, types[j]))
		}
	}
	return vals, nil
}

// SortValues orders rendered values in place as mode asks. ncol is the
// number of columns per row (used by RowSort). Comparison is byte-wise on
// the rendered text, as the reference runner's strcmp, so "10" sorts
// before "9".
func SortValues(vals []string, ncol int, mode SortMode) {
	switch mode {
	case ValueSort:
		slices.Sort(vals)
	case RowSort:
		if ncol <= 0 || len(vals)%ncol != 0 {
			return
		}
		rows := make([][]string, 0, len(vals)/ncol)
		for i := 0; i < len(vals); i += ncol {
			rows = append(rows, slices.Clone(vals[i:i+ncol]))
		}
		slices.SortStableFunc(rows, slices.Compare[[]string])
		vals = vals[:0]
		for _, r := range rows {
			vals = append(vals, r...)
		}
	}
}

// HashValues returns the md5 (lower-case hex) of every value followed by a
// newline, the digest that "N values hashing to H" lines carry.
func HashValues(vals []string) string {
	h := md5.New()
	for _, v := range vals {
		h.Write([]byte(v))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// HashLine formats the reference runner's hash line for vals.
func HashLine(vals []string) string {
	return fmt.Sprintf("%d values hashing to %s", len(vals), HashValues(vals))
}

// Matches reports whether sorted, rendered values satisfy the expected
// result of query record rec.
//
// A hash record matches when the value count and the md5 agree. A record
// that lists values matches when it lists them one per line (the corpus's
// form) or, for several columns, one row per line with the values
// separated by white space (the form other runners write).
//
// The reference runner decides between values and hash with the file's
// hash-threshold; the expected text was written by that rule, so reading
// the form from the text gives the same verdicts.
func Matches(rec *Record, vals []string) bool {
	if rec.IsHash {
		return len(vals) == rec.HashCount && HashValues(vals) == rec.ExpectedHash
	}
	if len(rec.Expected) == len(vals) {
		return slices.Equal(rec.Expected, vals)
	}
	ncol := len(rec.Types)
	if ncol < 2 || len(vals) != len(rec.Expected)*ncol {
		return false
	}
	for i, line := range rec.Expected {
		got := strings.Join(vals[i*ncol:(i+1)*ncol], " ")
		if strings.Join(strings.Fields(line), " ") != strings.Join(strings.Fields(got), " ") {
			return false
		}
	}
	return true
}
