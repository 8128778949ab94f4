package fuzz

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// PostgreSQL type OIDs whose text is a number compared with a tolerance:
// float4, float8 and numeric (sum of BIGINT, avg).
const (
	oidFloat4  = 700
	oidFloat8  = 701
	oidNumeric = 1700
)

func inexact(oid uint32) bool { return oid == oidFloat4 || oid == oidFloat8 || oid == oidNumeric }

// value is one cell made comparable: text, or a float for inexact columns.
type value struct {
	null  bool
	s     string
	f     float64
	isNum bool
}

func cell(v *string, inexactCol bool) value {
	if v == nil {
		return value{null: true}
	}
	if inexactCol {
		if f, err := strconv.ParseFloat(*v, 64); err == nil {
			return value{f: f, isNum: true, s: *v}
		}
	}
	return value{s: *v}
}

// sortKey orders rows for the multiset comparison; floats are rounded so
// that values equal within the tolerance sort alike.
func (v value) sortKey() string {
	switch {
	case v.null:
		return "\xff"
	case v.isNum && v.f == 0:
		return "0" // -0 equals 0; which one a set operation keeps is arbitrary
	case v.isNum:
		return strconv.FormatFloat(v.f, 'g', 12, 64)
	}
	return v.s
}

// equal compares two cells; floats with a relative tolerance of 1e-9 (the
// last digits of a float sum depend on the order of addition).
func (v value) equal(w value) bool {
	if v.null || w.null {
		return v.null == w.null
	}
	if v.isNum && w.isNum {
		a, b := v.f, w.f
		if a == b || math.IsNaN(a) && math.IsNaN(b) {
			return true
		}
		return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))+1e-12
	}
	return v.s == w.s
}

func (v value) String() string {
	if v.null {
		return "NULL"
	}
	return v.s
}

// rowsOf turns a result's rows into comparable cells; a column is inexact
// when either database gave it an inexact type.
func rowsOf(r result, other result) [][]value {
	out := make([][]value, len(r.rows))
	for i, row := range r.rows {
		out[i] = make([]value, len(row))
		for j, v := range row {
			in := j < len(r.oids) && inexact(r.oids[j]) || j < len(other.oids) && inexact(other.oids[j])
			out[i][j] = cell(v, in)
		}
	}
	return out
}

func sortRows(rows [][]value) {
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		for k := range a {
			if ka, kb := a[k].sortKey(), b[k].sortKey(); ka != kb {
				return ka < kb
			}
		}
		return false
	})
}

// sameRows compares two answers' rows, as sequences when ordered, else
// as multisets; it returns "" or what differs.
func sameRows(a, b result, ordered bool) string {
	if len(a.cols) != len(b.cols) {
		return fmt.Sprintf("%d columns vs %d", len(a.cols), len(b.cols))
	}
	ra, rb := rowsOf(a, b), rowsOf(b, a)
	if len(ra) != len(rb) {
		return fmt.Sprintf("%d rows vs %d", len(ra), len(rb))
	}
	if !ordered {
		sortRows(ra)
		sortRows(rb)
	}
	for i := range ra {
		for j := range ra[i] {
			if !ra[i][j].equal(rb[i][j]) {
				return fmt.Sprintf("row %d column %d: %s vs %s", i+1, j+1, ra[i][j], rb[i][j])
			}
		}
	}
	return ""
}

// formatResult renders an answer for a finding's report.
func formatResult(r result) string {
	if r.failed() {
		return fmt.Sprintf("ERROR %s: %s", r.code, r.msg)
	}
	if len(r.cols) == 0 {
		return r.tag
	}
	var b strings.Builder
	b.WriteString(strings.Join(r.cols, " | "))
	b.WriteString("\n")
	rows := rowsOf(r, r)
	for i, row := range rows {
		if i == 50 {
			fmt.Fprintf(&b, "... %d rows in all\n", len(rows))
			break
		}
		for j, v := range row {
			if j > 0 {
				b.WriteString(" | ")
			}
			b.WriteString(v.String())
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "(%s)", r.tag)
	return b.String()
}

// class is a SQLSTATE's class, its first two characters; data
// exceptions (22) and integrity violations (23) are one class here: which
// of them a statement meets first depends on the order it visits rows
// in, which SQL leaves open (PostgreSQL's is its heap's, kvsql's its
// keys': UPDATE t SET c = c + d fails on one row's overflow or another's
// NULL).
func class(code string) string {
	if len(code) < 2 {
		return code
	}
	if code[:2] == "23" {
		return "22"
	}
	return code[:2]
}

// diff compares kvsql's answer k with PostgreSQL's p to one statement. It
// returns the kind of mismatch ("" when none) and a description.
func diff(k, p result, ordered bool) (kind, detail string) {
	switch {
	case k.failed() && p.failed():
		if class(k.code) != class(p.code) {
			return "error class", fmt.Sprintf("kvsql %s, PostgreSQL %s", k.code, p.code)
		}
		return "", ""
	case k.failed():
		return "kvsql error", fmt.Sprintf("kvsql %s %s; PostgreSQL succeeded", k.code, k.msg)
	case p.failed():
		return "PostgreSQL error", fmt.Sprintf("PostgreSQL %s %s; kvsql succeeded", p.code, p.msg)
	}
	if len(k.cols) == 0 && len(p.cols) == 0 {
		if k.tag != p.tag {
			return "command tag", fmt.Sprintf("%q vs %q", k.tag, p.tag)
		}
		return "", ""
	}
	if d := sameRows(k, p, ordered); d != "" {
		return "rows", d
	}
	return "", ""
}
