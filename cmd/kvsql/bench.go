//go:build bench

// This file is built only with -tags bench: the suite links SQLite
// (modernc.org/sqlite, pure Go but large) for its in-process comparison,
// and the server should not pay for that in build time and size.
// nobench.go stands in for it otherwise.

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"

	"github.com/kvsql/kvsql/bench"

	_ "modernc.org/sqlite" // the "sqlite" driver bench.OpenSQLiteEmbedded opens
)

// runBench implements "kvsql bench": start a throwaway PostgreSQL 15 and
// kvsql server, run the benchmark suite against both (and kvsql embedded
// against SQLite), and write docs/benchmarks.md with its plots. It fails
// when any workload fails, never because of speed.
//
// "kvsql bench serve-profiled CPU BLOCK MUTEX serve-args..." is the
// hidden child mode the profile flags use: it runs "kvsql serve" with the
// profiles whose file is not "-".
func runBench(args []string) error {
	if len(args) >= 4 && args[0] == "serve-profiled" {
		return serveProfiled(args[1], args[2], args[3], args[4:])
	}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	quick := fs.Bool("quick", false, "tiny scales and short runs: a smoke test of every workload")
	out := fs.String("out", "docs/benchmarks.md", "the report to write; plots go to a directory named after it (docs/benchmarks/)")
	rounds := fs.Int("rounds", 3, "rounds per workload (each runs kvsql and the reference once, alternating)")
	scale := fs.Float64("scale", 1, "multiply every row count by this factor")
	series := fs.String("series", "", "comma-separated table sizes of the scaling series (default 1e4,1e5,1e6,1e7; quick 1e3,1e4)")
	duration := fs.Duration("duration", 0, "length of one timed run (default 3s; quick 300ms, pgbench then runs 200 transactions per client)")
	only := fs.String("only", "", "run only the workloads whose name matches this regular expression (a plain name: those containing it)")
	seed := fs.Uint64("seed", 1, "seed of every random stream")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the kvsql server to this file")
	blockprofile := fs.String("blockprofile", "", "write a block profile of the kvsql server to this file (every blocking event)")
	mutexprofile := fs.String("mutexprofile", "", "write a mutex profile of the kvsql server to this file (every contention)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if ok, why := bench.PostgresAvailable(); !ok {
		return fmt.Errorf("bench: %s", why)
	}
	sc := bench.Full
	if *quick {
		sc = bench.Quick
		if *rounds == 3 {
			*rounds = 2
		}
	}
	sc = sc.Scaled(*scale)
	if *series != "" {
		sc.Series = nil
		for _, f := range strings.Split(*series, ",") {
			var v float64
			if _, err := fmt.Sscan(strings.TrimSpace(f), &v); err != nil || v < 1 {
				return fmt.Errorf("bench: bad --series entry %q", f)
			}
			sc.Series = append(sc.Series, int(v))
		}
	}
	if *duration > 0 {
		sc.Duration = *duration
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	command := []string{exe, "serve"}
	if *cpuprofile != "" || *blockprofile != "" || *mutexprofile != "" {
		command = []string{exe, "bench", "serve-profiled"}
		for _, p := range []string{*cpuprofile, *blockprofile, *mutexprofile} {
			abs := "-"
			if p != "" {
				if abs, err = filepath.Abs(p); err != nil {
					return err
				}
			}
			command = append(command, abs)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := bench.Run(ctx, bench.Config{Scales: sc, Rounds: *rounds, Seed: *seed,
		KvsqlCommand: command, Only: *only, Progress: os.Stderr})
	if err != nil {
		return err
	}
	// The report names the flags that shape the figures, not where files go.
	invocation := "go run -tags bench ./cmd/kvsql bench"
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "out" && !strings.HasSuffix(f.Name, "profile") {
			invocation += " --" + f.Name + "=" + f.Value.String()
		}
	})
	plotDir := strings.TrimSuffix(*out, filepath.Ext(*out))
	if err := bench.WriteReport(res, bench.ThisMachine(), *out, plotDir, invocation); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s and %s/\n", *out, plotDir)
	if len(res.Failures) > 0 {
		for _, f := range res.Failures {
			fmt.Fprintln(os.Stderr, "FAILED:", f)
		}
		return fmt.Errorf("bench: %d workload runs failed", len(res.Failures))
	}
	return nil
}

// serveProfiled runs "kvsql serve args" under the profiles whose file is
// not "-": CPU, block and mutex, each written when the server stops.
func serveProfiled(cpu, block, mutex string, args []string) error {
	if cpu != "-" {
		f, err := os.Create(cpu)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if block != "-" {
		runtime.SetBlockProfileRate(1)
		defer writeProfile("block", block)
	}
	if mutex != "-" {
		runtime.SetMutexProfileFraction(1)
		defer writeProfile("mutex", mutex)
	}
	return runServe(args)
}

// writeProfile writes the named runtime profile to file, reporting a
// failure on stderr (the server has already stopped).
func writeProfile(name, file string) {
	f, err := os.Create(file)
	if err == nil {
		err = pprof.Lookup(name).WriteTo(f, 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench: %s profile: %v\n", name, err)
	}
}
