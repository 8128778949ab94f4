package bench

import (
	"math"
	"testing"
	"time"
)

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{7, 7, 1, 100, 7}, 7},
	} {
		in := append([]float64(nil), c.in...)
		if got := Median(c.in); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.in, got, c.want)
		}
		for i := range in {
			if in[i] != c.in[i] {
				t.Fatalf("Median modified its input: %v, was %v", c.in, in)
			}
		}
	}
	if got := Median(nil); !math.IsNaN(got) {
		t.Errorf("Median(nil) = %v, want NaN", got)
	}
}

func TestRatio(t *testing.T) {
	if got := Ratio(500, 1000); got != 0.5 {
		t.Errorf("Ratio(500, 1000) = %v, want 0.5", got)
	}
	if got := Ratio(3, 1.5); got != 2 {
		t.Errorf("Ratio(3, 1.5) = %v, want 2", got)
	}
	for _, c := range [][2]float64{{0, 1}, {1, 0}, {-1, 1}, {math.NaN(), 1}, {math.Inf(1), 1}, {1, math.Inf(1)}} {
		if got := Ratio(c[0], c[1]); !math.IsNaN(got) {
			t.Errorf("Ratio(%v, %v) = %v, want NaN", c[0], c[1], got)
		}
	}
}

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{{50, 50 * time.Millisecond}, {99, 99 * time.Millisecond}, {100, 100 * time.Millisecond}, {0.1, time.Millisecond}} {
		if got := Percentile(d, c.p); got != c.want {
			t.Errorf("Percentile(1..100ms, %v) = %v, want %v", c.p, got, c.want)
		}
	}
	if got := Percentile(nil, 50); got != 0 {
		t.Errorf("Percentile(nil) = %v, want 0", got)
	}
	if got := Percentile([]time.Duration{7}, 99); got != 7 {
		t.Errorf("Percentile([7], 99) = %v, want 7", got)
	}
}

func TestFasterSlower(t *testing.T) {
	for _, c := range []struct {
		r      float64
		higher bool
		want   string
	}{
		{2, true, "kvsql 2.00x faster"},
		{0.5, true, "kvsql 2.00x slower"},
		{2, false, "kvsql 2.00x slower"},
		{0.25, false, "kvsql 4.00x faster"},
	} {
		if got := fasterSlower(c.r, c.higher); got != c.want {
			t.Errorf("fasterSlower(%v, %v) = %q, want %q", c.r, c.higher, got, c.want)
		}
	}
}
