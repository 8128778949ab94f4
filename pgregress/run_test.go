package pgregress

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startPostgres starts a throwaway PostgreSQL 15 for a test, or skips it.
func startPostgres(t *testing.T, name string) *Postgres {
	t.Helper()
	if testing.Short() {
		t.Skip("starts PostgreSQL: not in -short")
	}
	if ok, why := PostgresAvailable(); !ok {
		t.Skip("no PostgreSQL 15 to run against: " + why)
	}
	pg, err := StartPostgres(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := pg.Stop(); err != nil {
			t.Log(err)
		}
	})
	return pg
}

// TestSelfCheck scores PostgreSQL against a second PostgreSQL: the rules
// must find them in agreement on every statement, for the package's own
// small corpus and for two small files of PostgreSQL's suite when that is
// present.
func TestSelfCheck(t *testing.T) {
	ref := startPostgres(t, "PostgreSQL")
	sub := startPostgres(t, "second PostgreSQL")
	ctx := context.Background()

	rep, err := Run(ctx, ref, sub, Options{Corpus: filepath.Join("testdata", "corpus"), Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	f := rep.Files[0]
	// basics.sql: 19 query strings (one of them a \copy), one psql
	// command (\d), one nondeterministic statement.
	if f.Statements != 19 || f.Meta != 1 || f.Unscored != 1 || f.Error != "" {
		t.Errorf("basics: %d statements, %d meta, %d unscored, error %q", f.Statements, f.Meta, f.Unscored, f.Error)
	}
	checkAllAgree(t, rep)

	if _, err := os.Stat(filepath.Join(corpusDir(), "sql", "delete.sql")); err != nil {
		t.Logf("PostgreSQL's regression files are absent (%s): checked the package's own corpus only", corpusDir())
		return
	}
	rep, err = Run(ctx, ref, sub, Options{Corpus: corpusDir(), Files: []string{"delete", "select_having"}, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	checkAllAgree(t, rep)
	if s := rep.Setups[0]; s.Name != "test_setup" || s.Scored != s.Agree || s.Scored < 60 {
		t.Errorf("test_setup: %d of %d agree", s.Agree, s.Scored)
	}
}

func checkAllAgree(t *testing.T, rep *Report) {
	t.Helper()
	for _, f := range append(rep.Setups, rep.Files...) {
		if f.Scored == 0 || f.Agree != f.Scored || f.Error != "" {
			t.Errorf("%s: %d of %d agree (error %q)", f.Name, f.Agree, f.Scored, f.Error)
		}
		for _, d := range f.Diffs {
			t.Errorf("%s:%d: %s\n  %s\n  reference: %s\n  subject:   %s", f.Name, d.Line, d.Class, d.SQL, d.Reference, d.Subject)
		}
	}
}

// TestKvsqlRuns runs the small corpus on kvsql in process: every
// statement is scored either way, and the report renders.
func TestKvsqlRuns(t *testing.T) {
	ref := startPostgres(t, "PostgreSQL")
	rep, err := Run(context.Background(), ref, Kvsql{}, Options{Corpus: filepath.Join("testdata", "corpus"), Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	f := rep.Files[0]
	if f.Scored != 18 || f.Error != "" {
		t.Errorf("basics on kvsql: %d scored, error %q", f.Scored, f.Error)
	}
	var b strings.Builder
	rep.WriteMarkdown(&b, "kvsql pgregress", "testdata/corpus")
	if !strings.Contains(b.String(), "| basics | 18 |") {
		t.Errorf("report lacks the basics row:\n%s", b.String())
	}
	t.Logf("kvsql: %d of %d agree", f.Agree, f.Scored)
}
