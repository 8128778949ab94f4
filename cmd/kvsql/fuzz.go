package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/kvsql/kvsql/bench"
	"github.com/kvsql/kvsql/fuzz"
)

// errFindings is returned by `kvsql fuzz` when an oracle failed, so that
// the program exits with status 1.
var errFindings = errors.New("fuzz: findings")

// runFuzz implements `kvsql fuzz [--seed N] [--duration D] [--pg]
// [--pg-url URL] [--out DIR] [--avoid-known]`: random schemas, data, queries and writes,
// judged by TLP, NoREC and the consistency check on kvsql alone, and with
// --pg against PostgreSQL 15 too. docs/fuzzing.md describes it.
func runFuzz(args []string) error {
	fs := flag.NewFlagSet("fuzz", flag.ContinueOnError)
	seed := fs.Int64("seed", 0, "seed (0: from the clock, printed)")
	duration := fs.Duration("duration", time.Minute, "how long to run")
	pg := fs.Bool("pg", false, "compare with a throwaway PostgreSQL 15")
	pgURL := fs.String("pg-url", "", "compare with this PostgreSQL instead of starting one")
	out := fs.String("out", "fuzz-findings", "directory for reduced findings")
	avoid := fs.Bool("avoid-known", false, "leave out the constructs of known, unfixed engine bugs (docs/fuzzing.md)")
	reduce := fs.Duration("reduce", 60*time.Second, "time limit for reducing one finding")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *seed == 0 {
		*seed = time.Now().UnixNano() % 1_000_000
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cfg := fuzz.Config{Seed: *seed, Duration: *duration, PostgresURL: *pgURL, Out: *out,
		Log: os.Stderr, ReduceBudget: *reduce, AvoidKnown: *avoid}
	if *pg && cfg.PostgresURL == "" {
		if ok, why := bench.PostgresAvailable(); !ok {
			return fmt.Errorf("fuzz --pg: %s", why)
		}
		dir, err := os.MkdirTemp("", "kvsql-fuzz-pg-")
		if err != nil {
			return err
		}
		srv, err := bench.StartPostgres(ctx, dir)
		if err != nil {
			return err
		}
		defer srv.Stop()
		cfg.PostgresURL = srv.ConnString()
	}
	fmt.Printf("kvsql fuzz --seed %d --duration %s (differential: %v)\n", *seed, *duration, cfg.PostgresURL != "")
	rep, err := fuzz.Run(ctx, cfg)
	if rep != nil {
		fmt.Print(rep.Summary())
		for _, f := range rep.Findings {
			fmt.Printf("finding: %s %s: %s (%s)\n", f.Oracle, f.Kind, f.Detail, f.File)
		}
	}
	if err != nil {
		return err
	}
	if len(rep.Findings) > 0 {
		return fmt.Errorf("%w: %d (reduced scripts in %s)", errFindings, len(rep.Findings), *out)
	}
	return nil
}
