package bench

import (
	"math"
	"slices"
	"time"
)

// Median returns the median of xs (the mean of the middle two when len(xs)
// is even), or NaN when xs is empty. xs is not modified.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Ratio returns kvsql/ref, or NaN when either is not a positive finite
// number. For throughput figures a ratio above 1 means kvsql is faster;
// for times and latencies a ratio above 1 means kvsql is slower.
func Ratio(kvsql, ref float64) float64 {
	if !(kvsql > 0) || !(ref > 0) || math.IsInf(kvsql, 0) || math.IsInf(ref, 0) {
		return math.NaN()
	}
	return kvsql / ref
}

// Percentile returns the p-th percentile (0 < p <= 100) of sorted by the
// nearest-rank method, or 0 when sorted is empty. sorted must be ascending.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	if rank < 1 {
		rank = 1
	}
	if rank > len(sorted) {
		rank = len(sorted)
	}
	return sorted[rank-1]
}

// ms converts a duration to float milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
