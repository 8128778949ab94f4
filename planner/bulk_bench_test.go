package planner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/planner/parse"
)

// BenchmarkPlanInsert1000 plans a 1,000-row INSERT of literals, shaped
// like the bulk-load bench's (an integer key, an integer, a string),
// and lists its routine calls as the session does after planning.
func BenchmarkPlanInsert1000(b *testing.B) {
	cat := testCatalog(b)
	var sb strings.Builder
	sb.WriteString("INSERT INTO t (a, b, c) VALUES ")
	for i := range 1000 {
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, "(%d, %d, 'some padding text for row %d')", i, i%1000, i)
	}
	st, err := parse.ParseOne(sb.String())
	if err != nil {
		b.Fatal(err)
	}
	p := &Planner{Catalog: cat, DB: "db"}
	b.ReportAllocs()
	for b.Loop() {
		n, _, err := p.Plan(&st, nil)
		if err != nil {
			b.Fatal(err)
		}
		if calls := RoutineCalls(n); len(calls) != 0 {
			b.Fatalf("routine calls %v", calls)
		}
	}
}

// BenchmarkPlanInsertFloat1000 plans the bench's multi-row INSERT shape:
// 1,000 rows of an integer, a double precision written as a decimal
// literal (a NUMERIC constant) and a string.
func BenchmarkPlanInsertFloat1000(b *testing.B) {
	cat := literalTable(b)
	var sb strings.Builder
	sb.WriteString("INSERT INTO lit (i4, f8, s) VALUES ")
	for i := range 1000 {
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, "(%d, %v, 'some padding text for the row')", i, float64(i)/3)
	}
	st, err := parse.ParseOne(sb.String())
	if err != nil {
		b.Fatal(err)
	}
	p := &Planner{Catalog: cat, DB: "db"}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := p.Plan(&st, nil); err != nil {
			b.Fatal(err)
		}
	}
}
