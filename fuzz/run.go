package fuzz

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Config says what one run does.
type Config struct {
	Seed     int64
	Duration time.Duration // the run stops starting cases after it
	// PostgresURL, when set, enables the differential oracle against that
	// server (a database of its own is created there).
	PostgresURL string
	Out         string    // directory for reduced findings; "" writes none
	Log         io.Writer // progress and findings; nil for none
	// ReduceBudget bounds the reduction of one finding (default 60 s).
	ReduceBudget time.Duration
	// MaxReduced is how many findings are reduced; later ones are only
	// counted (default 20).
	MaxReduced int
	// AvoidKnown leaves out the constructs of knownIssues, engine bugs
	// found before and not fixed yet.
	AvoidKnown bool
}

// Report is what a run did and found.
type Report struct {
	Seed         int64
	Cases        int
	Statements   int            // statements run on kvsql, reductions excluded
	PGStatements int            // statements run on PostgreSQL
	Checks       map[string]int // judgements made, per oracle
	Skipped      map[string]int // judgements an error prevented, per oracle
	Unsupported  map[string]int // known-unsupported errors met, per entry
	Findings     []Finding
	Duplicates   map[string]int // findings like an earlier one, per oracle
	Avoided      []string       // the knownIssues left out of the grammar
	Elapsed      time.Duration
}

// Finding is one failed judgement, reduced.
type Finding struct {
	Oracle, Kind, Detail string
	Case                 int64 // the case's seed
	Reduced              bool  // false when the failure did not reproduce on replay
	Script               string
	File                 string // where it was written, if anywhere
}

// FindingsBy counts the findings per oracle.
func (r *Report) FindingsBy(oracle string) int {
	n := 0
	for _, f := range r.Findings {
		if f.Oracle == oracle {
			n++
		}
	}
	return n + r.Duplicates[oracle]
}

// Summary renders the report's counts, one oracle a line.
func (r *Report) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d: %d cases, %d statements on kvsql, %d on PostgreSQL in %s\n",
		r.Seed, r.Cases, r.Statements, r.PGStatements, r.Elapsed.Round(time.Second))
	for _, o := range Oracles {
		fmt.Fprintf(&b, "  %-12s %6d judged  %5d skipped (errors)  %3d findings (%d duplicates)\n",
			o, r.Checks[o], r.Skipped[o], r.FindingsBy(o), r.Duplicates[o])
	}
	if len(r.Avoided) > 0 {
		fmt.Fprintf(&b, "  known issues left out: %s\n", strings.Join(r.Avoided, ", "))
	}
	var us []string
	for u, n := range r.Unsupported {
		us = append(us, fmt.Sprintf("  known unsupported: %s (%d)", u, n))
	}
	sort.Strings(us)
	for _, u := range us {
		b.WriteString(u + "\n")
	}
	return b.String()
}

