package types

import (
	"math"
	"testing"
)

func TestCompareFloat(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	ordered := []float64{math.Inf(-1), -1, 0, 1, inf, nan}
	for i, a := range ordered {
		for j, b := range ordered {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := CompareFloat(a, b); got != want {
				t.Errorf("CompareFloat(%v, %v) = %d, want %d", a, b, got, want)
			}
		}
	}
	if CompareFloat(math.Copysign(0, -1), 0) != 0 {
		t.Error("-0 and 0 differ")
	}
}
