package bench

import (
	"fmt"
	"math"
	"os"
	"strings"
)

// A target is one of the performance goals the suite is held to: a bound
// on kvsql's ratio to PostgreSQL over a set of figures. The report lists
// every figure under its target and whether it is met, so a run says at a
// glance which goals hold.
type target struct {
	Goal string // what the target is, as the report states it
	// Match selects the rows the target covers.
	Match func(r *Row) bool
	// Bound is the ratio to reach: at least Bound for throughput (Higher
	// rows), at most Bound for times.
	Bound float64
}

// targets are the goals of issue 17 (performance), in the report's order.
var targets = []target{
	{Goal: "OLTP at 8 clients: throughput ≥ 1.0 of PostgreSQL's", Bound: 1.0, Match: func(r *Row) bool {
		n := r.Workload.Name
		eight := strings.Contains(n, "c=8") || strings.HasPrefix(n, "YCSB") || strings.HasPrefix(n, "chat:")
		return eight && r.Higher && r.Ref == "postgres"
	}},
	{Goal: "Bulk load: rows/s ≥ 1.0 of PostgreSQL's", Bound: 1.0, Match: func(r *Row) bool {
		return strings.HasPrefix(r.Workload.Name, "bulk load") && r.Metric == "rows/s"
	}},
	{Goal: "Analytics (full scans with filters, GROUP BY, hash join, ORDER BY ± LIMIT): time ≤ 1.5x PostgreSQL's", Bound: 1.5, Match: func(r *Row) bool {
		n := r.Workload.Name
		analytic := strings.HasSuffix(n, "full scan") || strings.HasPrefix(n, "hash join") ||
			strings.HasPrefix(n, "GROUP BY") || strings.HasPrefix(n, "ORDER BY")
		return analytic && r.Metric == "ms"
	}},
	{Goal: "Index range reads at 1% and 10% through a non-unique index: time ≤ 1.2x PostgreSQL's", Bound: 1.2, Match: func(r *Row) bool {
		n := r.Workload.Name
		return (strings.HasPrefix(n, "index lookup 1% ") || strings.HasPrefix(n, "index lookup 10% ")) &&
			!strings.HasSuffix(n, "full scan") && r.Metric == "ms"
	}},
}

// met reports whether ratio satisfies t for a row read as higher-is-better
// or not.
func (t target) met(ratio float64, higher bool) bool {
	if math.IsNaN(ratio) || math.IsInf(ratio, 0) {
		return false
	}
	if higher {
		return ratio >= t.Bound
	}
	return ratio <= t.Bound
}

// targetsMarkdown is the report's Targets section: every target with the
// figures it covers, their ratios and whether each is met; "" when the
// run measured none of them.
func targetsMarkdown(res *Results) string {
	var b strings.Builder
	for _, t := range targets {
		var lines []string
		metAll := true
		for _, r := range res.Rows {
			if r.Info || r.Memory || !t.Match(r) {
				continue
			}
			ratio := r.Ratio()
			ok := t.met(ratio, r.Higher)
			metAll = metAll && ok
			verdict := "missed"
			if ok {
				verdict = "met"
			}
			lines = append(lines, fmt.Sprintf("| %s | %s | %s | %s |", r.Workload.Name, r.Metric, fmtNum(ratio), verdict))
		}
		if len(lines) == 0 {
			continue
		}
		verdict := "missed"
		if metAll {
			verdict = "met"
		}
		fmt.Fprintf(&b, "\n### %s: %s\n\n| workload | figure | ratio kvsql/PostgreSQL | |\n|---|---|---:|---|\n%s\n", t.Goal, verdict, strings.Join(lines, "\n"))
	}
	if b.Len() == 0 {
		return ""
	}
	return "## Targets\n\nThe ratios of the Results table held against the performance targets (throughput: kvsql/PostgreSQL, higher is better; time: kvsql/PostgreSQL, lower is better).\n" + b.String()
}

// analysisFile is the hand-written account of where the time goes,
// appended to the report as it stands: the generated tables say what was
// measured, the analysis says why, from profiles, with numbers.
const analysisFile = "benchmarks-analysis.md"

// analysisMarkdown reads the analysis next to the report, "" if absent.
func analysisMarkdown(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b)) + "\n"
}
