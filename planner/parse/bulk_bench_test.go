package parse

import (
	"fmt"
	"strings"
	"testing"
)

// insertText returns a multi-row INSERT of n rows shaped like the bulk
// load benchmark's: an integer key, an integer, a float and a string.
func insertText(n int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO bulk_1 (id, k, v, pad) VALUES ")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "(%d, %d, %v, 'some padding text for the row')", i, i%1000, float64(i)/3)
	}
	return b.String()
}

// BenchmarkParseInsert1000 parses a 1,000-row INSERT of literals.
func BenchmarkParseInsert1000(b *testing.B) {
	sql := insertText(1000)
	b.SetBytes(int64(len(sql)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseOne(sql); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseInsert1000Generic parses the same INSERT by the generic
// path (the fast path off): the cost of every rewrite pass over a large
// statement.
func BenchmarkParseInsert1000Generic(b *testing.B) {
	fastInsertOff = true
	defer func() { fastInsertOff = false }()
	BenchmarkParseInsert1000(b)
}
