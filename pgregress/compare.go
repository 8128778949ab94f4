package pgregress

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Compare applies the agreement rules to one query string's outcomes on
// the reference (PostgreSQL) and the subject. It returns "" when they
// agree, else the reason class of the difference, named from the
// subject's side: its SQLSTATE and message for an error, or what in its
// results differs.
//
//   - An error agrees when the SQLSTATE is the same.
//   - Results agree when there are as many, each with the same column
//     names, the same command tag and the same rows as text (NULL is not
//     ”): in order when the statement orders them at top level or is
//     EXPLAIN; by count only when it has LIMIT/OFFSET/FETCH at top level
//     but no ORDER BY; otherwise as multisets.
func Compare(ref, sub *Outcome, sql string) string {
	switch {
	case sub.Timeout && ref.Timeout, sub.Lost && ref.Lost:
		return ""
	case sub.Timeout:
		return "timeout (cancelled after the statement limit)"
	case sub.Lost:
		return "crash (connection lost)"
	case ref.Timeout:
		return "PostgreSQL timed out"
	case ref.Lost:
		return "PostgreSQL lost the connection"
	}
	parts := SplitStatements(sql)
	n := min(len(ref.Results), len(sub.Results))
	for i := 0; i < n; i++ {
		part := sql
		if len(parts) == len(ref.Results) || len(parts) == len(ref.Results)+boolInt(ref.Err != nil) {
			part = parts[i]
		}
		if c := compareResult(&ref.Results[i], &sub.Results[i], orderOf(part)); c != "" {
			if isExplain(part) && ref.Results[i].Columns != nil && sub.Results[i].Columns != nil {
				// Plans are kvsql's own; a row-by-row reason says nothing.
				return "EXPLAIN shows a different plan"
			}
			return c
		}
	}
	switch {
	case ref.Err != nil && sub.Err != nil:
		if ref.Err.Code == sub.Err.Code && len(ref.Results) == len(sub.Results) {
			return ""
		}
		if ref.Err.Code == sub.Err.Code {
			return "wrong number of results"
		}
		return ErrorClass(sub.Err)
	case sub.Err != nil:
		return ErrorClass(sub.Err)
	case ref.Err != nil:
		return "no error where PostgreSQL raises " + ErrorClass(ref.Err)
	case len(ref.Results) != len(sub.Results):
		return "wrong number of results"
	}
	return ""
}

func isExplain(sql string) bool {
	t := tokenize(sql)
	return first(t, "explain")
}

// FirstDifference describes the first row that differs between two
// outcomes' results (after sorting when the statement does not order
// them), for the report's examples.
func FirstDifference(ref, sub *Outcome, sql string) string {
	parts := SplitStatements(sql)
	for i := 0; i < min(len(ref.Results), len(sub.Results)); i++ {
		part := sql
		if len(parts) == len(ref.Results) {
			part = parts[i]
		}
		a, b := ref.Results[i].Rows, sub.Results[i].Rows
		ea, eb := encodeRows(a), encodeRows(b)
		ia, ib := make([]int, len(a)), make([]int, len(b))
		for j := range ia {
			ia[j] = j
		}
		for j := range ib {
			ib[j] = j
		}
		if orderOf(part) == multiset {
			slices.SortFunc(ia, func(x, y int) int { return strings.Compare(ea[x], ea[y]) })
			slices.SortFunc(ib, func(x, y int) int { return strings.Compare(eb[x], eb[y]) })
		}
		for j := 0; j < max(len(a), len(b)); j++ {
			var ra, rb string
			if j < len(a) {
				ra = showRow(a[ia[j]])
			}
			if j < len(b) {
				rb = showRow(b[ib[j]])
			}
			if ra != rb {
				return fmt.Sprintf("result %d, row %d: PostgreSQL %s, subject %s", i+1, j+1, clip(ra, 120), clip(rb, 120))
			}
		}
	}
	return ""
}

func showRow(r []*string) string {
	parts := make([]string, len(r))
	for i, v := range r {
		if v == nil {
			parts[i] = "NULL"
		} else {
			parts[i] = fmt.Sprintf("%q", *v)
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func compareResult(ref, sub *Result, order rowOrder) string {
	if len(ref.Columns) != len(sub.Columns) || (ref.Columns == nil) != (sub.Columns == nil) {
		if ref.Columns == nil || sub.Columns == nil {
			return "rows where a command was expected, or none where rows were"
		}
		return "wrong number of columns"
	}
	if !slices.Equal(ref.Columns, sub.Columns) {
		return "wrong column names"
	}
	if len(ref.Rows) != len(sub.Rows) {
		return "wrong row count"
	}
	if order != countOnly {
		a, b := encodeRows(ref.Rows), encodeRows(sub.Rows)
		if order == multiset {
			slices.Sort(a)
			slices.Sort(b)
		}
		if !slices.Equal(a, b) {
			if order == ordered {
				slices.Sort(a)
				slices.Sort(b)
				if slices.Equal(a, b) {
					return "wrong row order"
				}
			}
			return "wrong values"
		}
	}
	if ref.Tag != sub.Tag {
		return "wrong command tag"
	}
	return ""
}

// encodeRows gives each row one string that compares equal exactly when
// the rows are equal, NULL apart from ”.
func encodeRows(rows [][]*string) []string {
	out := make([]string, len(rows))
	var b strings.Builder
	for i, r := range rows {
		b.Reset()
		for _, v := range r {
			if v == nil {
				b.WriteString("N|")
				continue
			}
			fmt.Fprintf(&b, "V%d:%s|", len(*v), *v)
		}
		out[i] = b.String()
	}
	return out
}

var (
	reDoubleQuoted = regexp.MustCompile(`"[^"]*"`)
	reSingleQuoted = regexp.MustCompile(`'[^']*'`)
	reNumber       = regexp.MustCompile(`\b\d+(\.\d+)?\b`)
	reSpaces       = regexp.MustCompile(`\s+`)
)

// ErrorClass names an error by its SQLSTATE and its message with the
// names, literals and numbers in it blanked, so that one missing feature
// or one kind of mistake is one class.
func ErrorClass(e *Error) string {
	msg := NormalizeMessage(e.Message)
	return e.Code + " " + msg
}

// NormalizeMessage blanks quoted names, literals and numbers in an error
// message and cuts it to 80 characters. A syntax error keeps the word it
// stopped at, lower-cased: which words kvsql's grammar lacks is the
// point of that class.
func NormalizeMessage(msg string) string {
	const near = `syntax error at or near "`
	if strings.HasPrefix(msg, near) && strings.HasSuffix(msg, `"`) {
		word := strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(msg, near), `"`))
		return clip(near+word, 80) + `"`
	}
	msg = reDoubleQuoted.ReplaceAllString(msg, `"…"`)
	msg = reSingleQuoted.ReplaceAllString(msg, `'…'`)
	msg = reNumber.ReplaceAllString(msg, "N")
	msg = reSpaces.ReplaceAllString(strings.TrimSpace(msg), " ")
	if r := []rune(msg); len(r) > 80 {
		msg = string(r[:80]) + "…"
	}
	return msg
}

// missingRelation returns the relation named by a 42P01 error, or "".
func missingRelation(e *Error) string {
	if e == nil || e.Code != "42P01" {
		return ""
	}
	m := reDoubleQuoted.FindString(e.Message)
	if m == "" {
		return ""
	}
	name := strings.Trim(m, `"`)
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	return strings.ToLower(name)
}
