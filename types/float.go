package types

import "math"

// CompareFloat orders float8 (and float4) values as PostgreSQL's float
// comparisons do: NaN equals NaN and sorts above every number, +Inf
// included; -0 equals 0.
func CompareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	case a == b:
		return 0
	}
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	}
	return -1
}
