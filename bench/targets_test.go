package bench

import (
	"math"
	"slices"
	"testing"
)

// TestTargetsCoverTheSuite holds the targets' matchers to the suite's real
// workload names, so a renamed workload cannot drop out of its target.
func TestTargetsCoverTheSuite(t *testing.T) {
	covered := make([][]string, len(targets))
	for _, w := range AllWorkloads(Full, 1, t.TempDir()) {
		for _, m := range []struct {
			metric string
			higher bool
		}{{"TPS", true}, {"ops/s", true}, {"rows/s", true}, {"ms", false}} {
			r := &Row{Workload: w, Metric: m.metric, Higher: m.higher, Ref: "postgres"}
			for i, tg := range targets {
				if tg.Match(r) && !slices.Contains(covered[i], w.Name) {
					covered[i] = append(covered[i], w.Name)
				}
			}
		}
	}
	want := [][]string{
		{"pgbench point select c=8 simple", "pgbench point select c=8 prepared", "pgbench TPC-B-like c=8", "YCSB read-heavy 95/5 zipfian", "chat: send a message"},
		{"bulk load by COPY", "bulk load by multi-row INSERT"},
		{"index lookup 1% full scan", "GROUP BY into 1000 groups", "ORDER BY with LIMIT 10", "hash join 1000000 x 100000"},
		{"index lookup 1% keyid index", "index lookup 10% keyid index"},
	}
	for i, names := range want {
		for _, n := range names {
			if !slices.Contains(covered[i], n) {
				t.Errorf("target %q does not cover %q; it covers %v", targets[i].Goal, n, covered[i])
			}
		}
	}
	for _, n := range covered[0] {
		if n == "pgbench point select c=1 prepared" {
			t.Errorf("the 8-client target covers a 1-client workload")
		}
	}
	if !(target{Bound: 1}).met(1.2, true) || (target{Bound: 1.5}).met(1.6, false) || (target{Bound: 1}).met(math.NaN(), true) {
		t.Error("met reads ratios the wrong way")
	}
}
