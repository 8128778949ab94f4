package sqllogictest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeTarget answers from a table of canned results, so the runner's
// logic is tested without a database. "PANIC" panics, "SLEEP" waits for
// its context, any SQL not in the table fails.
type fakeTarget struct {
	answers map[string][][]any
	mu      sync.Mutex
	opened  []string
	closed  int
}

var _ Target = (*fakeTarget)(nil)

func (f *fakeTarget) Name() string { return "fake" }

func (f *fakeTarget) Open(_ context.Context, name string) (Conn, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.opened = append(f.opened, name)
	if strings.Contains(name, "unopenable") {
		return nil, errors.New("no such luck")
	}
	return &fakeConn{t: f}, nil
}

type fakeConn struct{ t *fakeTarget }

func (c *fakeConn) Exec(ctx context.Context, sql string) error {
	_, err := c.Query(ctx, sql)
	return err
}

func (c *fakeConn) Query(ctx context.Context, sql string) ([][]any, error) {
	switch sql {
	case "PANIC":
		panic("engine bug")
	case "SLEEP":
		<-ctx.Done()
		return nil, ctx.Err()
	}
	rows, ok := c.t.answers[sql]
	if !ok {
		return nil, errors.New("syntax error at " + sql)
	}
	return rows, nil
}

func (c *fakeConn) Close() error {
	c.t.mu.Lock()
	defer c.t.mu.Unlock()
	c.t.closed++
	return nil
}

func writeTest(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const fakeFile = `statement ok
CREATE

statement error
BOGUS

statement ok
BOGUS

statement error
CREATE

query IT rowsort
ROWS
----
1
a
2
b

query IT nosort
ROWS
----
1
a
2
c

query I nosort
ROWS
----
1

query I nosort label-a
ONE
----
1

query I nosort label-a
TWO
----
2

statement ok
PANIC

statement ok
SLEEP

skipif postgresql
statement ok
BOGUS

onlyif postgresql
halt

statement ok
BOGUS
`

func TestRunFilesFake(t *testing.T) {
	dir := t.TempDir()
	writeTest(t, dir, "a/one.test", fakeFile)
	writeTest(t, dir, "a/two.test", "statement ok\nCREATE\n")
	writeTest(t, dir, "b/unopenable.test", "statement ok\nCREATE\n")
	writeTest(t, dir, "b/broken.test", "query\n")
	writeTest(t, dir, "b/notes.txt", "not a test file")
	ft := &fakeTarget{answers: map[string][][]any{
		"CREATE": nil,
		"ROWS":   {{int64(2), "b"}, {int64(1), "a"}},
		"ONE":    {{int64(1)}},
		"TWO":    {{2.0}},
	}}
	var progress bytes.Buffer
	rep, err := RunFiles(context.Background(), ft, []string{dir}, Options{
		Jobs: 3, StatementTimeout: 50 * time.Millisecond, Progress: &progress,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Files) != 4 {
		t.Fatalf("ran %d files, want 4 (.txt ignored)", len(rep.Files))
	}
	byName := map[string]*FileResult{}
	for i := range rep.Files {
		byName[filepath.Base(rep.Files[i].Path)] = &rep.Files[i]
	}
	one := byName["one.test"]
	if one.Records != 11 || one.Passed != 4 || one.Failed != 7 || one.Skipped != 1 || !one.Halted {
		t.Errorf("one.test: %d records, %d passed, %d failed, %d skipped, halted %v; want 11, 4, 7, 1, true",
			one.Records, one.Passed, one.Failed, one.Skipped, one.Halted)
	}
	var kinds []string
	for _, f := range one.Failures {
		kinds = append(kinds, string(f.Kind))
	}
	wantKinds := "error,no error,wrong result,wrong column count,label mismatch,panic,timeout"
	if strings.Join(kinds, ",") != wantKinds {
		t.Errorf("failure kinds %q, want %q", strings.Join(kinds, ","), wantKinds)
	}
	if f := one.Failures[2]; f.Line != 21 || strings.Join(f.Actual, " ") != "2 b 1 a" || strings.Join(f.Expected, " ") != "1 a 2 c" {
		t.Errorf("wrong-result failure = %+v", f)
	}
	if f := one.Failures[5]; !strings.Contains(f.Err, "engine bug") {
		t.Errorf("panic failure = %+v", f)
	}
	if two := byName["two.test"]; two.Records != 1 || two.Passed != 1 || two.Error != "" {
		t.Errorf("two.test = %+v", two)
	}
	if u := byName["unopenable.test"]; !strings.Contains(u.Error, "no such luck") || u.Records != 0 {
		t.Errorf("unopenable.test = %+v", u)
	}
	if b := byName["broken.test"]; !strings.Contains(b.Error, "broken.test:1:") {
		t.Errorf("broken.test = %+v", b)
	}
	// Every opened session is closed, and every name is distinct.
	seen := map[string]bool{}
	for _, n := range ft.opened {
		if seen[n] || len(n) > 63 {
			t.Errorf("bad database name %q", n)
		}
		seen[n] = true
	}
	if ft.closed != 2 {
		t.Errorf("closed %d sessions, want 2", ft.closed)
	}
	records, passed, failed, skipped := rep.Totals()
	if records != 12 || passed != 5 || failed != 7 || skipped != 1 {
		t.Errorf("totals %d %d %d %d", records, passed, failed, skipped)
	}
	if !strings.Contains(progress.String(), "4/4 files  12 records  7 failed") {
		t.Errorf("final progress line missing:\n%s", progress.String())
	}

	var sum bytes.Buffer
	rep.Summary(&sum)
	for _, want := range []string{"directory", "41.7%", "total", "file error:", "most frequent failure reasons", "panic: panic: engine bug"} {
		if !strings.Contains(sum.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, sum.String())
		}
	}
	var js bytes.Buffer
	if err := rep.JSON(&js); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.Files) != 4 || back.Engine != "postgresql" {
		t.Errorf("JSON round trip: %v, %+v", err, back)
	}
}

