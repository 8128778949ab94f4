package session_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/session"
	"github.com/kvsql/kvsql/types"
)

// TestLargeInList (issue 22, item 7): WHERE k IN (100,000 literals) on the
// primary key is a sorted, de-duplicated multi-get of the table — not a
// full scan with the list compared against every row (216 s before) —
// and on a column without an index a filter that probes the sorted list.
// The answers, with duplicates, NULL items and NOT IN, are PostgreSQL's.
func TestLargeInList(t *testing.T) {
	ctx := context.Background()
	db, err := session.Open(session.Options{Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.Session("")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	run := func(sql string) [][]types.Datum {
		t.Helper()
		res, err := s.Exec(ctx, sql)
		if err != nil {
			t.Fatalf("%.200s: %v", sql, err)
		}
		return res[len(res)-1].Rows
	}
	const rows = 200000
	run(fmt.Sprintf("CREATE TABLE big (k INT PRIMARY KEY, v INT); INSERT INTO big SELECT g, g FROM generate_series(1, %d) g", rows))

	// 100,010 literals, descending: the even numbers up to 200,000, all
	// keys of big, then ten duplicates.
	var list strings.Builder
	for i := rows / 2; i >= 1; i-- {
		fmt.Fprintf(&list, "%d, ", 2*i)
	}
	list.WriteString("2, 4, 6, 8, 10, 2, 4, 6, 8, 10")
	in := list.String()
	want := int64(rows / 2)

	plan := fmt.Sprint(run("EXPLAIN SELECT count(*) FROM big WHERE k IN (" + in + ")"))
	if !strings.Contains(plan, "master get") || !strings.Contains(plan, "100010 spans") {
		t.Errorf("IN list on the primary key is not a multi-get:\n%.300s", plan)
	}
	for _, col := range []string{"k", "v"} {
		got := run(fmt.Sprintf("SELECT count(*) FROM big WHERE %s IN (%s)", col, in))
		if got[0][0].I != want {
			t.Errorf("%s IN (100,000 literals): %d rows, want %d", col, got[0][0].I, want)
		}
		got = run(fmt.Sprintf("SELECT count(*) FROM big WHERE %s NOT IN (%s)", col, in))
		if got[0][0].I != rows-want {
			t.Errorf("%s NOT IN (100,000 literals): %d rows, want %d", col, got[0][0].I, rows-want)
		}
		// A NULL item: a value not in the list compares unknown, so
		// NOT IN keeps no row and IN only the matches.
		got = run(fmt.Sprintf("SELECT count(*) FROM big WHERE %s NOT IN (NULL, %s)", col, in))
		if got[0][0].I != 0 {
			t.Errorf("%s NOT IN (NULL, ...): %d rows, want 0", col, got[0][0].I)
		}
		got = run(fmt.Sprintf("SELECT count(*), min(%s), max(%s) FROM big WHERE %s IN (%s, NULL)", col, col, col, in))
		if got[0][0].I != want || got[0][1].I != 2 || got[0][2].I != 200000 {
			t.Errorf("%s IN (..., NULL): %v, want [%d 2 200000]", col, got[0], want)
		}
	}
	// Mixed literals coerce to the list's common type (numeric here), as
	// item-by-item comparison did.
	got := run("SELECT count(*) FROM big WHERE v IN (1.0, 2.5, 3, 4, 5, 6, 7, 8, 9, 10, 10.0)")
	if got[0][0].I != 9 {
		t.Errorf("mixed-type IN list: %d rows, want 9", got[0][0].I)
	}
	// A text list probed with an int column is still a type error.
	if _, err := s.Exec(ctx, "SELECT count(*) FROM big WHERE v IN ('a'::text, 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i')"); err == nil {
		t.Errorf("int IN (text list): no error")
	}
}
