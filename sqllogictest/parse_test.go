package sqllogictest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseRecords(t *testing.T) {
	const src = "# comment\r\n" +
		"hash-threshold 8\n" +
		"\n" +
		"statement ok\n" +
		"CREATE TABLE t(x INTEGER)\n" +
		"   \n" + // white space only ends a record
		"skipif mysql # not compatible\n" +
		"onlyif postgresql\n" +
		"statement error relation \"t\" already exists\n" +
		"CREATE TABLE t(x INTEGER)\n" +
		"\n" +
		"query IRT rowsort label-1\n" +
		"SELECT 1,\n" +
		"  2.0, 'a'\n" +
		"----\n" +
		"1\n" +
		"2.000\n" +
		"a\n" +
		"\n" +
		"query I valuesort\n" +
		"SELECT x FROM t\n" +
		"----\n" +
		"30 values hashing to 0123456789abcdef0123456789abcdef\n" +
		"\n" +
		"query T\n" +
		"SELECT 'no results'\n" +
		"\n" +
		"onlyif mssql\n" +
		"halt\n"
	recs, err := Parse(strings.NewReader(src), "inline")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 7 {
		t.Fatalf("got %d records, want 7: %+v", len(recs), recs)
	}
	if r := recs[0]; r.Kind != KindHashThreshold || r.Threshold != 8 || r.Line != 2 {
		t.Errorf("record 0 = %+v", r)
	}
	if r := recs[1]; r.Kind != KindStatement || r.ExpectError || r.SQL != "CREATE TABLE t(x INTEGER)" || r.Line != 4 {
		t.Errorf("record 1 = %+v", r)
	}
	r := recs[2]
	if r.Kind != KindStatement || !r.ExpectError || r.ErrorText != `relation "t" already exists` || r.Line != 7 {
		t.Errorf("record 2 = %+v", r)
	}
	if len(r.Conditions) != 2 || r.Conditions[0] != (Condition{Skip: true, Engine: "mysql"}) ||
		r.Conditions[1] != (Condition{Skip: false, Engine: "postgresql"}) {
		t.Errorf("record 2 conditions = %+v", r.Conditions)
	}
	if !r.RunsOn("postgresql") || r.RunsOn("mysql") || r.RunsOn("sqlite") {
		t.Errorf("record 2 RunsOn wrong")
	}
	q := recs[3]
	if q.Kind != KindQuery || q.Types != "IRT" || q.Sort != RowSort || q.Label != "label-1" ||
		q.SQL != "SELECT 1,\n  2.0, 'a'" || strings.Join(q.Expected, "|") != "1|2.000|a" || q.IsHash {
		t.Errorf("record 3 = %+v", q)
	}
	h := recs[4]
	if !h.IsHash || h.HashCount != 30 || h.ExpectedHash != "0123456789abcdef0123456789abcdef" || h.Sort != ValueSort || h.Expected != nil {
		t.Errorf("record 4 = %+v", h)
	}
	if n := recs[5]; n.Kind != KindQuery || n.Sort != NoSort || n.Expected != nil || n.SQL != "SELECT 'no results'" {
		t.Errorf("record 5 = %+v", n)
	}
	if h := recs[6]; h.Kind != KindHalt || h.Line != 28 || h.RunsOn("postgresql") || !h.RunsOn("mssql") {
		t.Errorf("record 6 = %+v", h)
	}
}

func TestParseHaltLast(t *testing.T) {
	recs, err := Parse(strings.NewReader("onlyif mssql\nhalt\n\nhalt\n"), "x")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Kind != KindHalt || recs[0].RunsOn("postgresql") || !recs[1].RunsOn("postgresql") {
		t.Errorf("got %+v", recs)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ src, msg string }{
		{"statement maybe\nSELECT 1\n", "want ok or error"},
		{"statement ok\n\n", "statement without SQL"},
		{"query IX nosort\nSELECT 1\n", "want only I, R and T"},
		{"query I sometimes\nSELECT 1\n", "unknown sort mode"},
		{"query I nosort label extra\nSELECT 1\n", "after the label"},
		{"query\nSELECT 1\n", "needs a type string"},
		{"hash-threshold many\n", "bad hash-threshold"},
		{"skipif\nhalt\n", "needs an engine name"},
		{"\n\nonlyif sqlite\n", "without a record"},
		{"loop i 0 10\n", "unknown record type"},
	}
	for _, tc := range tests {
		_, err := Parse(strings.NewReader(tc.src), "bad.test")
		var pe *ParseError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.msg) || !strings.HasPrefix(err.Error(), "bad.test:") {
			t.Errorf("Parse(%q) error = %v, want a ParseError with %q", tc.src, err, tc.msg)
		}
	}
	if _, err := Parse(strings.NewReader("\n\nloop\n"), "f"); err == nil || !strings.HasPrefix(err.Error(), "f:3:") {
		t.Errorf("error %v does not name line 3", err)
	}
}

// TestParseTestdata parses the package's own .test files and checks the
// record counts their headers promise.
func TestParseTestdata(t *testing.T) {
	files, err := ExpandPaths([]string{"testdata"})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 3 {
		t.Fatalf("found only %d .test files under testdata", len(files))
	}
	for _, f := range files {
		if _, err := ParseFile(f); err != nil {
			t.Errorf("%v", err)
		}
	}
	recs, err := ParseFile(filepath.Join("testdata", "basic.test"))
	if err != nil {
		t.Fatal(err)
	}
	var stmts, queries, skipped int
	for _, r := range recs {
		if !r.RunsOn(DefaultEngine) {
			skipped++
			continue
		}
		switch r.Kind {
		case KindStatement:
			stmts++
		case KindQuery:
			queries++
		}
	}
	if stmts+queries != 23 || skipped != 3 {
		t.Errorf("basic.test: %d statements + %d queries, %d skipped; want 23 and 3", stmts, queries, skipped)
	}
}

// corpusDir is SQLite's corpus next to the module (see DESIGN.md).
const corpusDir = "../../shared/sqllogictest"

// TestParseCorpus parses every file of the shared corpus and checks that
// each listed result has a whole number of rows, which confirms the
// one-value-per-line reading.
func TestParseCorpus(t *testing.T) {
	if _, err := os.Stat(corpusDir); err != nil {
		t.Skipf("corpus not present at %s (the project's tests do not need it)", corpusDir)
	}
	start := time.Now()
	files, err := ExpandPaths([]string{corpusDir})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, f := range files {
		recs, err := ParseFile(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		total += len(recs)
		for _, r := range recs {
			if r.Kind == KindQuery && !r.IsHash && len(r.Expected)%len(r.Types) != 0 {
				t.Errorf("%s:%d: %d values for %d columns", f, r.Line, len(r.Expected), len(r.Types))
			}
		}
	}
	t.Logf("parsed %d files, %d records in %v", len(files), total, time.Since(start))
}
