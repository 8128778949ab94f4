package bench

import (
	"context"
	"fmt"
	"strings"
)

// pgbench's tables, created by hand: "pgbench -i" uses storage options
// (fillfactor) that kvsql does not take.
var pgbenchSchema = []string{
	`CREATE TABLE pgbench_branches (bid INT PRIMARY KEY, bbalance INT NOT NULL, filler TEXT)`,
	`CREATE TABLE pgbench_tellers (tid INT PRIMARY KEY, bid INT NOT NULL, tbalance INT NOT NULL, filler TEXT)`,
	`CREATE TABLE pgbench_accounts (aid INT PRIMARY KEY, bid INT NOT NULL, abalance INT NOT NULL, filler TEXT)`,
	`CREATE TABLE pgbench_history (tid INT, bid INT, aid INT, delta INT, mtime TIMESTAMP, filler TEXT)`,
}

// pointSelectScript is pgbench's built-in "select-only" script.
const pointSelectScript = `\set aid random(1, %d)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
`

// tpcbScript is pgbench's built-in "tpcb-like" script.
const tpcbScript = `\set aid random(1, %d)
\set bid random(1, %d)
\set tid random(1, %d)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`

// pgbenchWorkloads are the point select (1 and 8 clients, simple and
// prepared protocol) and TPC-B-like (1 and 8 clients, prepared, serialization
// failures retried up to 10 times) runs of pgbench.
func pgbenchWorkloads(sc Scales, workDir string) []Workload {
	accounts := sc.Accounts
	branches := max(1, accounts/100_000)
	tellers := branches * 10
	ds := newDataset(func(ctx context.Context, s *Server) error {
		if err := execAll(ctx, s, pgbenchSchema...); err != nil {
			return err
		}
		filler := strings.Repeat(" ", 84)
		if err := copyRows(ctx, s, "pgbench_branches", []string{"bid", "bbalance", "filler"}, branches,
			func(i int, d []any) { d[0], d[1], d[2] = i+1, 0, filler }); err != nil {
			return err
		}
		if err := copyRows(ctx, s, "pgbench_tellers", []string{"tid", "bid", "tbalance", "filler"}, tellers,
			func(i int, d []any) { d[0], d[1], d[2], d[3] = i+1, i/10+1, 0, filler }); err != nil {
			return err
		}
		if err := copyRows(ctx, s, "pgbench_accounts", []string{"aid", "bid", "abalance", "filler"}, accounts,
			func(i int, d []any) { d[0], d[1], d[2], d[3] = i+1, i/100_000+1, 0, filler }); err != nil {
			return err
		}
		return analyze(ctx, s, "pgbench_branches", "pgbench_tellers", "pgbench_accounts", "pgbench_history")
	})
	scale := fmt.Sprintf("%d accounts, %d branches", accounts, branches)
	var out []Workload
	add := func(name, script string, clients int, mode string, tries int) {
		out = append(out, Workload{
			Name: name, Group: "pgbench", Scale: scale,
			Setup: ds.setup,
			Run: func(ctx context.Context, t Target) ([]Measure, error) {
				s, err := server(t)
				if err != nil {
					return nil, err
				}
				r, err := RunPgbench(ctx, s.Host, s.Port, workDir, PgbenchSpec{
					Script: script, Clients: clients, Mode: mode, Duration: sc.Duration, MaxTries: tries})
				if err != nil {
					return nil, err
				}
				ms := []Measure{{Metric: "TPS", Value: r.TPS, Higher: true}}
				if tries > 0 {
					ms = append(ms, Measure{Metric: "retries", Value: float64(r.Retries), Info: true},
						Measure{Metric: "failed", Value: float64(r.Failed), Info: true})
				}
				return ms, nil
			},
		})
	}
	sel := fmt.Sprintf(pointSelectScript, accounts)
	for _, c := range []int{1, 8} {
		for _, m := range []string{"simple", "prepared"} {
			add(fmt.Sprintf("pgbench point select c=%d %s", c, m), sel, c, m, 0)
		}
	}
	tpcb := fmt.Sprintf(tpcbScript, accounts, branches, tellers)
	for _, c := range []int{1, 8} {
		// One try, pgbench's default: PostgreSQL applications do not
		// retry, and a contended writer waits for the row lock.
		add(fmt.Sprintf("pgbench TPC-B-like c=%d", c), tpcb, c, "prepared", 1)
	}
	return out
}
