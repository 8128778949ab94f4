package bench

import (
	"strings"
	"testing"
	"time"
)

func TestMarkdownAndPlots(t *testing.T) {
	w := Workload{Name: "pgbench point select c=1 simple", Scale: "1000 accounts"}
	lat := Workload{Name: "GROUP BY into 1000 groups", Scale: "1000 rows"}
	ser := Workload{Name: "series point select", Group: "scaling: point select"}
	res := &Results{
		Config:  Config{Rounds: 3, Scales: Quick},
		Started: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC), Elapsed: time.Minute,
		Rows: []*Row{
			{Workload: w, Metric: "TPS", Higher: true, Ref: "postgres", Cells: map[string]*Cell{"kvsql": {Median: 500}, "postgres": {Median: 1000}}},
			{Workload: lat, Metric: "ms", Ref: "postgres", Cells: map[string]*Cell{"kvsql": {Median: 30}, "postgres": {Median: 10}}},
			{Workload: ser, Metric: "p50 ms at 10000 rows", Series: 10000, Ref: "postgres", Cells: map[string]*Cell{"kvsql": {Median: 0.05}, "postgres": {Median: 0.04}}},
			{Workload: ser, Metric: "p50 ms at 1000000 rows", Series: 1000000, Ref: "postgres", Cells: map[string]*Cell{"kvsql": {Median: 0.06}, "postgres": {Median: 0.04}}},
		},
		Failures: []string{"x on kvsql: boom"},
	}
	plots := Plots(res)
	if len(plots) != 3 {
		t.Fatalf("%d plots, want throughput, latency and scaling", len(plots))
	}
	for _, p := range plots {
		wellFormed(t, p.SVG, "svg")
	}
	md := string(Markdown(res, Machine{CPUs: 2, CPU: "test cpu", Memory: "1 GiB", Go: "go1"}, "kvsql bench", func(f string) string { return "benchmarks/" + f }, plots, "## Where the time goes\n\nprofiles\n"))
	for _, want := range []string{
		"| pgbench point select c=1 simple | 1000 accounts | TPS | 500 | 1000 PostgreSQL | 0.5 | kvsql TPS / PostgreSQL TPS: kvsql 2.00x slower |",
		"| GROUP BY into 1000 groups | 1000 rows | ms | 30 | 10 PostgreSQL | 3 | kvsql time / PostgreSQL time: kvsql 3.00x slower |",
		"- x on kvsql: boom",
		"![Scaling series](benchmarks/scaling.svg)",
		"| CPU | test cpu |",
		"2026-01-02 03:04 UTC",
		"| point select | kvsql | 0.05 ms at 10000 rows | 0.06 ms at 1000000 rows | 1.2x |",
		"## Where the time goes\n\nprofiles",
		"### Analytics (full scans with filters, GROUP BY, hash join, ORDER BY ± LIMIT): time ≤ 1.5x PostgreSQL's: missed",
		"| GROUP BY into 1000 groups | ms | 3 | missed |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

func TestScaled(t *testing.T) {
	s := Full.Scaled(0.01)
	if s.Rows != Full.Rows/100 || s.Series[3] != 100_000 || s.Duration != Full.Duration {
		t.Errorf("Scaled(0.01) = %+v", s)
	}
	if Full.Series[3] != 1e7 {
		t.Errorf("Scaled modified Full's series: %v", Full.Series)
	}
	if got := Quick.Scaled(1e-9).Rows; got != 10 {
		t.Errorf("Scaled(tiny).Rows = %d, want the floor 10", got)
	}
}