// Run fuzzes until cfg.Duration is up or ctx is done: case after case, a
// fresh schema and data, rounds of queries judged by the oracles, and
// writes followed by a comparison of the tables' contents and a
// consistency check. Each finding is reduced and written to cfg.Out.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.ReduceBudget == 0 {
		cfg.ReduceBudget = 60 * time.Second
	}
	if cfg.MaxReduced == 0 {
		cfg.MaxReduced = 20
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	f := &fuzzer{cfg: cfg, seen: map[string]bool{}, rep: &Report{
		Seed: cfg.Seed, Checks: map[string]int{}, Skipped: map[string]int{},
		Unsupported: map[string]int{}, Duplicates: map[string]int{},
	}}
	if cfg.AvoidKnown {
		for _, k := range knownIssues {
			f.rep.Avoided = append(f.rep.Avoided, k.name)
		}
	}
	if cfg.PostgresURL != "" {
		pg, err := newPGTarget(ctx, cfg.PostgresURL)
		if err != nil {
			return nil, err
		}
		f.env.pg = pg
		defer pg.close()
	}
	defer f.env.kv.close()
	if cfg.Out != "" {
		if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	deadline := start.Add(cfg.Duration)
	lastLog := start
	for i := int64(0); time.Now().Before(deadline) && ctx.Err() == nil; i++ {
		if err := f.runCase(ctx, cfg.Seed*1_000_003+i); err != nil {
			return f.rep, err
		}
		f.rep.Cases++
		if time.Since(lastLog) > 30*time.Second {
			lastLog = time.Now()
			fmt.Fprintf(cfg.Log, "fuzz: %s: %d cases, %d statements, %d findings\n",
				time.Since(start).Round(time.Second), f.rep.Cases, f.rep.Statements, len(f.rep.Findings))
		}
	}
	f.rep.Elapsed = time.Since(start)
	return f.rep, nil
}

type fuzzer struct {
	cfg  Config
	env  env
	rep  *Report
	seen map[string]bool // finding signatures
}

// runCase runs the case generated from seed. Its error is for failures
// of the harness itself.
func (f *fuzzer) runCase(ctx context.Context, seed int64) error {
	g := newGen(seed, f.cfg.AvoidKnown)
	e := &f.env
	if err := e.reset(ctx); err != nil {
		return err
	}
	var script []stmt
	// judge runs s and lets oracle judge it; false ends the case.
	judge := func(oracle string, s stmt, state bool) bool {
		o := e.probe(ctx, oracle, s)
		f.rep.Statements++
		if oracle == TLP || oracle == NoREC {
			f.rep.Statements++ // these run two statements
		} else if e.pg != nil {
			f.rep.PGStatements++
		}
		if o.unsupported != "" {
			f.rep.Unsupported[o.unsupported]++
		}
		if o.skipped {
			f.rep.Skipped[oracle]++
		} else {
			f.rep.Checks[oracle]++
		}
		if o.kind != "" {
			f.finding(ctx, seed, oracle, script, s, o)
			return false
		}
		if oracle == Differential && !state && e.pg != nil && f.slow(ctx, seed, script, s, o) {
			return false
		}
		if state && o.diverged {
			return false // the databases differ from here on: next case
		}
		if state {
			e.note(s)
			script = append(script, s)
		}
		return true
	}
	for _, s := range g.schema() {
		if !judge(Differential, s, true) {
			return nil
		}
	}
	for round := 0; round < 3 && ctx.Err() == nil; round++ {
		for i := 0; i < 12; i++ {
			var ok bool
			switch n := g.pick(4); {
			case e.pg != nil && n < 2:
				ok = judge(Differential, queryStmt{g.query()}, false)
			case n%2 == 0:
				ok = judge(TLP, g.tlp(), false)
			default:
				ok = judge(NoREC, g.norec(), false)
			}
			if !ok {
				return nil
			}
		}
		for i, n := 0, 1+g.pick(4); i < n; i++ {
			s := g.write()
			if !judge(Differential, s, true) {
				return nil
			}
		}
		if len(script) > 0 {
			probs, err := e.kv.check()
			if err != nil {
				return err
			}
			f.rep.Checks[Check]++
			if len(probs) > 0 {
				last := script[len(script)-1]
				o := outcome{kind: "inconsistent", detail: probs[0].String()}
				f.finding(ctx, seed, Check, script[:len(script)-1], last, o)
				return nil
			}
		}
		if e.pg != nil {
			for _, s := range g.contents() {
				if !judge(Differential, s, false) {
					return nil
				}
			}
		}
	}
	return nil
}

// slow reports (as a Perf finding) a statement that took kvsql more than
// ten times PostgreSQL's time and over 100 ms, twice in a row.
func (f *fuzzer) slow(ctx context.Context, seed int64, script []stmt, s stmt, o outcome) bool {
	isSlow := func(k, p result) bool { return k.dur > 100*time.Millisecond && k.dur > 10*p.dur }
	f.rep.Checks[Perf]++
	if !isSlow(o.kvRes, o.pgRes) {
		return false
	}
	k2 := f.env.kv.exec(ctx, s.sql(kvsqlDialect))
	p2 := f.env.pg.exec(ctx, s.sql(pgDialect))
	if !isSlow(k2, p2) {
		return false
	}
	o.kind = "slow"
	o.detail = fmt.Sprintf("kvsql %s, PostgreSQL %s", k2.dur.Round(time.Millisecond), p2.dur.Round(time.Millisecond))
	f.record(seed, Perf, script, s, o, false)
	return true
}

// finding reduces a failed judgement and records it, unless one like it
// was recorded already.
func (f *fuzzer) finding(ctx context.Context, seed int64, oracle string, script []stmt, last stmt, o outcome) {
	sig := oracle + "/" + o.signature()
	if f.seen[sig] {
		f.rep.Duplicates[oracle]++
		return
	}
	f.seen[sig] = true
	fmt.Fprintf(f.cfg.Log, "fuzz: %s finding (%s): %s; reducing\n", oracle, o.kind, o.detail)
	reduced := false
	if len(f.rep.Findings) < f.cfg.MaxReduced {
		var ok bool
		script, last, o, ok = f.env.reduce(ctx, oracle, script, last, o, f.cfg.ReduceBudget)
		reduced = ok
	}
	f.record(seed, oracle, script, last, o, reduced)
}

// record renders a finding as a script with both answers and keeps it.
func (f *fuzzer) record(seed int64, oracle string, script []stmt, last stmt, o outcome, reduced bool) {
	var b strings.Builder
	fmt.Fprintf(&b, "-- kvsql fuzz finding: oracle %s, %s: %s\n", oracle, o.kind, o.detail)
	fmt.Fprintf(&b, "-- run seed %d, case seed %d, reduced %v\n", f.cfg.Seed, seed, reduced)
	for _, s := range append(append([]stmt(nil), script...), last) {
		if pg := s.sql(pgDialect); pg != s.sql(kvsqlDialect) && f.env.pg != nil {
			fmt.Fprintf(&b, "-- PostgreSQL: %s;\n", pg)
		}
		fmt.Fprintf(&b, "%s;\n", s.sql(kvsqlDialect))
	}
	left, right := "kvsql", "PostgreSQL"
	switch oracle {
	case TLP:
		left, right = "the whole query", "its three partitions"
		fmt.Fprintf(&b, "-- partitions: %s;\n", o.rightQ)
	case NoREC:
		left, right = "count with WHERE", "sum of CASE"
		fmt.Fprintf(&b, "-- unoptimized: %s;\n", o.rightQ)
	case Check:
		left, right = "the last statement", "index.Check"
	}
	fmt.Fprintf(&b, "-- %s answer:\n%s", left, comment(o.left))
	fmt.Fprintf(&b, "-- %s answer:\n%s", right, comment(o.right))
	fd := Finding{Oracle: oracle, Kind: o.kind, Detail: o.detail, Case: seed, Reduced: reduced, Script: b.String()}
	if f.cfg.Out != "" {
		fd.File = filepath.Join(f.cfg.Out, fmt.Sprintf("finding-%d-%d-%s.sql", f.cfg.Seed, len(f.rep.Findings)+1, oracle))
		if err := os.WriteFile(fd.File, []byte(fd.Script), 0o644); err != nil {
			fmt.Fprintf(f.cfg.Log, "fuzz: %v\n", err)
		}
	}
	f.rep.Findings = append(f.rep.Findings, fd)
	fmt.Fprintf(f.cfg.Log, "%s\n", fd.Script)
}

func comment(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("--   " + l + "\n")
	}
	return b.String()
}
