package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/kvsql/kvsql/pgregress"
)

// runPGRegress implements "kvsql pgregress": it runs PostgreSQL's own
// regression files statement by statement on a throwaway PostgreSQL 15
// and on kvsql in this process, scores kvsql against PostgreSQL, and
// writes docs/pgregress.md and a JSON report. With --self the subject is
// a second PostgreSQL, which must agree with the first on every
// statement: the check of the scoring rules themselves.
func runPGRegress(args []string) error {
	fs := flag.NewFlagSet("pgregress", flag.ContinueOnError)
	corpus := fs.String("corpus", "../shared/pgregress", "the directory holding PostgreSQL's regression sql/ and data/")
	out := fs.String("out", "docs/pgregress.md", "the document to write (with --self: only when given)")
	jsonOut := fs.String("json", "pgregress.json", "the JSON report to write (empty: none)")
	self := fs.Bool("self", false, "score PostgreSQL against a second PostgreSQL instead of kvsql")
	jobs := fs.Int("j", 1, "files run at once")
	timeout := fs.Duration("timeout", 10*time.Second, "limit per statement, then it is cancelled")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: kvsql pgregress [flags] [FILE...]  (FILE: a test file's name, e.g. join)\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	outGiven := false
	fs.Visit(func(f *flag.Flag) { outGiven = outGiven || f.Name == "out" })
	if *self && !outGiven {
		*out = ""
	}
	if _, err := os.Stat(filepath.Join(*corpus, "sql")); err != nil {
		return fmt.Errorf("pgregress: the regression files are absent: no %s (pass --corpus DIR holding sql/ and data/)", filepath.Join(*corpus, "sql"))
	}
	if ok, why := pgregress.PostgresAvailable(); !ok {
		return fmt.Errorf("pgregress: no PostgreSQL 15 to compare with: %s", why)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ref, err := pgregress.StartPostgres(ctx, "PostgreSQL 15")
	if err != nil {
		return err
	}
	defer ref.Stop()
	var sub pgregress.Target = pgregress.Kvsql{}
	if *self {
		pg2, err := pgregress.StartPostgres(ctx, "a second PostgreSQL 15")
		if err != nil {
			return err
		}
		defer pg2.Stop()
		sub = pg2
	}
	files := fs.Args()
	for i, f := range files {
		files[i] = strings.TrimSuffix(filepath.Base(f), ".sql")
	}
	rep, err := pgregress.Run(ctx, ref, sub, pgregress.Options{
		Corpus: *corpus, Files: files, Timeout: *timeout, Jobs: *jobs, Progress: os.Stderr,
	})
	if err != nil {
		return err
	}
	scored, agree := rep.Totals()
	fmt.Printf("%s against %s: %d of %d scored statements agree (%.1f%%) over %d files\n",
		rep.Subject, rep.Reference, agree, scored, 100*float64(agree)/float64(max(scored, 1)), len(rep.Files))
	if *jsonOut != "" {
		f, err := os.Create(*jsonOut)
		if err != nil {
			return err
		}
		err = rep.WriteJSON(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		fmt.Printf("wrote %s\n", *jsonOut)
	}
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		command := "kvsql pgregress"
		if *self {
			command += " --self"
		}
		rep.WriteMarkdown(f, command, filepath.ToSlash(*corpus))
		if err := f.Close(); err != nil {
			return err
		}
		fmt.Printf("wrote %s\n", *out)
	}
	return nil
}
