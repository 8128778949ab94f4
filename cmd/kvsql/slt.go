package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/kvsql/kvsql/sqllogictest"
)

// inProcessTarget builds the sqllogictest target that runs kvsql's engine
// inside this process. The file that links the engine sets it; while it is
// nil, "kvsql slt" needs --url.
var inProcessTarget func() (sqllogictest.Target, error)

// runSLT implements "kvsql slt [flags] PATH...": it runs sqllogictest
// files (directories are searched for *.test) and prints a summary table.
// It returns an error when the arguments are wrong or the run could not
// happen; failing records are reported, not returned as an error. On
// SIGINT or SIGTERM it stops, prints the summary of what ran, and returns
// an error.
func runSLT(args []string) error {
	fs := flag.NewFlagSet("slt", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: kvsql slt [flags] PATH...\n\n"+
			"Runs sqllogictest files (a directory means every *.test below it),\n"+
			"each in a fresh database, and prints pass rates per directory.\n\nflags:\n")
		fs.PrintDefaults()
	}
	url := fs.String("url", "", "PostgreSQL URL of a server to test (PostgreSQL or kvsql serve); without it, kvsql's engine runs in-process")
	jobs := fs.Int("j", 1, "files run at once")
	engine := fs.String("engine", sqllogictest.DefaultEngine, "engine name matched by skipif/onlyif")
	timeout := fs.Duration("timeout", 30*time.Second, "limit per statement (0 = none)")
	jsonOut := fs.String("json", "", "also write the full report as JSON to `FILE`")
	verbose := fs.Bool("verbose", false, "print every failure as it happens")
	maxFail := fs.Int("max-failures", 0, "stop a file after this many failures (0 = no limit)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errors.New("slt: no test files or directories given")
	}
	if *jobs < 1 {
		return fmt.Errorf("slt: -j must be at least 1, not %d", *jobs)
	}

	var target sqllogictest.Target
	if *url != "" {
		t, err := sqllogictest.NewWireTarget(*url)
		if err != nil {
			return err
		}
		target = t
	} else {
		if inProcessTarget == nil {
			return errors.New("slt: in-process target not linked yet; use --url to test a server")
		}
		t, err := inProcessTarget()
		if err != nil {
			return fmt.Errorf("slt: %w", err)
		}
		target = t
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := sqllogictest.RunFiles(ctx, target, fs.Args(), sqllogictest.Options{
		Engine:             *engine,
		Jobs:               *jobs,
		StatementTimeout:   *timeout,
		Progress:           os.Stderr,
		Verbose:            *verbose,
		MaxFailuresPerFile: *maxFail,
	})
	if rep == nil {
		return fmt.Errorf("slt: %w", err)
	}
	rep.Summary(os.Stdout)
	if *jsonOut != "" {
		f, ferr := os.Create(*jsonOut)
		if ferr != nil {
			return fmt.Errorf("slt: %w", ferr)
		}
		if ferr = rep.JSON(f); ferr == nil {
			ferr = f.Close()
		} else {
			f.Close()
		}
		if ferr != nil {
			return fmt.Errorf("slt: writing %s: %w", *jsonOut, ferr)
		}
	}
	if err != nil {
		return fmt.Errorf("slt: interrupted: %w", err)
	}
	return nil
}
