package bench

import (
	"testing"
	"time"
)

// TestKindStatsMeasures checks that each kind's latencies are sorted and
// summed up separately and reported after the overall figures.
func TestKindStatsMeasures(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	kinds := kindStats(map[string][]time.Duration{
		"update": {ms(9), ms(7), ms(8)},
		"read":   {ms(2), ms(1)},
	})
	if len(kinds) != 2 || kinds[0].Kind != "read" || kinds[1].Kind != "update" {
		t.Fatalf("kinds = %+v, want read then update", kinds)
	}
	if kinds[0].Ops != 2 || kinds[1].Ops != 3 {
		t.Fatalf("ops = %d, %d, want 2, 3", kinds[0].Ops, kinds[1].Ops)
	}
	if kinds[1].P50 != ms(8) || kinds[1].P99 != ms(9) {
		t.Fatalf("update p50/p99 = %v/%v, want 8ms/9ms", kinds[1].P50, kinds[1].P99)
	}
	if kinds[0].Mean != 1500*time.Microsecond || kinds[1].Mean != ms(8) {
		t.Fatalf("means = %v, %v, want 1.5ms, 8ms", kinds[0].Mean, kinds[1].Mean)
	}
	m := DriveStats{Ops: 5, Elapsed: time.Second, Kinds: kinds}.Measures()
	var names []string
	for _, x := range m {
		names = append(names, x.Metric)
	}
	want := []string{"ops/s", "p50 ms", "p99 ms", "mean ms", "retries", "read p50 ms", "read p99 ms", "read mean ms", "update p50 ms", "update p99 ms", "update mean ms"}
	if len(names) != len(want) {
		t.Fatalf("metrics = %q, want %q", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("metrics = %q, want %q", names, want)
		}
	}
	if m[8].Value != 8 || m[7].Value != 1.5 {
		t.Fatalf("update p50 ms = %v, read mean ms = %v, want 8, 1.5", m[8].Value, m[7].Value)
	}
}