func TestRunFilesMaxFailures(t *testing.T) {
	dir := t.TempDir()
	p := writeTest(t, dir, "f.test", "statement ok\nX\n\nstatement ok\nX\n\nstatement ok\nX\n")
	rep, err := RunFiles(context.Background(), &fakeTarget{}, []string{p}, Options{MaxFailuresPerFile: 2, MaxStoredFailures: 1})
	if err != nil {
		t.Fatal(err)
	}
	f := rep.Files[0]
	if f.Records != 2 || f.Failed != 2 || !f.Aborted || len(f.Failures) != 1 {
		t.Errorf("got %+v", f)
	}
}

func TestRunFilesEngine(t *testing.T) {
	dir := t.TempDir()
	p := writeTest(t, dir, "f.test", "onlyif mysql\nstatement ok\nCREATE\n\nskipif mysql\nstatement ok\nX\n")
	rep, err := RunFiles(context.Background(), &fakeTarget{answers: map[string][][]any{"CREATE": nil}}, []string{p}, Options{Engine: "mysql"})
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.Files[0]; f.Records != 1 || f.Passed != 1 || f.Skipped != 1 {
		t.Errorf("got %+v", f)
	}
}

func TestRunFilesCancelled(t *testing.T) {
	dir := t.TempDir()
	p := writeTest(t, dir, "f.test", "statement ok\nSLEEP\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep, err := RunFiles(ctx, &fakeTarget{}, []string{p}, Options{})
	if !errors.Is(err, context.Canceled) || rep == nil || !rep.Files[0].Aborted {
		t.Errorf("err %v, report %+v", err, rep)
	}
	if _, err := RunFiles(context.Background(), &fakeTarget{}, []string{filepath.Join(dir, "missing")}, Options{}); err == nil {
		t.Error("a missing path did not fail")
	}
}

func TestRunFilesCancelledMidRecord(t *testing.T) {
	dir := t.TempDir()
	p := writeTest(t, dir, "f.test", "statement ok\nCREATE\n\nstatement ok\nSLEEP\n\nstatement ok\nCREATE\n")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	rep, err := RunFiles(ctx, &fakeTarget{answers: map[string][][]any{"CREATE": nil}}, []string{p}, Options{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	// The interrupted record counts neither as passed nor as failed.
	if f := rep.Files[0]; f.Records != 1 || f.Passed != 1 || f.Failed != 0 || !f.Aborted {
		t.Errorf("got %+v", f)
	}
}
