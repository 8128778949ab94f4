package sqllogictest

import "strings"

import "fmt"

// Kind says what a Record does.
type Kind int

const (
	// KindStatement runs SQL and checks only whether it succeeded.
	KindStatement Kind = iota + 1
	// KindQuery runs SQL and compares the rows it returned.
	KindQuery
	// KindHashThreshold changes the file's hash threshold (Record.Threshold).
	KindHashThreshold
	// KindHalt stops the file: no later record runs.
	KindHalt
)

// String returns the keyword that introduces the record kind in a file.
func (k Kind) String() string {
	switch k {
	case KindStatement:
		return "statement"
	case KindQuery:
		return "query"
	case KindHashThreshold:
		return "hash-threshold"
	case KindHalt:
		return "halt"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// SortMode says how a query's values are ordered before they are compared.
type SortMode int

const (
	// NoSort compares values in the order the database returned them.
	NoSort SortMode = iota
	// RowSort sorts whole rows (comparing rendered values as strings,
	// column by column) and keeps each row's values together.
	RowSort
	// ValueSort sorts every value on its own, ignoring row boundaries.
	ValueSort
)

// String returns the sort mode's keyword.
func (m SortMode) String() string {
	switch m {
	case NoSort:
		return "nosort"
	case RowSort:
		return "rowsort"
	case ValueSort:
		return "valuesort"
	}
	return fmt.Sprintf("SortMode(%d)", int(m))
}

// Condition is one skipif/onlyif line in front of a record.
type Condition struct {
	// Skip is true for skipif (skip when Engine matches) and false for
	// onlyif (skip unless Engine matches).
	Skip   bool
	Engine string
}

// Applies reports whether the condition lets the record run on engine.
// engine may name several engines separated by commas ("postgresql,kvsql":
// kvsql follows the corpus's PostgreSQL convention and also runs the
// project's own "onlyif kvsql" records); skipif and onlyif match any of
// them.
func (c Condition) Applies(engine string) bool {
	match := false
	for _, e := range strings.Split(engine, ",") {
		if strings.TrimSpace(e) == c.Engine {
			match = true
		}
	}
	if c.Skip {
		return !match
	}
	return match
}

// Record is one parsed record of a .test file.
//
// Only the fields that matter for Kind are set: SQL for statements and
// queries; ExpectError and ErrorText for statements; Types, Sort, Label,
// Expected and ExpectedHash for queries; Threshold for hash-threshold.
type Record struct {
	Kind Kind
	// Line is the 1-based line number of the record's first line (its
	// first condition line when it has conditions).
	Line       int
	Conditions []Condition

	SQL string

	// ExpectError is set by "statement error"; ErrorText is whatever
	// followed the keyword on that line (kept, not checked: engines word
	// their errors differently).
	ExpectError bool
	ErrorText   string

	// Types holds one of 'I', 'R', 'T' per result column.
	Types string
	Sort  SortMode
	// Label ties queries together: all queries with one label in a file
	// must produce the same hash.
	Label string
	// Expected holds the lines after "----" (nil when the record has
	// no "----" or lists no values). When those lines are a single
	// "N values hashing to H" line, Expected is nil and HashCount and
	// ExpectedHash hold N and H.
	Expected     []string
	HashCount    int
	ExpectedHash string
	// IsHash reports that the expected result is given as a hash.
	IsHash bool

	Threshold int
}

// RunsOn reports whether every condition of the record lets it run on
// engine.
func (r *Record) RunsOn(engine string) bool {
	for _, c := range r.Conditions {
		if !c.Applies(engine) {
			return false
		}
	}
	return true
}
