package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/kvsql/kvsql"
	"github.com/kvsql/kvsql/bench"
	"github.com/kvsql/kvsql/sqllogictest"
	"github.com/kvsql/kvsql/wire"
)

// runConformance implements "kvsql conformance": it scores SQLite's
// sqllogictest corpus over the wire against kvsql (a server it starts in
// this process) and against PostgreSQL (a throwaway cluster it starts, or
// --pg-url), with the same runner, and writes the side-by-side table into
// docs/conformance.md between its markers.
func runConformance(args []string) error {
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	corpus := fs.String("corpus", "../shared/sqllogictest", "the sqllogictest corpus directory")
	out := fs.String("out", "docs/conformance.md", "the document to update")
	pgURL := fs.String("pg-url", "", "PostgreSQL to score (default: start a throwaway PostgreSQL 15)")
	jobs := fs.Int("j", 2, "files run at once")
	timeout := fs.Duration("timeout", 60*time.Second, "limit per statement")
	fromJSON := fs.String("from-json", "", "render from saved reports `KVSQL.json,PG.json` (kvsql slt --json) instead of running")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	paths := fs.Args()
	if len(paths) == 0 {
		paths = []string{*corpus}
	}
	ctx := context.Background()
	if *fromJSON != "" {
		kvRep, pgRep, err := readReports(*fromJSON)
		if err != nil {
			return err
		}
		return writeConformance(*out, kvRep, pgRep, paths[0])
	}

	db, err := kvsql.Open(kvsql.Options{Memory: true})
	if err != nil {
		return err
	}
	defer db.Close()
	srv, err := wire.NewServer(wire.Config{Addr: "127.0.0.1:0", MaxConnections: 4 * *jobs}, db)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go func() { _ = srv.Serve(l) }()
	defer srv.Shutdown(ctx)
	kvTarget, err := sqllogictest.NewWireTarget("postgres://kvsql@" + l.Addr().String() + "/kvsql?sslmode=disable")
	if err != nil {
		return err
	}

	ref := *pgURL
	if ref == "" {
		if ok, why := bench.PostgresAvailable(); !ok {
			return fmt.Errorf("conformance: no PostgreSQL to compare with (%s); pass --pg-url", why)
		}
		dir, err := os.MkdirTemp("", "kvsql-conformance-pg-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		pg, err := bench.StartPostgres(ctx, dir)
		if err != nil {
			return err
		}
		defer pg.Stop()
		ref = pg.ConnString()
	}
	pgTarget, err := sqllogictest.NewWireTarget(ref)
	if err != nil {
		return err
	}

	opts := sqllogictest.Options{Jobs: *jobs, StatementTimeout: *timeout, Progress: os.Stderr}
	fmt.Fprintln(os.Stderr, "kvsql:")
	opts.Engine = "postgresql,kvsql"
	kvRep, err := sqllogictest.RunFiles(ctx, kvTarget, paths, opts)
	if err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "PostgreSQL:")
	opts.Engine = sqllogictest.DefaultEngine
	pgRep, err := sqllogictest.RunFiles(ctx, pgTarget, paths, opts)
	if err != nil {
		return err
	}
	kvRep.Summary(os.Stdout)
	pgRep.Summary(os.Stdout)
	return writeConformance(*out, kvRep, pgRep, paths[0])
}

// writeConformance puts the table of the two reports into the document.
func writeConformance(out string, kvRep, pgRep *sqllogictest.Report, root string) error {
	var table bytes.Buffer
	sqllogictest.ConformanceTable(&table, kvRep, pgRep, "PostgreSQL", root, time.Now())
	doc, err := os.ReadFile(out)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	updated := sqllogictest.SpliceGenerated(string(doc), table.String())
	if err := os.WriteFile(out, []byte(updated), 0o644); err != nil {
		return err
	}
	fmt.Printf("wrote %s\n", out)
	return nil
}

func readReports(list string) (*sqllogictest.Report, *sqllogictest.Report, error) {
	names := strings.Split(list, ",")
	if len(names) != 2 {
		return nil, nil, fmt.Errorf("conformance: --from-json wants KVSQL.json,PG.json")
	}
	var reps [2]*sqllogictest.Report
	for i, n := range names {
		f, err := os.Open(n)
		if err != nil {
			return nil, nil, err
		}
		reps[i], err = sqllogictest.ReadReport(f)
		f.Close()
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", n, err)
		}
	}
	return reps[0], reps[1], nil
}
